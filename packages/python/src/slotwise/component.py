"""slotwise's components run with wasmtime: each compiled once, a fresh instance for every call, buffers passed across in one copy."""

from __future__ import annotations

import ctypes
from typing import Any, Optional, cast

import wasmtime
from wasmtime import component as wc

from .errors import ComponentError

try:
    # wasmtime-py lowers a `list<u8>` one Python call per byte (about 0.7 µs
    # each: half a second for a large plan). Its C API takes the list as an
    # array of value cells, which can be filled with two strided copies.
    from wasmtime import _ffi as _capi
    from wasmtime.component._enter import enter_wasm as _enter_wasm

    _CELL = _capi.wasmtime_component_val_t
    _STRIDE = ctypes.sizeof(_CELL)
    _KIND_AT = _CELL.kind.offset
    # The union's fields are annotated as their values' types, not as descriptors.
    _BYTE_AT = _CELL.of.offset + cast(Any, _capi.wasmtime_component_valunion).u8.offset
    _U8 = _capi.WASMTIME_COMPONENT_U8.value
    _LIST = _capi.WASMTIME_COMPONENT_LIST.value
    BULK_AVAILABLE = True
except (ImportError, AttributeError):  # another wasmtime-py: the public path serves
    BULK_AVAILABLE = False


class Component:
    """A component compiled for ``engine``; every call gets a fresh instance, as slotwise's own host gives it.

    A fresh instance costs about 0.1 ms. It keeps no memory between calls,
    and a call that traps leaves nothing behind for the next.
    """

    def __init__(self, engine: wasmtime.Engine, wasm: bytes, interface: str, what: str) -> None:
        self._engine = engine
        self._interface = interface
        self._what = what
        try:
            self._component = wc.Component(engine, wasm)
        except wasmtime.WasmtimeError as e:
            raise ComponentError(f"{what} cannot be compiled: {e}") from e
        self._linker = wc.Linker(engine)

    def _func(self, name: str) -> "tuple[wasmtime.Store, wc.Func]":
        store = wasmtime.Store(self._engine)
        try:
            instance = self._linker.instantiate(store, self._component)
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
        except wasmtime.WasmtimeError as e:
            raise ComponentError(f"{self._what} failed in {name}: {e}") from e
        return result

    def call_bytes(self, name: str, data: bytes, bulk: bool = True) -> bytes:
        """Calls the export ``name``, a ``func(list<u8>) -> list<u8>``, with ``data``.

        ``bulk`` passes the buffers through wasmtime's C API in one copy each
        way; without it (or on a wasmtime-py whose internals differ), through
        wasmtime-py's public conversion.
        """
        if not (bulk and BULK_AVAILABLE):
            result: bytes = self.call(name, data)
            return result
        store, func = self._func(name)
        try:
            result = _call_bytes(store, func, data)
            func.post_return(store)
        except wasmtime.WasmtimeError as e:
            raise ComponentError(f"{self._what} failed in {name}: {e}") from e
        return result


def _call_bytes(store: wasmtime.Store, func: wc.Func, data: bytes) -> bytes:
    n = len(data)
    params = (_CELL * 1)()
    cells = _capi.wasmtime_component_vallist_t()
    _capi.wasmtime_component_vallist_new_uninit(cells, n)
    if n:
        view = _cells_view(cells.data, n)
        view[_KIND_AT::_STRIDE] = bytes((_U8,)) * n
        view[_BYTE_AT::_STRIDE] = data
        del view
    params[0].kind = _LIST
    params[0].of.list = cells
    result = _CELL()
    try:
        _enter_wasm(
            lambda: _capi.wasmtime_component_func_call(
                ctypes.byref(func._func), store._context(), params, 1, ctypes.byref(result), 1
            )
        )
    finally:
        _capi.wasmtime_component_val_delete(ctypes.byref(params[0]))
    try:
        if result.kind != _LIST:
            raise ComponentError("the component returned something other than a list<u8>")
        out = result.of.list
        m = out.size
        if m == 0:
            return b""
        view = _cells_view(out.data, m)
        if view[_KIND_AT::_STRIDE].tobytes().count(_U8) != m:
            raise ComponentError("the component returned something other than a list<u8>")
        data_out = view[_BYTE_AT::_STRIDE].tobytes()
        del view
        return data_out
    finally:
        _capi.wasmtime_component_val_delete(ctypes.byref(result))


def _cells_view(pointer: Any, n: int) -> memoryview:
    address: Optional[int] = ctypes.cast(pointer, ctypes.c_void_p).value
    if address is None:
        raise ComponentError("wasmtime handed back a null list")
    return memoryview((ctypes.c_ubyte * (_STRIDE * n)).from_address(address)).cast("B")
