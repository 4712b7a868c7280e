//! The `plugin` commands: what a plugin file holds, and what its hooks cost on a scenario.

use anyhow::{Context, Result};
use clap::Subcommand;
use slotwise_cli::conformance::{self, Consulted};
use slotwise_host::plugin_wit::{PACKAGE, VERSIONS};
use slotwise_host::plugins::loading::{self, hook_list, hook_name, WasmKind};
use slotwise_host::plugins::sandbox::{bytes, group_digits, Sandbox};
use slotwise_host::plugins::usage::{slot_of, HOOKS};
use slotwise_host::plugins::{PluginConfig, PluginSet};
use slotwise_host::ComponentReconciler;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

#[derive(Subcommand)]
pub enum PluginCommand {
    /// Show what a plugin file holds: its hooks, interface version, imports,
    /// metadata and size, and whether this host would load it.
    Inspect {
        /// The plugin component.
        file: PathBuf,
        /// Settings to try, as JSON.
        #[arg(long, default_value = "null")]
        settings: String,
        /// Print as JSON.
        #[arg(long)]
        json: bool,
    },
    /// Measure a plugin's hook calls on a scenario: time, fuel and peak
    /// memory per call, and the reconcile without it.
    Bench {
        /// The plugin component.
        file: PathBuf,
        /// A scenario file.
        scenario: PathBuf,
        /// The plugin's settings, as JSON.
        #[arg(long, default_value = "null")]
        settings: String,
        /// Reconciles to measure.
        #[arg(long, default_value_t = 20)]
        rounds: u32,
    },
}

pub fn run(
    command: &PluginCommand,
    component: &dyn Fn() -> Result<ComponentReconciler>,
    shipped: &Path,
) -> Result<bool> {
    match command {
        PluginCommand::Inspect {
            file,
            settings,
            json,
        } => inspect(file, settings, *json),
        PluginCommand::Bench {
            file,
            scenario,
            settings,
            rounds,
        } => bench(&component()?, shipped, file, scenario, settings, *rounds),
    }
}

/// The configuration of the plugin at `file` with `settings`: JSON text,
/// or `@path` of a file holding it.
fn entry(file: &Path, settings: &str) -> Result<PluginConfig> {
    let text = match settings.strip_prefix('@') {
        Some(path) => std::fs::read_to_string(path)
            .with_context(|| format!("cannot read the settings file {path}"))?,
        None => settings.to_string(),
    };
    let value: serde_json::Value = serde_json::from_str(&text).context("--settings is not JSON")?;
    Ok(PluginConfig {
        path: Some(file.to_path_buf()),
        settings: value.to_string(),
        ..PluginConfig::default()
    })
}

fn inspect(file: &Path, settings: &str, json: bool) -> Result<bool> {
    let sandbox = Sandbox::new()?;
    let bytes_of =
        std::fs::read(file).with_context(|| format!("cannot read {}", file.display()))?;
    let (inspection, _) = loading::inspect(&sandbox, file, &bytes_of)
        .map_err(|e| anyhow::anyhow!("{}: {e}", file.display()))?;
    let entry = entry(file, settings)?;
    let prepared = loading::prepare(&sandbox, &entry, file);
    let verdict = match &prepared {
        Err(e) => Err(e.cause.clone()),
        Ok(plugin) => plugin
            .instantiate_bare(&sandbox)
            .and_then(|mut live| plugin.configure(&mut live)),
    };
    let metadata = prepared.as_ref().ok().map(|p| &p.metadata);
    let kind = match inspection.kind {
        WasmKind::Component => "component",
        WasmKind::CoreModule => "core module",
        WasmKind::Other => "not WebAssembly",
    };
    if json {
        let value = serde_json::json!({
            "file": file.display().to_string(),
            "size": inspection.size,
            "sha256": inspection.sha256,
            "kind": kind,
            "versions": inspection.versions,
            "interface-version": inspection.version,
            "host-versions": VERSIONS,
            "hooks": metadata.map(|m| m.hooks.iter().map(|h| hook_name(*h)).collect::<Vec<_>>()),
            "imports": inspection.imports,
            "exports": inspection.exports,
            "metadata": metadata.map(|m| serde_json::json!({
                "name": m.name,
                "version": m.version,
                "description": m.description,
                "hooks": m.hooks.iter().map(|h| hook_name(*h)).collect::<Vec<_>>(),
            })),
            "loadable": verdict.is_ok(),
            "refusal": verdict.as_ref().err(),
        });
        println!("{}", serde_json::to_string_pretty(&value)?);
        return Ok(verdict.is_ok());
    }
    let versions: Vec<String> = inspection
        .versions
        .iter()
        .map(|v| format!("{PACKAGE}@{v}"))
        .collect();
    let rows = [
        ("file", file.display().to_string()),
        (
            "size",
            format!(
                "{} ({} bytes)",
                bytes(inspection.size),
                group_digits(inspection.size)
            ),
        ),
        ("sha256", inspection.sha256.clone()),
        ("kind", kind.to_string()),
        (
            "interface",
            format!(
                "{} (this host loads {})",
                if versions.is_empty() {
                    "none".to_string()
                } else {
                    versions.join(", ")
                },
                VERSIONS
                    .iter()
                    .map(|v| format!("{PACKAGE}@{v}"))
                    .collect::<Vec<_>>()
                    .join(" and ")
            ),
        ),
        (
            "hooks",
            metadata.map_or_else(|| hook_list(&inspection.hooks), |m| hook_list(&m.hooks)),
        ),
        ("imports", list(&inspection.imports)),
        ("exports", list(&inspection.exports)),
        ("name", metadata.map(|m| m.name.clone()).unwrap_or_default()),
        (
            "version",
            metadata.map(|m| m.version.clone()).unwrap_or_default(),
        ),
        (
            "description",
            metadata.map(|m| m.description.clone()).unwrap_or_default(),
        ),
        (
            "verdict",
            match &verdict {
                Ok(()) => "loadable".to_string(),
                Err(cause) => format!("refused: {cause}"),
            },
        ),
    ];
    for (label, value) in rows {
        println!("{label:<12}{value}");
    }
    Ok(verdict.is_ok())
}

fn list(names: &[String]) -> String {
    if names.is_empty() {
        "none".into()
    } else {
        names.join(", ")
    }
}

fn bench(
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
    for hook in HOOKS {
        let i = slot_of(hook);
        let calls = usage.calls[i];
        if calls == 0 {
            continue;
        }
        println!(
            "{:<10} {:>14} {:>14.2} {:>14}",
            hook_name(hook),
            calls / u64::from(rounds),
            micros(usage.time[i]) / calls as f64,
            group_digits(usage.fuel[i] / calls)
        );
    }
    println!("peak memory {}", bytes(usage.peak_memory as u64));
    Ok(true)
}

fn micros(d: Duration) -> f64 {
    d.as_secs_f64() * 1e6
}
