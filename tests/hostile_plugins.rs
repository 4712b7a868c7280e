//! Misbehaving plugins are contained: a failure leaves no plan or a whole one, the same host reconciles on, answers that break the batch contract are refused, and a plugin that could reach outside its sandbox is refused at load.
//!
//! The `hostile` test plugin (`plugins/hostile/`, built by `cargo xtask
//! build`) misbehaves as its settings say. What a scenario file can state
//! is in `tests/policy/hostile/`; this file holds what it cannot: reusing
//! one host across reconciles, and components crafted on the spot.

use slotwise_cli::conformance::plugin_configs;
use slotwise_host::plugins::PluginSet;
use slotwise_host::{ComponentReconciler, HostError};
use slotwise_reconciler::{reconcile, Plan, ReconcileInput};
use slotwise_scenario::{parse, parse_plugins, Syntax};
use std::path::{Path, PathBuf};

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("..")
}

fn shipped() -> PathBuf {
    std::env::var_os("SLOTWISE_PLUGIN_DIR")
        .map(PathBuf::from)
        .unwrap_or_else(|| root().join("target/slotwise/plugins"))
}

fn reconciler() -> ComponentReconciler {
    let path = std::env::var_os("SLOTWISE_COMPONENT")
        .map(PathBuf::from)
        .unwrap_or_else(|| root().join("target/slotwise/reconciler.wasm"));
    ComponentReconciler::load(&path)
        .unwrap_or_else(|e| panic!("{e} (build it with `cargo xtask build`)"))
}

/// The plugins a plugins file in YAML lists, loaded.
fn plugins(yaml: &str) -> Result<PluginSet, HostError> {
    let file = parse_plugins(yaml, Syntax::Yaml).expect("a valid plugins file");
    PluginSet::load(&plugin_configs(&file.plugins), &root(), &shipped())
}

fn hostile(settings: &str, extra: &str) -> PluginSet {
    let yaml = format!("plugins:\n  - plugin: hostile\n    settings: {settings}\n{extra}");
    plugins(&yaml).unwrap_or_else(|e| panic!("{e} (build it with `cargo xtask build`)"))
}

/// A group of `count` slots whose last allocation is lost on a down node,
/// so that the plan has changes to get wrong.
fn group(count: u32) -> ReconcileInput {
    let text = format!(
        "nodes: [{{id: down, status: down}}]\njob: {{groups: [{{count: {count}}}]}}\n\
         allocations: {{web: [{{index: 0-{}, client: running}}, {{index: {}, node: down}}]}}",
        count - 2,
        count - 1
    );
    parse(&text, Syntax::Yaml).expect("a valid scenario").input
}

fn session_error(outcome: Result<Result<Plan, impl std::fmt::Debug>, HostError>) -> String {
    match outcome {
        Err(e @ HostError::Session(_)) => e.to_string(),
        Err(e) => panic!("expected the plugin's failure, got {e}"),
        Ok(plan) => panic!("expected no plan, got {plan:?}"),
    }
}

#[test]
fn after_each_kind_of_failure_no_plan_is_made_and_the_same_host_reconciles_on() {
    let reconciler = reconciler();
    // A failure in the middle of a batch is the whole batch's: the host
    // cannot know which slot the plugin was at.
    let cases = [
        (
            "trap",
            "",
            "(group web): trapped: wasm `unreachable` instruction executed",
        ),
        (
            "panic",
            "",
            "(group web): trapped: wasm `unreachable` instruction executed",
        ),
        (
            "stack-overflow",
            "",
            "(group web): trapped: out of bounds memory access",
        ),
        (
            "loop",
            "    limits: {fuel: 2000000}\n",
            "(group web): ran out of fuel",
        ),
        (
            "loop",
            "    limits: {fuel: 1000000000000, deadline: 20ms}\n",
            "(group web): overran its deadline of 20ms",
        ),
        (
            "memory-bomb",
            "    limits: {memory: 4MiB}\n",
            "(group web): exceeded its memory limit of 4.0 MiB",
        ),
        (
            "adjust-stranger",
            "",
            "(group web, slot 4): answered something invalid: adjusts candidate",
        ),
        (
            "wrong-count",
            "",
            "(group web): answered something invalid: gave 5 answers for 6 slots",
        ),
        (
            "unknown-slot",
            "",
            "(group web, slot 5): answered something invalid: answers slot 11 where slot 5 is due",
        ),
        (
            "out-of-order",
            "",
            "(group web, slot 0): answered something invalid: answers slot 5 where slot 0 is due",
        ),
        (
            // Building 16 MiB of text takes a debug build a good part of the
            // default deadline on a slow hour: the limit checked is the size.
            "huge-answer",
            "    limits: {deadline: 30s}\n",
            "(group web, slot 4): answered something invalid: answered 16,777,216 bytes of text",
        ),
        ("log-flood", "", "(group web): logged 101 lines"),
    ];
    for (behaviour, limits, cause) in cases {
        let mut set = hostile(
            &format!("{{behaviour: {behaviour}, slot: 4, hooks: [pre-slot]}}"),
            limits,
        );
        let error = session_error(reconciler.reconcile_core_with(&group(6), &mut set));
        let expected = format!("plugin hostile 0.2.0 failed at pre-slot {cause}");
        assert!(error.contains(&expected), "{behaviour}: {error}");
        // Slot 4 no longer exists: the same plugin set and component work.
        let plan = reconciler
            .reconcile_core_with(&group(4), &mut set)
            .unwrap_or_else(|e| panic!("{behaviour}: the host still works, but {e}"))
            .expect("a valid input");
        assert_eq!(plan.groups[0].placements.len(), 1, "{behaviour}");
        assert!(plan.plugin_failures.is_empty(), "{behaviour}");
    }
}

#[test]
fn a_plugin_that_fails_open_leaves_the_plan_the_reconciler_makes_alone() {
    let reconciler = reconciler();
    let input = group(8);
    let alone = reconcile(&input).expect("a plan");
    for behaviour in [
        "trap",
        "loop",
        "memory-bomb",
        "reclassify",
        "huge-answer",
        "wrong-count",
    ] {
        let mut set = hostile(
            &format!("{{behaviour: {behaviour}, size: 100000}}"),
            "    on-error: fail-open\n    limits: {fuel: 5000000, memory: 8MiB}\n",
        );
        let mut plan = reconciler
            .reconcile_core_with(&input, &mut set)
            .unwrap_or_else(|e| panic!("{behaviour}: {e}"))
            .expect("a valid input");
        assert!(
            !plan.plugin_failures.is_empty(),
            "{behaviour}: the failure is reported"
        );
        // The step reports differ: they say which plugins were asked.
        plan.plugin_failures.clear();
        plan.plugin_logs.clear();
        plan.steps.clear();
        let mut expected = alone.clone();
        expected.steps.clear();
        assert_eq!(plan, expected, "{behaviour}");
    }
}

#[test]
fn a_review_veto_of_a_change_that_does_not_exist_is_refused() {
    let mut set = hostile("{behaviour: veto-stranger, hooks: [review]}", "");
    let error = session_error(reconciler().reconcile_core_with(&group(6), &mut set));
    assert!(
        error.contains(
            "plugin hostile 0.2.0 failed at review: answered something invalid: vetoes change"
        ),
        "{error}"
    );
}

#[test]
fn a_plugin_built_for_0_1_is_loaded_and_adapted_slot_by_slot() {
    let mut set = plugins("plugins:\n  - plugin: hold-v0-1\n    settings: [2]\n")
        .unwrap_or_else(|e| panic!("{e} (build it with `cargo xtask build`)"));
    assert_eq!(set.plugins()[0].interface_version(), "0.1.0");
    let plan = reconciler()
        .reconcile_core_with(&group(4), &mut set)
        .expect("the host works")
        .expect("a valid input");
    let held: Vec<(Option<u32>, &str)> = plan
        .policy_actions
        .iter()
        .map(|a| (a.slot, a.reason.as_str()))
        .collect();
    assert_eq!(
        held,
        vec![(Some(2), "held by a 0.1 plugin: web-2 in web/2")]
    );
}

#[test]
fn failing_reconciles_do_not_use_up_the_pooled_instances() {
    // More reconciles than the sandbox pools instances: a failed instance
    // that was not given back would exhaust the pool.
    let reconciler = reconciler();
    let mut set = hostile("{behaviour: trap, slot: 5}", "");
    for round in 0..300 {
        let error = session_error(reconciler.reconcile_core_with(&group(6), &mut set));
        assert!(error.contains("trapped"), "round {round}: {error}");
    }
    let plan = reconciler
        .reconcile_core_with(&group(5), &mut set)
        .expect("the host still works")
        .expect("a valid input");
    assert_eq!(plan.groups[0].placements.len(), 1);
}

/// The error a reconcile consulting a plugin file holding `bytes` ends
/// with: the host keeps a plugin it cannot load, with why, and the session
/// refuses to go on without it.
fn refusal(name: &str, bytes: &[u8]) -> String {
    let dir = std::env::temp_dir().join(format!("slotwise-hostile-{}-{name}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("a writable temp dir");
    let path = dir.join(name);
    std::fs::write(&path, bytes).expect("a writable temp dir");
    let yaml = format!("plugins:\n  - path: {}\n", path.display());
    let mut set = plugins(&yaml).expect("the sandbox is set up");
    let _ = std::fs::remove_dir_all(&dir);
    assert_eq!(set.unloaded().len(), 1, "{name} was loaded");
    session_error(reconciler().reconcile_core_with(&group(3), &mut set))
}

#[test]
fn a_plugin_that_imports_wasi_is_refused_naming_the_import() {
    // Every hook is exported: only the import can get it refused.
    let world = "include slotwise:plugin/all-hooks-plugin@0.1.0;\nimport wasi:random/random@0.2.3;";
    let error = refusal("wasi-random.wasm", &crafted("0.1.0", world));
    assert!(error.contains("wasi-random.wasm"), "{error}");
    assert!(
        error.contains("imports `wasi:random/random@0.2.3`; a plugin may import nothing but `slotwise:plugin/log@0.2.0`"),
        "{error}"
    );
}

#[test]
fn a_plugin_built_for_another_version_of_the_package_is_refused_naming_both() {
    let world = "include slotwise:plugin/all-hooks-plugin@0.9.0;";
    let error = refusal("next.wasm", &crafted("0.9.0", world));
    assert!(
        error.contains(
            "is built for slotwise:plugin@0.9.0; this host speaks slotwise:plugin@0.2.0 and slotwise:plugin@0.1.0"
        ),
        "{error}"
    );
}

#[test]
fn a_plugin_that_traps_when_asked_who_it_is_is_refused() {
    let world = "include slotwise:plugin/all-hooks-plugin@0.1.0;";
    let error = refusal("nameless.wasm", &crafted("0.1.0", world));
    assert!(
        error.contains(
            "nameless.wasm: `metadata` failed: trapped: wasm `unreachable` instruction executed"
        ),
        "{error}"
    );
}

#[test]
fn a_plugin_that_cannot_be_loaded_and_fails_open_is_reported_in_every_plan() {
    let reconciler = reconciler();
    let mut set =
        plugins("plugins:\n  - path: tests/hostile/core-module.wasm\n    on-error: fail-open\n")
            .expect("a fail-open plugin that cannot load is left out");
    for _ in 0..2 {
        let plan = reconciler
            .reconcile_core_with(&group(3), &mut set)
            .expect("the host works")
            .expect("a valid input");
        let causes: Vec<(&str, &str)> = plan
            .plugin_failures
            .iter()
            .map(|f| (f.hook.as_str(), f.cause.as_str()))
            .collect();
        assert_eq!(causes.len(), 1, "{causes:?}");
        assert_eq!(causes[0].0, "load");
        assert!(
            causes[0].1.contains("core WebAssembly module"),
            "{causes:?}"
        );
    }
}

/// A component of `world`, WIT text that may use `wasi:random` and the
/// plugin package as it would be at `version`; its every export traps.
fn crafted(version: &str, world: &str) -> Vec<u8> {
    use wit_component::{embed_component_metadata, ComponentEncoder, StringEncoding};
    use wit_parser::Resolve;
    let hooks = std::fs::read_to_string(root().join("wit/plugin/since_v0.1.0/hooks.wit"))
        .expect("the plugin WIT is readable")
        .replace(
            "package slotwise:plugin@0.1.0;",
            &format!("package slotwise:plugin@{version};"),
        );
    let mut resolve = Resolve::default();
    let plugin = resolve
        .push_str("hooks.wit", &hooks)
        .expect("the plugin WIT parses");
    resolve
        .push_str(
            "random.wit",
            "package wasi:random@0.2.3;\ninterface random { get-random-u64: func() -> u64; }",
        )
        .expect("the WASI interface parses");
    let ours = resolve
        .push_str(
            "crafted.wit",
            &format!("package test:hostile;\nworld crafted {{\n{world}\n}}"),
        )
        .expect("the world parses");
    let world = resolve
        .select_world(&[ours, plugin], Some("test:hostile/crafted"))
        .expect("the world exists");
    let mut module = core_module(&resolve, world);
    embed_component_metadata(&mut module, &resolve, world, StringEncoding::UTF8, false)
        .expect("metadata embeds");
    ComponentEncoder::default()
        .module(&module)
        .and_then(|e| e.validate(true).encode())
        .expect("a component")
}

/// A core module for `world` whose every export traps: wit-component's own
/// `dummy_module` needs the `wat` crate, which the workspace does without.
fn core_module(resolve: &wit_parser::Resolve, world: wit_parser::WorldId) -> Vec<u8> {
    use wasm_encoder::{
        CodeSection, EntityType, ExportKind, ExportSection, Function, FunctionSection,
        ImportSection, MemorySection, MemoryType, Module, TypeSection, ValType,
    };
    use wit_parser::abi::{AbiVariant, WasmSignature, WasmType};
    use wit_parser::WorldItem;
    use wit_parser::{LiftLowerAbi, ManglingAndAbi, WasmExport, WasmExportKind, WasmImport};

    let mangling = ManglingAndAbi::Legacy(LiftLowerAbi::Sync);
    let val = |t: &WasmType| match t {
        WasmType::I64 | WasmType::PointerOrI64 => ValType::I64,
        WasmType::F32 => ValType::F32,
        WasmType::F64 => ValType::F64,
        WasmType::I32 | WasmType::Pointer | WasmType::Length => ValType::I32,
    };
    let mut types = TypeSection::new();
    let mut signature = |sig: &WasmSignature| {
        let index = types.len();
        types
            .ty()
            .function(sig.params.iter().map(val), sig.results.iter().map(val));
        index
    };
    let mut imports = ImportSection::new();
    let mut functions = FunctionSection::new();
    let mut exports = ExportSection::new();
    let mut code = CodeSection::new();
    let trapping = |functions: &mut FunctionSection, code: &mut CodeSection, ty: u32| {
        functions.function(ty);
        let mut body = Function::new([]);
        body.instructions().unreachable().end();
        code.function(&body);
    };
    let w = &resolve.worlds[world];
    for (key, item) in &w.imports {
        let WorldItem::Interface { id, .. } = item else {
            continue;
        };
        for func in resolve.interfaces[*id].functions.values() {
            let ty = signature(&resolve.wasm_signature(AbiVariant::GuestImport, func));
            let import = WasmImport::Func {
                interface: Some(key),
                func,
            };
            let (module, name) = resolve.wasm_import_name(mangling, import);
            imports.import(&module, &name, EntityType::Function(ty));
        }
    }
    let mut index = imports.len();
    for (key, item) in &w.exports {
        let WorldItem::Interface { id, .. } = item else {
            continue;
        };
        for func in resolve.interfaces[*id].functions.values() {
            let ty = signature(&resolve.wasm_signature(AbiVariant::GuestExport, func));
            trapping(&mut functions, &mut code, ty);
            let export = WasmExport::Func {
                interface: Some(key),
                func,
                kind: WasmExportKind::Normal,
            };
            exports.export(
                &resolve.wasm_export_name(mangling, export),
                ExportKind::Func,
                index,
            );
            index += 1;
        }
    }
    let realloc = signature(&WasmSignature {
        params: vec![WasmType::I32; 4],
        results: vec![WasmType::I32],
        indirect_params: false,
        retptr: false,
    });
    trapping(&mut functions, &mut code, realloc);
    exports.export(
        &resolve.wasm_export_name(mangling, WasmExport::Realloc),
        ExportKind::Func,
        index,
    );
    let mut memories = MemorySection::new();
    memories.memory(MemoryType {
        minimum: 1,
        maximum: None,
        memory64: false,
        shared: false,
        page_size_log2: None,
    });
    exports.export(
        &resolve.wasm_export_name(mangling, WasmExport::Memory),
        ExportKind::Memory,
        0,
    );
    let mut module = Module::new();
    module
        .section(&types)
        .section(&imports)
        .section(&functions)
        .section(&memories)
        .section(&exports)
        .section(&code);
    module.finish()
}
