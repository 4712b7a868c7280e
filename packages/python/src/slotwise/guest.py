"""A component's guest module run on its own for the exports that take one buffer and give one back, their canonical ABI done here, so that each buffer crosses in one copy."""

from __future__ import annotations

import struct
from typing import Callable, FrozenSet, Iterable, List, Mapping, Optional, Sequence, Tuple

import wasmtime

from .errors import ComponentError

# wasmtime-py's component API turns a `list<u8>` into one value per byte on
# the way in and out: 54 ms of a 10,000-allocation reconcile that takes
# 1.7 ms in the guest. The guest module itself takes a pointer and a length.

_PREAMBLE = b"\0asm\x0d\x00\x01\x00"
_CORE_MODULE_SECTION = 1
# What a component gives its guest for the resources it exports itself: not
# the host's functions. A buffer export never calls them.
_RESOURCE_BUILTINS = ("[resource-new]", "[resource-drop]", "[resource-rep]")
_I32 = wasmtime.ValType.i32()
_U32 = 0xFFFF_FFFF


def core_modules(component: bytes) -> List[bytes]:
    """The core modules embedded at the top level of a component binary, in their order; none if it is not a component."""
    if not component.startswith(_PREAMBLE):
        return []
    modules = []
    at = len(_PREAMBLE)
    while at < len(component):
        section = component[at]
        size, at = _varint(component, at + 1)
        if at + size > len(component):
            return []
        if section == _CORE_MODULE_SECTION:
            modules.append(component[at : at + size])
        at += size
    return modules


def _varint(data: bytes, at: int) -> Tuple[int, int]:
    value = shift = 0
    while at < len(data) and shift < 35:
        byte = data[at]
        at += 1
        value |= (byte & 0x7F) << shift
        shift += 7
        if byte < 0x80:
            return value, at
    return len(data), len(data)


def imports_only_resource_builtins(imports: Iterable[Tuple[str, str]]) -> bool:
    """Whether every import ``(module, name)`` is a built-in of a resource the component exports, so that nothing of the host is missing when the module runs alone."""
    return all(
        module.startswith("[export]") and name.startswith(_RESOURCE_BUILTINS)
        for module, name in imports
    )


class GuestModule:
    """The guest module of a component, compiled on its own, for its exports of type ``func(list<u8>) -> list<u8>``.

    Each call runs in a fresh instance, as through the component.
    """

    def __init__(
        self,
        engine: wasmtime.Engine,
        module: wasmtime.Module,
        interface: str,
        exports: FrozenSet[str],
        what: str,
    ) -> None:
        self._engine = engine
        self._module = module
        self._interface = interface
        self._exports = exports
        self._what = what
        self._linker = wasmtime.Linker(engine)
        for item in module.imports:
            # `of` lets in only functions with a name.
            if isinstance(item.type, wasmtime.FuncType) and item.name is not None:
                self._linker.define_func(
                    item.module, item.name, item.type, _refuse(f"{item.module}#{item.name}")
                )

    @staticmethod
    def of(
        engine: wasmtime.Engine,
        component: bytes,
        interface: str,
        names: Sequence[str],
        what: str,
    ) -> Optional["GuestModule"]:
        """The guest of ``component`` when it can serve the buffer exports ``names`` of ``interface`` alone: one module with a memory and an allocator, each export a pointer and a length in and a pointer out, and no import but resource built-ins. Otherwise none, and the component serves them."""
        guests = []
        for binary in core_modules(component):
            try:
                module = wasmtime.Module(engine, binary)
            except wasmtime.WasmtimeError as e:
                raise ComponentError(f"{what} cannot be compiled: {e}") from e
            if "memory" in {item.name for item in module.exports}:
                guests.append(module)
        if len(guests) != 1:
            return None
        module = guests[0]
        if not all(isinstance(item.type, wasmtime.FuncType) for item in module.imports):
            return None
        if not imports_only_resource_builtins(
            (item.module, item.name or "") for item in module.imports
        ):
            return None
        types = {item.name: item.type for item in module.exports}
        if not _is_func(types.get("cabi_realloc"), 4, 1):
            return None
        if not all(_is_func(types.get(f"{interface}#{name}"), 2, 1) for name in names):
            return None
        return GuestModule(engine, module, interface, frozenset(names), what)

    def call(self, name: str, data: bytes) -> bytes:
        """Calls the buffer export ``name`` with ``data``: the buffer is written into a fresh instance's memory where its allocator says, and the answer read from where the export says."""
        if name not in self._exports:
            raise ComponentError(f"{self._what} exports no buffer function {self._interface}#{name}")
        if len(data) > _U32:
            raise ComponentError(f"{self._what} takes buffers below 4 GiB, not {len(data)} bytes")
        export = f"{self._interface}#{name}"
        store = wasmtime.Store(self._engine)
        try:
            exports = self._linker.instantiate(store, self._module).exports(store)
            memory = exports["memory"]
            if not isinstance(memory, wasmtime.Memory):
                raise ComponentError(f"{self._what} exports a `memory` that is not one")
            # An i32 comes back signed: an address beyond 2 GiB is negative.
            at = _address(_func(exports, "cabi_realloc")(store, 0, 0, 1, len(data)), self._what)
            _within(memory, store, at, len(data), self._what)
            if data:
                memory.write(store, data, at)
            answer = _address(_func(exports, export)(store, at, len(data)), self._what)
            _within(memory, store, answer, 8, self._what)
            start, length = struct.unpack("<II", memory.read(store, answer, answer + 8))
            _within(memory, store, start, length, self._what)
            out = bytes(memory.read(store, start, start + length))
            post_return = exports.get(f"cabi_post_{export}")
            if isinstance(post_return, wasmtime.Func):
                post_return(store, answer)
        except (wasmtime.WasmtimeError, wasmtime.Trap) as e:
            raise ComponentError(f"{self._what} failed in {name}: {e}") from e
        return out


def _is_func(kind: object, params: int, results: int) -> bool:
    return (
        isinstance(kind, wasmtime.FuncType)
        and [str(p) for p in kind.params] == [str(_I32)] * params
        and [str(r) for r in kind.results] == [str(_I32)] * results
    )


def _func(exports: Mapping[str, object], name: str) -> wasmtime.Func:
    func = exports[name]
    if not isinstance(func, wasmtime.Func):
        raise ComponentError(f"the guest's export {name} is not a function")
    return func


def _address(value: object, what: str) -> int:
    if not isinstance(value, int):
        raise ComponentError(f"{what} gave {value!r} where an address belongs")
    return value & _U32


def _within(memory: wasmtime.Memory, store: wasmtime.Store, at: int, length: int, what: str) -> None:
    if at + length > memory.data_len(store):
        raise ComponentError(f"{what} gave a buffer outside its memory (at {at}, {length} bytes)")


def _refuse(import_name: str) -> Callable[..., None]:
    def refuse(*_args: object) -> None:
        raise ComponentError(f"a buffer export called {import_name}, which it is not given")

    return refuse
