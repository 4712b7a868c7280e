//! Budget: how many allocations the rollout may change now, from max-parallel and the health of what it already changed.

use super::run::GroupRun;
use crate::candidate::Standing;
use crate::deployment::strategy;
use crate::pipeline::Outcome;
use crate::sentence::say;

pub(super) fn run(g: &mut GroupRun) -> Outcome {
    let (budget, why) = budget(g);
    g.budget = budget;
    Outcome::done(say!(budget, ": ", why))
}

fn budget(g: &GroupRun) -> (i64, &'static str) {
    let count = i64::from(g.spec.count);
    let Some(update) = strategy(g.spec.update.as_ref()) else {
        return (count, "no update strategy limits the rollout");
    };
    if g.destructive.is_empty() && g.count_of(Standing::Migrating) == 0 {
        return (count, "nothing to replace or migrate");
    }
    let Some(current) = g.deployments.current_asked() else {
        return (
            i64::from(update.max_parallel),
            "max-parallel of a new rollout",
        );
    };
    if g.deployments.is_paused() {
        return (0, "the deployment is paused");
    }
    if g.deployments.is_failed() {
        return (0, "the deployment failed");
    }
    if g.canarying {
        return (0, "canaries await promotion");
    }
    let mut budget = i64::from(update.max_parallel);
    for c in g
        .candidates
        .iter()
        .filter(|c| c.is(Standing::Untainted) && c.in_deployment(current))
    {
        if c.glance().is_unhealthy() {
            return (0, "an allocation of the deployment is unhealthy");
        }
        if !c.glance().is_healthy() {
            budget -= 1;
        }
    }
    (
        budget.max(0),
        "max-parallel less the deployment's allocations not yet healthy",
    )
}
