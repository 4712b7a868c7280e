//! A plan that differs from its scenario's expectation is reported, line by line.

use slotwise_scenario::{parse, Syntax};

fn failures(text: &str) -> Vec<String> {
    let scenario = parse(text, Syntax::Yaml).expect("a valid scenario");
    let expect = scenario.expect.expect("the scenario expects something");
    let outcome = slotwise_reconciler::reconcile(&scenario.input);
    expect.check(outcome.as_ref().map_err(slotwise_scenario::Failure::Input))
}

#[test]
fn a_plan_that_meets_its_expectation_passes() {
    let text = "allocations: {web: [{index: 0-4}]}\nexpect: {groups: {web: {counters: {place: 5, ignore: 5}, place: [5-9]}}}";
    assert_eq!(failures(text), Vec::<String>::new());
}

#[test]
fn a_wrong_counter_and_wrong_slots_are_both_reported() {
    let text = "allocations: {web: [{index: 0-4}]}\nexpect: {groups: {web: {counters: {place: 4, ignore: 5}, place: [4-8]}}}";
    assert_eq!(
        failures(text),
        vec![
            "web: counter place: expected 4, got 5".to_string(),
            "web: place: expected slots [4, 5, 6, 7, 8], got [5, 6, 7, 8, 9]".to_string(),
        ]
    );
}

#[test]
fn an_unexpected_kind_of_change_is_reported() {
    let text = "allocations: {web: [{index: 0-11}]}\nexpect: {groups: {web: {counters: {stop: 2, ignore: 10}}}}";
    assert_eq!(
        failures(text),
        vec!["web: stop: expected none, got 2 at slots [10, 11]".to_string()]
    );
}

#[test]
fn detailed_entries_are_paired_so_a_loose_one_does_not_take_a_strict_ones_match() {
    let text = "nodes: [{id: n1, status: down}]\nallocations: {web: [{index: 0, node: n1}, {index: 1-9}]}\nexpect:\n  groups:\n    web:\n      counters: {place: 1, stop: 1, ignore: 9}\n      place: [{lost: true}]\n      stop: [{index: 0, client-status: lost}]";
    assert_eq!(failures(text), Vec::<String>::new());
}

#[test]
fn an_expected_deployment_that_is_not_created_is_reported() {
    let text = "expect: {groups: {web: {counters: {place: 10}, place: [0-9]}}, deployment: {}}";
    assert_eq!(
        failures(text),
        vec!["deployment: expected one, got none".to_string()]
    );
}

#[test]
fn an_expected_error_must_name_the_field() {
    let text = "deployment: {job-id: other}\nexpect: {error: {field: deployment.job-id, message: not `mock-job`}}";
    assert_eq!(failures(text), Vec::<String>::new());
    let text = "deployment: {job-id: other}\nexpect: {error: {field: job.id}}";
    assert_eq!(failures(text).len(), 1);
}
