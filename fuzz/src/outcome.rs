//! The encoded-outcome target: the reader and writer of the buffers a host gets back from the component, on any bytes; they read and write exactly what serde does, and refuse the rest with the same error.

use slotwise_reconciler::wire;

/// Reads `data` as an outcome buffer, by hand and through serde alone.
pub fn encoded_outcome(data: &[u8]) {
    // Compared as the bytes serde writes: a plan may hold a NaN score,
    // which equals nothing, yet must read the same bit for bit.
    // The hand-written reader and writer against serde's, on both sides.
    let ours = wire::decode_outcome(data).map(|outcome| wire::encode_outcome(&outcome));
    let serde = wire::reference::decode_outcome(data)
        .map(|outcome| wire::reference::encode_outcome(&outcome));
    assert_eq!(
        ours, serde,
        "the plan reader and writer and serde's read or write this buffer otherwise"
    );
}

/// Outcomes of the encoded-input target's corpus (`inputs`), planned as
/// they are and explained, and one input error: the starting corpus.
pub fn seeds(inputs: &[(String, Vec<u8>)]) -> Vec<(String, Vec<u8>)> {
    let mut seeds = vec![(
        "input-error".to_string(),
        wire::reconcile_encoded(b"not a buffer".to_vec()),
    )];
    for (name, bytes) in inputs {
        let Ok(mut input) = wire::decode_input(bytes) else {
            continue;
        };
        for explain in [false, true] {
            input.explain = explain;
            let outcome = slotwise_reconciler::reconcile(&input);
            let suffix = if explain { "-explained" } else { "" };
            seeds.push((format!("{name}{suffix}"), wire::encode_outcome(&outcome)));
        }
    }
    seeds
}
