//! The job being reconciled, as every reconciler reads it: its kind and the groups to decide.

use crate::{Job, JobType, ReconcileInput};

/// Whether jobs of `kind` are decided per node.
pub(crate) fn is_system(kind: JobType) -> bool {
    matches!(kind, JobType::System | JobType::Sysbatch)
}

/// The groups to reconcile: the job's, in its order, then those only
/// allocations still name, in input order.
pub(crate) fn group_names<'a>(input: &'a ReconcileInput, job: Option<&'a Job>) -> Vec<&'a str> {
    let mut names: Vec<&str> = job
        .map(|j| j.groups.iter().map(|g| g.name.as_str()).collect())
        .unwrap_or_default();
    for g in &input.allocations {
        if !names.contains(&g.group.as_str()) {
            names.push(&g.group);
        }
    }
    names
}
