//! The host runs the component safely: bad files are refused at load, a trap is an error, and the next reconcile works; a warm instance plans, with plugins or without, as a fresh one.

use slotwise_cli::conformance::plugin_configs;
use slotwise_host::component::precompile;
use slotwise_host::plugin_wit::types::Batch;
use slotwise_host::plugins::PluginSet;
use slotwise_host::wit::{Consulted, Question, Reply};
use slotwise_host::{ComponentReconciler, HostError, Relay};
use slotwise_scenario::{parse, parse_plugins, Syntax};
use std::path::{Path, PathBuf};

fn component_path() -> PathBuf {
    std::env::var_os("SLOTWISE_COMPONENT")
        .map(PathBuf::from)
        .unwrap_or_else(|| {
            Path::new(env!("CARGO_MANIFEST_DIR")).join("../target/slotwise/reconciler.wasm")
        })
}

fn reconciler() -> ComponentReconciler {
    ComponentReconciler::load(&component_path())
        .unwrap_or_else(|e| panic!("{e} (build it with `cargo xtask build`)"))
}

fn input(text: &str) -> slotwise_reconciler::ReconcileInput {
    parse(text, Syntax::Yaml).expect("a valid scenario").input
}

/// How many placements the first group of `input`'s plan has, through the component.
fn placed(reconciler: &ComponentReconciler, input: &slotwise_reconciler::ReconcileInput) -> usize {
    let plan = reconciler
        .reconcile_core(input)
        .expect("the host works")
        .expect("a plan");
    plan.groups[0].placements.len()
}

/// The `probe` plugin, which changes nothing, on every hook, counting the
/// questions it is asked, and those asked before `reconciler` ran any
/// reconcile again.
struct Probe<'a> {
    set: PluginSet,
    reconciler: &'a ComponentReconciler,
    asked: usize,
    asked_before_a_retry: usize,
}

impl<'a> Probe<'a> {
    fn new(reconciler: &'a ComponentReconciler) -> Self {
        let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
        let shipped = std::env::var_os("SLOTWISE_PLUGIN_DIR")
            .map(PathBuf::from)
            .unwrap_or_else(|| root.join("target/slotwise/plugins"));
        let file =
            parse_plugins("plugins: [{plugin: probe}]", Syntax::Yaml).expect("a plugins file");
        let set = PluginSet::load(&plugin_configs(&file.plugins), &root, &shipped)
            .unwrap_or_else(|e| panic!("{e} (build it with `cargo xtask build`)"));
        Self {
            set,
            reconciler,
            asked: 0,
            asked_before_a_retry: 0,
        }
    }
}

impl Relay for Probe<'_> {
    fn consulted(&self) -> Vec<Consulted> {
        self.set.consulted()
    }

    fn begin(&mut self) {
        self.set.begin();
    }

    fn answer(&mut self, question: &Question, batch: &Batch) -> Reply {
        self.asked += 1;
        if self.reconciler.warm_retries() == 0 {
            self.asked_before_a_retry += 1;
        }
        self.set.answer(question, batch)
    }

    fn end(&mut self) {
        self.set.end();
    }
}

/// `input`'s plan from a session consulting `probe`, how many questions
/// the session asked, and how many of them before a retry.
fn consulting_probe(
    reconciler: &ComponentReconciler,
    input: &slotwise_reconciler::ReconcileInput,
) -> Result<(slotwise_reconciler::Plan, usize, usize), HostError> {
    let mut probe = Probe::new(reconciler);
    let plan = reconciler
        .reconcile_core_with(input, &mut probe)?
        .expect("a plan");
    Ok((plan, probe.asked, probe.asked_before_a_retry))
}

/// The least memory `fits` needs of `fresh`, a reconciler that keeps no
/// instance warm, to the 64 KiB page; `fresh` is left with that limit.
fn least_memory(
    fresh: &mut ComponentReconciler,
    fits: impl Fn(&ComponentReconciler) -> bool,
) -> usize {
    let (mut short, mut enough) = (0usize, 4096usize);
    while enough - short > 1 {
        let pages = (short + enough) / 2;
        fresh.set_memory_limit(pages << 16);
        if fits(fresh) {
            enough = pages;
        } else {
            short = pages;
        }
    }
    fresh.set_memory_limit(enough << 16);
    enough << 16
}

/// A group whose allocations carry fifty one- or two-byte meta entries
/// each: freed, those blocks wait in the free list of a size larger groups
/// hardly ask for, and a warm instance keeps them.
fn crumbs() -> slotwise_reconciler::ReconcileInput {
    let mut crumbs = input("job: {groups: [{count: 2000}]}\nallocations: {web: [{index: 0-1999}]}");
    for allocation in &mut crumbs.allocations[0].allocations {
        allocation.observed.meta = Some((0..50).map(|i| (i.to_string(), "v".into())).collect());
    }
    crumbs
}

/// Reconciles `crumbs()` in `r`'s warm instance, sent as content 1, whose
/// decoding leaves the meta entries' blocks behind; sent as records, they
/// are decoded only to be checked, in the input arena, and leave nothing.
fn leave_crumbs(r: &ComponentReconciler) {
    let bytes = slotwise_reconciler::wire::encode_input(&crumbs());
    let outcome = r.reconcile_encoded(&bytes).expect("fits");
    let plan = slotwise_reconciler::wire::decode_outcome(&outcome);
    assert!(matches!(plan, Ok(Ok(_))), "the crumbs plan");
}

fn scratch(name: &str, bytes: &[u8]) -> PathBuf {
    let path =
        std::env::temp_dir().join(format!("slotwise-host-test-{}-{name}", std::process::id()));
    std::fs::write(&path, bytes).expect("a writable temp dir");
    path
}

#[test]
fn a_guest_trap_is_a_clean_error_and_the_next_reconcile_works() {
    let mut reconciler = reconciler();
    // Above the component's initial 512 KiB, far below what 20,000
    // allocations need.
    reconciler.set_memory_limit(3 << 20);
    let small = input("allocations: {web: [{index: 0-4}]}");
    assert_eq!(placed(&reconciler, &small), 5);
    assert_eq!(reconciler.warm_instances(), 1);
    // The trap happens first in the warm instance, then again in the fresh
    // one the reconcile is run again in; neither is kept.
    let large = input("job: {groups: [{count: 20000}]}\nallocations: {web: [{index: 0-19999}]}");
    match reconciler.reconcile_core(&large) {
        Err(HostError::Trap(message)) => assert!(!message.is_empty()),
        other => panic!("expected a trap, got {:?}", other.map(|o| o.is_ok())),
    }
    assert_eq!(reconciler.warm_retries(), 1);
    assert_eq!(reconciler.warm_instances(), 0);
    assert_eq!(placed(&reconciler, &small), 5);
    reconciler.set_memory_limit(slotwise_host::component::DEFAULT_MEMORY_LIMIT);
    assert_eq!(placed(&reconciler, &small), 5);
}

#[test]
fn an_instance_that_reconciled_a_large_group_stays_warm_while_the_idle_memory_budget_holds_it() {
    let mut reconciler = reconciler();
    let small = input("allocations: {web: [{index: 0-4}]}");
    // More memory than the 64 MiB a pooled instance keeps resident, less
    // than the default budget of the idle instances.
    let large = input("job: {groups: [{count: 200000}]}\nallocations: {web: [{index: 0-199999}]}");
    assert_eq!(placed(&reconciler, &large), 0);
    assert_eq!(reconciler.warm_instances(), 1);
    // Under a budget the large instance does not fit in, the small one is
    // kept, and the large one is not.
    reconciler.set_warm_memory(32 << 20);
    assert_eq!(reconciler.warm_instances(), 0);
    assert_eq!(placed(&reconciler, &small), 5);
    assert_eq!(reconciler.warm_instances(), 1);
    assert_eq!(placed(&reconciler, &large), 0);
    assert_eq!(reconciler.warm_instances(), 0);
}

/// The same reconcile again, in the instance the first left warm, needs
/// hardly more memory than the first did fresh. An input arena whose first
/// chunk was half the input's buffer once left the next buffer in the way
/// of the large list, and the second of 100,000 allocations needed a fifth
/// more (`guest-reconciler/src/input_arena.rs`).
#[test]
fn a_second_reconcile_in_a_warm_instance_needs_hardly_more_memory_than_the_first_fresh() {
    let input = slotwise_cli::workload::rolling_update(100_000);
    let plans = |r: &ComponentReconciler| matches!(r.reconcile_core(&input), Ok(Ok(_)));
    let mut fresh = reconciler();
    fresh.set_warm_instances(0);
    let first = least_memory(&mut fresh, plans);
    let mut warm = reconciler();
    // Each limit clears the warm instances: the first reconcile runs fresh.
    let second = least_memory(&mut warm, |r| {
        plans(r) && r.warm_instances() == 1 && {
            let retries = r.warm_retries();
            plans(r) && r.warm_retries() == retries
        }
    });
    assert!(
        second * 10 <= first * 11,
        "a second reconcile in a warm instance needed {} MiB, the first fresh {} MiB",
        second >> 20,
        first >> 20
    );
}

#[test]
fn a_reconcile_short_of_memory_only_in_a_warm_instance_runs_again_fresh_and_plans_as_there() {
    // Sent as content 1, whose decoding needs blocks of the sizes the
    // crumbs left: records read in place need little but the buffer.
    let group = input("job: {groups: [{count: 20000}]}\nallocations: {web: [{index: 0-19999}]}");
    let bytes = slotwise_reconciler::wire::encode_input(&group);
    let plan = |r: &ComponentReconciler| r.reconcile_encoded(&bytes);
    let mut fresh = reconciler();
    fresh.set_warm_instances(0);
    let least = least_memory(&mut fresh, |r| plan(r).is_ok());
    let expected = plan(&fresh).expect("fits fresh");
    let mut warm = reconciler();
    warm.set_memory_limit(least);
    leave_crumbs(&warm);
    assert_eq!((warm.warm_instances(), warm.warm_retries()), (1, 0));
    let planned = plan(&warm).expect("runs again fresh");
    assert_eq!(
        warm.warm_retries(),
        1,
        "the warm instance had room after all"
    );
    assert!(
        planned == expected,
        "the plan differs from a fresh instance's"
    );
}

#[test]
fn a_session_leaves_its_instance_warm_and_plans_there_as_in_a_fresh_one() {
    let mut fresh = reconciler();
    fresh.set_warm_instances(0);
    let lost = input(
        "nodes: [{id: n1, status: down}]\nallocations: {web: [{index: 0-8}, {index: 9, node: n1}]}",
    );
    let rollout = input(
        "job: {version: 2}\nallocations: {web: [{index: 0-19, version: 1, outdated: destructive}]}",
    );
    let warm = reconciler();
    for scenario in [&lost, &rollout, &lost, &rollout] {
        let expected = consulting_probe(&fresh, scenario).expect("runs fresh");
        assert_eq!(fresh.warm_instances(), 0);
        // In turn with plain reconciles, which share the warm instances.
        let planned = consulting_probe(&warm, scenario).expect("runs warm");
        assert_eq!(warm.warm_instances(), 1);
        assert!(planned == expected, "a warm session planned otherwise");
        assert_eq!(
            warm.reconcile_core(scenario).expect("runs"),
            fresh.reconcile_core(scenario).expect("runs")
        );
    }
    assert_eq!(warm.warm_retries(), 0);
}

#[test]
fn a_session_short_of_memory_only_in_a_warm_instance_runs_again_fresh_and_asks_no_plugin_twice() {
    // No allocation: the input is small, and the session runs short of
    // memory only once it has asked about its 20,000 slots.
    let group = input("job: {groups: [{count: 20000}]}");
    let mut fresh = reconciler();
    fresh.set_warm_instances(0);
    let least = least_memory(&mut fresh, |r| consulting_probe(r, &group).is_ok());
    let (expected, asked, _) = consulting_probe(&fresh, &group).expect("fits fresh");
    let mut warm = reconciler();
    warm.set_memory_limit(least);
    leave_crumbs(&warm);
    let (planned, asked_warm, before_the_retry) =
        consulting_probe(&warm, &group).expect("runs again fresh");
    assert_eq!(
        warm.warm_retries(),
        1,
        "the warm instance had room after all"
    );
    assert!(
        before_the_retry > 0 && before_the_retry < asked,
        "the warm instance failed after {before_the_retry} of {asked} questions: the \
         second run had no reply to give again"
    );
    assert!(
        planned == expected,
        "the plan differs from a fresh instance's"
    );
    assert_eq!(asked_warm, asked, "a plugin was asked twice");
}

#[test]
fn with_no_warm_instances_every_reconcile_runs_in_a_fresh_one() {
    let mut reconciler = reconciler();
    reconciler.set_warm_instances(0);
    let small = input("allocations: {web: [{index: 0-4}]}");
    for _ in 0..3 {
        assert_eq!(placed(&reconciler, &small), 5);
        assert_eq!(reconciler.warm_instances(), 0);
    }
}

#[test]
fn bytes_that_are_not_a_component_are_refused_naming_the_file() {
    let garbage = scratch("garbage.wasm", b"not wasm at all");
    let core_module = scratch("module.wasm", b"\0asm\x01\0\0\0");
    for path in [garbage, core_module] {
        match ComponentReconciler::load(&path) {
            Err(e @ HostError::Load { .. }) => {
                assert!(e.to_string().contains(&path.display().to_string()), "{e}")
            }
            Err(e) => panic!("expected a load error, got {e}"),
            Ok(_) => panic!("{} loaded", path.display()),
        }
        let _ = std::fs::remove_file(path);
    }
}

#[test]
fn a_missing_component_file_is_named() {
    let missing = Path::new("/nonexistent/reconciler.wasm");
    let error = ComponentReconciler::load(missing)
        .err()
        .map(|e| e.to_string())
        .unwrap_or_default();
    assert!(error.contains("/nonexistent/reconciler.wasm"), "{error}");
}

#[test]
fn a_precompiled_component_plans_as_the_wasm_one() {
    let cwasm =
        std::env::temp_dir().join(format!("slotwise-host-test-{}.cwasm", std::process::id()));
    precompile(&component_path(), &cwasm).expect("precompiles");
    let precompiled = ComponentReconciler::load(&cwasm).expect("loads");
    let _ = std::fs::remove_file(&cwasm);
    let scenario = input(
        "nodes: [{id: n1, status: down}]\nallocations: {web: [{index: 0-8}, {index: 9, node: n1}]}",
    );
    let from_cwasm = precompiled.reconcile_core(&scenario).expect("runs");
    let from_wasm = reconciler().reconcile_core(&scenario).expect("runs");
    assert_eq!(from_cwasm, from_wasm);
    assert_eq!(from_wasm.expect("a plan").groups[0].stops.len(), 1);
}

#[test]
fn invalid_input_is_an_input_error_not_a_host_error() {
    let bad = input("deployment: {job-id: other}");
    let outcome = reconciler()
        .reconcile_core(&bad)
        .expect("the component ran");
    let error = outcome.expect_err("the input is refused");
    assert_eq!(error.field, "deployment.job-id");
}
