//! Destructive updates: allocations the group's change cannot absorb are replaced, lowest slots first, as far as the budget allows.

use super::run::GroupRun;
use crate::candidate::Candidate;
use crate::pipeline::Outcome;
use crate::sentence::say;
use crate::{DestructiveUpdate, GroupPlan, Reason};

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
        return Outcome::waiting(say!(due, " replacements held back by the deployment"));
    }
    replace_within_budget(&mut g.candidates, &g.destructive, g.budget, &mut g.plan)
}

/// Replaces the candidates at positions `due`, in order, as far as `budget`
/// allows; the others are counted as ignored and wait.
pub(crate) fn replace_within_budget(
    candidates: &mut [Candidate],
    due: &[usize],
    budget: i64,
    plan: &mut GroupPlan,
) -> Outcome {
    let now = (budget.max(0) as usize).min(due.len());
    for (n, &i) in due.iter().enumerate() {
        let c = &mut candidates[i];
        if n >= now {
            c.settle(|| "needs a new allocation; waits for the rollout budget");
            continue;
        }
        let message = say!(
            "replaced by the new version (",
            n + 1,
            " of ",
            due.len(),
            ")"
        );
        c.settle(|| message.clone());
        plan.destructive_updates.push(DestructiveUpdate {
            allocation: c.id().to_string(),
            name_index: c.index(),
            reason: Reason::DestructiveUpdate,
            message,
        });
    }
    let due = due.len();
    plan.counters.destructive += now as u32;
    plan.counters.ignore += (due - now) as u32;
    let status = if now < due {
        Outcome::waiting
    } else {
        Outcome::done
    };
    status(say!(now, " of ", due, " replaced now"))
}
