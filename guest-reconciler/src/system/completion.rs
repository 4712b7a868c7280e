//! Completion: a system deployment's group is done when no canary awaits promotion and as many allocations are healthy as the group runs.

use super::run::NodeGroupRun;
use crate::pipeline::Outcome;
use crate::sentence::say;

pub(super) fn run(g: &mut NodeGroupRun) -> Outcome {
    if !g.tracked || g.desired == 0 {
        g.complete = true;
        return Outcome::skipped("no deployment tracks the group here");
    }
    if !g.hooks.held.is_empty() {
        g.complete = false;
        let held = g.hooks.held.len();
        return Outcome::waiting(say!(held, " node slots kept as they are by a policy"));
    }
    if g.canarying {
        g.complete = false;
        return Outcome::waiting("canaries await promotion");
    }
    let (healthy, total) = (g.dstate.healthy_allocs, g.dstate.desired_total);
    g.complete = healthy >= total;
    if g.complete {
        Outcome::done(say!(healthy, " of ", total, " allocations healthy"))
    } else {
        Outcome::waiting(say!(healthy, " of ", total, " allocations healthy"))
    }
}
