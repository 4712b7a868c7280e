//! `slotwise nomad plan|compare`: plan a Nomad cluster's jobs from its API (or saved responses), and set the plan beside Nomad's own.

pub mod cluster;

use crate::render;
use anyhow::{anyhow, bail, Context, Result};
use clap::{builder::BoolishValueParser, ArgAction, Args, Subcommand};
use slotwise_cli::conformance::{self, Consulted, RunFailure};
use slotwise_host::plugins::PluginSet;
use slotwise_host::ComponentReconciler;
use slotwise_nomad::compare::{compare, nomad_plan, GroupComparison};
use slotwise_nomad::http::{Http, Settings, Tls, Token, DEFAULT_ADDRESS};
use slotwise_nomad::input;
use slotwise_nomad::saved::{Origin, SavedScenario};
use slotwise_nomad::snapshot::{list_jobs, JobSnapshot, NodeCache};
use slotwise_nomad::source::{Directory, Source};
use slotwise_reconciler::{Plan, ReconcileInput};
use std::path::{Path, PathBuf};
use std::time::Duration;

#[derive(Subcommand)]
pub enum NomadCommand {
    /// Plan a job (or every job) of a Nomad cluster as slotwise would.
    Plan {
        /// The job's identifier; omit with --all.
        #[arg(required_unless_present = "all", conflicts_with = "all")]
        job: Option<String>,
        /// Plan every job of the namespace (`--namespace '*'` for all).
        #[arg(long)]
        all: bool,
        /// Print the plan as JSON (with --all, the totals).
        #[arg(long)]
        json: bool,
        /// Show each slot's claimants and reasons, and the step report.
        #[arg(long)]
        explain: bool,
        /// A plugins file: the policy plugins to consult.
        #[arg(long)]
        plugins: Option<PathBuf>,
        /// Write the scenario (the reconciler input) to FILE, to replay it.
        #[arg(long, conflicts_with = "all")]
        save: Option<PathBuf>,
        /// API calls in flight at once, with --all.
        #[arg(long, default_value_t = 8)]
        concurrency: usize,
        #[command(flatten)]
        common: Common,
    },
    /// Plan a job and set slotwise's counters beside Nomad's own dry run;
    /// exits non-zero on any difference.
    Compare {
        /// The job's identifier.
        job: String,
        #[command(flatten)]
        common: Common,
    },
}

/// How to reach the cluster, as Nomad's own command reads it; the token
/// only from `NOMAD_TOKEN`, so that it never sits in a command line.
#[derive(Args)]
pub struct Common {
    /// The HTTP API's address.
    #[arg(long, env = "NOMAD_ADDR", default_value = DEFAULT_ADDRESS)]
    address: String,
    /// The namespace; `*` with --all for every namespace.
    #[arg(long, env = "NOMAD_NAMESPACE", default_value = "default")]
    namespace: String,
    /// The region, when not the agent's own.
    #[arg(long, env = "NOMAD_REGION")]
    region: Option<String>,
    /// A PEM file of certificate authorities to trust.
    #[arg(long, env = "NOMAD_CACERT")]
    ca_cert: Option<PathBuf>,
    /// A PEM client certificate, for mutual TLS.
    #[arg(long, env = "NOMAD_CLIENT_CERT")]
    client_cert: Option<PathBuf>,
    /// The client certificate's PEM key.
    #[arg(long, env = "NOMAD_CLIENT_KEY")]
    client_key: Option<PathBuf>,
    /// Do not verify the server's certificate.
    #[arg(long, env = "NOMAD_SKIP_VERIFY", action = ArgAction::SetTrue, value_parser = BoolishValueParser::new())]
    tls_skip_verify: bool,
    /// Seconds one API call may take.
    #[arg(long, default_value_t = 30)]
    timeout: u64,
    /// Read saved responses from DIR instead of a cluster (laid out as
    /// tests/nomad/ shows).
    #[arg(long)]
    from: Option<PathBuf>,
    /// The time to plan at (RFC 3339). Default: the clock, or with --from
    /// the time in DIR/saved-at.txt.
    #[arg(long)]
    now: Option<String>,
    /// Use the reconciler library instead of the component.
    #[arg(long)]
    native: bool,
}

/// Where the answers come from, and what to call it in messages.
struct Cluster {
    source: Box<dyn Source>,
    origin: String,
    now: i64,
}

fn parse_time(text: &str) -> Result<i64> {
    let at =
        time::OffsetDateTime::parse(text.trim(), &time::format_description::well_known::Rfc3339)
            .with_context(|| format!("{:?} is not an RFC 3339 time", text.trim()))?;
    i64::try_from(at.unix_timestamp_nanos()).context("the time is out of range")
}

impl Common {
    fn cluster(&self) -> Result<Cluster> {
        if let Some(dir) = &self.from {
            let now = match &self.now {
                Some(text) => parse_time(text)?,
                None => {
                    let file = dir.join("saved-at.txt");
                    let text = std::fs::read_to_string(&file).with_context(|| {
                        format!(
                            "{}: give --now, or the time the responses were saved",
                            file.display()
                        )
                    })?;
                    parse_time(&text).with_context(|| file.display().to_string())?
                }
            };
            return Ok(Cluster {
                source: Box::new(Directory::new(dir.clone())),
                origin: dir.display().to_string(),
                now,
            });
        }
        let mut settings = Settings::new(&self.address);
        settings.token = std::env::var("NOMAD_TOKEN").ok().and_then(Token::new);
        settings.region = self.region.clone();
        settings.timeout = Duration::from_secs(self.timeout.max(1));
        settings.tls = Tls {
            ca_cert: self.ca_cert.clone(),
            client_cert: self.client_cert.clone(),
            client_key: self.client_key.clone(),
            skip_verify: self.tls_skip_verify,
        };
        let now = match &self.now {
            Some(text) => parse_time(text)?,
            // The edge of the program: the core never reads a clock.
            None => i64::try_from(time::OffsetDateTime::now_utc().unix_timestamp_nanos())
                .context("the clock is out of range")?,
        };
        Ok(Cluster {
            source: Box::new(Http::new(settings)?),
            origin: self.address.clone(),
            now,
        })
    }
}

/// Runs a `nomad` command; false when `compare` found a difference or a
/// job of `--all` failed.
pub fn run(
    command: &NomadCommand,
    component: &dyn Fn() -> Result<ComponentReconciler>,
    shipped: &Path,
) -> Result<bool> {
    match command {
        NomadCommand::Plan {
            job,
            all,
            json,
            explain,
            plugins,
            save,
            concurrency,
            common,
        } => {
            let cluster = common.cluster()?;
            let reconciler = if common.native {
                None
            } else {
                Some(component()?)
            };
            let plugins = plugins.as_deref().map(read_plugins).transpose()?;
            if *all {
                return plan_all(
                    &cluster,
                    common,
                    reconciler.as_ref(),
                    plugins,
                    shipped,
                    *concurrency,
                    *json,
                );
            }
            let job = job
                .as_deref()
                .ok_or_else(|| anyhow!("name a job, or give --all"))?;
            let mut input = read_input(&cluster, &common.namespace, job)?;
            if let Some(path) = save {
                let when = time::OffsetDateTime::from_unix_timestamp_nanos(i128::from(cluster.now))
                    .ok()
                    .and_then(|t| {
                        t.format(&time::format_description::well_known::Rfc3339)
                            .ok()
                    })
                    .unwrap_or_default();
                let origin = Origin {
                    job,
                    namespace: &common.namespace,
                    region: common.region.as_deref(),
                    from: &cluster.origin,
                    when: &when,
                };
                let text = SavedScenario::new(&origin, input.clone()).to_yaml()?;
                std::fs::write(path, text)
                    .with_context(|| format!("cannot write {}", path.display()))?;
            }
            input.explain = *explain;
            let plan = reconcile_one(&input, reconciler.as_ref(), plugins, shipped)?;
            if *json {
                crate::output::line(&serde_json::to_string_pretty(&plan)?)?;
            } else {
                print!("{}", render::plan(&input, &plan, *explain));
            }
            Ok(true)
        }
        NomadCommand::Compare { job, common } => {
            let cluster = common.cluster()?;
            let reconciler = if common.native {
                None
            } else {
                Some(component()?)
            };
            let snapshot = JobSnapshot::fetch(
                cluster.source.as_ref(),
                &common.namespace,
                job,
                &NodeCache::default(),
            )?;
            let input = input::build(&snapshot, cluster.now)?;
            let plan = reconcile_one(&input, reconciler.as_ref(), None, shipped)?;
            let theirs = nomad_plan(cluster.source.as_ref(), &snapshot)?;
            let groups = compare(&plan, &theirs);
            let same = !groups.iter().any(GroupComparison::differs);
            let verdict = if same {
                "slotwise and Nomad agree on every counter."
            } else {
                "slotwise and Nomad differ (marked ≠)."
            };
            crate::output::text(&format!("{}{verdict}\n", comparison_table(job, &groups)))?;
            Ok(same)
        }
    }
}

fn read_input(cluster: &Cluster, namespace: &str, job: &str) -> Result<ReconcileInput> {
    let snapshot = JobSnapshot::fetch(
        cluster.source.as_ref(),
        namespace,
        job,
        &NodeCache::default(),
    )?;
    Ok(input::build(&snapshot, cluster.now)?)
}

fn read_plugins(path: &Path) -> Result<(Vec<slotwise_scenario::PluginEntry>, PathBuf)> {
    let text =
        std::fs::read_to_string(path).with_context(|| format!("cannot read {}", path.display()))?;
    let file = slotwise_scenario::parse_plugins(&text, slotwise_scenario::Syntax::of(path))
        .with_context(|| path.display().to_string())?;
    Ok((
        file.plugins,
        path.parent().unwrap_or(Path::new(".")).to_path_buf(),
    ))
}

fn describe(failure: RunFailure) -> String {
    match failure {
        RunFailure::Input(e) => format!("invalid input: {}: {}", e.field, e.message),
        RunFailure::Policy(message) => message,
    }
}

/// A reconcile's outcome as one job of many reports it.
fn settle(
    outcome: Result<std::result::Result<Plan, RunFailure>>,
) -> std::result::Result<Plan, String> {
    match outcome {
        Ok(Ok(plan)) => Ok(plan),
        Ok(Err(f)) => Err(describe(f)),
        Err(e) => Err(format!("{e:#}")),
    }
}

fn reconcile_one(
    input: &ReconcileInput,
    reconciler: Option<&ComponentReconciler>,
    plugins: Option<(Vec<slotwise_scenario::PluginEntry>, PathBuf)>,
    shipped: &Path,
) -> Result<Plan> {
    let mut consulted = match plugins {
        Some((entries, base)) => Consulted::Plugins(Box::new(PluginSet::load(
            &conformance::plugin_configs(&entries),
            &base,
            shipped,
        )?)),
        None => Consulted::Nothing,
    };
    conformance::reconcile_once(input, &mut consulted, reconciler)?
        .map_err(|f| anyhow!(describe(f)))
}

fn plan_all(
    cluster: &Cluster,
    common: &Common,
    reconciler: Option<&ComponentReconciler>,
    plugins: Option<(Vec<slotwise_scenario::PluginEntry>, PathBuf)>,
    shipped: &Path,
    concurrency: usize,
    json: bool,
) -> Result<bool> {
    let jobs = list_jobs(cluster.source.as_ref(), &common.namespace)?;
    // Plugin sandboxes keep state per reconcile: with plugins, one set
    // serves one reconcile at a time.
    let plugins = match plugins {
        Some((entries, base)) => Some(std::sync::Mutex::new(Some(Box::new(PluginSet::load(
            &conformance::plugin_configs(&entries),
            &base,
            shipped,
        )?)))),
        None => None,
    };
    let reconcile = |input: &ReconcileInput| -> std::result::Result<Plan, String> {
        let Some(set) = &plugins else {
            return settle(conformance::reconcile_once(
                input,
                &mut Consulted::Nothing,
                reconciler,
            ));
        };
        let mut guard = set
            .lock()
            .map_err(|_| "a plugin call panicked".to_string())?;
        let taken = guard
            .take()
            .ok_or_else(|| "the plugins were lost by an earlier failure".to_string())?;
        let mut consulted = Consulted::Plugins(taken);
        let outcome = conformance::reconcile_once(input, &mut consulted, reconciler);
        if let Consulted::Plugins(back) = consulted {
            *guard = Some(back);
        }
        settle(outcome)
    };
    let totals = cluster::plan_all(
        cluster.source.as_ref(),
        &jobs,
        cluster.now,
        concurrency,
        &reconcile,
    );
    if json {
        crate::output::line(&serde_json::to_string_pretty(&totals)?)?;
    } else {
        print!("{}", cluster::render(&totals));
    }
    if jobs.is_empty() {
        bail!("no job in namespace {:?}", common.namespace);
    }
    Ok(totals.errors.is_empty())
}

/// Per group, each counter either side has, with differences marked.
fn comparison_table(job: &str, groups: &[GroupComparison]) -> String {
    let mut table = comfy_table::Table::new();
    table.load_preset(comfy_table::presets::UTF8_FULL_CONDENSED);
    table.set_header(vec!["group", "counter", "slotwise", "nomad", ""]);
    for group in groups {
        for counter in group
            .counters
            .iter()
            .filter(|c| c.slotwise > 0 || c.nomad > 0)
        {
            let right =
                |n: u64| comfy_table::Cell::new(n).set_alignment(comfy_table::CellAlignment::Right);
            table.add_row(vec![
                comfy_table::Cell::new(&group.group),
                comfy_table::Cell::new(counter.name),
                right(counter.slotwise),
                right(counter.nomad),
                comfy_table::Cell::new(if counter.differs() { "≠" } else { "" }),
            ]);
        }
    }
    let mut out = format!("job {job}: slotwise beside Nomad's plan (DesiredTGUpdates)\n{table}\n");
    for group in groups.iter().filter(|g| g.nomad_preemptions > 0) {
        out.push_str(&format!(
            "{}: Nomad would preempt {} allocations; slotwise does not model preemption\n",
            group.group, group.nomad_preemptions
        ));
    }
    out
}
