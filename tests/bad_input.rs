//! Bad input gets a clear error naming the file and the field, never a panic.

use slotwise_cli::conformance;
use std::path::PathBuf;

fn file(name: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("bad-input")
        .join(name)
}

/// The error loading the bad scenario `name`, as the command prints it.
fn load_error(name: &str) -> String {
    match conformance::load(&file(name)) {
        Ok(_) => panic!("{name} loaded, but it is bad input"),
        Err(e) => format!("{e:#}"),
    }
}

/// The error the reconciler gives for the scenario `name`, which loads.
fn reconcile_error(name: &str) -> String {
    let scenario = conformance::load(&file(name)).expect("the scenario itself is well-formed");
    match slotwise_reconciler::reconcile(&scenario.input) {
        Ok(_) => panic!("{name} reconciled, but it is bad input"),
        Err(e) => format!("{}: {}", e.field, e.message),
    }
}

fn assert_contains(message: &str, parts: &[&str]) {
    for part in parts {
        assert!(message.contains(part), "`{part}` missing from: {message}");
    }
}

#[test]
fn an_unknown_field_is_named_with_its_file_and_path() {
    let e = load_error("unknown-field.yaml");
    assert_contains(
        &e,
        &[
            "unknown-field.yaml",
            "allocations.web[1]",
            "unknown field `clent`",
            "expected one of",
        ],
    );
}

#[test]
fn a_field_of_the_wrong_type_is_named_with_its_path() {
    let e = load_error("wrong-type.yaml");
    assert_contains(
        &e,
        &["wrong-type.yaml", "job.groups[0].count", "invalid type"],
    );
}

#[test]
fn a_negative_count_is_refused() {
    let e = load_error("negative-count.yaml");
    assert_contains(&e, &["negative-count.yaml", "job.groups[0].count", "-3"]);
}

#[test]
fn an_absurd_count_is_refused_by_the_reconciler() {
    let e = reconcile_error("absurd-count.yaml");
    assert_contains(
        &e,
        &[
            "job.groups[0].count",
            "5000000 exceeds the limit of 1000000",
        ],
    );
}

#[test]
fn duplicate_allocation_ids_are_refused_naming_both() {
    let e = reconcile_error("duplicate-ids.yaml");
    assert_contains(
        &e,
        &[
            "allocations[0].allocations[1].spec.id",
            "`a1` is also the id of allocations[0].allocations[0]",
        ],
    );
}

#[test]
fn a_deployment_for_another_job_is_refused() {
    let e = reconcile_error("foreign-deployment.yaml");
    assert_contains(
        &e,
        &[
            "deployment.job-id",
            "the deployment is for job `other`, not `mock-job`",
        ],
    );
}

#[test]
fn malformed_yaml_is_reported_with_its_line() {
    let e = load_error("malformed.yaml");
    assert_contains(&e, &["malformed.yaml", "line 4"]);
}

#[test]
fn malformed_json_is_reported_with_its_line() {
    let e = load_error("malformed.json");
    assert_contains(&e, &["malformed.json", "line 3"]);
}

#[test]
fn an_allocation_on_an_unlisted_node_is_refused() {
    let e = load_error("unknown-node.yaml");
    assert_contains(&e, &["allocations.web[0].node", "no node `n9` in `nodes`"]);
}

#[test]
fn a_range_that_runs_backwards_is_refused() {
    let e = load_error("backwards-range.yaml");
    assert_contains(&e, &["allocations.web[0].index", "`5-2` runs backwards"]);
}

#[test]
fn a_missing_file_is_named() {
    let e = load_error("does-not-exist.yaml");
    assert_contains(&e, &["cannot read", "does-not-exist.yaml"]);
}
