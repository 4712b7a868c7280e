"""The package encodes an input into the bytes the `slotwise` command writes, through the code it generates for inputs that fit and through its generic codecs for the rest, at the edges of every integer and string.

Run as `test_slotwise.py` is (see `repository.py`).
"""

from __future__ import annotations

import copy
import subprocess
from typing import Any, Dict, List, NoReturn

import pytest

import slotwise
import slotwise.wire
from repository import ROOT, SCENARIOS, SLOTWISE, scenario_input
from slotwise.wire import CONTENT_INPUT, WireCodec

WIRE_SCENARIOS = [*SCENARIOS, "tests/conformance/nomad/lost-and-drain/migrate-batch-allocs.yaml"]


def generic(wire: WireCodec, value: Any) -> bytes:
    """The input as the generic codecs alone write it."""
    return slotwise.wire._encode(wire._inputs[CONTENT_INPUT], CONTENT_INPUT, value)


def no_generic_codecs(*_: Any) -> NoReturn:
    raise AssertionError("the generic codecs were asked to encode the input")


@pytest.mark.parametrize("scenario", WIRE_SCENARIOS)
def test_an_input_encodes_into_the_bytes_slotwise_input_wire_prints_without_the_generic_codecs(
    scenario: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    printed = subprocess.run(
        [SLOTWISE, "input", scenario, "--wire"], cwd=ROOT, capture_output=True, timeout=120, check=True
    ).stdout
    input = scenario_input(scenario)
    wire = slotwise.Reconciler().wire
    monkeypatch.setattr(slotwise.wire, "_encode", no_generic_codecs)

    assert wire.encode_input(input) == printed


def edge_inputs() -> List[Dict[str, Any]]:
    """The first scenario with its integers at the edges of one, two, three, nine and ten varint bytes, and its strings empty, long and beyond ASCII."""
    base = scenario_input(SCENARIOS[0])
    inputs = []
    unsigned = [0, 127, 128, 16_383, 16_384, (1 << 28) - 1, 1 << 28, (1 << 32) - 1]
    for n in unsigned:
        edged = copy.deepcopy(base)
        spec = edged["allocations"][0]["allocations"][0]["spec"]
        spec["name-index"] = min(n, 1_000_000)
        spec["create-index"] = n
        spec["job-version"] = n
        spec["fingerprint"] = {"destructive": n << 31, "in-place": (1 << 64) - 1 - n}
        inputs.append(edged)
    for now in [0, -1, 63, -64, 64, (1 << 53) + 1, (1 << 63) - 1, -(1 << 63)]:
        inputs.append({**copy.deepcopy(base), "now": now})
    for text in ["", "x" * 127, "x" * 128, "é" * 100, "nœud-🚀"]:
        edged = copy.deepcopy(base)
        edged["allocations"][0]["allocations"][0]["spec"]["id"] = text
        edged["job-id"] = text
        inputs.append(edged)
    return inputs


@pytest.mark.parametrize("input", edge_inputs())
def test_the_generated_code_writes_every_edge_as_the_generic_codecs_do(
    input: Dict[str, Any], monkeypatch: pytest.MonkeyPatch
) -> None:
    wire = slotwise.Reconciler().wire
    expected = generic(wire, input)
    monkeypatch.setattr(slotwise.wire, "_encode", no_generic_codecs)

    assert wire.encode_input(input) == expected


class Count(int):
    pass


class Name(str):
    pass


class Score(float):
    pass


def test_values_the_generated_code_passes_over_are_written_by_the_generic_codecs() -> None:
    wire = slotwise.Reconciler().wire
    input = scenario_input(SCENARIOS[0])
    spec = input["allocations"][0]["allocations"][0]["spec"]
    spec["name-index"] = Count(spec["name-index"])
    spec["id"] = Name(spec["id"])
    spec["placement-score"] = Score(0.25)
    input["nodes"] = tuple(input["nodes"])

    assert wire.encode_input(input) == generic(wire, input)
    assert wire.decode_input(wire.encode_input(input))["allocations"][0]["allocations"][0]["spec"][
        "placement-score"
    ] == 0.25


@pytest.mark.parametrize(
    "field, value, message",
    [
        ("now", 1 << 63, "expected s64"),
        ("now", 1.5, "expected s64"),
        ("job-id", b"bytes", "expected string"),
        ("explain", 1, "expected bool"),
        ("job-id", "\ud800", "cannot be UTF-8"),
    ],
)
def test_a_value_the_generated_code_refuses_is_named_by_the_generic_codecs(
    field: str, value: Any, message: str
) -> None:
    input = {**scenario_input(SCENARIOS[0]), field: value}
    with pytest.raises(slotwise.InputError) as refused:
        slotwise.Reconciler().wire.encode_input(input)
    assert refused.value.field == field
    assert message in refused.value.message
