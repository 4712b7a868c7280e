//! Tainted nodes and disconnected clients: migrations and lost allocations are stopped, disconnected ones marked unknown, the rest kept.

use super::run::NodeGroupRun;
use crate::candidate::{Marks, Standing};
use crate::pipeline::Outcome;
use crate::sentence::say;
use crate::slot_hooks::Counted;
use crate::{ClientStatus, Reason};

pub(super) fn run(g: &mut NodeGroupRun) -> Outcome {
    let (mut migrated, mut lost, mut disconnected, mut kept) = (0, 0, 0, 0);
    for i in 0..g.candidates.len() {
        let c = &g.candidates[i];
        if !c.has(Marks::TRACKED) || c.has(Marks::STOPPED) {
            continue;
        }
        let node = &c.node.id;
        match c.standing {
            Standing::Migrating => {
                let message = say!("marked to move off node ", node);
                g.stop(i, Reason::Migrate, None, message, Counted::AsMigration);
                migrated += 1;
            }
            Standing::Lost => {
                let message = match g.rules[i] {
                    Some(rule) if rule.name == "node-down" => {
                        say!("node ", node, " is down; the allocation is lost")
                    }
                    _ => say!(
                        "its client on node ",
                        node,
                        " stayed away past lost-after; the allocation is lost"
                    ),
                };
                g.stop(
                    i,
                    Reason::Lost,
                    Some(ClientStatus::Lost),
                    message,
                    Counted::AsStop,
                );
                lost += 1;
            }
            Standing::Disconnecting => {
                let message = say!("client on node ", node, " disconnected; marked unknown");
                let c = &mut g.candidates[i];
                c.mark(Marks::DISCONNECTED);
                c.settle(|| message.clone());
                let entry = c.update_entry(Reason::Disconnect, message);
                g.plan.disconnect_updates.push(entry);
                disconnected += 1;
            }
            // Kept as it is: counted, and still part of the group's total.
            Standing::Ignored => {
                kept += 1;
                continue;
            }
            _ => continue,
        }
        g.candidates[i].standing = Standing::Out;
    }
    let counters = &mut g.plan.counters;
    counters.disconnect += disconnected;
    counters.ignore += kept;
    g.desired += kept;
    if migrated + lost + disconnected + kept == 0 {
        return Outcome::skipped("no allocation on a tainted node or a disconnected client");
    }
    Outcome::done(say!(
        migrated,
        " migrated, ",
        lost,
        " lost, ",
        disconnected,
        " marked unknown, ",
        kept,
        " kept as they are"
    ))
}
