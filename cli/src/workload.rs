//! Generated workloads for benchmarks and tests: jobs of any size in the middle of a rolling update, with a mix of every kind of allocation.

use slotwise_reconciler::{
    Allocation, AllocationSpec, ClientStatus, DelayFunction, Deployment, DeploymentGroup,
    DeploymentHealth, DeploymentStatus, DesiredStatus, DesiredTransition, Evaluation, Fingerprint,
    GroupAllocations, Job, JobType, Node, NodeStatus, ObservedState, ReconcileInput,
    ReschedulePolicy, Task, TaskGroup, TaskLifecycle, TaskState, UpdateStrategy,
};

const SECOND: i64 = 1_000_000_000;
/// The instant every workload is reconciled at: 2026-01-01T00:00:00Z.
pub const NOW: i64 = 1_767_225_600 * SECOND;

/// A group of `n` in the middle of a rolling update from version 1 to 2:
/// per hundred allocations, 60 of the old version, 30 of the new (some not
/// yet healthy), 5 failed, 2 on a down node, 1 marked to migrate, on nodes
/// of ten allocations each, one in fifty down and one in a hundred draining.
pub fn rolling_update(n: usize) -> ReconcileInput {
    rolling_job(1, n)
}

/// A job of `groups` groups of `n` slots each, every group in the middle
/// of a rolling update from version 1 to 2, on one set of nodes.
pub fn rolling_job(groups: usize, n: usize) -> ReconcileInput {
    let nodes: Vec<Node> = (0..(groups * n / 10).max(1))
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
    let names: Vec<String> = match groups {
        1 => vec!["web".to_string()],
        _ => (0..groups).map(|g| format!("web-{g:02}")).collect(),
    };
    let allocations = names
        .iter()
        .enumerate()
        .map(|(g, name)| GroupAllocations {
            group: name.clone(),
            allocations: (0..n)
                .map(|i| allocation(g * n + i, i, &nodes, deployment_id))
                .collect(),
        })
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
            groups: names
                .iter()
                .map(|name| TaskGroup {
                    name: name.clone(),
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
                })
                .collect(),
            history: Vec::new(),
        }),
        nodes,
        allocations,
        deployment: Some(running_deployment(
            deployment_id,
            "web-service",
            names.iter().map(String::as_str),
            n as u32,
            (n * 3 / 10) as u32,
        )),
        eval: Evaluation {
            id: "eval-7f3e".into(),
            priority: 50,
        },
        now: NOW,
        explain: false,
        ext: Vec::new(),
        system: None,
    }
}

/// A running deployment of version 2 of `job_id`, without canaries, whose
/// `groups` each want `total` allocations and have `healthy` placed and
/// healthy so far.
pub fn running_deployment<'a>(
    id: &str,
    job_id: &str,
    groups: impl Iterator<Item = &'a str>,
    total: u32,
    healthy: u32,
) -> Deployment {
    Deployment {
        id: id.into(),
        job_id: job_id.into(),
        job_version: 2,
        job_create_index: 42,
        status: DeploymentStatus::Running,
        description: "Deployment is running".into(),
        groups: groups
            .map(|group| DeploymentGroup {
                group: group.into(),
                promoted: false,
                placed_canaries: Vec::new(),
                desired_canaries: 0,
                desired_total: total,
                placed_allocs: healthy,
                healthy_allocs: healthy,
                unhealthy_allocs: 0,
                auto_promote: false,
                auto_revert: false,
                progress_deadline: 600 * SECOND,
            })
            .collect(),
    }
}

/// Allocation `i` of the job, at slot `index` of its group.
fn allocation(i: usize, index: usize, nodes: &[Node], deployment: &str) -> Allocation {
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
            name_index: index as u32,
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
