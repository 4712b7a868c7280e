//! The fuzz targets: functions of bytes that must never panic, run by libFuzzer (`cargo +nightly fuzz`) or by the stable engine in `fuzz-stable`.
//!
//! Each target has its corpus in `corpus/<name>/`; a crash found is kept
//! there as a regression case, so every later run tries it first.

mod answers;
mod outcome;
mod packed;

pub use answers::{plugin_answers, seeds as answer_seeds};
pub use outcome::{encoded_outcome, seeds as outcome_seeds};
pub use packed::{packed_batch, seeds as packed_seeds};

/// A fuzz target: its name (its corpus folder) and its function.
pub struct Target {
    pub name: &'static str,
    pub run: fn(&[u8]),
}

/// Every target, in the order they run.
pub const TARGETS: &[Target] = &[
    Target {
        name: "scenario_reader",
        run: scenario_reader,
    },
    Target {
        name: "plugin_answers",
        run: plugin_answers,
    },
    Target {
        name: "encoded_input",
        run: encoded_input,
    },
    Target {
        name: "encoded_outcome",
        run: encoded_outcome,
    },
    Target {
        name: "packed_batch",
        run: packed_batch,
    },
];

/// The most slots a fuzzed scenario is planned for: a mutant that asks for
/// a million is read (the reader is the target) but not planned, which would
/// take a case a second.
const PLANNED_SLOTS: u64 = 10_000;

/// The scenario reader on any bytes, as YAML and as JSON: it may refuse
/// them, never panic; what it reads plans or is refused by the reconciler.
pub fn scenario_reader(data: &[u8]) {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    for syntax in [
        slotwise_scenario::Syntax::Yaml,
        slotwise_scenario::Syntax::Json,
    ] {
        if let Ok(scenario) = slotwise_scenario::parse(text, syntax) {
            if slots(&scenario.input) <= PLANNED_SLOTS {
                let _ = slotwise_reconciler::reconcile(&scenario.input);
            }
        }
    }
}

/// The encoded path on any bytes, as the component's `reconcile-encoded`
/// takes them: it answers an outcome buffer that decodes, never panics; an
/// input that decodes survives encoding again. (Not byte for byte against the
/// fuzzer's bytes: postcard reads a varint padded with zero groups, and writes
/// it without them; byte for byte from the first encoding on.) The fast
/// reader and writer of the large lists agree with serde's.
pub fn encoded_input(data: &[u8]) {
    use slotwise_reconciler::wire;
    // The hand-written list reader reads exactly what serde reads.
    let ours = wire::decode_input(data).map(|input| wire::reference::encode_input(&input));
    let serde =
        wire::reference::decode_input(data).map(|input| wire::reference::encode_input(&input));
    assert_eq!(
        ours, serde,
        "the list reader and serde read this buffer otherwise"
    );
    let input = match wire::decode_input(data) {
        Ok(input) => input,
        Err(_) => {
            let outcome = wire::reconcile_encoded(data.to_vec());
            let refused = wire::decode_outcome(&outcome);
            assert!(
                matches!(refused, Ok(Err(_))),
                "garbage must give an input error"
            );
            return;
        }
    };
    // Compared as bytes, not values: a score may be NaN, which equals
    // nothing, yet must survive encoding bit for bit.
    let once = wire::encode_input(&input);
    assert_eq!(
        once,
        wire::reference::encode_input(&input),
        "the list writer and serde write otherwise"
    );
    let again = wire::decode_input(&once).map(|decoded| wire::encode_input(&decoded));
    assert_eq!(
        again.as_ref(),
        Ok(&once),
        "a decoded input must survive encoding again"
    );
    if asked(&input) > u64::from(slotwise_reconciler::MAX_COUNT) {
        // Refused before anything of that size is planned: a few bytes
        // asking for a quarter of a billion canaries once took 24 GB,
        // a sysbatch count on many nodes over 5 GB.
        let refused = wire::decode_outcome(&wire::reconcile_encoded(data.to_vec()));
        assert!(
            matches!(refused, Ok(Err(_))),
            "a job asking for more allocations than the limit must be refused"
        );
        return;
    }
    if slots(&input) <= PLANNED_SLOTS {
        let encoded = wire::reconcile_encoded(data.to_vec());
        let outcome =
            wire::decode_outcome(&encoded).expect("the outcome of a readable input decodes");
        assert_eq!(
            encoded,
            wire::reference::encode_outcome(&outcome),
            "the plan writer and serde write otherwise"
        );
        assert_eq!(outcome, slotwise_reconciler::reconcile(&input));
    }
}

/// The allocations the job's groups ask for: for a service or batch job
/// their counts and canaries, for a system or sysbatch job their counts on
/// every eligible node.
fn asked(input: &slotwise_reconciler::ReconcileInput) -> u64 {
    use slotwise_reconciler::JobType;
    let Some(job) = &input.job else {
        return 0;
    };
    let eligible = input.system.as_ref().map_or(0, |s| s.eligible.len() as u64);
    (job.groups.iter())
        .map(|g| match job.kind {
            JobType::System | JobType::Sysbatch => u64::from(g.count) * eligible,
            _ => u64::from(g.count) + g.update.as_ref().map_or(0, |u| u64::from(u.canary)),
        })
        .sum()
}

/// The slots a plan of `input` covers: what its groups ask for, its past
/// versions' counts, and its allocations.
fn slots(input: &slotwise_reconciler::ReconcileInput) -> u64 {
    let past: u64 = (input.job.iter())
        .flat_map(|j| j.history.iter().flat_map(|h| h.groups.iter()))
        .map(|g| u64::from(g.count))
        .sum();
    let allocations: u64 = (input.allocations.iter())
        .map(|g| g.allocations.len() as u64)
        .sum();
    asked(input) + past + allocations
}
