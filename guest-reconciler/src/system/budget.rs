//! Budget: how many allocations the rollout may replace now: the group's max-parallel, less those the current deployment placed that are not yet healthy or unhealthy.

use super::run::NodeGroupRun;
use crate::candidate::{Marks, Standing};
use crate::deployment::strategy;
use crate::pipeline::Outcome;
use crate::sentence::say;

pub(super) fn run(g: &mut NodeGroupRun) -> Outcome {
    if g.destructive.is_empty() && g.reruns.is_empty() {
        g.budget = 0;
        return Outcome::skipped("nothing to replace");
    }
    let Some(update) = strategy(g.spec.update.as_ref()) else {
        g.budget = i64::MAX;
        return Outcome::skipped("no update strategy: every replacement happens now");
    };
    if g.deployments.is_paused() || g.deployments.is_failed() {
        g.budget = 0;
        return Outcome::waiting("the deployment is paused or failed: nothing is replaced");
    }
    let pending = match g.deployments.current_asked() {
        Some(id) => g
            .candidates
            .iter()
            .filter(|c| {
                c.is(Standing::Ignored)
                    && !c.has(Marks::RESUMED)
                    && c.in_deployment(id)
                    && !c.glance().is_healthy()
                    && !c.glance().is_unhealthy()
            })
            .count(),
        None => 0,
    };
    g.budget = i64::from(update.max_parallel) - pending as i64;
    Outcome::done(say!(
        "max-parallel ",
        update.max_parallel,
        ", ",
        pending,
        " placed allocations not yet healthy: ",
        g.budget.max(0),
        " may be replaced"
    ))
}
