//! The session's own part of the hook overhead, natively: a reconcile consulting one plugin on every hook through a relay that answers at once, with no component boundary to cross.

use super::timing::{human, time};
use anyhow::Result;
use slotwise_reconciler as core;
use slotwise_reconciler::plugin::{neutral_answers, Batch, Hook, READS_NOTHING};
use std::time::Duration;

/// What the session itself costs, natively, without a component boundary:
/// a reconcile consulting one plugin on every hook whose relay answers at
/// once, against the reconcile alone.
/// Prints the time of `job` alone and with the neutral relay, natively,
/// and what the session adds per slot of its `slots`.
pub fn run(job: &core::ReconcileInput, slots: usize, rounds: usize) -> Result<()> {
    let alone = time(rounds, || {
        let _ = core::reconcile(job);
    });
    let consulted = vec![core::Consulted {
        name: "neutral".into(),
        version: String::new(),
        hooks: vec![Hook::Promotion, Hook::PreSlot, Hook::PostSlot, Hook::Review],
        reads: READS_NOTHING,
        mode: core::Mode::Enforce,
        fail_open: false,
        unloaded: None,
    }];
    let mut relay = Neutral;
    core::reconcile_with(job.clone(), consulted.clone(), &mut relay)
        .map_err(|e| anyhow::anyhow!("the native session failed: {e:?}"))?;
    let session = time(rounds, || {
        let _ = core::reconcile_with(job.clone(), consulted.clone(), &mut relay);
    });
    let added = session.best.saturating_sub(alone.best);
    println!(
        "  {:<30}  {:>5}  {:>22}  {:>9}  {:>12}  {:>14}",
        "natively: none",
        "",
        format!("{} ({})", human(alone.best), human(alone.median)),
        "",
        "",
        ""
    );
    println!(
        "  {:<30}  {:>5}  {:>22}  {:>9}  {:>12}  {:>14}",
        "natively: a relay that answers",
        "0.2",
        format!("{} ({})", human(session.best), human(session.median)),
        "",
        "",
        per_slot(added, slots)
    );
    Ok(())
}

/// A relay whose one plugin leaves every decision to the reconciler, at
/// once: what remains is the session's own work.
struct Neutral;

impl core::Relay for Neutral {
    fn answer(&mut self, _: &core::Question, batch: &Batch) -> core::Reply {
        core::Reply {
            outcome: Ok(neutral_answers(batch)),
            logs: Vec::new(),
            usage: None,
        }
    }
}

fn per_slot(added: Duration, slots: usize) -> String {
    let slots = u32::try_from(slots.max(1)).unwrap_or(u32::MAX);
    format!("{:.2} µs", (added / slots).as_secs_f64() * 1e6)
}
