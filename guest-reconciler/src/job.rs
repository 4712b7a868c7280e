//! The job being reconciled, as every reconciler reads it: its kind.

use crate::JobType;

/// Whether jobs of `kind` are decided per node.
pub(crate) fn is_system(kind: JobType) -> bool {
    matches!(kind, JobType::System | JobType::Sysbatch)
}
