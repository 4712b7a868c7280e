//! Canaries: those of a superseded or failed deployment are stopped, those on bad nodes are replaced, the rest are kept.

use super::run::GroupRun;
use crate::candidate::{Marks, Standing};
use crate::pipeline::Outcome;
use crate::sentence::say;
use crate::slot_hooks::Counted;
use crate::{Classification, ClientStatus, Reason};

pub(super) fn run(g: &mut GroupRun) -> Outcome {
    let current_id = g.deployments.current_id().map(str::to_string);
    if !g.deployments.dooms_canaries() && current_id.is_none() {
        return Outcome::skipped("no deployment has canaries");
    }
    let mut cancelled = 0;
    // Asking about a candidate reads its id from the allocation's record,
    // which in a group larger than the cache is a miss per candidate: each
    // pass runs only when there is a canary for it to find.
    let doomed = if g.deployments.dooms_canaries() {
        0..g.candidates.len()
    } else {
        0..0
    };
    for i in doomed {
        let c = &g.candidates[i];
        if !c.has(Marks::TRACKED) || !g.deployments.is_doomed_canary(c.id()) {
            continue;
        }
        let deployment = c.alloc().deployment().unwrap_or("?");
        let why = if current_id.as_deref() == Some(deployment) {
            "failed"
        } else {
            "was replaced"
        };
        let message = say!(
            "canary of deployment ",
            deployment,
            ", which ",
            why,
            ", was never promoted"
        );
        g.stop(i, Reason::CanaryCancelled, None, message, Counted::AsStop);
        leave(g, i);
        cancelled += 1;
    }
    if current_id.is_none() {
        return Outcome::done(say!(cancelled, " canaries of old deployments stopped"));
    }
    let (mut kept, mut replaced) = (0, 0);
    let current = if g.deployments.has_current_canaries() {
        0..g.candidates.len()
    } else {
        0..0
    };
    for i in current {
        let c = &g.candidates[i];
        if !c.has(Marks::TRACKED) || !g.deployments.is_current_canary(c.id()) {
            continue;
        }
        let rule = c.rule_for();
        // These stops are transient churn of a running deployment: Nomad does
        // not count them.
        match rule.class {
            Classification::Migrate => {
                let message = say!("canary on draining node ", c.node.id, " is migrated");
                g.stop(i, Reason::Migrate, None, message, Counted::Not);
                leave(g, i);
                replaced += 1;
            }
            Classification::Lost => {
                let message = say!("canary on lost node ", c.node.id, " is replaced");
                g.stop(
                    i,
                    Reason::Lost,
                    Some(ClientStatus::Lost),
                    message,
                    Counted::Not,
                );
                leave(g, i);
                replaced += 1;
            }
            Classification::Untainted => {
                g.candidates[i].mark(Marks::CANARY);
                kept += 1;
            }
            _ => {}
        }
    }
    Outcome::done(say!(
        cancelled,
        " canaries of old deployments stopped, ",
        replaced,
        " on bad nodes stopped, ",
        kept,
        " kept"
    ))
}

/// Takes a stopped canary out of view, keeping the stop as its outcome.
fn leave(g: &mut GroupRun, i: usize) {
    let c = &mut g.candidates[i];
    c.unmark(Marks::TRACKED);
    c.standing = Standing::Out;
}
