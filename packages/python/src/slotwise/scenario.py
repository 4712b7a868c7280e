"""Scenario files read by the scenario-reader component: the text in, the reconciler input `slotwise input` would print out."""

from __future__ import annotations

import json
from typing import Any, Literal, Optional

import wasmtime

from .component import Component
from .contract import ReconcileInput
from .errors import ComponentError, ScenarioError
from .reconciler import asset

_INTERFACE = "slotwise:scenario-reader/reader@0.1.0"

Syntax = Literal["yaml", "json"]


class ScenarioReader:
    """The scenario-reader component, compiled once; each read runs in a fresh instance."""

    def __init__(self, *, engine: Optional[wasmtime.Engine] = None) -> None:
        self._component = Component(
            engine or wasmtime.Engine(),
            asset("scenario-reader.wasm"),
            _INTERFACE,
            "the scenario-reader component",
        )

    def read(self, text: str, syntax: Syntax = "yaml") -> ReconcileInput:
        """The reconciler input the scenario ``text`` describes, with the defaults the ``slotwise`` command applies.

        Raises :class:`ScenarioError` naming the field, line and column at fault.
        """
        if not isinstance(text, str):
            raise TypeError(f"a scenario is text, not {type(text).__name__}")
        if syntax not in ("yaml", "json"):
            raise ValueError(f"syntax is 'yaml' or 'json', not {syntax!r}")
        outcome = self._component.call("read", text, syntax)
        tag = getattr(outcome, "tag", None)
        payload: Any = getattr(outcome, "payload", None)
        if tag == "err":
            raise ScenarioError(
                payload.message,
                field=payload.field,
                line=payload.line,
                column=payload.column,
            )
        if tag != "ok":
            raise ComponentError(f"the scenario reader answered {outcome!r}")
        input: ReconcileInput = json.loads(payload.input)
        return input
