//! Hook overhead: what asking plugins adds to a reconcile through the component, per hook call, on a 10,000-slot rolling update.

use super::timing::{human, time, Timing};
use super::workload::rolling_update;
use anyhow::Result;
use slotwise_host::plugins::PluginConfig;
use slotwise_host::plugins::PluginSet;
use slotwise_host::transcode::transcode;
use slotwise_host::{wit, ComponentReconciler};
use std::path::Path;
use std::time::Duration;

/// Slots of the group the hooks are timed on.
const SLOTS: usize = 10_000;

/// A plugin that answers without changing the plan, whatever the slot.
struct Subject {
    /// How the figures are labelled.
    label: &'static str,
    /// The shipped plugin and the names it is loaded under.
    plugin: &'static str,
    names: &'static [&'static str],
    settings: serde_json::Value,
}

/// Prints, for no plugin, the probe plugin loaded once and three times,
/// and the JavaScript max-disruption plugin when it is built, the reconcile
/// time, the hook calls it makes, and the time added per call; then what
/// each further Rust plugin adds per call.
pub fn run(reconciler: &ComponentReconciler, shipped: &Path, rounds: usize) -> Result<()> {
    let input: wit::ReconcileInput = transcode(&rolling_update(SLOTS))?;
    println!(
        "\nhook overhead at {SLOTS} slots, through the component (median of {rounds} reconciles; \
         added = time over no plugin / hook calls)"
    );
    println!(
        "{:<22}  {:>20}  {:>24}  {:>13}  {:>13}",
        "plugins", "reconcile", "calls pre/post/promotion", "added / call", "in the call"
    );
    let mut none = PluginSet::load(&[], shipped, shipped)?;
    let baseline = time(rounds, || {
        let _ = reconciler.reconcile_with(&input, &mut none);
    });
    println!("{:<22}  {:>20}", "none", baseline.show());
    let subjects = [
        Subject {
            label: "probe (Rust) x1",
            plugin: "probe",
            names: &["probe-1"],
            settings: serde_json::Value::Null,
        },
        Subject {
            label: "probe (Rust) x3",
            plugin: "probe",
            names: &["probe-1", "probe-2", "probe-3"],
            settings: serde_json::Value::Null,
        },
        Subject {
            label: "max-disruption (JS)",
            plugin: "max-disruption",
            names: &["max-disruption"],
            // A limit no reconcile reaches: every slot is accepted, so the
            // plan, and the reconciler's work, stay those of no plugin.
            settings: serde_json::json!({ "limit": 1_000_000_000 }),
        },
    ];
    let mut measured = Vec::new();
    for subject in &subjects {
        let file = shipped.join(format!("{}.wasm", subject.plugin));
        if !file.exists() {
            println!(
                "{:<22}  skipped: {} not built (cargo xtask build)",
                subject.label,
                file.display()
            );
            continue;
        }
        let (median, calls) = measure(reconciler, shipped, &input, subject, &baseline, rounds)?;
        measured.push((subject.names.len(), subject.plugin, median, calls));
    }
    let probes: Vec<&(usize, &str, Duration, u64)> =
        measured.iter().filter(|m| m.1 == "probe").collect();
    if let [(1, _, one, one_calls), (3, _, three, three_calls)] = probes[..] {
        // Two probes more make the difference between the two runs: what
        // each further plugin costs a call, apart from what asking at all
        // costs (slot views out of the reconciler, replies back in).
        let extra = three.saturating_sub(*one) / u32::try_from(three_calls - one_calls)?;
        let fixed = one.saturating_sub(baseline.median + extra * u32::try_from(*one_calls)?);
        println!(
            "each further Rust plugin: {} per hook call (x3 over x1); asking at all: {} per slot asked",
            human(extra),
            human(fixed / u32::try_from(*one_calls)?)
        );
    }
    Ok(())
}

fn measure(
    reconciler: &ComponentReconciler,
    shipped: &Path,
    input: &wit::ReconcileInput,
    subject: &Subject,
    baseline: &Timing,
    rounds: usize,
) -> Result<(Duration, u64)> {
    let entries: Vec<PluginConfig> = subject
        .names
        .iter()
        .map(|name| PluginConfig {
            plugin: Some(subject.plugin.into()),
            name: Some((*name).into()),
            settings: subject.settings.to_string(),
            ..PluginConfig::default()
        })
        .collect();
    let mut set = PluginSet::load(&entries, shipped, shipped)?;
    // One reconcile on its own, to count its calls and check it succeeds.
    let before = set.usage().to_vec();
    reconciler
        .reconcile_with(input, &mut set)?
        .map_err(|e| anyhow::anyhow!("{}: {}", e.field, e.message))?;
    let (mut calls, mut inside) = ([0u64; 3], Duration::ZERO);
    for (after, before) in set.usage().iter().zip(&before) {
        for (hook, n) in calls.iter_mut().enumerate() {
            *n += after.calls[hook] - before.calls[hook];
            inside += after.time[hook] - before.time[hook];
        }
    }
    let timing = time(rounds, || {
        let _ = reconciler.reconcile_with(input, &mut set);
    });
    let total: u64 = calls.iter().sum();
    let per_call = |d: Duration| match total {
        0 => "-".to_string(),
        n => human(d / u32::try_from(n).unwrap_or(u32::MAX)),
    };
    let added = timing.median.saturating_sub(baseline.median);
    // The usage arrays run promotion, pre-slot, post-slot.
    let calls_text = format!("{} / {} / {}", calls[1], calls[2], calls[0]);
    println!(
        "{:<22}  {:>20}  {calls_text:>24}  {:>13}  {:>13}",
        subject.label,
        timing.show(),
        per_call(added),
        per_call(inside)
    );
    Ok((timing.median, total))
}
