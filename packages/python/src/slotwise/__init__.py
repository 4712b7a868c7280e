"""slotwise from Python: the task-group reconciler, a WebAssembly component, run with wasmtime.

    >>> import slotwise
    >>> plan = slotwise.reconcile(slotwise.read_scenario(open("scenario.yaml").read()))

Inputs and plans are slotwise's JSON rendering, as ``slotwise input`` and
``slotwise reconcile --json`` print them: dicts with kebab-case keys. Their
types are :class:`ReconcileInput` and :class:`Plan` (TypedDicts generated
from the WIT contract).
"""

from __future__ import annotations

import threading
from typing import Any, Mapping, Optional, Union

from .contract import Plan, ReconcileInput
from .errors import ComponentError, InputError, ScenarioError, SlotwiseError, WireError
from .reconciler import Reconciler
from .scenario import ScenarioReader, Syntax
from .wire import WireCodec

__all__ = [
    "ComponentError",
    "InputError",
    "Plan",
    "ReconcileInput",
    "Reconciler",
    "ScenarioError",
    "ScenarioReader",
    "SlotwiseError",
    "Syntax",
    "WireCodec",
    "WireError",
    "read_scenario",
    "reconcile",
]

__version__ = "0.1.0"

_lock = threading.Lock()
_reconciler: Optional[Reconciler] = None
_reader: Optional[ScenarioReader] = None


def reconcile(input: Union[ReconcileInput, Mapping[str, Any], bytes]) -> Plan:
    """The plan for ``input`` (see :meth:`Reconciler.reconcile`), with a reconciler compiled on first use."""
    global _reconciler
    with _lock:
        if _reconciler is None:
            _reconciler = Reconciler()
        reconciler = _reconciler
    return reconciler.reconcile(input)


def read_scenario(text: str, syntax: Syntax = "yaml") -> ReconcileInput:
    """The reconciler input a scenario file's ``text`` describes (see :meth:`ScenarioReader.read`)."""
    global _reader
    with _lock:
        if _reader is None:
            _reader = ScenarioReader()
        reader = _reader
    return reader.read(text, syntax)
