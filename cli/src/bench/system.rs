//! System jobs: a reconcile of a system job on 10,000 nodes with three groups, natively and through the component.

use super::paths::measure;
use anyhow::Result;
use slotwise_cli::workload::{running_deployment, NOW};
use slotwise_host::ComponentReconciler;
use slotwise_reconciler::{
    Allocation, AllocationSpec, ClientStatus, DeploymentHealth, DesiredStatus, DesiredTransition,
    Evaluation, Fingerprint, GroupAllocations, Job, JobType, Node, NodeStatus, ObservedState,
    ReconcileInput, SystemNodes, Task, TaskGroup, UpdateStrategy,
};

const SECOND: i64 = 1_000_000_000;

/// Nodes of the cluster the system job runs on.
const NODES: usize = 10_000;

/// The job's groups: a log shipper rolling out with canaries, a monitoring
/// agent rolling out without, and a node-maintenance group left unchanged.
const GROUPS: [(&str, u32); 3] = [("logs", 10), ("metrics", 0), ("maintenance", 0)];

/// Prints the time of a system reconcile natively and through the component.
pub fn run(reconciler: &ComponentReconciler, rounds: usize) -> Result<()> {
    let input = cluster(NODES);
    let (native, through, changes) = measure(reconciler, &input, rounds)?;
    let allocations: usize = input.allocations.iter().map(|g| g.allocations.len()).sum();
    println!(
        "\nsystem job on {NODES} nodes, {} groups, {allocations} allocations: 1% joining, 2% down, \
         1% draining, 1% ineligible, a rollout with canaries in one group",
        GROUPS.len()
    );
    println!(
        "{:>22}  {:>22}  {:>7}  {:>8}",
        "native", "encoded component", "ratio", "changes"
    );
    println!(
        "{:>22}  {:>22}  {:>6.2}x  {changes:>8}",
        native.show(),
        through.show(),
        through.median.as_secs_f64() / native.median.as_secs_f64()
    );
    Ok(())
}

/// What a node is doing, by its number.
fn status(k: usize) -> (NodeStatus, bool) {
    match k % 100 {
        7 | 57 => (NodeStatus::Down, false),
        13 => (NodeStatus::Ready, true),
        _ => (NodeStatus::Ready, false),
    }
}

/// A system job at version 2 on `n` nodes, mid-rollout: per group, most
/// nodes still run version 1, some run version 2 already; nodes that just
/// joined run nothing.
pub fn cluster(n: usize) -> ReconcileInput {
    let nodes: Vec<Node> = (0..n)
        .map(|k| {
            let (status, draining) = status(k);
            Node {
                id: format!("node-{k:05}"),
                status,
                draining,
                meta: vec![("zone".into(), format!("zone-{}", k % 3))],
            }
        })
        .collect();
    let mut system = SystemNodes {
        eligible: Vec::new(),
        not_ready: Vec::new(),
    };
    for (k, node) in nodes.iter().enumerate() {
        let ineligible = k % 100 == 31;
        if node.status == NodeStatus::Ready && !node.draining && !ineligible {
            system.eligible.push(k as u32);
        } else {
            system.not_ready.push(k as u32);
        }
    }
    let deployment_id = "deploy-5d0e1f2a-0000-4000-8000-000000000002";
    let allocations = GROUPS
        .iter()
        .enumerate()
        .map(|(g, (name, _))| GroupAllocations {
            group: (*name).into(),
            allocations: (0..n)
                .filter(|k| k % 100 != 91)
                .map(|k| allocation(g, name, k, &nodes, deployment_id))
                .collect(),
        })
        .collect();
    let groups: Vec<TaskGroup> = GROUPS
        .iter()
        .map(|(name, canary)| TaskGroup {
            name: (*name).into(),
            count: 1,
            update: Some(UpdateStrategy {
                max_parallel: 200,
                canary: *canary,
                auto_promote: false,
                auto_revert: false,
                progress_deadline: 600 * SECOND,
            }),
            reschedule: None,
            disconnect: None,
            tasks: vec![Task {
                name: (*name).into(),
                leader: false,
                kill_timeout: 5 * SECOND,
            }],
            fingerprint: Fingerprint {
                destructive: 2,
                in_place: 2,
            },
        })
        .collect();
    ReconcileInput {
        job_id: "node-agents".into(),
        job: Some(Job {
            id: "node-agents".into(),
            kind: JobType::System,
            version: 2,
            create_index: 42,
            modify_index: 900,
            job_modify_index: 900,
            priority: 50,
            stopped: false,
            multiregion: false,
            groups: groups.clone(),
            history: Vec::new(),
        }),
        nodes,
        allocations,
        deployment: Some(running_deployment(
            deployment_id,
            "node-agents",
            groups.iter().map(|g| g.name.as_str()),
            n as u32,
            0,
        )),
        eval: Evaluation {
            id: "eval-0b1c".into(),
            priority: 50,
        },
        now: NOW,
        explain: false,
        ext: Vec::new(),
        system: Some(system),
    }
}

/// The allocation of group `g` on node `k`: version 2 on a fifth of the
/// nodes of the two rolling groups, version 1 elsewhere, always version 2
/// for the unchanged group.
fn allocation(g: usize, name: &str, k: usize, nodes: &[Node], deployment: &str) -> Allocation {
    let version = if g == 2 || k.is_multiple_of(5) { 2 } else { 1 };
    Allocation {
        spec: AllocationSpec {
            id: format!("{k:08x}-{g:04x}-4c2a-9b3d-{:012x}", k * 7919 + g),
            name_index: 0,
            job_version: version,
            job_create_index: 42,
            node: k as u32,
            deployment: (version == 2 && g < 2).then(|| deployment.to_string()),
            previous_allocation: None,
            next_allocation: None,
            create_index: 1_000 + (k * GROUPS.len() + g) as u64,
            fingerprint: Fingerprint {
                destructive: version,
                in_place: version,
            },
            placement_score: None,
        },
        observed: ObservedState {
            desired_status: DesiredStatus::Run,
            client_status: ClientStatus::Running,
            desired_transition: nodes[k].draining.then_some(DesiredTransition {
                migrate: true,
                reschedule: false,
                force_reschedule: false,
                migrate_disable_placement: false,
            }),
            health: (version == 2 && g < 2).then_some(DeploymentHealth {
                healthy: Some(true),
                canary: g == 0 && k.is_multiple_of(50),
                changed_at: Some(NOW - 60 * SECOND),
            }),
            reschedule: None,
            followup_eval: None,
            client_states: None,
            tasks: None,
            modify_time: NOW - 120 * SECOND,
            meta: Some(vec![("agent".into(), name.into())]),
        },
        update: None,
    }
}
