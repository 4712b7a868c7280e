//! The fuzz targets: functions of bytes that must never panic, run by libFuzzer (`cargo +nightly fuzz`) or by the stable engine in `fuzz-stable`.
//!
//! Each target has its corpus in `corpus/<name>/`; a crash found is kept
//! there as a regression case, so every later run tries it first.

mod answers;
mod outcome;
mod packed;
mod records;
mod size;

pub use answers::{plugin_answers, seeds as answer_seeds};
pub use outcome::{encoded_outcome, seeds as outcome_seeds};
pub use packed::{packed_batch, seeds as packed_seeds};
pub use records::{records_input, seeds as records_seeds};
use size::{asked, slots, PLANNED_SLOTS};

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
        name: "records_input",
        run: records_input,
    },
    Target {
        name: "packed_batch",
        run: packed_batch,
    },
];

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
    if data.get(3) == Some(&(wire::Content::InputRecords as u8)) {
        // Records, which serde does not read: the records target's checks.
        records_input(data);
        return;
    }
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
