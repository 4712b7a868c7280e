"""The errors slotwise raises: each names the field at fault where there is one."""

from __future__ import annotations

from typing import Optional


class SlotwiseError(Exception):
    """Anything slotwise refuses or cannot do."""


class InputError(SlotwiseError, ValueError):
    """The reconciler input does not fit the contract, or the reconciler refuses it.

    ``field`` is the path of the field at fault, as the reconciler writes it
    (``allocations[0].allocations[1].spec.id``); ``encoded-input...`` when a
    buffer given as the input is not a valid encoded input.
    """

    def __init__(self, field: str, message: str) -> None:
        super().__init__(f"{field}: {message}")
        self.field = field
        self.message = message


class ScenarioError(SlotwiseError, ValueError):
    """A text that is not a scenario, with where it goes wrong when known."""

    def __init__(
        self,
        message: str,
        field: Optional[str] = None,
        line: Optional[int] = None,
        column: Optional[int] = None,
    ) -> None:
        where = ", ".join(
            part
            for part in (
                f"field {field}" if field is not None else "",
                f"line {line}" if line is not None else "",
                f"column {column}" if column is not None else "",
            )
            if part
        )
        super().__init__(f"{message} ({where})" if where else message)
        self.message = message
        self.field = field
        self.line = line
        self.column = column


class WireError(SlotwiseError):
    """A buffer in slotwise's wire format that cannot be read."""


class ComponentError(SlotwiseError):
    """A component that cannot be loaded, or that trapped; the next call starts afresh."""
