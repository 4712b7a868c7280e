//! Follow-ups: expired allocations become lost, and work that must wait gets a follow-up evaluation.

use super::run::GroupRun;
use crate::candidate::{Marks, Standing};
use crate::followup::{batches, Purpose};
use crate::pipeline::Outcome;
use crate::sentence::say;
use crate::{AllocationUpdate, Reason};

pub(super) fn run(g: &mut GroupRun) -> Outcome {
    let now = g.ctx.now;
    // One pass over the candidates finds all the step works on: in a group
    // larger than the cache, each pass costs about the candidates' bytes.
    let (mut lost, mut later, mut disconnected) = (Vec::new(), Vec::new(), Vec::new());
    for (i, c) in g.candidates.iter_mut().enumerate() {
        if c.is(Standing::Expiring) {
            c.standing = Standing::Lost;
        }
        if c.is(Standing::Lost) {
            lost.push(i);
        }
        if let Some(&at) = c.reschedule_later.as_deref() {
            later.push((i, at));
        }
        if c.has(Marks::DISCONNECTED) {
            disconnected.push(i);
        }
    }

    // A client that lost contact stops its allocations itself after a while;
    // replacing them before that would run two copies at once.
    let lost_later: Vec<(usize, i64)> = lost
        .into_iter()
        .filter_map(|i| {
            let c = &g.candidates[i];
            let after = c.policy.stop_on_client_after()?;
            let since = c.observed().history().first_lost().unwrap_or(now);
            let due = since
                .saturating_add(after)
                .saturating_add(c.policy.max_kill_timeout());
            (due > now).then_some((i, due))
        })
        .collect();
    g.waiting_for_lost = !lost_later.is_empty();
    g.create_evals(batches(lost_later), Purpose::LostLater, true);

    g.rescheduling_later = later.len();
    let positions: Vec<usize> = later.iter().map(|&(i, _)| i).collect();
    g.create_evals(batches(later), Purpose::RescheduleLater, true);
    for &i in &positions {
        let c = &g.candidates[i];
        // A disconnected allocation carries the evaluation on its disconnect
        // update, a migrating one on its migration stop.
        if c.has(Marks::DISCONNECTED) || c.is(Standing::Migrating) {
            continue;
        }
        g.plan.attribute_updates.push(AllocationUpdate {
            allocation: c.id().to_string(),
            name_index: c.index(),
            followup_eval: c.followup_eval(),
            reason: Reason::RescheduleLater,
            message: "failed; a follow-up evaluation will replace it".to_string(),
        });
    }
    if !positions.is_empty() {
        g.plan.counters.reschedule_later = positions.len() as u32;
    }

    for i in disconnected {
        let c = &g.candidates[i];
        g.plan.disconnect_updates.push(AllocationUpdate {
            allocation: c.id().to_string(),
            name_index: c.index(),
            followup_eval: c.followup_eval(),
            reason: Reason::Disconnect,
            message: say!(
                "client on node ",
                c.node.id,
                " disconnected; marked unknown"
            ),
        });
    }

    let created = g.plan.followup_evals.len();
    if created == 0 {
        return Outcome::skipped("nothing waits for later");
    }
    let status = if g.waiting_for_lost {
        Outcome::waiting
    } else {
        Outcome::done
    };
    status(say!(created, " follow-up evaluations planned"))
}
