//! `slotwise plugin bench`: what a plugin's hook calls cost on a scenario, through the component.

use super::settings::entry;
use anyhow::Result;
use slotwise_cli::conformance::{self, Consulted};
use slotwise_host::plugin_wit::hook_name;
use slotwise_host::plugins::sandbox::{bytes, group_digits};
use slotwise_host::plugins::PluginSet;
use slotwise_host::ComponentReconciler;
use std::path::Path;
use std::time::{Duration, Instant};

pub fn run(
    component: &ComponentReconciler,
    shipped: &Path,
    file: &Path,
    scenario_path: &Path,
    settings: &str,
    rounds: u32,
) -> Result<bool> {
    let scenario = conformance::load(scenario_path)?;
    let entries = vec![entry(file, settings)?];
    let set = PluginSet::load(&entries, Path::new("."), shipped)?;
    if let Some(e) = set.unloaded().first() {
        anyhow::bail!("{e}");
    }
    let name = set.plugins()[0].name.clone();
    let mut consulted = Consulted::Plugins(Box::new(set));
    let mut without = Consulted::Nothing;
    let rounds = rounds.max(1);
    let time = |consulted: &mut Consulted| -> Result<Duration> {
        let started = Instant::now();
        for _ in 0..rounds {
            conformance::reconcile_once(&scenario.input, consulted, Some(component))?
                .map_err(|f| anyhow::anyhow!("the reconcile failed: {f:?}"))?;
        }
        Ok(started.elapsed() / rounds)
    };
    let base = time(&mut without)?;
    let with = time(&mut consulted)?;
    let Consulted::Plugins(set) = &consulted else {
        anyhow::bail!("the plugin set went missing");
    };
    let usage = &set.usage()[0];
    println!(
        "plugin {name} on {} ({rounds} reconciles through the component)",
        scenario_path.display()
    );
    println!(
        "reconcile without it {:>10.1} µs; with it {:>10.1} µs",
        micros(base),
        micros(with)
    );
    println!(
        "{:<10} {:>14} {:>14} {:>14}",
        "HOOK", "CALLS/ROUND", "µs/CALL", "FUEL/CALL"
    );
    for (hook, counts) in usage.hooks() {
        let calls = counts.calls.max(1);
        println!(
            "{:<10} {:>14} {:>14.2} {:>14}",
            hook_name(*hook),
            counts.calls / u64::from(rounds),
            micros(counts.time) / calls as f64,
            group_digits(counts.fuel / calls)
        );
    }
    println!("peak memory {}", bytes(usage.peak_memory as u64));
    Ok(true)
}

fn micros(d: Duration) -> f64 {
    d.as_secs_f64() * 1e6
}
