//! The `slotwise` command: decide what a job must change, check scenario files, measure the reconciler.

mod bench;
mod check;
mod clock;
mod embedded;
mod encoded;
mod locate;
mod nomad_command;
mod output;
mod plugin_command;
mod render;

use anyhow::{Context, Result};
use clap::{CommandFactory, Parser, Subcommand};
use slotwise_cli::conformance::{self, Consulted, Runner};
use slotwise_cli::{playground, source};
use slotwise_host::plugins::PluginSet;
use slotwise_host::{component, ComponentReconciler};
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::sync::LazyLock;

/// What `--version` prints: the version, the interfaces spoken, the
/// component carried.
static LONG_VERSION: LazyLock<String> = LazyLock::new(locate::version_details);

/// What must change for a task group, and why.
#[derive(Parser)]
#[command(name = "slotwise", version, long_version = LONG_VERSION.as_str())]
struct Cli {
    #[command(subcommand)]
    command: Command,
    /// The reconciler component (`.wasm` or precompiled `.cwasm`). Default:
    /// beside this executable, or where `cargo xtask build` puts it, else the
    /// one this binary carries.
    #[arg(long, global = true, env = "SLOTWISE_COMPONENT")]
    component: Option<PathBuf>,
    /// Where plugins shipped with slotwise are. Default: `plugins/` beside
    /// this executable, or where `cargo xtask build` puts them, else the ones
    /// this binary carries.
    #[arg(long, global = true, env = "SLOTWISE_PLUGIN_DIR")]
    plugin_dir: Option<PathBuf>,
}

#[derive(Subcommand)]
enum Command {
    /// Decide what must change for the scenario in FILE.
    Reconcile {
        /// A scenario file (YAML or JSON), or `-` for standard input.
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
        /// A plugins file (YAML or JSON): the policy plugins to consult, in
        /// place of any the scenario names.
        #[arg(long)]
        plugins: Option<PathBuf>,
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
        #[arg(long, value_delimiter = ',', default_values_t = [1_000, 10_000, 100_000, 300_000])]
        sizes: Vec<usize>,
        /// Reconciles per measurement; the median is reported.
        #[arg(long, default_value_t = 9)]
        rounds: usize,
        /// Leave out what runs in child processes: peak memory and Node.
        #[arg(long)]
        quick: bool,
        /// Only the reconcile table and the aims it decides.
        #[arg(long)]
        table_only: bool,
        /// Run as a measuring child: build the workload and reconcile it once
        /// this way (`input`, `native`, `component`, `encoded`).
        #[arg(long, hide = true)]
        probe: Option<String>,
        /// The workload's size, for `--probe`.
        #[arg(long, hide = true, default_value_t = 0)]
        probe_size: usize,
        /// For `--probe peak-rss`: the `slotwise` arguments to run and measure.
        #[arg(last = true, hide = true)]
        probe_command: Vec<String>,
    },
    /// Print the reconciler input a scenario describes, as JSON.
    Input {
        /// A scenario file (YAML or JSON), or `-` for standard input.
        file: PathBuf,
        /// Print the input as the buffer `reconcile-encoded` takes (the wire
        /// format of docs/wire.md) instead of JSON.
        #[arg(long)]
        wire: bool,
        /// With `--wire`: its allocations as records read in place (content
        /// 3), as the host sends them, instead of content 1.
        #[arg(long, requires = "wire")]
        records: bool,
    },
    /// Print the JSON Schema of scenario files.
    Schema {
        /// Print the schema of plugins files instead.
        #[arg(long)]
        plugins: bool,
    },
    /// Look into plugins, and measure them.
    #[command(subcommand)]
    Plugin(plugin_command::PluginCommand),
    /// Plan a Nomad cluster's jobs from its API, and compare with Nomad's plan.
    #[command(subcommand)]
    Nomad(Box<nomad_command::NomadCommand>),
    /// Serve the browser playground on 127.0.0.1.
    Playground {
        /// The port; 0 picks a free one.
        #[arg(long, default_value_t = playground::DEFAULT_PORT)]
        port: u16,
        /// The playground's built files. Default: beside this executable, or
        /// where `cargo xtask playground` builds them, else the ones this
        /// binary carries.
        #[arg(long)]
        dir: Option<PathBuf>,
    },
    /// Print a shell's completion script for slotwise.
    Completions {
        /// The shell.
        shell: clap_complete::Shell,
    },
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
        // A reader that stops early (`| head`) has all it wants.
        Err(e) if output::is_broken_pipe(&e) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("error: {e:#}");
            ExitCode::FAILURE
        }
    }
}

fn run(cli: Cli) -> Result<bool> {
    let component = || -> Result<ComponentReconciler> { locate::reconciler(cli.component.clone()) };
    // Found (or unpacked) only for the commands that look plugins up.
    let shipped = || locate::plugin_dir(cli.plugin_dir.clone());
    match &cli.command {
        Command::Reconcile {
            file,
            json,
            explain,
            native,
            plugins,
        } => {
            let mut scenario = conformance::load(file)?;
            scenario.input.explain |= *explain;
            let reconciler = if *native { None } else { Some(component()?) };
            if let Some(plugins) = plugins {
                let entries = read_plugins(plugins)?;
                let base = plugins.parent().unwrap_or(Path::new("."));
                scenario.plugins = entries;
                scenario.policy = None;
                // The plugins file's paths start from its own directory.
                let configs = conformance::plugin_configs(&scenario.plugins);
                let set = PluginSet::load(&configs, base, &shipped())?;
                let mut consulted = Consulted::Plugins(Box::new(set));
                let outcome = conformance::reconcile_once(
                    &scenario.input,
                    &mut consulted,
                    reconciler.as_ref(),
                )?;
                return show(file, &scenario.input, outcome, *json, *explain);
            }
            if let (Some(reconciler), true) = (
                &reconciler,
                scenario.plugins.is_empty() && scenario.policy.is_none(),
            ) {
                let outcome = encoded::reconcile(reconciler, &mut scenario.input)?
                    .map_err(conformance::RunFailure::Input);
                return show(file, &scenario.input, outcome, *json, *explain);
            }
            let (input, mut consulted) = Consulted::of(&mut scenario, file, &shipped())
                .map_err(|f| anyhow::anyhow!("{}: {}", file.display(), describe(&f)))?;
            let outcome = conformance::reconcile_once(input, &mut consulted, reconciler.as_ref())?;
            show(file, input, outcome, *json, *explain)
        }
        Command::Check { paths, native } => {
            let reconciler = if *native { None } else { Some(component()?) };
            let shipped = shipped();
            let runner = Runner {
                component: reconciler.as_ref(),
                shipped: &shipped,
            };
            check::run(paths, &runner)
        }
        Command::Bench {
            sizes,
            rounds,
            quick,
            table_only,
            probe,
            probe_size,
            probe_command,
        } => {
            let path = locate::component(cli.component.clone())?;
            match probe {
                Some(mode) => bench::probe(&path, mode, *probe_size, probe_command)?,
                None => bench::run(&bench::Options {
                    component: &path,
                    shipped: &shipped(),
                    sizes,
                    rounds: *rounds,
                    quick: *quick,
                    table_only: *table_only,
                })?,
            }
            Ok(true)
        }
        Command::Input {
            file,
            wire,
            records,
        } => {
            let scenario = conformance::load(file)?;
            if *wire {
                let encode = match records {
                    true => slotwise_reconciler::wire::encode_input_records,
                    false => slotwise_reconciler::wire::encode_input,
                };
                output::bytes(&encode(&scenario.input))?;
            } else {
                output::json(&scenario.input)?;
            }
            Ok(true)
        }
        Command::Schema { plugins } => {
            let schema = if *plugins {
                slotwise_scenario::plugins_schema()
            } else {
                slotwise_scenario::schema()
            };
            output::line(&serde_json::to_string_pretty(&schema)?)?;
            Ok(true)
        }
        Command::Plugin(command) => plugin_command::run(command, &component, &shipped),
        Command::Nomad(command) => nomad_command::run(command, &component, &shipped()),
        Command::Playground { port, dir } => {
            let files = locate::playground(dir.clone())?;
            playground::serve(files, *port, playground::ServerLimits::default())?;
            Ok(true)
        }
        Command::Completions { shell } => {
            let mut command = Cli::command();
            let mut out = Vec::new();
            clap_complete::generate(*shell, &mut command, "slotwise", &mut out);
            output::bytes(&out)?;
            Ok(true)
        }
        Command::Precompile { wasm, out } => {
            component::precompile(wasm, out)
                .with_context(|| format!("precompiling {}", wasm.display()))?;
            Ok(true)
        }
    }
}

/// The entries of the plugins file at `path`.
fn read_plugins(path: &Path) -> Result<Vec<slotwise_scenario::PluginEntry>> {
    let text = source::read_text(path)?;
    let file = slotwise_scenario::parse_plugins(&text, source::syntax(path, &text))
        .with_context(|| path.display().to_string())?;
    Ok(file.plugins)
}

fn describe(failure: &conformance::RunFailure) -> String {
    match failure {
        conformance::RunFailure::Input(e) => format!("invalid input: {}: {}", e.field, e.message),
        conformance::RunFailure::Policy(message) => message.clone(),
    }
}

/// Prints a reconcile's plan, or fails with what went wrong.
fn show(
    file: &Path,
    input: &slotwise_reconciler::ReconcileInput,
    outcome: std::result::Result<slotwise_reconciler::Plan, conformance::RunFailure>,
    json: bool,
    explain: bool,
) -> Result<bool> {
    let plan = outcome.map_err(|f| anyhow::anyhow!("{}: {}", file.display(), describe(&f)))?;
    // Fail-open failures are shown in every mode: a plan made without a
    // plugin's answer must not pass for one made with it.
    for warning in render::warnings(&plan) {
        eprintln!("warning: {warning}");
    }
    if json {
        output::json(&plan)?;
    } else {
        output::text(&render::plan(input, &plan, explain))?;
    }
    Ok(true)
}
