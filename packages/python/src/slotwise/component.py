"""slotwise's components run with wasmtime: each compiled once, a fresh instance for every call, buffers passed across in one copy."""

from __future__ import annotations

from typing import Any, Optional, Sequence

import wasmtime
from wasmtime import component as wc

from .errors import ComponentError
from .guest import GuestModule


class Component:
    """A component compiled for ``engine``; every call gets a fresh instance, as slotwise's own host gives it.

    A fresh instance costs about 0.1 ms. It keeps no memory between calls,
    and a call that traps leaves nothing behind for the next.

    ``buffers`` names the exports of type ``func(list<u8>) -> list<u8>`` to
    run on the component's guest module directly, each buffer crossing in
    one copy (see :class:`GuestModule`). When the component's make-up does
    not allow it, or for any other export, wasmtime-py's component API
    serves, compiled on first use.
    """

    def __init__(
        self,
        engine: wasmtime.Engine,
        wasm: bytes,
        interface: str,
        what: str,
        buffers: Sequence[str] = (),
    ) -> None:
        self._engine = engine
        self._wasm = wasm
        self._interface = interface
        self._what = what
        self._guest = GuestModule.of(engine, wasm, interface, buffers, what) if buffers else None
        self._compiled: Optional[wc.Component] = None
        self._linker = wc.Linker(engine)
        if self._guest is None:
            self._component()

    @property
    def one_copy(self) -> bool:
        """Whether the buffer exports run on the guest module, each buffer crossing in one copy."""
        return self._guest is not None

    def _component(self) -> wc.Component:
        if self._compiled is None:
            try:
                self._compiled = wc.Component(self._engine, self._wasm)
            except wasmtime.WasmtimeError as e:
                raise ComponentError(f"{self._what} cannot be compiled: {e}") from e
        return self._compiled

    def _func(self, name: str) -> "tuple[wasmtime.Store, wc.Func]":
        store = wasmtime.Store(self._engine)
        try:
            instance = self._linker.instantiate(store, self._component())
        except wasmtime.WasmtimeError as e:
            raise ComponentError(f"{self._what} cannot be instantiated: {e}") from e
        interface = instance.get_export_index(store, self._interface)
        index = None if interface is None else instance.get_export_index(store, name, interface)
        func = None if index is None else instance.get_func(store, index)
        if func is None:
            raise ComponentError(f"{self._what} exports no {self._interface}#{name}")
        return store, func

    def call(self, name: str, *args: Any) -> Any:
        """Calls the export ``name`` of the interface with ``args``, wasmtime-py converting them."""
        store, func = self._func(name)
        try:
            result = func(store, *args)
            func.post_return(store)
        except (wasmtime.WasmtimeError, wasmtime.Trap) as e:
            raise ComponentError(f"{self._what} failed in {name}: {e}") from e
        return result

    def call_bytes(self, name: str, data: bytes) -> bytes:
        """Calls the buffer export ``name`` with ``data``: on the guest module when it serves ``name``, else through wasmtime-py's conversion, a value per byte."""
        if self._guest is not None:
            return self._guest.call(name, data)
        result: bytes = self.call(name, data)
        return result
