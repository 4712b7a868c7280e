//! The `bench` command: reconcile times natively and through the component, on generated rolling updates, and what plugin hooks add.

mod hooks;
mod nomad;

use anyhow::{Context, Result};
use slotwise_host::component::precompile;
use slotwise_host::transcode::transcode;
use slotwise_host::{wit, ComponentReconciler};
use slotwise_reconciler as core;
use slotwise_reconciler::{
    Allocation, AllocationSpec, ClientStatus, DelayFunction, Deployment, DeploymentGroup,
    DeploymentHealth, DeploymentStatus, DesiredStatus, DesiredTransition, Evaluation, Fingerprint,
    GroupAllocations, Job, JobType, Node, NodeStatus, ObservedState, ReconcileInput,
    ReschedulePolicy, Task, TaskGroup, TaskLifecycle, TaskState, UpdateStrategy,
};
use std::path::Path;
use std::time::{Duration, Instant};

const SECOND: i64 = 1_000_000_000;
const NOW: i64 = 1_767_225_600 * SECOND;

/// Prints the figures for each size, the cost of a small reconcile, then
/// what plugins found in `shipped` add per hook call.
pub fn run(component_path: &Path, shipped: &Path, sizes: &[usize], rounds: usize) -> Result<()> {
    let reconciler = ComponentReconciler::load(component_path)?;
    println!("rolling update: 60% old version, 30% new, 5% failed, 2% on a down node, 1% draining");
    println!("times: median of {rounds} reconciles (best in parentheses)\n");
    println!(
        "{:>8}  {:>22}  {:>22}  {:>7}  {:>8}",
        "allocs", "native", "component", "ratio", "changes"
    );
    for &n in sizes {
        let input = rolling_update(n);
        let crossing: wit::ReconcileInput = transcode(&input)?;
        let native = time(rounds, || {
            let _ = core::reconcile(&input);
        });
        let through = time(rounds, || {
            let _ = reconciler.reconcile(&crossing);
        });
        let plan =
            core::reconcile(&input).map_err(|e| anyhow::anyhow!("{}: {}", e.field, e.message))?;
        let changes: usize = plan
            .groups
            .iter()
            .map(|g| g.placements.len() + g.stops.len() + g.destructive_updates.len())
            .sum();
        println!(
            "{n:>8}  {:>22}  {:>22}  {:>6.2}x  {changes:>8}",
            native.show(),
            through.show(),
            through.median.as_secs_f64() / native.median.as_secs_f64()
        );
    }
    small(component_path, rounds.max(200))?;
    hooks::run(&reconciler, shipped, rounds)?;
    nomad::run(&reconciler)
}

/// Loading a precompiled component, then instantiation plus a count-10
/// reconcile, which is what a host pays per question.
fn small(component_path: &Path, rounds: usize) -> Result<()> {
    let cwasm = std::env::temp_dir().join(format!("slotwise-bench-{}.cwasm", std::process::id()));
    precompile(component_path, &cwasm)?;
    let started = Instant::now();
    let reconciler =
        ComponentReconciler::load(&cwasm).context("loading the precompiled component")?;
    let load = started.elapsed();
    let _ = std::fs::remove_file(&cwasm);
    let input: wit::ReconcileInput = transcode(&rolling_update(10))?;
    let instantiation = time(rounds, || {
        let _ = reconciler.instantiate_only();
    });
    let small = time(rounds, || {
        let _ = reconciler.reconcile(&input);
    });
    println!("\nload of the precompiled component: {}", human(load));
    println!(
        "instantiation alone: {} ({rounds} rounds)",
        instantiation.show()
    );
    println!("instantiation + count-10 reconcile: {}", small.show());
    Ok(())
}

/// The median and best of a series of timings.
struct Timing {
    median: Duration,
    best: Duration,
}

impl Timing {
    fn show(&self) -> String {
        format!("{} ({})", human(self.median), human(self.best))
    }
}

/// Runs `f` once to warm up, then `rounds` times.
fn time(rounds: usize, mut f: impl FnMut()) -> Timing {
    f();
    let mut times: Vec<Duration> = (0..rounds.max(1))
        .map(|_| {
            let started = Instant::now();
            f();
            started.elapsed()
        })
        .collect();
    times.sort_unstable();
    Timing {
        median: times[times.len() / 2],
        best: times[0],
    }
}

fn human(d: Duration) -> String {
    let us = d.as_secs_f64() * 1e6;
    if us < 1_000.0 {
        format!("{us:.1} µs")
    } else {
        format!("{:.2} ms", us / 1_000.0)
    }
}

/// A group of `n` in the middle of a rolling update from version 1 to 2.
pub fn rolling_update(n: usize) -> ReconcileInput {
    let nodes: Vec<Node> = (0..(n / 10).max(1))
        .map(|k| Node {
            id: format!("node-{k:06}"),
            status: if k % 50 == 7 {
                NodeStatus::Down
            } else {
                NodeStatus::Ready
            },
            draining: k % 100 == 3,
            meta: Vec::new(),
        })
        .collect();
    let deployment_id = "deploy-2c1b7a4e-0000-4000-8000-000000000002";
    let allocations = (0..n)
        .map(|i| allocation(i, &nodes, deployment_id))
        .collect();
    ReconcileInput {
        job_id: "web-service".into(),
        job: Some(Job {
            id: "web-service".into(),
            kind: JobType::Service,
            version: 2,
            create_index: 42,
            modify_index: 900,
            job_modify_index: 900,
            priority: 50,
            stopped: false,
            multiregion: false,
            groups: vec![TaskGroup {
                name: "web".into(),
                count: n as u32,
                update: Some(UpdateStrategy {
                    max_parallel: (n / 20).max(1) as u32,
                    canary: 0,
                    auto_promote: false,
                    auto_revert: false,
                    progress_deadline: 600 * SECOND,
                }),
                reschedule: Some(ReschedulePolicy {
                    attempts: 0,
                    interval: 0,
                    delay: 30 * SECOND,
                    delay_function: DelayFunction::Exponential,
                    max_delay: 3_600 * SECOND,
                    unlimited: true,
                }),
                disconnect: None,
                tasks: vec![Task {
                    name: "web".into(),
                    leader: false,
                    kill_timeout: 5 * SECOND,
                }],
                fingerprint: Fingerprint {
                    destructive: 2,
                    in_place: 2,
                },
            }],
            history: Vec::new(),
        }),
        nodes,
        allocations: vec![GroupAllocations {
            group: "web".into(),
            allocations,
        }],
        deployment: Some(Deployment {
            id: deployment_id.into(),
            job_id: "web-service".into(),
            job_version: 2,
            job_create_index: 42,
            status: DeploymentStatus::Running,
            description: "Deployment is running".into(),
            groups: vec![DeploymentGroup {
                group: "web".into(),
                promoted: false,
                placed_canaries: Vec::new(),
                desired_canaries: 0,
                desired_total: n as u32,
                placed_allocs: (n * 3 / 10) as u32,
                healthy_allocs: (n * 3 / 10) as u32,
                unhealthy_allocs: 0,
                auto_promote: false,
                auto_revert: false,
                progress_deadline: 600 * SECOND,
            }],
        }),
        eval: Evaluation {
            id: "eval-7f3e".into(),
            priority: 50,
        },
        now: NOW,
        explain: false,
        ext: Vec::new(),
    }
}

fn allocation(i: usize, nodes: &[Node], deployment: &str) -> Allocation {
    let mix = i % 100;
    let new_version = (60..90).contains(&mix);
    let failed = (90..95).contains(&mix);
    let version = if new_version { 2 } else { 1 };
    let node = if (95..97).contains(&mix) {
        // Lands on a down node: node k with k % 50 == 7.
        7 % nodes.len()
    } else {
        i % nodes.len()
    };
    Allocation {
        spec: AllocationSpec {
            id: format!("{i:08x}-5e1f-4c2a-9b3d-{:012x}", i * 7919),
            name_index: i as u32,
            job_version: version,
            job_create_index: 42,
            node: node as u32,
            deployment: new_version.then(|| deployment.to_string()),
            previous_allocation: None,
            next_allocation: None,
            create_index: 1_000 + i as u64,
            fingerprint: Fingerprint {
                destructive: version,
                in_place: version,
            },
            placement_score: Some(0.5),
        },
        observed: ObservedState {
            desired_status: DesiredStatus::Run,
            client_status: if failed {
                ClientStatus::Failed
            } else {
                ClientStatus::Running
            },
            desired_transition: (mix == 97).then_some(DesiredTransition {
                migrate: true,
                reschedule: false,
                force_reschedule: false,
                migrate_disable_placement: false,
            }),
            health: new_version.then_some(DeploymentHealth {
                healthy: if mix >= 88 { None } else { Some(true) },
                canary: false,
                changed_at: Some(NOW - 60 * SECOND),
            }),
            reschedule: None,
            followup_eval: None,
            client_states: None,
            tasks: failed.then(|| {
                vec![TaskState {
                    name: "web".into(),
                    state: TaskLifecycle::Dead,
                    failed: true,
                    started_at: Some(NOW - 3_600 * SECOND),
                    finished_at: Some(NOW - 120 * SECOND),
                    restarts: 0,
                    last_restart: None,
                }]
            }),
            modify_time: NOW - 120 * SECOND,
            meta: None,
        },
        update: None,
    }
}
