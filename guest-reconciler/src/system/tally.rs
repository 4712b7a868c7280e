//! Deployment state: a system deployment's totals follow the nodes the group runs on, so each run recounts them.

use super::run::NodeGroupRun;
use crate::pipeline::Outcome;
use crate::sentence::say;

pub(super) fn run(g: &mut NodeGroupRun) -> Outcome {
    if !g.tracked {
        return Outcome::skipped("no deployment tracks the group");
    }
    if g.desired == 0 {
        return Outcome::skipped("the group runs on no node");
    }
    g.dstate.desired_total = g.desired;
    g.deployments.put_group(g.dstate.clone());
    let canaries = if g.canarying {
        say!(", ", g.dstate.desired_canaries, " canaries")
    } else {
        String::new()
    };
    Outcome::done(say!(
        "the deployment wants ",
        g.desired,
        " allocations",
        canaries
    ))
}
