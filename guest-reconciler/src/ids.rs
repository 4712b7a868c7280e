//! Identifiers the plan creates, derived from the input so that the same input gives the same plan.

use uuid::Uuid;

/// The namespace of every identifier slotwise derives (a fixed, random UUID).
const NAMESPACE: Uuid = Uuid::from_u128(0x6f0e_4f5b_8f0a_4b7e_9d3c_2a51_c7e8_1d42);

/// A name-based (version 5) UUID over the parts, separated so that no two
/// different part lists share a name.
fn derive(parts: &[&str]) -> String {
    let mut name = Vec::new();
    for part in parts {
        name.extend_from_slice(&(part.len() as u64).to_le_bytes());
        name.extend_from_slice(part.as_bytes());
    }
    Uuid::new_v5(&NAMESPACE, &name).to_string()
}

/// The identifier of the deployment created for a job version by an evaluation.
pub(crate) fn deployment(job_id: &str, version: u64, create_index: u64, eval_id: &str) -> String {
    derive(&[
        "deployment",
        job_id,
        &version.to_string(),
        &create_index.to_string(),
        eval_id,
    ])
}

/// The identifier of the `seq`-th follow-up evaluation an evaluation creates
/// for a group.
pub(crate) fn followup_eval(job_id: &str, eval_id: &str, group: &str, seq: usize) -> String {
    derive(&["followup-eval", job_id, eval_id, group, &seq.to_string()])
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn identifiers_depend_only_on_their_inputs() {
        assert_eq!(deployment("j", 1, 2, "e"), deployment("j", 1, 2, "e"));
        assert_ne!(deployment("j", 1, 2, "e"), deployment("j", 1, 2, "f"));
        assert_ne!(
            followup_eval("j", "e", "web", 0),
            followup_eval("j", "e", "web", 1)
        );
    }

    #[test]
    fn parts_cannot_run_into_each_other() {
        assert_ne!(
            followup_eval("j", "ab", "c", 0),
            followup_eval("j", "a", "bc", 0)
        );
    }
}
