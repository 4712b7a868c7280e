//! The records-input target: buffers of content 3, whose allocations the reconciler reads in place, on any bytes; what reads plans as the same input decoded, and the rest is refused by name.

use crate::size::{asked, slots, PLANNED_SLOTS};
use slotwise_reconciler::wire;

/// Reconciles `data` as the component's `reconcile-encoded` would: a
/// buffer that reads plans exactly as the input it reads as, written as
/// content 1; one that does not is an input error naming the buffer.
pub fn records_input(data: &[u8]) {
    let answer = wire::reconcile_encoded(data.to_vec());
    match wire::decode_input(data) {
        Ok(input) => {
            if slots(&input) > PLANNED_SLOTS
                || asked(&input) > u64::from(slotwise_reconciler::MAX_COUNT)
            {
                return;
            }
            let decoded = wire::reconcile_encoded(wire::encode_input(&input));
            assert!(
                answer == decoded,
                "records read in place planned otherwise than the same input decoded"
            );
            let again = wire::encode_input_records(&input);
            assert!(
                wire::decode_input(&again).map(|i| wire::encode_input(&i))
                    == Ok(wire::encode_input(&input)),
                "an input read from records must survive writing them again"
            );
        }
        Err(_) => {
            let refused = wire::decode_outcome(&answer);
            assert!(
                matches!(&refused, Ok(Err(e)) if e.field.starts_with("encoded-input")),
                "a buffer that does not read must give an input error naming it"
            );
        }
    }
}

/// The encoded-input target's corpus (`inputs`) written as records.
pub fn seeds(inputs: &[(String, Vec<u8>)]) -> Vec<(String, Vec<u8>)> {
    (inputs.iter())
        .filter_map(|(name, bytes)| {
            let input = wire::decode_input(bytes).ok()?;
            Some((name.clone(), wire::encode_input_records(&input)))
        })
        .collect()
}
