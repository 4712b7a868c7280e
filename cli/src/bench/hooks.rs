//! Hook overhead: what asking plugins adds to a reconcile through the component, per slot and per plugin, for plugins built for `slotwise:plugin@0.2.0` and for 0.1 (adapted, one call per slot) side by side, a JavaScript plugin, and a job of many groups.
//!
//! The reconciles being compared take turns, round after round, so that a
//! burst of load on a shared machine falls on all of them alike; the best
//! of the rounds is the figure least disturbed by other work, the median
//! is beside it.

use super::neutral;
use super::timing::{once, Timing};
use anyhow::{Context, Result};
use slotwise_cli::workload::rolling_job;
use slotwise_host::plugins::sandbox::Limits;
use slotwise_host::plugins::{PluginConfig, PluginSet};
use slotwise_host::ComponentReconciler;
use slotwise_reconciler::ReconcileInput;
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

/// The plugin sets compared: the 0.2 `probe` and the 0.1 `hold-v0-1`
/// (which changes nothing when it holds no slot) once and three times, and
/// the JavaScript `max-disruption`, which reviews the whole plan.
fn subjects() -> Vec<Subject> {
    vec![
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
            // QuickJS interprets: a whole plan takes more than the default
            // half second of a call on a loaded machine.
            limits: Some(Limits {
                deadline: Duration::from_secs(60),
                reconcile_deadline: Duration::from_secs(600),
                ..Limits::default()
            }),
            ..subject("max-disruption (JS, review) x1", "0.2", "max-disruption", 1)
        },
    ]
}

/// A reconcile being compared: with no plugin, or consulting a set.
struct Contender<'s> {
    subject: Option<&'s Subject>,
    set: Option<PluginSet>,
    /// Calls, and slots asked about, by all its plugins together, in one reconcile.
    calls: u64,
    slots: u64,
    times: Vec<Duration>,
}

/// What one contender measured.
struct Measured {
    timing: Timing,
    calls: u64,
    slots: u64,
}

/// Prints the hook figures: the one-group job natively with a relay that
/// answers at once, then through the component with no plugin and with
/// each subject; the job of many groups with no plugin and with each Rust
/// plugin once; then the figures against their targets.
pub fn run(reconciler: &ComponentReconciler, shipped: &Path, rounds: usize) -> Result<()> {
    println!(
        "\nhook overhead through the component ({rounds} rounds, reconciles taking turns; \
         best, median in parentheses; added = time over no plugin)"
    );
    println!(
        "  {:<30}  {:>5}  {:>22}  {:>7}  {:>11}  {:>13}",
        "plugins", "iface", "reconcile", "calls", "slots asked", "added / slot"
    );
    let subjects = subjects();
    let job = rolling_job(1, SLOTS);
    println!("{SLOTS} slots in one group, rolling update");
    neutral::run(&job, SLOTS, rounds)?;
    let all: Vec<&Subject> = subjects.iter().collect();
    let (none, with) = compare(reconciler, shipped, &job, &all, rounds)?;
    row("none", "", &none, None);
    for (s, m) in &with {
        row(s.label, s.interface, m, Some(&none));
    }
    let none = &none;

    let (groups, per_group) = MANY_GROUPS;
    let many = rolling_job(groups, per_group);
    println!("{groups} groups x {per_group} slots, rolling update");
    let once_each: Vec<&Subject> = subjects
        .iter()
        .filter(|s| s.copies == 1 && s.plugin != "max-disruption")
        .collect();
    let (many_none, many_with) = compare(reconciler, shipped, &many, &once_each, rounds)?;
    row("none", "", &many_none, None);
    for (s, m) in &many_with {
        row(s.label, s.interface, m, Some(&many_none));
    }

    println!("\nagainst the targets (per slot of the job, every hook the plugin is asked at; best, median in parentheses):");
    for interface in ["0.2", "0.1"] {
        let of = |copies: usize| {
            with.iter()
                .find(|(s, _)| {
                    s.interface == interface && s.copies == copies && s.plugin != "max-disruption"
                })
                .map(|(_, m)| &m.timing)
        };
        let (Some(one), Some(three)) = (of(1), of(3)) else {
            continue;
        };
        let best = split(none.timing.best, one.best, three.best);
        let median = split(none.timing.median, one.median, three.median);
        let targets = match interface {
            "0.2" => (" (target <= 0.3 µs)", " (target <= 0.5 µs)"),
            _ => ("", ""),
        };
        println!(
            "  {interface}: each further Rust plugin {} ({}){}; asking any plugin at all {} ({}){}",
            per(best.0, SLOTS as u64),
            per(median.0, SLOTS as u64),
            targets.0,
            per(best.1, SLOTS as u64),
            per(median.1, SLOTS as u64),
            targets.1
        );
    }
    if let Some((_, js)) = with.iter().find(|(s, _)| s.plugin == "max-disruption") {
        println!(
            "  JavaScript (0.2, review only): {} ({}) per slot reviewed (target <= 5 µs)",
            per(js.timing.best.saturating_sub(none.timing.best), js.slots),
            per(
                js.timing.median.saturating_sub(none.timing.median),
                js.slots
            )
        );
    }
    for (s, m) in &many_with {
        let target = if s.interface == "0.2" {
            " (target <= 2x)"
        } else {
            ""
        };
        println!(
            "  {groups} x {per_group} job, one plugin ({}) on every hook: {:.2}x ({:.2}x) the job with no plugin{target}",
            s.interface,
            ratio(m.timing.best, many_none.timing.best),
            ratio(m.timing.median, many_none.timing.median)
        );
    }
    Ok(())
}

/// Reconciles `input` with no plugin and with each of `subjects`, taking
/// turns for `rounds` rounds after one reconcile each to warm up and count
/// what the plugins are asked: no plugin's figures, and each subject's. A
/// subject whose plugin is not built is left out, and said so.
fn compare<'s>(
    reconciler: &ComponentReconciler,
    shipped: &Path,
    input: &ReconcileInput,
    subjects: &[&'s Subject],
    rounds: usize,
) -> Result<(Measured, Vec<(&'s Subject, Measured)>)> {
    let mut contenders = vec![Contender {
        subject: None,
        set: None,
        calls: 0,
        slots: 0,
        times: Vec::new(),
    }];
    for &s in subjects {
        if let Some(set) = load(shipped, s)? {
            contenders.push(Contender {
                subject: Some(s),
                set: Some(set),
                calls: 0,
                slots: 0,
                times: Vec::new(),
            });
        }
    }
    for c in &mut contenders {
        let before = c.set.as_ref().map(|s| s.usage().to_vec());
        reconcile(reconciler, input, c)?;
        if let (Some(set), Some(before)) = (&c.set, before) {
            for (after, before) in set.usage().iter().zip(&before) {
                c.calls += after.total().calls - before.total().calls;
                c.slots += after.total().items - before.total().items;
            }
        }
    }
    for _ in 0..rounds.max(1) {
        for c in &mut contenders {
            let mut outcome = Ok(());
            let took = once(|| outcome = reconcile(reconciler, input, c));
            outcome?;
            c.times.push(took);
        }
    }
    let measured = |c: Contender| Measured {
        timing: Timing::of(c.times),
        calls: c.calls,
        slots: c.slots,
    };
    let mut all = contenders.into_iter();
    let none = all.next().map(measured).context("nothing was measured")?;
    let with = all
        .filter_map(|c| Some((c.subject?, measured(c))))
        .collect();
    Ok((none, with))
}

/// One reconcile of `input` as `c` makes it, on the paths hosts take by
/// default: the input and the plan crossing as one buffer each.
fn reconcile(
    reconciler: &ComponentReconciler,
    input: &ReconcileInput,
    c: &mut Contender,
) -> Result<()> {
    match &mut c.set {
        None => {
            reconciler
                .reconcile_core(input)?
                .map_err(|e| anyhow::anyhow!("{}: {}", e.field, e.message))?;
        }
        Some(set) => {
            reconciler
                .reconcile_core_with(input, set)
                .context("reconciling with the plugins")?
                .map_err(|e| anyhow::anyhow!("{}: {}", e.field, e.message))?;
        }
    }
    Ok(())
}

/// The plugins of `s`, loaded; none when its plugin is not built (the
/// JavaScript one needs npm).
fn load(shipped: &Path, s: &Subject) -> Result<Option<PluginSet>> {
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
    let set = PluginSet::load(&configs, shipped, shipped)?;
    if let Some(e) = set.unloaded().first() {
        anyhow::bail!("{e}");
    }
    Ok(Some(set))
}

/// The time one further plugin adds, and the time asking any plugin adds
/// once, from reconciles with none, one and three plugins: the third and
/// second plugins make the difference between three and one.
fn split(none: Duration, one: Duration, three: Duration) -> (Duration, Duration) {
    let further = three.saturating_sub(one) / 2;
    let at_all = one.saturating_sub(none).saturating_sub(further);
    (further, at_all)
}

fn per(d: Duration, n: u64) -> String {
    match u32::try_from(n) {
        Ok(n) if n > 0 => format!("{:.2} µs", (d / n).as_secs_f64() * 1e6),
        _ => "-".into(),
    }
}

fn ratio(with: Duration, without: Duration) -> f64 {
    with.as_secs_f64() / without.as_secs_f64().max(f64::MIN_POSITIVE)
}

fn row(label: &str, interface: &str, m: &Measured, none: Option<&Measured>) {
    let added = none.map_or_else(String::new, |none| {
        format!(
            "{} ({})",
            per(m.timing.best.saturating_sub(none.timing.best), m.slots),
            per(m.timing.median.saturating_sub(none.timing.median), m.slots)
        )
    });
    let timing = format!(
        "{} ({})",
        super::timing::human(m.timing.best),
        super::timing::human(m.timing.median)
    );
    println!(
        "  {label:<30}  {interface:>5}  {timing:>22}  {:>7}  {:>11}  {added:>13}",
        m.calls, m.slots
    );
}

#[cfg(test)]
mod tests {
    use super::split;
    use std::time::Duration;

    #[test]
    fn one_further_plugin_is_half_the_difference_between_three_and_one() {
        let ms = Duration::from_millis;
        let (further, at_all) = split(ms(10), ms(16), ms(24));
        assert_eq!(further, ms(4));
        assert_eq!(at_all, ms(2));
    }
}
