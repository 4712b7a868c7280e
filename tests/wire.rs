//! The encoded path plans exactly as the typed one, byte for byte, for every scenario and for generated inputs; a buffer that is not an input is a named input error, never a trap.

use proptest::prelude::*;
use slotwise_cli::{conformance, workload};
use slotwise_host::ComponentReconciler;
use slotwise_reconciler::wire::{self, Content, VERSION};
use slotwise_reconciler::*;
use std::path::{Path, PathBuf};
use std::sync::OnceLock;

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("..")
}

fn component_path() -> PathBuf {
    std::env::var_os("SLOTWISE_COMPONENT")
        .map(PathBuf::from)
        .unwrap_or_else(|| root().join("target/slotwise/reconciler.wasm"))
}

fn reconciler() -> &'static ComponentReconciler {
    static RECONCILER: OnceLock<ComponentReconciler> = OnceLock::new();
    RECONCILER.get_or_init(|| {
        ComponentReconciler::load(&component_path())
            .unwrap_or_else(|e| panic!("{e} (build it with `cargo xtask build`)"))
    })
}

/// The encoded outcome of the typed path, and the outcome the encoded path
/// returned, for `input`. The hand-written list writer is checked here too: its buffer must be
/// postcard's, byte for byte; and the records' path must plan alike.
fn both_paths(input: &ReconcileInput) -> (Vec<u8>, Vec<u8>) {
    let bytes = wire::encode_input(input);
    assert!(bytes == wire::reference::encode_input(input));
    let typed = reconciler()
        .reconcile_core_typed(input)
        .expect("the typed path runs");
    let encoded = reconciler()
        .reconcile_encoded(&bytes)
        .expect("the encoded path runs");
    // The same input with its allocations as records (content 3), which
    // the guest reads in place: the same plan, byte for byte, and the
    // same input read back natively.
    let records = wire::encode_input_records(input);
    let in_place = reconciler()
        .reconcile_encoded(&records)
        .expect("the encoded path runs on records");
    assert!(
        in_place == encoded,
        "records read in place planned otherwise"
    );
    assert!(wire::decode_input(&records).as_ref() == Ok(input));
    (wire::encode_outcome(&typed), encoded)
}

/// The outcome the encoded path gives for `bytes`, which must be an input
/// error, and the same from a session opened on them: bad input is refused
/// alike on both entries that take a buffer.
fn refused(bytes: &[u8]) -> InputError {
    let outcome = reconciler()
        .reconcile_encoded(bytes)
        .expect("garbage is an answer, not a trap");
    let in_session = reconciler()
        .reconcile_encoded_with(bytes.to_vec(), &mut NoPlugins)
        .expect("garbage is an answer to a session too, not a trap");
    assert!(
        in_session == outcome,
        "a session refused otherwise than a reconcile"
    );
    match wire::decode_outcome(&outcome).expect("a readable outcome") {
        Err(error) => error,
        Ok(_) => panic!("{} bytes of garbage were planned", bytes.len()),
    }
}

/// A relay consulting no plugin: its session asks no question.
struct NoPlugins;

impl slotwise_host::Relay for NoPlugins {
    fn consulted(&self) -> Vec<slotwise_host::wit::Consulted> {
        Vec::new()
    }

    fn answer(
        &mut self,
        question: &slotwise_host::wit::Question,
        _: &slotwise_host::plugin_wit::types::Batch,
    ) -> slotwise_host::wit::Reply {
        panic!(
            "no plugin is consulted, yet plugin {} was asked",
            question.plugin
        )
    }
}

#[test]
fn every_scenario_plans_alike_on_the_typed_and_the_encoded_path() {
    let dirs = ["tests", "docs/examples"].map(|d| root().join(d));
    let files = conformance::files(&dirs).expect("the scenario folders exist");
    let mut compared = 0;
    for path in files {
        // Files meant to be refused (bad input, hostile plugins) have no input.
        let Ok(scenario) = conformance::load(&path) else {
            continue;
        };
        let (typed, encoded) = both_paths(&scenario.input);
        assert!(
            typed == encoded,
            "{}: the encoded path planned otherwise",
            path.display()
        );
        compared += 1;
    }
    assert!(compared > 300, "only {compared} scenarios were compared");
}

#[test]
fn every_scenario_that_consults_a_policy_plans_alike_through_the_typed_and_the_encoded_session() {
    let shipped = root().join("target/slotwise/plugins");
    let files = conformance::files(&[root().join("tests"), root().join("docs/examples")])
        .expect("the scenario folders exist");
    let (mut scripted, mut plugins) = (0, 0);
    for path in files {
        let Ok(mut scenario) = conformance::load(&path) else {
            continue;
        };
        let (input, mut consulted) =
            match conformance::Consulted::of(&mut scenario, &path, &shipped) {
                Ok(found) => found,
                // A plugin that cannot be loaded is the scenario's point; the
                // conformance run checks that both paths refuse alike.
                Err(_) => continue,
            };
        match &consulted {
            conformance::Consulted::Nothing => continue,
            conformance::Consulted::Scripted(_) => scripted += 1,
            conformance::Consulted::Plugins(_) => plugins += 1,
        }
        let typed = conformance::reconcile_typed(input, &mut consulted, reconciler())
            .expect("the typed session runs");
        let encoded = conformance::reconcile_once(input, &mut consulted, Some(reconciler()))
            .expect("the encoded session runs");
        match (&typed, &encoded) {
            (Ok(a), Ok(b)) => assert!(
                wire::encode_outcome(&Ok(a.clone())) == wire::encode_outcome(&Ok(b.clone())),
                "{}: the encoded session planned otherwise",
                path.display()
            ),
            _ => assert_eq!(
                typed,
                encoded,
                "{}: the sessions ended otherwise",
                path.display()
            ),
        }
    }
    assert!(
        scripted >= 40 && plugins >= 50,
        "only {scripted} scripted and {plugins} plugin scenarios were compared"
    );
}

/// A reconciler that runs each reconcile in a fresh instance, and one that
/// keeps one instance warm.
fn fresh_and_warm() -> (ComponentReconciler, ComponentReconciler) {
    let mut fresh = ComponentReconciler::load(&component_path()).expect("loads");
    fresh.set_warm_instances(0);
    let mut warm = ComponentReconciler::load(&component_path()).expect("loads");
    warm.set_warm_instances(1);
    (fresh, warm)
}

/// An input to refuse cut short (see [`cuts`]), and a smaller one to plan next.
fn half_read_and_next() -> (Vec<u8>, Vec<u8>) {
    (
        wire::encode_input(&workload::rolling_update(2_000)),
        wire::encode_input(&workload::rolling_update(300)),
    )
}

/// Where [`half_read_and_next`]'s first input is cut, for a buffer of `len` bytes.
fn cuts(len: usize) -> [usize; 4] {
    [9, len / 3, len / 2, len - 2]
}

#[test]
fn a_warm_instance_plans_every_scenario_as_a_fresh_one_whatever_ran_in_it_before() {
    let dirs = ["tests", "docs/examples"].map(|d| root().join(d));
    let files = conformance::files(&dirs).expect("the scenario folders exist");
    let inputs: Vec<Vec<u8>> = files
        .iter()
        .filter_map(|path| conformance::load(path).ok())
        .map(|scenario| wire::encode_input(&scenario.input))
        .collect();
    let (fresh, warm) = fresh_and_warm();
    let large = wire::encode_input(&workload::rolling_update(5_000));
    // Forwards, then backwards, every other scenario after a large
    // reconcile: each meets a heap left by a different reconcile before it
    // on the way back than on the way there.
    let order = (0..inputs.len()).chain((0..inputs.len()).rev());
    for (k, i) in order.enumerate() {
        if k % 2 == 1 {
            warm.reconcile_encoded(&large)
                .expect("the large workload runs");
        }
        let planned = |r: &ComponentReconciler| r.reconcile_encoded(&inputs[i]).expect("runs");
        assert!(
            planned(&warm) == planned(&fresh),
            "{}: a warm instance planned otherwise",
            files[i].display()
        );
        assert_eq!(warm.warm_instances(), 1);
    }
    assert!(inputs.len() > 300, "only {} scenarios", inputs.len());
}

/// A refused input may have been half read: what its reader had built is
/// given back with the input arena (`guest-reconciler/src/input_arena.rs`)
/// rather than dropped, and the instance stays sound for the next.
#[test]
fn a_warm_instance_that_refused_a_half_read_buffer_plans_the_next_input_as_a_fresh_one() {
    let (fresh, warm) = fresh_and_warm();
    let (bytes, next) = half_read_and_next();
    let planned = fresh.reconcile_encoded(&next).expect("runs");
    for cut in cuts(bytes.len()) {
        let outcome = warm.reconcile_encoded(&bytes[..cut]).expect("an answer");
        assert!(
            matches!(wire::decode_outcome(&outcome), Ok(Err(_))),
            "cut at {cut}: refused"
        );
        assert!(
            warm.reconcile_encoded(&next).expect("runs") == planned,
            "cut at {cut}: the warm instance planned otherwise after it"
        );
        assert!(
            warm.reconcile_encoded(&bytes).expect("runs")
                == fresh.reconcile_encoded(&bytes).expect("runs")
        );
        assert_eq!(
            warm.warm_instances(),
            1,
            "cut at {cut}: the instance is kept"
        );
    }
}

/// A session holds its decoded input in the input arena until it ends
/// (`guest-reconciler/src/component.rs`); a session refused half-read gives
/// what was built back the same way. Either leaves the instance planning the
/// next session and the next plain reconcile as a fresh one would.
#[test]
fn a_warm_instance_plans_after_sessions_held_or_refused_their_input_as_a_fresh_one() {
    let (fresh, warm) = fresh_and_warm();
    let (bytes, next) = half_read_and_next();
    let session = |r: &ComponentReconciler, input: &[u8]| {
        r.reconcile_encoded_with(input.to_vec(), &mut NoPlugins)
            .expect("the session runs")
    };
    let planned = fresh.reconcile_encoded(&next).expect("runs");
    let planned_in_session = session(&fresh, &bytes);
    assert!(matches!(
        wire::decode_outcome(&planned_in_session),
        Ok(Ok(_))
    ));
    for cut in cuts(bytes.len()) {
        let refused = session(&warm, &bytes[..cut]);
        assert!(
            matches!(wire::decode_outcome(&refused), Ok(Err(_))),
            "cut at {cut}: refused"
        );
        assert!(
            session(&warm, &bytes) == planned_in_session,
            "cut at {cut}: a session in the warm instance planned otherwise"
        );
        assert!(
            warm.reconcile_encoded(&next).expect("runs") == planned,
            "cut at {cut}: a reconcile after the session planned otherwise"
        );
        assert_eq!(
            warm.warm_instances(),
            1,
            "cut at {cut}: the instance is kept"
        );
    }
}

#[test]
fn a_large_workload_plans_alike_on_both_paths() {
    let input = workload::rolling_update(20_000);
    let (typed, encoded) = both_paths(&input);
    assert!(typed == encoded);
}

/// One change to an allocation of a generated workload.
#[derive(Clone, Debug)]
enum Edit {
    Client(usize, ClientStatus),
    Desired(usize, DesiredStatus),
    Transition(usize, bool, bool, bool),
    Health(usize, Option<bool>, bool),
    Events(usize, Vec<(i64, i64)>),
    Task(usize, String, bool, Option<i64>),
    Meta(usize, String, String),
    Update(usize, Option<UpdateKind>),
    Score(usize, Option<f64>),
    Lineage(usize, Option<String>, Option<String>),
}

fn edit() -> impl Strategy<Value = Edit> {
    let i = 0usize..64;
    let client = prop_oneof![
        Just(ClientStatus::Pending),
        Just(ClientStatus::Running),
        Just(ClientStatus::Complete),
        Just(ClientStatus::Failed),
        Just(ClientStatus::Lost),
        Just(ClientStatus::Unknown),
    ];
    let desired = prop_oneof![
        Just(DesiredStatus::Run),
        Just(DesiredStatus::Stop),
        Just(DesiredStatus::Evict)
    ];
    let update = prop_oneof![
        Just(None),
        Just(Some(UpdateKind::Ignore)),
        Just(Some(UpdateKind::InPlace)),
        Just(Some(UpdateKind::Destructive)),
    ];
    let time = -(1i64 << 62)..(1i64 << 62);
    prop_oneof![
        (i.clone(), client).prop_map(|(i, c)| Edit::Client(i, c)),
        (i.clone(), desired).prop_map(|(i, d)| Edit::Desired(i, d)),
        (i.clone(), any::<bool>(), any::<bool>(), any::<bool>())
            .prop_map(|(i, a, b, c)| Edit::Transition(i, a, b, c)),
        (i.clone(), any::<Option<bool>>(), any::<bool>())
            .prop_map(|(i, h, c)| Edit::Health(i, h, c)),
        (
            i.clone(),
            prop::collection::vec((time.clone(), 0i64..1 << 40), 0..4)
        )
            .prop_map(|(i, e)| Edit::Events(i, e)),
        (
            i.clone(),
            "\\PC{0,12}",
            any::<bool>(),
            prop::option::of(time.clone())
        )
            .prop_map(|(i, n, f, t)| Edit::Task(i, n, f, t)),
        (i.clone(), "\\PC{0,8}", "\\PC{0,50}").prop_map(|(i, k, v)| Edit::Meta(i, k, v)),
        (i.clone(), update).prop_map(|(i, u)| Edit::Update(i, u)),
        (i.clone(), prop::option::of(-1e9f64..1e9)).prop_map(|(i, s)| Edit::Score(i, s)),
        (
            i,
            prop::option::of("\\PC{1,40}"),
            prop::option::of("\\PC{1,40}")
        )
            .prop_map(|(i, p, n)| Edit::Lineage(i, p, n)),
    ]
}

fn apply(input: &mut ReconcileInput, edit: Edit) {
    let allocations = &mut input.allocations[0].allocations;
    let n = allocations.len();
    let at = |i: usize| i % n;
    match edit {
        Edit::Client(i, c) => allocations[at(i)].observed.client_status = c,
        Edit::Desired(i, d) => allocations[at(i)].observed.desired_status = d,
        Edit::Transition(i, migrate, reschedule, force) => {
            allocations[at(i)].observed.desired_transition = Some(DesiredTransition {
                migrate,
                reschedule,
                force_reschedule: force,
                migrate_disable_placement: false,
            })
        }
        Edit::Health(i, healthy, canary) => {
            allocations[at(i)].observed.health = Some(DeploymentHealth {
                healthy,
                canary,
                changed_at: Some(workload::NOW),
            })
        }
        Edit::Events(i, events) => {
            allocations[at(i)].observed.reschedule = Some(RescheduleTracker {
                events: events
                    .into_iter()
                    .map(|(at, delay)| RescheduleEvent { at, delay })
                    .collect(),
                last_failed: false,
            })
        }
        Edit::Task(i, name, failed, finished) => {
            allocations[at(i)].observed.tasks = Some(vec![TaskState {
                name,
                state: TaskLifecycle::Dead,
                failed,
                started_at: None,
                finished_at: finished,
                restarts: 3,
                last_restart: finished,
            }])
        }
        Edit::Meta(i, k, v) => allocations[at(i)].observed.meta = Some(vec![(k, v)]),
        Edit::Update(i, u) => allocations[at(i)].update = u,
        Edit::Score(i, s) => allocations[at(i)].spec.placement_score = s,
        Edit::Lineage(i, previous, next) => {
            let spec = &mut allocations[at(i)].spec;
            spec.previous_allocation = previous;
            spec.next_allocation = next;
        }
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]

    #[test]
    fn generated_inputs_plan_alike_on_both_paths(
        n in 1usize..120,
        explain in any::<bool>(),
        edits in prop::collection::vec(edit(), 0..24),
    ) {
        let mut input = workload::rolling_update(n);
        input.explain = explain;
        for e in edits {
            apply(&mut input, e);
        }
        let (typed, encoded) = both_paths(&input);
        prop_assert!(typed == encoded);
    }
}

#[test]
fn a_truncated_buffer_of_either_content_is_refused_as_truncated() {
    let input = workload::rolling_update(50);
    for bytes in [
        wire::encode_input(&input),
        wire::encode_input_records(&input),
    ] {
        for cut in [5, bytes.len() / 2, bytes.len() - 1] {
            let error = refused(&bytes[..cut]);
            assert!(error.message.contains("truncated"), "{error:?}");
            assert!(error.field.starts_with("encoded-input"), "{error:?}");
        }
    }
}

#[test]
fn a_buffer_of_another_format_version_is_refused_naming_both_versions() {
    let mut bytes = wire::encode_input(&workload::rolling_update(5));
    bytes[2] = VERSION + 1;
    let error = refused(&bytes);
    assert_eq!(error.field, "encoded-input");
    assert_eq!(
        error.message,
        format!(
            "wire format version {}; this reconciler reads version {VERSION}",
            VERSION + 1
        )
    );
}

#[test]
fn an_absurd_length_is_refused_without_being_allocated() {
    // A job id of 2^32 - 1 bytes: more than the buffer holds.
    let mut bytes = vec![b'S', b'W', VERSION, Content::Input as u8];
    bytes.extend([0xff, 0xff, 0xff, 0xff, 0x0f]);
    let error = refused(&bytes);
    assert!(error.message.contains("claims more"), "{error:?}");
    // One of 2^63 bytes: more than a length can be in the component.
    bytes.truncate(4);
    bytes.extend([0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x7f]);
    let error = refused(&bytes);
    assert!(error.message.contains("malformed varint"), "{error:?}");
    // job-id "j", no job, no nodes, then a list of 2^31 allocations.
    let mut bytes = vec![b'S', b'W', VERSION, Content::Input as u8, 1, b'j', 0, 0];
    bytes.extend([0x80, 0x80, 0x80, 0x80, 0x08]);
    let error = refused(&bytes);
    assert!(error.message.contains("claims more"), "{error:?}");
    // As records: one group, named "", of 2^31 records and a tail of 4 GiB.
    let mut bytes = vec![
        b'S',
        b'W',
        VERSION,
        Content::InputRecords as u8,
        1,
        b'j',
        0,
        0,
        1,
        0,
    ];
    bytes.extend([0x80, 0x80, 0x80, 0x80, 0x08, 0xff, 0xff, 0xff, 0xff]);
    let error = refused(&bytes);
    assert!(error.message.contains("claims more records"), "{error:?}");
    assert_eq!(error.field, "encoded-input[3][0][1]");
}

#[test]
fn a_hundred_megabytes_of_random_bytes_are_refused_and_the_next_reconcile_plans() {
    let mut bytes = vec![0u8; 100 << 20];
    let mut state = 0x9e37_79b9_7f4a_7c15u64;
    for chunk in bytes.chunks_mut(8) {
        // xorshift64: deterministic noise, no dependency.
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        chunk.copy_from_slice(&state.to_le_bytes()[..chunk.len()]);
    }
    let error = refused(&bytes);
    assert_eq!(error.field, "encoded-input");
    for content in [Content::Input, Content::InputRecords] {
        bytes[..4].copy_from_slice(&[b'S', b'W', VERSION, content as u8]);
        let error = refused(&bytes);
        assert!(error.field.starts_with("encoded-input"), "{error:?}");
    }
    let input = workload::rolling_update(10);
    let plan = reconciler()
        .reconcile_core(&input)
        .expect("the host still works");
    assert_eq!(plan, reconcile(&input));
}

/// Every input the limits admit plans through the component as it does
/// natively: a range of a million running allocations (the limit) once ran
/// out of the fuel wasmtime gives host calls. Minutes in a debug build, so
/// `cargo xtask test --long` runs it, in release.
#[test]
#[ignore = "a million allocations: run by `cargo xtask test --long`"]
fn an_input_at_the_allocation_limit_plans_through_the_component_as_natively() {
    let last = MAX_COUNT - 1;
    let text = format!(
        "job:\n  groups:\n    - count: {MAX_COUNT}\nallocations:\n  web:\n    - {{index: 0-{last}, client: running}}\n"
    );
    let scenario = slotwise_scenario::parse(&text, slotwise_scenario::Syntax::Yaml)
        .expect("the limits admit the scenario");
    let native = wire::encode_outcome(&reconcile(&scenario.input));
    let (typed, encoded) = both_paths(&scenario.input);
    assert!(
        matches!(wire::decode_outcome(&native), Ok(Ok(_))),
        "the native core plans it"
    );
    assert!(typed == native, "the typed path plans as the native core");
    assert!(
        encoded == native,
        "the encoded path plans as the native core"
    );
}
