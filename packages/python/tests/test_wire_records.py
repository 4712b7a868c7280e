"""The package writes content 3, allocations as records, into the bytes `slotwise input --wire --records` prints, reads it back, names a misfit inside an allocation as for content 1, and plans from it as from content 1.

Run as `test_slotwise.py` is (see `repository.py`).
"""

from __future__ import annotations

import copy
import json
import math
import struct
import subprocess
import types
from pathlib import Path
from typing import Any, Dict, List

import pytest

import slotwise
import slotwise.wire
import slotwise.wire_records
from repository import ROOT, SCENARIOS, SLOTWISE, scenario_input
from slotwise.wire import CONTENT_INPUT, CONTENT_RECORDS
from test_wire import Count, Name, Score, no_generic_codecs

# Beside those `test_wire.py` compares, scenarios chosen for what their
# records place and their tails hold.
RECORD_SCENARIOS = [
    *SCENARIOS,
    "tests/conformance/nomad/lost-and-drain/migrate-batch-allocs.yaml",
    # Two groups with a deployment each: each group has a tail of its own.
    "tests/conformance/nomad/canaries/failed-deployment-cancel-canaries.yaml",
    "tests/conformance/nomad/system/system-sched-update-block--canaries-failed.yaml",
    # Two deployments in one group, and health.
    "tests/conformance/nomad/deployments/failed-deployment-auto-revert-cancel-canaries.yaml",
    # update, beside deployments and health.
    "tests/conformance/nomad/deployments/deployment-limit-health-accounting--1-healthy.yaml",
    # The rest: client-states; tasks; a reschedule tracker; a follow-up eval.
    "tests/conformance/nomad/classification/classification-rules--failed-reconnect-run.yaml",
    "tests/conformance/nomad/client-terminal/scale-down-client-terminal-service-active-deployment.yaml",
    "tests/conformance/nomad/reschedule-delay/next-delay--exponential-delay-with-reschedule-tracker.yaml",
    "tests/conformance/nomad/classification/classification-rules--disconnected-unknown-becomes-untainted.yaml",
    # Placement scores; then previous and next allocations as well.
    "tests/conformance/nomad/disconnect/disconnected-client--replace-allocs-on-disconnected-node.yaml",
    "tests/conformance/nomad/disconnect/disconnected-client--resume-original-and-stop-replacement.yaml",
    # A desired transition, and health whose healthy is unknown.
    "tests/conformance/nomad/classification/classification-rules--terminal-canary-migrate.yaml",
]


@pytest.fixture(scope="module")
def reconciler() -> slotwise.Reconciler:
    """One for every test here: compiling the component is most of a test's time, and calls share nothing."""
    return slotwise.Reconciler()


def printed(scenario: str, *flags: str) -> bytes:
    """What `slotwise input` prints for the scenario file at ``scenario``."""
    return subprocess.run(
        [SLOTWISE, "input", scenario, *flags], cwd=ROOT, capture_output=True, timeout=120, check=True
    ).stdout


def every_field_set() -> Dict[str, Any]:
    """The first scenario with its allocations setting what no scenario sets (meta, changed-at, strings beyond ASCII, every flag, integers at their edges) and deployments that come back after another."""
    input = scenario_input(SCENARIOS[0])
    allocations = input["allocations"][0]["allocations"]
    first = allocations[0]
    first["spec"].update(
        {
            "name-index": (1 << 32) - 1,
            "job-version": (1 << 64) - 1,
            "create-index": 1 << 63,
            "deployment": "déploiement-1",
            "previous-allocation": "précédente",
            "next-allocation": "nœud-🚀",
            "fingerprint": {"destructive": 0, "in-place": (1 << 64) - 1},
            "placement-score": -0.0,
        }
    )
    first["observed"].update(
        {
            "desired-status": "evict",
            "client-status": "unknown",
            "desired-transition": {
                "migrate": True,
                "reschedule": True,
                "force-reschedule": True,
                "migrate-disable-placement": True,
            },
            "health": {"healthy": False, "canary": True, "changed-at": -(1 << 63)},
            "reschedule": {"events": [{"at": 5, "delay": 30_000_000_000}], "last-failed": True},
            "followup-eval": "suivi",
            "client-states": [{"status": "lost", "at": -1}, {"status": None, "at": 7}],
            "tasks": [
                {
                    "name": "tâche",
                    "state": "dead",
                    "failed": True,
                    "started-at": 1,
                    "finished-at": None,
                    "restarts": 3,
                    "last-restart": 2,
                }
            ],
            "modify-time": (1 << 63) - 1,
            "meta": [["clé", "valeur"], ["", ""]],
        }
    )
    first["update"] = "destructive"
    # The deployment of the record before, then another, then the first
    # again: only a record that repeats the last one written shares its bytes.
    deployments = ["déploiement-1", "d-2", "déploiement-1", "déploiement-1"]
    for allocation, deployment in zip(allocations[1:], deployments):
        allocation["spec"]["deployment"] = deployment
    allocations[1]["observed"]["health"] = {"healthy": True, "canary": False, "changed-at": None}
    allocations[2]["observed"]["health"] = {"healthy": None, "canary": False, "changed-at": 0}
    # Present though empty: the rest is placed, not zeros.
    allocations[3]["observed"]["tasks"] = []
    allocations[4]["update"] = "ignore"
    return input


@pytest.mark.parametrize("scenario", RECORD_SCENARIOS)
def test_an_input_encodes_into_the_bytes_slotwise_input_wire_records_prints(
    reconciler: slotwise.Reconciler, scenario: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    expected = printed(scenario, "--wire", "--records")
    input = scenario_input(scenario)
    wire = reconciler.wire
    monkeypatch.setattr(slotwise.wire, "_encode", no_generic_codecs)

    encoded = wire.encode_input_records(input)

    assert encoded[:4] == b"SW\x01\x03"
    assert encoded == expected
    assert wire.decode_input(encoded) == input


def test_every_field_of_a_record_encodes_as_slotwise_writes_it_and_reads_back(
    reconciler: slotwise.Reconciler, tmp_path: Path
) -> None:
    input = every_field_set()
    # A scenario file may give the reconcile input whole.
    scenario = tmp_path / "every-field.json"
    scenario.write_text(json.dumps({"input": input}))
    wire = reconciler.wire

    encoded = wire.encode_input_records(input)

    assert encoded == printed(str(scenario), "--wire", "--records")
    assert wire.decode_input(encoded) == input
    assert wire.encode_input(input) == printed(str(scenario), "--wire")


def test_values_of_other_types_than_json_gives_are_packed_as_their_plain_selves(
    reconciler: slotwise.Reconciler, monkeypatch: pytest.MonkeyPatch
) -> None:
    wire = reconciler.wire
    plain = every_field_set()
    for allocation in plain["allocations"][0]["allocations"][1:3]:
        # Present, though JSON would render it as none.
        allocation["spec"]["placement-score"] = math.nan
    expected = wire.encode_input_records(plain)
    unusual = copy.deepcopy(plain)
    allocations = unusual["allocations"][0]["allocations"]
    first = allocations[0]
    first["spec"]["name-index"] = Count(first["spec"]["name-index"])
    first["spec"]["id"] = Name(first["spec"]["id"])
    first["spec"]["deployment"] = Name(first["spec"]["deployment"])
    first["observed"]["health"]["changed-at"] = Count(first["observed"]["health"]["changed-at"])
    first["observed"] = types.MappingProxyType(first["observed"])
    allocations[1]["spec"] = types.MappingProxyType(allocations[1]["spec"])
    allocations[2]["spec"]["placement-score"] = Score(math.nan)
    unusual["allocations"][0]["allocations"] = tuple(allocations)
    monkeypatch.setattr(slotwise.wire, "_encode", no_generic_codecs)

    assert wire.encode_input_records(unusual) == expected


def misfits() -> List[Any]:
    """Values that do not fit where an allocation's record or rest holds them: the field set, its value, the field named, the message."""
    return [
        ("spec.id", b"bytes", "spec.id", "expected string"),
        ("spec.id", "\ud800", "spec.id", "cannot be UTF-8"),
        ("spec.name-index", -1, "spec.name-index", "expected u32"),
        ("spec.name-index", True, "spec.name-index", "expected u32"),
        ("spec.job-version", 1 << 64, "spec.job-version", "expected u64"),
        ("spec.deployment", 5, "spec.deployment", "expected string"),
        ("spec.placement-score", "high", "spec.placement-score", "expected f64"),
        ("spec.fingerprint", {"destructive": 1, "in-place": 1.5}, "spec.fingerprint.in-place", "u64"),
        ("spec.fingerprint", {"destructive": 1}, "spec.fingerprint.in-place", "missing field"),
        ("observed.client-status", "gone", "observed.client-status", "expected a case of client-status"),
        ("observed.modify-time", 1 << 63, "observed.modify-time", "expected s64"),
        ("observed.health", {"canary": 1}, "observed.health.canary", "expected bool"),
        (
            "observed.desired-transition",
            {"migrate": False, "reschedule": False, "force-reschedule": False},
            "observed.desired-transition.migrate-disable-placement",
            "missing field of desired-transition",
        ),
        ("observed.tasks", [{"name": "web"}], "observed.tasks[0].state", "missing field of task-state"),
        ("observed.meta", [["key"]], "observed.meta[0]", "expected a tuple of 2"),
        ("update", "sideways", "update", "expected a case of update-kind"),
    ]


@pytest.mark.parametrize("field, value, named, message", misfits())
def test_a_misfit_inside_an_allocation_is_named_as_content_1_names_it(
    reconciler: slotwise.Reconciler, field: str, value: Any, named: str, message: str
) -> None:
    input = scenario_input(SCENARIOS[0])
    place: Dict[str, Any] = input["allocations"][0]["allocations"][1]
    *path, key = field.split(".")
    for step in path:
        place = place[step]
    place[key] = value
    wire = reconciler.wire

    with pytest.raises(slotwise.InputError) as records:
        wire.encode_input_records(input)
    with pytest.raises(slotwise.InputError) as content_1:
        wire.encode_input(input)

    assert records.value.field == f"allocations[0].allocations[1].{named}"
    assert message in records.value.message
    assert (records.value.field, records.value.message) == (content_1.value.field, content_1.value.message)


@pytest.mark.parametrize("scenario", RECORD_SCENARIOS)
def test_plans_from_content_3_are_those_from_content_1(
    reconciler: slotwise.Reconciler, scenario: str
) -> None:
    input = {**scenario_input(scenario), "explain": True}
    wire = reconciler.wire

    from_records = reconciler.reconcile_encoded(wire.encode_input_records(input))
    from_values = reconciler.reconcile_encoded(wire.encode_input(input))

    assert from_records == from_values
    assert reconciler.reconcile(input) == reconciler.reconcile(wire.encode_input(input))


def test_the_reconciler_sends_records_unless_asked_for_content_1(reconciler: slotwise.Reconciler) -> None:
    input = scenario_input(SCENARIOS[0])
    assert reconciler.encode(input)[3] == CONTENT_RECORDS
    assert slotwise.Reconciler(records=False).encode(input)[3] == CONTENT_INPUT


def test_every_field_of_a_record_reaches_the_reconciler_as_from_content_1(
    reconciler: slotwise.Reconciler,
) -> None:
    input = every_field_set()

    answer = reconciler.reconcile_encoded(reconciler.wire.encode_input_records(input))

    assert answer == reconciler.reconcile_encoded(reconciler.wire.encode_input(input))


def test_a_group_beyond_the_records_offsets_is_written_in_content_1(
    reconciler: slotwise.Reconciler, monkeypatch: pytest.MonkeyPatch
) -> None:
    input = scenario_input(SCENARIOS[0])
    wire = reconciler.wire
    monkeypatch.setattr(slotwise.wire_records, "_LIMIT", 5 * slotwise.wire_records.LEN)

    assert wire.encode_input_records(input) == wire.encode_input(input)


@pytest.mark.parametrize(
    "at, value, message",
    [
        (118, b"\x01", "reserved bytes that are not zero"),
        (117, b"\x40", "unknown bits in the presence flags"),
        (113, b"\x09", "a case index beyond the type's cases"),
        (115, b"\x08", "flags out of range"),
        (80, b"\x01", "an absent string that is not zeros"),
        # The id's offset, pointed at the records instead of the tail.
        (0, b"\x00\x00\x00\x00", "placed outside its group's tail"),
    ],
)
def test_a_record_the_reconciler_refuses_is_refused_when_read_back(
    reconciler: slotwise.Reconciler, at: int, value: bytes, message: str
) -> None:
    input = scenario_input(SCENARIOS[0])
    encoded = reconciler.wire.encode_input_records(input)
    allocations = input["allocations"][0]["allocations"]
    # The first record opens with its id's place: past every record, then the id's length.
    first = encoded.index(
        struct.pack("<II", len(allocations) * slotwise.wire_records.LEN, len(allocations[0]["spec"]["id"]))
    )
    bad = bytearray(encoded)
    bad[first + at : first + at + len(value)] = value

    with pytest.raises(slotwise.WireError, match=message):
        reconciler.wire.decode_input(bytes(bad))
    with pytest.raises(slotwise.InputError) as refused:
        reconciler.reconcile(bytes(bad))
    assert refused.value.field.startswith("encoded-input[3][0][1][0]")
