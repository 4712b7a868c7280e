//! Destructive updates: allocations the group's change cannot absorb are replaced, lowest slots first, as far as the budget allows.

use super::run::GroupRun;
use crate::pipeline::Outcome;
use crate::{DestructiveUpdate, Reason};

pub(super) fn run(g: &mut GroupRun) -> Outcome {
    let due = g.destructive.len();
    if due == 0 {
        return Outcome::skipped("nothing to replace");
    }
    if !g.ready {
        g.plan.counters.ignore += due as u32;
        for &i in &g.destructive {
            g.candidates[i].settle(|| "needs a new allocation; the deployment holds it back");
        }
        return Outcome::waiting(format!("{due} replacements held back by the deployment"));
    }
    let now = (g.budget.max(0) as usize).min(due);
    for (n, &i) in g.destructive.iter().enumerate() {
        let c = &mut g.candidates[i];
        if n >= now {
            c.settle(|| "needs a new allocation; waits for the rollout budget");
            continue;
        }
        let message = format!("replaced by the new version ({} of {due})", n + 1);
        c.settle(|| message.clone());
        g.plan.destructive_updates.push(DestructiveUpdate {
            allocation: c.id().to_string(),
            name_index: c.index(),
            reason: Reason::DestructiveUpdate,
            message,
        });
    }
    g.plan.counters.destructive += now as u32;
    g.plan.counters.ignore += (due - now) as u32;
    let status = if now < due {
        Outcome::waiting
    } else {
        Outcome::done
    };
    status(format!("{now} of {due} replaced now"))
}
