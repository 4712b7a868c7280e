//! How much a fuzzed input asks the reconciler to plan, so that targets leave out what would take seconds a case.

/// The most slots a fuzzed scenario is planned for: a mutant that asks for
/// a million is read (the reader is the target) but not planned, which would
/// take a case a second.
pub const PLANNED_SLOTS: u64 = 10_000;

/// The allocations the job's groups ask for: for a service or batch job
/// their counts and canaries, for a system or sysbatch job their counts on
/// every eligible node.
pub fn asked(input: &slotwise_reconciler::ReconcileInput) -> u64 {
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
pub fn slots(input: &slotwise_reconciler::ReconcileInput) -> u64 {
    let past: u64 = (input.job.iter())
        .flat_map(|j| j.history.iter().flat_map(|h| h.groups.iter()))
        .map(|g| u64::from(g.count))
        .sum();
    let allocations: u64 = (input.allocations.iter())
        .map(|g| g.allocations.len() as u64)
        .sum();
    asked(input) + past + allocations
}
