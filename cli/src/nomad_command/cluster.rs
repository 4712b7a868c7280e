//! Planning every job of a cluster: API calls on a small pool of threads, reconciles in parallel across cores, a progress bar on a terminal, and totals.

use indicatif::{ProgressBar, ProgressStyle};
use rayon::iter::{ParallelBridge, ParallelIterator};
use serde::Serialize;
use slotwise_nomad::compare::counters;
use slotwise_nomad::input;
use slotwise_nomad::snapshot::{JobSnapshot, NodeCache};
use slotwise_nomad::source::Source;
use slotwise_reconciler::{Plan, ReconcileInput};
use std::collections::BTreeMap;
use std::io::IsTerminal;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::mpsc::sync_channel;

/// Reconciles one input, or says why not.
pub type Reconcile<'a> = dyn Fn(&ReconcileInput) -> Result<Plan, String> + Sync + 'a;

/// What a run over many jobs found.
#[derive(Debug, Default, Serialize)]
#[serde(rename_all = "kebab-case")]
pub struct Totals {
    /// Jobs planned, failed ones included.
    pub jobs: usize,
    /// Allocations read, over the jobs planned.
    pub allocations: usize,
    /// Changes by kind, over every group of every job planned, in the
    /// counters' order.
    pub changes: BTreeMap<&'static str, u64>,
    /// Jobs that could not be planned: namespace, job, cause; sorted.
    pub errors: Vec<JobError>,
}

/// A job that could not be planned.
#[derive(Debug, Serialize)]
pub struct JobError {
    /// Its namespace.
    pub namespace: String,
    /// Its identifier.
    pub job: String,
    /// Why, naming the endpoint.
    pub error: String,
}

/// The counter names, in the order they are shown: Nomad's order, as
/// [`counters`] gives them.
pub const KINDS: [&str; 11] = [
    "ignore",
    "place",
    "migrate",
    "stop",
    "in-place",
    "destructive",
    "canary",
    "reschedule-now",
    "reschedule-later",
    "disconnect",
    "reconnect",
];

fn add(changes: &mut BTreeMap<&'static str, u64>, plan: &Plan) {
    for group in &plan.groups {
        for (kind, n) in KINDS.iter().zip(counters(&group.counters)) {
            *changes.entry(kind).or_default() += u64::from(n);
        }
    }
}

enum Outcome {
    Planned { allocations: usize, plan: Box<Plan> },
    Failed(String),
}

/// Plans each of `jobs` (namespace, job), reading from `source` on
/// `concurrency` threads and reconciling across cores, at time `now`.
pub fn plan_all(
    source: &dyn Source,
    jobs: &[(String, String)],
    now: i64,
    concurrency: usize,
    reconcile: &Reconcile,
) -> Totals {
    let progress = if std::io::stderr().is_terminal() {
        let bar = ProgressBar::new(jobs.len() as u64);
        if let Ok(style) =
            ProgressStyle::with_template("{bar:40} {pos}/{len} jobs · {per_sec} · {eta} left")
        {
            bar.set_style(style);
        }
        bar
    } else {
        ProgressBar::hidden()
    };
    let next = AtomicUsize::new(0);
    let nodes = NodeCache::default();
    // Inputs wait here for a core; the bound keeps memory flat when reading
    // runs ahead of reconciling.
    let (sender, receiver) =
        sync_channel::<(usize, Result<ReconcileInput, String>)>(concurrency.max(1) * 4);
    let mut outcomes: Vec<(usize, Outcome)> = std::thread::scope(|scope| {
        for _ in 0..concurrency.max(1) {
            let sender = sender.clone();
            let (next, nodes) = (&next, &nodes);
            scope.spawn(move || loop {
                let i = next.fetch_add(1, Ordering::Relaxed);
                let Some((namespace, job)) = jobs.get(i) else {
                    break;
                };
                let read = JobSnapshot::fetch(source, namespace, job, nodes)
                    .map_err(|e| e.to_string())
                    .and_then(|snapshot| input::build(&snapshot, now).map_err(|e| e.to_string()));
                if sender.send((i, read)).is_err() {
                    break;
                }
            });
        }
        drop(sender);
        receiver
            .into_iter()
            .par_bridge()
            .map(|(i, read)| {
                let outcome = match read {
                    Ok(input) => {
                        let allocations =
                            input.allocations.iter().map(|g| g.allocations.len()).sum();
                        match reconcile(&input) {
                            Ok(plan) => Outcome::Planned {
                                allocations,
                                plan: Box::new(plan),
                            },
                            Err(e) => Outcome::Failed(e),
                        }
                    }
                    Err(e) => Outcome::Failed(e),
                };
                progress.inc(1);
                (i, outcome)
            })
            .collect()
    });
    progress.finish_and_clear();
    outcomes.sort_by_key(|(i, _)| *i);
    let mut totals = Totals {
        jobs: jobs.len(),
        ..Totals::default()
    };
    for kind in KINDS {
        totals.changes.insert(kind, 0);
    }
    for (i, outcome) in outcomes {
        match outcome {
            Outcome::Planned { allocations, plan } => {
                totals.allocations += allocations;
                add(&mut totals.changes, &plan);
            }
            Outcome::Failed(error) => {
                let (namespace, job) = jobs[i].clone();
                totals.errors.push(JobError {
                    namespace,
                    job,
                    error,
                });
            }
        }
    }
    totals
}

/// The totals as a table, then the errors, one a line.
pub fn render(totals: &Totals) -> String {
    let mut table = comfy_table::Table::new();
    table.load_preset(comfy_table::presets::UTF8_FULL_CONDENSED);
    table.set_header(vec!["", "count"]);
    let mut row = |name: &str, n: u64| {
        table.add_row(vec![
            comfy_table::Cell::new(name),
            comfy_table::Cell::new(n).set_alignment(comfy_table::CellAlignment::Right),
        ]);
    };
    row("jobs", totals.jobs as u64);
    row("allocations", totals.allocations as u64);
    for kind in KINDS {
        row(kind, totals.changes.get(kind).copied().unwrap_or(0));
    }
    row("errors", totals.errors.len() as u64);
    let mut out = format!("{table}\n");
    const SHOWN: usize = 20;
    for e in totals.errors.iter().take(SHOWN) {
        out.push_str(&format!("error: {}/{}: {}\n", e.namespace, e.job, e.error));
    }
    if totals.errors.len() > SHOWN {
        out.push_str(&format!(
            "… and {} more errors (--json lists them all)\n",
            totals.errors.len() - SHOWN
        ));
    }
    out
}
