"""The reconciler component run from Python on its encoded path: the input crosses as one buffer, the plan comes back as one."""

from __future__ import annotations

import json
from importlib import resources
from typing import Any, Dict, Mapping, Optional, Union

import wasmtime

from .component import Component
from .contract import Plan, ReconcileInput
from .errors import InputError
from .wire import WireCodec

_INTERFACE = "slotwise:reconciler/reconcile@0.1.0"


def asset(name: str) -> bytes:
    """A file bundled with the package: a component or the contract's description."""
    return resources.files(__package__).joinpath("assets", name).read_bytes()


class Reconciler:
    """The reconciler component, compiled once (about half a second), for any number of reconciles.

    Each reconcile runs in a fresh instance, so a failure never leaves state
    behind. Calls from several threads are safe: each has its own instance.

    ``component`` is the reconciler component's bytes (the bundled one by
    default); ``engine`` a wasmtime engine to compile it with. ``bulk``
    (the default) runs the encoded path on the component's guest module,
    each buffer crossing in one copy; ``False`` goes through wasmtime-py's
    component API, which converts a buffer one value per byte. ``records``
    (the default) sends the input's allocations as records the reconciler
    reads where they lie (content 3 of the wire format); ``False`` sends
    every value in postcard's encoding (content 1).
    """

    def __init__(
        self,
        component: Optional[bytes] = None,
        *,
        engine: Optional[wasmtime.Engine] = None,
        bulk: bool = True,
        records: bool = True,
    ) -> None:
        self._component = Component(
            engine or wasmtime.Engine(),
            component if component is not None else asset("reconciler.wasm"),
            _INTERFACE,
            "the reconciler component",
            buffers=("reconcile-encoded",) if bulk else (),
        )
        self._wire = WireCodec(json.loads(asset("wit-types.json")))
        self._records = records

    @property
    def one_copy(self) -> bool:
        """Whether each buffer crosses in one copy: asked for, and the component's make-up allows it (the bundled one does)."""
        return self._component.one_copy

    @property
    def wire(self) -> WireCodec:
        """The codec of the component's buffers."""
        return self._wire

    def encode(self, input: Union[ReconcileInput, Mapping[str, Any]]) -> bytes:
        """``input`` as the buffer :meth:`reconcile` sends: its allocations as records (content 3), or content 1 for a reconciler made with ``records=False``.

        Raises :class:`InputError` naming the field of a value that does not fit the contract.
        """
        if self._records:
            return self._wire.encode_input_records(input)
        return self._wire.encode_input(input)

    def reconcile(self, input: Union[ReconcileInput, Mapping[str, Any], bytes]) -> Plan:
        """The plan for ``input``, a reconcile input in slotwise's JSON rendering (what ``slotwise input FILE`` prints, as ``json.loads`` reads it), or a buffer already in the wire format.

        Raises :class:`InputError` with the field at fault when the input does
        not fit the contract or the reconciler refuses it, and
        :class:`ComponentError` if the component traps.
        """
        if isinstance(input, (bytes, bytearray, memoryview)):
            encoded = bytes(input)
        else:
            encoded = self.encode(input)
        outcome = self._wire.decode_outcome(self.reconcile_encoded(encoded))
        if "Err" in outcome:
            error: Dict[str, str] = outcome["Err"]
            raise InputError(error["field"], error["message"])
        plan: Plan = outcome["Ok"]
        return plan

    def reconcile_encoded(self, input: bytes) -> bytes:
        """The component's ``reconcile-encoded`` as it is: an encoded input in, an encoded outcome out."""
        return self._component.call_bytes("reconcile-encoded", input)
