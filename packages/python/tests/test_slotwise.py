"""The installed `slotwise` package plans as the `slotwise` command does, and refuses bad input with the field named.

Run by `cargo xtask test` from a fresh venv holding only the wheel and
pytest, against the command and the repository `repository.py` names.
"""

from __future__ import annotations

import copy
import json
import subprocess
import types
import typing
from typing import Any, List

import pytest

import slotwise
from repository import ROOT, SCENARIOS, SLOTWISE, scenario_input
from slotwise import contract


def run_slotwise(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [SLOTWISE, *args], cwd=ROOT, capture_output=True, text=True, timeout=120, check=False
    )


def slotwise_json(*args: str) -> Any:
    done = run_slotwise(*args)
    assert done.returncode == 0, f"slotwise {' '.join(args)} failed: {done.stderr}"
    return json.loads(done.stdout)


def test_the_package_is_imported_from_the_venv_not_the_source_tree() -> None:
    assert "site-packages" in slotwise.__file__


@pytest.mark.parametrize("scenario", SCENARIOS)
def test_a_scenario_reads_into_the_input_slotwise_input_prints(scenario: str) -> None:
    assert slotwise.read_scenario((ROOT / scenario).read_text()) == slotwise_json("input", scenario)


@pytest.mark.parametrize("explain", [False, True])
@pytest.mark.parametrize("scenario", SCENARIOS)
def test_a_bundled_scenario_plans_exactly_as_slotwise_reconcile_json(scenario: str, explain: bool) -> None:
    input = {**scenario_input(scenario), "explain": explain}

    plan = slotwise.reconcile(input)

    assert plan == slotwise_json("reconcile", scenario, "--json", *(["--explain"] if explain else []))


@pytest.mark.parametrize("explain", [False, True])
@pytest.mark.parametrize("scenario", SCENARIOS)
def test_a_buffer_run_on_the_guest_module_answers_what_wasmtimes_own_conversion_does(
    scenario: str, explain: bool
) -> None:
    one_copy, plain = slotwise.Reconciler(), slotwise.Reconciler(bulk=False)
    assert one_copy.one_copy and not plain.one_copy
    encoded = one_copy.wire.encode_input({**scenario_input(scenario), "explain": explain})

    for buffer in (encoded, encoded[:40], b"not a buffer"):
        answer = one_copy.reconcile_encoded(buffer)
        assert answer == plain.reconcile_encoded(buffer)
        assert answer[:4] == b"SW\x01\x02"


def test_a_record_may_be_any_mapping_not_only_a_dict() -> None:
    wire = slotwise.Reconciler().wire
    input = scenario_input(SCENARIOS[0])
    frozen = {**input, "eval": types.MappingProxyType(input["eval"])}
    assert wire.encode_input(frozen) == wire.encode_input(input)


@pytest.mark.parametrize("scenario", SCENARIOS)
def test_an_input_survives_the_python_codec_unchanged(scenario: str) -> None:
    wire = slotwise.Reconciler().wire
    input = scenario_input(scenario)
    assert wire.decode_input(wire.encode_input(input)) == input


def test_a_missing_field_is_an_input_error_naming_it_and_the_next_call_plans() -> None:
    input = scenario_input(SCENARIOS[0])
    del input["eval"]

    with pytest.raises(slotwise.InputError) as refused:
        slotwise.reconcile(input)

    assert refused.value.field == "eval"
    assert "missing field of reconcile-input" in refused.value.message
    assert slotwise.reconcile(scenario_input(SCENARIOS[0]))["groups"]


def test_a_value_of_the_wrong_type_is_an_input_error_naming_its_path() -> None:
    input = scenario_input(SCENARIOS[0])
    input["now"] = "soon"
    with pytest.raises(slotwise.InputError) as refused:
        slotwise.reconcile(input)
    assert refused.value.field == "now"
    assert "expected s64, got 'soon'" in str(refused.value)

    flag = scenario_input(SCENARIOS[0])
    flag["now"] = True
    with pytest.raises(slotwise.InputError) as refused:
        slotwise.reconcile(flag)
    assert refused.value.field == "now"
    assert "expected s64, got True" in str(refused.value)

    nested = scenario_input(SCENARIOS[0])
    nested["allocations"][0]["allocations"][1]["spec"]["name-index"] = -1
    with pytest.raises(slotwise.InputError) as refused:
        slotwise.reconcile(nested)
    assert refused.value.field == "allocations[0].allocations[1].spec.name-index"
    assert "expected u32" in refused.value.message


@pytest.mark.parametrize(
    "garbage, message",
    [
        (b"\x01\x02\x03", "not a slotwise buffer"),
        (b"SW\x09\x01", "wire format version 9"),
        (b"SW\x01\x01\xff\xff\xff\xff\x0f", "truncated"),
        (bytes((i * 2654435761) >> 24 & 0xFF for i in range(1 << 16)), ""),
    ],
)
def test_garbage_bytes_are_an_input_error_about_the_encoded_input_and_the_next_call_plans(
    garbage: bytes, message: str
) -> None:
    with pytest.raises(slotwise.InputError) as refused:
        slotwise.reconcile(garbage)

    assert refused.value.field.startswith("encoded-input")
    assert message in refused.value.message
    assert slotwise.reconcile(scenario_input(SCENARIOS[0]))["groups"]


def test_a_truncated_encoding_names_where_reading_stopped() -> None:
    encoded = slotwise.Reconciler().wire.encode_input(scenario_input(SCENARIOS[0]))
    with pytest.raises(slotwise.InputError) as refused:
        slotwise.reconcile(encoded[:40])
    assert refused.value.field.startswith("encoded-input[")


def test_the_reconciler_refuses_a_duplicated_allocation_id_as_the_command_does() -> None:
    scenario = "tests/node/duplicate-allocation-id.yaml"
    host = run_slotwise("reconcile", scenario, "--json")
    assert host.returncode != 0
    assert "invalid input: allocations[0].allocations[1].spec.id: " in host.stderr

    with pytest.raises(slotwise.InputError) as refused:
        slotwise.reconcile(scenario_input(scenario))

    assert refused.value.field == "allocations[0].allocations[1].spec.id"
    assert f"invalid input: {refused.value}" in host.stderr


def test_a_timestamp_beyond_2_to_the_53_crosses_exactly() -> None:
    now = 1767225600000000001
    plan = slotwise.reconcile({**scenario_input(SCENARIOS[0]), "now": now})
    deployment = plan["deployment"]
    assert deployment is not None and deployment["create-time"] == now


def test_a_scenario_that_is_not_one_is_a_scenario_error_with_its_place() -> None:
    with pytest.raises(slotwise.ScenarioError) as broken:
        slotwise.read_scenario("job:\n  groups: [\n")
    assert broken.value.line is not None

    with pytest.raises(slotwise.ScenarioError) as unknown:
        slotwise.read_scenario("allocations:\n  web:\n    - index: 0\n      colour: blue\n")
    assert "colour" in str(unknown.value)

    assert slotwise.read_scenario((ROOT / SCENARIOS[1]).read_text(), syntax="yaml")["job-id"]


def test_every_generated_type_resolves() -> None:
    declared = [
        value
        for value in vars(contract).values()
        if isinstance(value, type) and issubclass(value, dict) and value is not dict
    ]
    assert len(declared) > 50
    for typed_dict in declared:
        hints = typing.get_type_hints(typed_dict)
        assert set(hints) == set(typed_dict.__annotations__)
    assert "job-id" in slotwise.ReconcileInput.__annotations__
    assert "groups" in slotwise.Plan.__annotations__


def test_plans_are_deterministic_and_leave_the_input_unchanged() -> None:
    input = scenario_input(SCENARIOS[0])
    before = copy.deepcopy(input)
    plans: List[Any] = [slotwise.reconcile(input) for _ in range(3)]
    assert plans[0] == plans[1] == plans[2]
    assert input == before
