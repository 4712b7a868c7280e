//! The `plugin` commands: a new plugin project, its build, what a plugin file holds, and what its hooks cost on a scenario.

mod bench;
mod build;
mod inspect;
mod new;
mod settings;

use crate::locate;
use anyhow::Result;
use clap::Subcommand;
use slotwise_host::ComponentReconciler;
use std::path::PathBuf;

#[derive(Subcommand)]
pub enum PluginCommand {
    /// Write a new plugin project: one hook, unit tests, a README, and a
    /// scenario that `slotwise check` runs against the built component.
    New {
        /// Its name, in kebab-case.
        name: String,
        /// Its language.
        #[arg(long, value_enum, default_value = "rust")]
        lang: new::Lang,
        /// Where to write it. Default: ./NAME.
        #[arg(long)]
        dir: Option<PathBuf>,
        /// The directory of slotwise's Rust plugin SDK (`plugins/sdk`).
        /// Default: found in the workspace this executable was built in.
        #[arg(long)]
        sdk: Option<PathBuf>,
    },
    /// Build the plugin project in DIR into DIR/NAME.wasm, and check it as
    /// this host checks a plugin it loads.
    Build {
        /// The project's directory.
        #[arg(default_value = ".")]
        dir: PathBuf,
    },
    /// Show what a plugin file holds: its hooks, interface version, imports,
    /// metadata and size, whether this host would load it, and what
    /// settings it needs.
    Inspect {
        /// The plugin component, or a shipped plugin's name (`canary-gate`).
        file: PathBuf,
        /// Settings to try, as JSON text or @FILE. Without them, what the
        /// plugin needs is shown, and the example its metadata gives tried.
        #[arg(long)]
        settings: Option<String>,
        /// Print as JSON.
        #[arg(long)]
        json: bool,
    },
    /// Measure a plugin's hook calls on a scenario: time, fuel and peak
    /// memory per call, and the reconcile without it.
    Bench {
        /// The plugin component, or a shipped plugin's name.
        file: PathBuf,
        /// A scenario file.
        scenario: PathBuf,
        /// The plugin's settings, as JSON text or @FILE.
        #[arg(long, default_value = "null")]
        settings: String,
        /// Reconciles to measure.
        #[arg(long, default_value_t = 20)]
        rounds: u32,
    },
}

/// Runs `command`; a plugin FILE may be a shipped plugin's bare name, looked
/// up in the directory `shipped` finds.
pub fn run(
    command: &PluginCommand,
    component: &dyn Fn() -> Result<ComponentReconciler>,
    shipped: &dyn Fn() -> PathBuf,
) -> Result<bool> {
    match command {
        PluginCommand::New {
            name,
            lang,
            dir,
            sdk,
        } => {
            let dir = new::run(name, *lang, dir.as_deref(), sdk.as_deref())?;
            crate::output::line(&format!(
                "wrote plugin {name} in {}; build it with `slotwise plugin build {}`, then `slotwise check {}`",
                dir.display(),
                dir.display(),
                dir.join("tests").display()
            ))?;
            Ok(true)
        }
        PluginCommand::Build { dir } => build::run(dir).map(|_| true),
        PluginCommand::Inspect {
            file,
            settings,
            json,
        } => inspect::run(
            &locate::plugin_file(file.clone(), shipped),
            settings.as_deref(),
            *json,
        ),
        PluginCommand::Bench {
            file,
            scenario,
            settings,
            rounds,
        } => {
            let shipped = shipped();
            let file = locate::plugin_file(file.clone(), || shipped.clone());
            bench::run(&component()?, &shipped, &file, scenario, settings, *rounds)
        }
    }
}
