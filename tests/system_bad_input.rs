//! Bad input for system jobs gets a clear error naming the field, never a panic: in the scenario file, and in the reconciler's input.

use slotwise_cli::conformance;
use slotwise_reconciler::{reconcile, ReconcileInput, SystemNodes};
use std::path::PathBuf;

fn file(name: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("bad-input/system")
        .join(name)
}

/// The error loading the bad scenario `name`, as the command prints it.
fn load_error(name: &str) -> String {
    match conformance::load(&file(name)) {
        Ok(_) => panic!("{name} loaded, but it is bad input"),
        Err(e) => format!("{e:#}"),
    }
}

/// The reconciler's input the scenario `name` describes; it loads.
fn input(name: &str) -> ReconcileInput {
    match conformance::load(&file(name)) {
        Ok(scenario) => scenario.input,
        Err(e) => panic!("{name} should load: {e:#}"),
    }
}

/// The reconciler's error for `input`, as `field: message`.
fn refusal(input: &ReconcileInput) -> String {
    match reconcile(input) {
        Ok(_) => panic!("the input reconciled, but it is bad input"),
        Err(e) => format!("{}: {}", e.field, e.message),
    }
}

fn assert_contains(message: &str, parts: &[&str]) {
    for part in parts {
        assert!(message.contains(part), "`{part}` missing from: {message}");
    }
}

#[test]
fn a_system_job_with_a_count_above_one_is_refused() {
    let e = refusal(&input("count-above-one.yaml"));
    assert_contains(
        &e,
        &[
            "job.groups[0].count",
            "one allocation of a group per node",
            "`agent` asks for 3",
        ],
    );
}

#[test]
fn a_sysbatch_job_may_run_several_allocations_of_a_group_per_node() {
    let mut input = input("count-above-one.yaml");
    if let Some(job) = &mut input.job {
        job.kind = slotwise_reconciler::JobType::Sysbatch;
    }
    let plan = reconcile(&input).expect("a sysbatch count of 3 is valid");
    assert_eq!(plan.groups[0].counters.place, 6);
}

#[test]
fn duplicate_node_ids_are_refused_in_the_file_and_by_the_reconciler() {
    let e = load_error("duplicate-node-ids.yaml");
    assert_contains(
        &e,
        &[
            "duplicate-node-ids.yaml",
            "nodes[1].id",
            "`a` is listed twice",
        ],
    );
    let mut input = input("eligible-and-not-ready.yaml");
    input.nodes[1].id = "a".into();
    assert_contains(
        &refusal(&input),
        &["nodes[1].id", "node `a` is listed twice"],
    );
}

#[test]
fn generated_nodes_may_not_take_the_id_of_a_listed_one() {
    let e = load_error("generated-node-clashes.yaml");
    assert_contains(&e, &["system.nodes", "`node-1` is also listed in `nodes`"]);
}

#[test]
fn a_node_both_eligible_and_not_ready_is_refused() {
    let e = refusal(&input("eligible-and-not-ready.yaml"));
    assert_contains(
        &e,
        &[
            "system.not-ready[0]",
            "node `b` is also listed at system.eligible[1]",
            "eligible or not ready, not both",
        ],
    );
}

#[test]
fn a_node_listed_twice_as_eligible_is_refused() {
    let mut input = input("eligible-and-not-ready.yaml");
    input.system = Some(SystemNodes {
        eligible: vec![0, 1, 0],
        not_ready: Vec::new(),
    });
    assert_contains(
        &refusal(&input),
        &[
            "system.eligible[2]",
            "`a` is listed twice (first at system.eligible[0])",
        ],
    );
}

#[test]
fn an_eligible_node_not_in_the_input_is_refused() {
    let e = load_error("eligible-unknown-node.yaml");
    assert_contains(&e, &["system.eligible[1]", "no node `z`"]);
    let mut input = input("eligible-and-not-ready.yaml");
    input.system = Some(SystemNodes {
        eligible: vec![0],
        not_ready: vec![5],
    });
    assert_contains(
        &refusal(&input),
        &[
            "system.not-ready[0]",
            "5 is not a node: the input lists 2 nodes",
        ],
    );
}

#[test]
fn an_allocation_on_a_node_not_in_the_input_is_refused() {
    let e = load_error("allocation-on-unknown-node.yaml");
    assert_contains(&e, &["allocations.web[0].node", "no node `z` in `nodes`"]);
    let lost = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("conformance/nomad/system/diff-system-allocs-for-node-lost-node.yaml");
    let mut input = conformance::load(&lost)
        .expect("a conformance scenario")
        .input;
    input.allocations[0].allocations[1].spec.node = 9;
    assert_contains(
        &refusal(&input),
        &[
            "allocations[0].allocations[1].spec.node",
            "9 is not a node: the input lists 1 nodes",
        ],
    );
}

#[test]
fn more_nodes_in_a_state_than_were_added_is_refused() {
    let e = load_error("too-many-down.yaml");
    assert_contains(
        &e,
        &[
            "system.draining",
            "2 nodes asked, but only 1 of the 3 added nodes are left",
        ],
    );
}

#[test]
fn a_running_system_job_needs_its_nodes_and_other_jobs_take_none() {
    let mut system = input("eligible-and-not-ready.yaml");
    system.system = None;
    assert_contains(
        &refusal(&system),
        &["system", "a system job needs the nodes it runs on"],
    );
    if let Some(job) = &mut system.job {
        job.stopped = true;
    }
    assert!(
        reconcile(&system).is_ok(),
        "a stopped system job needs no nodes"
    );
    let mut service = input("eligible-and-not-ready.yaml");
    if let Some(job) = &mut service.job {
        job.kind = slotwise_reconciler::JobType::Service;
    }
    assert_contains(
        &refusal(&service),
        &[
            "system",
            "only system and sysbatch jobs",
            "this job is a service job",
        ],
    );
}

#[test]
fn a_sysbatch_count_on_every_eligible_node_is_held_to_the_allocation_limit() {
    let e = refusal(&input("sysbatch-count-on-every-node-beyond-the-limit.yaml"));
    assert_contains(
        &e,
        &[
            "job.groups[0].count",
            "the groups' counts on 1000 eligible nodes add up to 1000000000 here; the limit is 1000000 over all groups",
        ],
    );
}
