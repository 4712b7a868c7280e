//! Hook overhead: what asking plugins adds to a reconcile through the component, per slot and per plugin, for plugins built for `slotwise:plugin@0.2.0` and for 0.1 (adapted, one call per slot) side by side, a JavaScript plugin, and a job of many groups.

use super::timing::{time, Timing};
use super::workload::rolling_job;
use anyhow::{Context, Result};
use slotwise_host::plugins::sandbox::Limits;
use slotwise_host::plugins::{PluginConfig, PluginSet};
use slotwise_host::transcode::transcode;
use slotwise_host::{wit, ComponentReconciler};
use slotwise_reconciler as core;
use slotwise_reconciler::plugin::{
    Answers, Batch, Hook, Kept, PostSlotAnswer, PostSlotDecision, PreSlotAnswer,
    PreSlotDecision, PromotionAnswer, PromotionDecision, ViewParts,
};
use std::path::Path;
use std::time::Duration;

/// Slots of the one-group job the per-slot figures are measured on.
const SLOTS: usize = 10_000;

/// The job of many groups: its groups and the slots of each.
const MANY_GROUPS: (usize, usize) = (50, 200);

/// Plugins consulted together.
struct Subject {
    /// How the figures are labelled.
    label: &'static str,
    /// The version of the plugin package the plugin speaks.
    interface: &'static str,
    /// The shipped plugin, and how many times it is loaded.
    plugin: &'static str,
    copies: usize,
    settings: serde_json::Value,
    /// Limits other than the host's defaults.
    limits: Option<Limits>,
}

const fn subject(
    label: &'static str,
    interface: &'static str,
    plugin: &'static str,
    copies: usize,
) -> Subject {
    Subject {
        label,
        interface,
        plugin,
        copies,
        settings: serde_json::Value::Null,
        limits: None,
    }
}

/// What a reconcile with a subject's plugins measured.
struct Measured {
    timing: Timing,
    /// Calls, and slots asked about, by all the subject's plugins together.
    calls: u64,
    slots: u64,
}

/// Prints the hook figures: the one-group job with no plugin, the 0.2
/// `probe` and the 0.1 `hold-v0-1` (which changes nothing when it holds
/// no slot) loaded once and three times, and the JavaScript
/// `max-disruption`; then the job of many groups with no plugin and with
/// each Rust plugin once; then the figures against their targets.
pub fn run(reconciler: &ComponentReconciler, shipped: &Path, rounds: usize) -> Result<()> {
    println!(
        "\nhook overhead through the component (median of {rounds} reconciles, best in parentheses; \
         added = time over no plugin)"
    );
    println!(
        "{:<32}  {:>5}  {:>22}  {:>9}  {:>12}  {:>14}",
        "plugins", "iface", "reconcile", "calls", "slots asked", "added / slot"
    );
    let job = rolling_job(1, SLOTS);
    let one_group: wit::ReconcileInput = transcode(&job)?;
    println!("{SLOTS} slots in one group, rolling update");
    core_part(&job, rounds)?;
    let none = measure(reconciler, shipped, &one_group, None, rounds)?;
    row("none", "", &none, None);
    let subjects = [
        subject("probe (Rust) x1", "0.2", "probe", 1),
        subject("probe (Rust) x3", "0.2", "probe", 3),
        Subject {
            settings: serde_json::json!([]),
            ..subject("hold-v0-1 (Rust, no hold) x1", "0.1", "hold-v0-1", 1)
        },
        Subject {
            settings: serde_json::json!([]),
            ..subject("hold-v0-1 (Rust, no hold) x3", "0.1", "hold-v0-1", 3)
        },
        Subject {
            // A budget no reconcile reaches: nothing is vetoed, so the
            // plan, and the reconciler's work, stay those of no plugin.
            settings: serde_json::json!({ "limit": 1_000_000_000 }),
            limits: Some(Limits {
                fuel: 1 << 40,
                deadline: Duration::from_secs(60),
                reconcile_deadline: Duration::from_secs(600),
                ..Limits::default()
            }),
            ..subject("max-disruption (JS, review) x1", "0.2", "max-disruption", 1)
        },
    ];
    let mut measured = Vec::new();
    for s in &subjects {
        let Some(m) = measure_subject(reconciler, shipped, &one_group, s, rounds)? else {
            continue;
        };
        row(s.label, s.interface, &m, Some(&none));
        measured.push((s, m));
    }

    let (groups, per_group) = MANY_GROUPS;
    let many: wit::ReconcileInput = transcode(&rolling_job(groups, per_group))?;
    println!("{groups} groups x {per_group} slots, rolling update");
    let many_none = measure(reconciler, shipped, &many, None, rounds)?;
    row("none", "", &many_none, None);
    let mut ratios = Vec::new();
    for s in subjects
        .iter()
        .filter(|s| s.copies == 1 && s.plugin != "max-disruption")
    {
        let Some(m) = measure_subject(reconciler, shipped, &many, s, rounds)? else {
            continue;
        };
        row(s.label, s.interface, &m, Some(&many_none));
        ratios.push((s.interface, ratio(&m.timing, &many_none.timing)));
    }

    println!("\nagainst the targets (per slot of the job, every hook the plugin is asked at):");
    for interface in ["0.2", "0.1"] {
        let of = |copies: usize| {
            measured
                .iter()
                .find(|(s, _)| {
                    s.interface == interface && s.copies == copies && s.plugin != "max-disruption"
                })
                .map(|(_, m)| m)
        };
        if let (Some(one), Some(three)) = (of(1), of(3)) {
            let (further, at_all) = split(&none.timing, &one.timing, &three.timing);
            let targets = if interface == "0.2" {
                (" (target <= 0.3 µs)", " (target <= 0.5 µs)")
            } else {
                ("", "")
            };
            println!(
                "  {interface}: each further Rust plugin {}{}; asking any plugin at all {}{}",
                per_slot(further),
                targets.0,
                per_slot(at_all),
                targets.1
            );
        }
    }
    if let Some((_, js)) = measured.iter().find(|(s, _)| s.plugin == "max-disruption") {
        let added = js.timing.median.saturating_sub(none.timing.median);
        println!(
            "  JavaScript (0.2, review only): {} per slot reviewed (target <= 5 µs)",
            per(added, js.slots)
        );
    }
    for (interface, r) in ratios {
        let target = if interface == "0.2" {
            " (target <= 2x)"
        } else {
            ""
        };
        println!(
            "  {groups} x {per_group} job, one plugin ({interface}) on every hook: {r:.2}x the job with no plugin{target}"
        );
    }
    Ok(())
}

/// What the session itself costs, natively, without a component boundary:
/// a reconcile consulting one plugin on every hook whose relay answers at
/// once, against the reconcile alone.
fn core_part(job: &core::ReconcileInput, rounds: usize) -> Result<()> {
    let alone = time(rounds, || {
        let _ = core::reconcile(job);
    });
    let consulted = vec![core::Consulted {
        name: "neutral".into(),
        version: String::new(),
        hooks: vec![Hook::Promotion, Hook::PreSlot, Hook::PostSlot, Hook::Review],
        reads: ViewParts {
            node_ids: false,
            node_meta: false,
            allocation_ids: false,
            candidate_meta: false,
            change_messages: false,
        },
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
    let added = session.median.saturating_sub(alone.median);
    println!(
        "  {:<30}  {:>5}  {:>22}  {:>9}  {:>12}  {:>14}",
        "natively: none",
        "",
        alone.show(),
        "",
        "",
        ""
    );
    println!(
        "  {:<30}  {:>5}  {:>22}  {:>9}  {:>12}  {:>14}",
        "natively: a relay that answers",
        "0.2",
        session.show(),
        "",
        "",
        per_slot(added)
    );
    Ok(())
}

/// A relay whose one plugin leaves every decision to the reconciler, at
/// once: what remains is the session's own work.
struct Neutral;

impl core::Relay for Neutral {
    fn answer(&mut self, _: u32, batch: &Batch, _: &[Kept]) -> core::Reply {
        let answers = match batch {
            Batch::PreSlot(b) => Answers::PreSlot(
                (0..b.slots.len() as u32)
                    .map(|slot| PreSlotAnswer {
                        slot,
                        decision: PreSlotDecision::Proceed,
                        ext: None,
                    })
                    .collect(),
            ),
            Batch::PostSlot(b) => Answers::PostSlot(
                (0..b.slots.len() as u32)
                    .map(|slot| PostSlotAnswer {
                        slot,
                        decision: PostSlotDecision::Accept,
                        ext: None,
                    })
                    .collect(),
            ),
            Batch::Promotion(b) => Answers::Promotion(
                (0..b.groups.len() as u32)
                    .map(|group| PromotionAnswer {
                        group,
                        decision: PromotionDecision::Abstain,
                    })
                    .collect(),
            ),
            Batch::Review(_) => Answers::Review(Vec::new()),
        };
        core::Reply {
            outcome: Ok(answers),
            logs: Vec::new(),
            usage: None,
        }
    }
}

/// The time one further plugin adds, and the time asking any plugin adds
/// once, from reconciles with none, one and three plugins: the third and
/// second plugins make the difference between three and one.
fn split(none: &Timing, one: &Timing, three: &Timing) -> (Duration, Duration) {
    let further = three.median.saturating_sub(one.median) / 2;
    let at_all = one
        .median
        .saturating_sub(none.median)
        .saturating_sub(further);
    (further, at_all)
}

fn per_slot(d: Duration) -> String {
    per(d, SLOTS as u64)
}

fn per(d: Duration, n: u64) -> String {
    match u32::try_from(n) {
        Ok(n) if n > 0 => format!("{:.2} µs", (d / n).as_secs_f64() * 1e6),
        _ => "-".into(),
    }
}

fn ratio(with: &Timing, without: &Timing) -> f64 {
    with.median.as_secs_f64() / without.median.as_secs_f64()
}

fn row(label: &str, interface: &str, m: &Measured, none: Option<&Measured>) {
    let added = none.map_or_else(String::new, |none| {
        per(m.timing.median.saturating_sub(none.timing.median), m.slots)
    });
    println!(
        "  {label:<30}  {interface:>5}  {:>22}  {:>9}  {:>12}  {added:>14}",
        m.timing.show(),
        if none.is_some() {
            m.calls.to_string()
        } else {
            String::new()
        },
        if none.is_some() {
            m.slots.to_string()
        } else {
            String::new()
        },
    );
}

/// The subject's plugins measured on `input`; none when its plugin is not
/// built (the JavaScript one needs npm).
fn measure_subject(
    reconciler: &ComponentReconciler,
    shipped: &Path,
    input: &wit::ReconcileInput,
    s: &Subject,
    rounds: usize,
) -> Result<Option<Measured>> {
    let file = shipped.join(format!("{}.wasm", s.plugin));
    if !file.exists() {
        println!(
            "  {:<30}  skipped: {} is not built (cargo xtask build)",
            s.label,
            file.display()
        );
        return Ok(None);
    }
    let configs: Vec<PluginConfig> = (1..=s.copies)
        .map(|n| PluginConfig {
            plugin: Some(s.plugin.into()),
            name: Some(format!("{}-{n}", s.plugin)),
            settings: s.settings.to_string(),
            limits: s.limits.unwrap_or_default(),
            ..PluginConfig::default()
        })
        .collect();
    measure(reconciler, shipped, input, Some(&configs), rounds).map(Some)
}

/// Reconciles `input` consulting the plugins `configs` lists (through a
/// session with none when `configs` is none), once to check it succeeds and
/// count what the plugins were asked, then `rounds` times.
fn measure(
    reconciler: &ComponentReconciler,
    shipped: &Path,
    input: &wit::ReconcileInput,
    configs: Option<&[PluginConfig]>,
    rounds: usize,
) -> Result<Measured> {
    let Some(configs) = configs else {
        return Ok(Measured {
            timing: time(rounds, || {
                let _ = reconciler.reconcile(input);
            }),
            calls: 0,
            slots: 0,
        });
    };
    let mut set = PluginSet::load(configs, shipped, shipped)?;
    if let Some(e) = set.unloaded().first() {
        anyhow::bail!("{e}");
    }
    let before = set.usage().to_vec();
    reconciler
        .reconcile_with(input, &mut set)
        .context("reconciling with the plugins")?
        .map_err(|e| anyhow::anyhow!("{}: {}", e.field, e.message))?;
    let (mut calls, mut slots) = (0, 0);
    for (after, before) in set.usage().iter().zip(&before) {
        for hook in 0..4 {
            calls += after.calls[hook] - before.calls[hook];
            slots += after.items[hook] - before.items[hook];
        }
    }
    let timing = time(rounds, || {
        let _ = reconciler.reconcile_with(input, &mut set);
    });
    Ok(Measured {
        timing,
        calls,
        slots,
    })
}

#[cfg(test)]
mod tests {
    use super::{split, Timing};
    use std::time::Duration;

    fn ms(n: u64) -> Timing {
        Timing {
            median: Duration::from_millis(n),
            best: Duration::from_millis(n),
        }
    }

    #[test]
    fn one_further_plugin_is_half_the_difference_between_three_and_one() {
        let (further, at_all) = split(&ms(10), &ms(16), &ms(24));
        assert_eq!(further, Duration::from_millis(4));
        assert_eq!(at_all, Duration::from_millis(2));
    }
}
