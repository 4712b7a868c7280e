"""A buffer export run on a component's guest module keeps the component's promises: its answer whole, a named error for a trap or a stray pointer, and a fresh instance for the next call.

The guests here are core modules written in WAT and wrapped in a component's
preamble: enough for the package to find them, not a component wasmtime
would load.
"""

from __future__ import annotations

import wasmtime
import pytest

from slotwise.errors import ComponentError
from slotwise.guest import GuestModule, core_modules, imports_only_resource_builtins

INTERFACE = "test:guest/buffers@0.1.0"

GUEST = """
(module
  (import "[export]test:guest/buffers@0.1.0" "[resource-drop]handle" (func $drop (param i32)))
  (memory (export "memory") 1)
  (global $next (mut i32) (i32.const 1024))
  (func (export "cabi_realloc") (param i32 i32 i32 i32) (result i32)
    (local $at i32)
    (local.set $at (global.get $next))
    (global.set $next (i32.add (global.get $next) (local.get 3)))
    (local.get $at))
  ;; Answers its input whole: the canonical ABI's return area holds the
  ;; pointer and the length.
  (func (export "test:guest/buffers@0.1.0#echo") (param i32 i32) (result i32)
    (i32.store (i32.const 16) (local.get 0))
    (i32.store (i32.const 20) (local.get 1))
    (i32.const 16))
  ;; Answers like echo, then fails in the call that frees its answer.
  (func (export "test:guest/buffers@0.1.0#unfreed") (param i32 i32) (result i32)
    (i32.store (i32.const 16) (local.get 0))
    (i32.store (i32.const 20) (local.get 1))
    (i32.const 16))
  (func (export "cabi_post_test:guest/buffers@0.1.0#unfreed") (param i32)
    unreachable)
  (func (export "test:guest/buffers@0.1.0#stray") (param i32 i32) (result i32)
    (i32.store (i32.const 16) (i32.const 65530))
    (i32.store (i32.const 20) (i32.const 100))
    (i32.const 16))
  ;; An address beyond 2 GiB, which an i32 carries as a negative number.
  (func (export "test:guest/buffers@0.1.0#high") (param i32 i32) (result i32)
    (i32.const -1024))
  (func (export "test:guest/buffers@0.1.0#trap") (param i32 i32) (result i32)
    unreachable)
  (func (export "test:guest/buffers@0.1.0#builtin") (param i32 i32) (result i32)
    (call $drop (i32.const 0))
    (i32.const 16)))
"""

NAMES = ("echo", "unfreed", "stray", "high", "trap", "builtin")


def component_of(*modules: bytes) -> bytes:
    """A component's preamble followed by each module as a core-module section."""
    out = bytearray(b"\0asm\x0d\x00\x01\x00")
    for module in modules:
        out.append(1)
        size = len(module)
        while True:
            byte = size & 0x7F
            size >>= 7
            out.append(byte | (0x80 if size else 0))
            if not size:
                break
        out += module
    return bytes(out)


def guest(wat: str = GUEST, names: tuple[str, ...] = NAMES) -> GuestModule | None:
    component = component_of(bytes(wasmtime.wat2wasm(wat)))
    return GuestModule.of(wasmtime.Engine(), component, INTERFACE, names, "the test guest")


def loaded() -> GuestModule:
    """The test guest, which can serve every buffer export alone."""
    found = guest()
    assert found is not None
    return found


def test_a_buffer_crosses_whole_both_ways() -> None:
    found = loaded()
    data = bytes(range(256)) * 40

    assert found.call("echo", data) == data
    assert found.call("echo", b"") == b""


@pytest.mark.parametrize(
    "export, message",
    [
        # The answer is read, then freeing it fails: the post-return ran.
        ("unfreed", "failed in unfreed"),
        ("stray", "gave a buffer outside its memory"),
        ("high", r"outside its memory \(at 4294966272, 8 bytes\)"),
        ("builtin", r"called \[export\]test:guest/buffers@0.1.0#\[resource-drop\]handle"),
    ],
    ids=["post-return", "stray-pointer", "address-beyond-2-gib", "resource-built-in"],
)
def test_a_guest_that_misbehaves_is_a_component_error_saying_how(export: str, message: str) -> None:
    with pytest.raises(ComponentError, match=message):
        loaded().call(export, b"x")


def test_a_trap_is_a_component_error_and_the_next_call_gets_a_fresh_instance() -> None:
    found = loaded()

    with pytest.raises(ComponentError, match="failed in trap"):
        found.call("trap", b"x")

    assert found.call("echo", b"again") == b"again"


def test_an_export_not_asked_for_at_loading_is_refused() -> None:
    found = guest(names=("echo",))
    assert found is not None
    with pytest.raises(ComponentError, match="exports no buffer function"):
        found.call("trap", b"x")


def test_a_guest_that_needs_the_host_or_lacks_an_export_is_left_to_the_component() -> None:
    needs_wasi = GUEST.replace(
        '(import "[export]test:guest/buffers@0.1.0" "[resource-drop]handle"',
        '(import "wasi_snapshot_preview1" "proc_exit"',
    )
    assert guest(needs_wasi) is None
    assert guest(names=("echo", "absent")) is None
    assert guest(GUEST.replace('"cabi_realloc"', '"realloc"')) is None


def test_only_built_ins_of_exported_resources_count_as_needing_nothing() -> None:
    assert imports_only_resource_builtins([])
    assert imports_only_resource_builtins(
        [("[export]a:b/c@0.1.0", "[resource-new]r"), ("[export]a:b/c@0.1.0", "[resource-rep]r")]
    )
    assert not imports_only_resource_builtins([("a:b/c@0.1.0", "[resource-drop]r")])
    assert not imports_only_resource_builtins([("[export]a:b/c@0.1.0", "log")])


def test_what_is_not_a_component_holds_no_core_module() -> None:
    module = bytes(wasmtime.wat2wasm("(module)"))
    assert core_modules(module) == []
    assert core_modules(b"") == []
    assert core_modules(component_of(module)) == [module]
    assert core_modules(component_of(module)[:-1]) == []
