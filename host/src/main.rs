//! The `slotwise` command: decide what a job must change, check scenario files, measure the reconciler.

mod bench;
mod check;
mod clock;
mod locate;
mod render;

use anyhow::{Context, Result};
use clap::{Parser, Subcommand};
use slotwise_host::{component, conformance, ComponentReconciler};
use slotwise_reconciler as core;
use std::path::PathBuf;
use std::process::ExitCode;

/// What must change for a task group, and why.
#[derive(Parser)]
#[command(name = "slotwise", version)]
struct Cli {
    #[command(subcommand)]
    command: Command,
    /// The reconciler component (`.wasm` or precompiled `.cwasm`). Default:
    /// beside this executable, or where `cargo xtask build` puts it.
    #[arg(long, global = true, env = "SLOTWISE_COMPONENT")]
    component: Option<PathBuf>,
}

#[derive(Subcommand)]
enum Command {
    /// Decide what must change for the scenario in FILE.
    Reconcile {
        /// A scenario file (YAML or JSON).
        file: PathBuf,
        /// Print the plan as JSON.
        #[arg(long)]
        json: bool,
        /// Show each slot's claimants and reasons, and the step report.
        #[arg(long)]
        explain: bool,
        /// Use the reconciler library instead of the component.
        #[arg(long)]
        native: bool,
    },
    /// Run scenario files and compare their plans with their expectations.
    Check {
        /// Scenario files, or directories to search for them.
        #[arg(required = true)]
        paths: Vec<PathBuf>,
        /// Run the library only, not the component.
        #[arg(long)]
        native: bool,
    },
    /// Time reconciles natively and through the component.
    Bench {
        /// Group sizes, in allocations.
        #[arg(long, value_delimiter = ',', default_values_t = [1_000, 10_000, 100_000])]
        sizes: Vec<usize>,
        /// Reconciles per measurement; the median is reported.
        #[arg(long, default_value_t = 9)]
        rounds: usize,
    },
    /// Print the reconciler input a scenario describes, as JSON.
    Input {
        /// A scenario file (YAML or JSON).
        file: PathBuf,
    },
    /// Print the JSON Schema of scenario files.
    Schema,
    /// Compile the component ahead of time.
    Precompile {
        /// The component.
        wasm: PathBuf,
        /// Where to write the precompiled component.
        #[arg(short, long)]
        out: PathBuf,
    },
}

fn main() -> ExitCode {
    match run(Cli::parse()) {
        Ok(true) => ExitCode::SUCCESS,
        Ok(false) => ExitCode::FAILURE,
        Err(e) => {
            eprintln!("error: {e:#}");
            ExitCode::FAILURE
        }
    }
}

fn run(cli: Cli) -> Result<bool> {
    let component = || -> Result<ComponentReconciler> {
        let path = locate::component(cli.component.clone())?;
        Ok(ComponentReconciler::load(&path)?)
    };
    match &cli.command {
        Command::Reconcile {
            file,
            json,
            explain,
            native,
        } => {
            let mut scenario = conformance::load(file)?;
            scenario.input.explain |= *explain;
            let outcome = if *native {
                core::reconcile(&scenario.input)
            } else {
                component()?.reconcile_core(&scenario.input)?
            };
            let plan = outcome.map_err(|e| {
                anyhow::anyhow!(
                    "{}: invalid input: {}: {}",
                    file.display(),
                    e.field,
                    e.message
                )
            })?;
            if *json {
                println!("{}", serde_json::to_string_pretty(&plan)?);
            } else {
                print!("{}", render::plan(&scenario.input, &plan, *explain));
            }
            Ok(true)
        }
        Command::Check { paths, native } => {
            let reconciler = if *native { None } else { Some(component()?) };
            check::run(paths, reconciler.as_ref())
        }
        Command::Bench { sizes, rounds } => {
            let path = locate::component(cli.component.clone())?;
            bench::run(&path, sizes, *rounds)?;
            Ok(true)
        }
        Command::Input { file } => {
            let scenario = conformance::load(file)?;
            println!("{}", serde_json::to_string_pretty(&scenario.input)?);
            Ok(true)
        }
        Command::Schema => {
            println!(
                "{}",
                serde_json::to_string_pretty(&slotwise_scenario::schema())?
            );
            Ok(true)
        }
        Command::Precompile { wasm, out } => {
            component::precompile(wasm, out)
                .with_context(|| format!("precompiling {}", wasm.display()))?;
            Ok(true)
        }
    }
}
