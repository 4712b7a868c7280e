//! From a job's API objects to the reconciler's input: one job at one instant, every field traced to the endpoint it came from.

mod allocation;
mod provenance;

use crate::api;
use crate::fingerprint;
use crate::snapshot::JobSnapshot;
use allocation::{allocation, Lookups};
use provenance::Context;
pub use provenance::MappingError;
use slotwise_reconciler as core;
use std::collections::BTreeMap;

/// The evaluation a plan stands for. Nomad's plan endpoint makes a new
/// evaluation, so no allocation's follow-up evaluation is ever this one; an
/// empty id would match every allocation without one and reschedule failed
/// allocations at once.
pub const PLAN_EVALUATION: &str = "slotwise-plan";

/// Nomad's default kill timeout, for tasks that leave it unset.
const DEFAULT_KILL_TIMEOUT: i64 = 5_000_000_000;

/// The reconciler input for `snapshot` at time `now` (nanoseconds since the
/// epoch), for an evaluation like the one `nomad job plan` makes: a new
/// identifier ([`PLAN_EVALUATION`]), the job's priority.
///
/// # Errors
/// When an object holds something the contract cannot express: a system
/// job, an unknown status, an allocation name without an index, an
/// allocation of a group that neither the job nor its version has.
pub fn build(snapshot: &JobSnapshot, now: i64) -> Result<core::ReconcileInput, MappingError> {
    let cx = Context { snapshot };
    let job = &snapshot.job;
    let job_path = format!("job/{}", job.id);
    let kind = match job.kind.as_str() {
        "service" | "" => core::JobType::Service,
        "batch" => core::JobType::Batch,
        other => {
            return Err(cx.error(
                &job_path,
                "Type".into(),
                format!(
                    "{other:?} jobs are not planned from the API yet: their slots are the nodes \
                     the scheduler finds eligible, which the API does not report"
                ),
            ))
        }
    };
    let current_groups = groups(&cx, &job_path, job)?;

    // The definitions of every version an allocation was made from: the
    // versions list, else the job embedded in the full allocation.
    let mut by_version: BTreeMap<u64, &api::Job> =
        snapshot.versions.iter().map(|v| (v.version, v)).collect();
    for alloc in &snapshot.allocations {
        if let (Some(v), Some(embedded)) = (alloc.job_version, &alloc.job) {
            by_version.entry(v).or_insert(embedded);
        }
    }
    by_version.insert(job.version, job);
    let mut fingerprints: BTreeMap<(u64, String), core::Fingerprint> = BTreeMap::new();
    for (version, definition) in &by_version {
        for group in &definition.task_groups {
            let name = group["Name"].as_str().unwrap_or_default().to_string();
            fingerprints.insert(
                (*version, name),
                core::Fingerprint {
                    destructive: fingerprint::destructive(&definition.meta, group),
                    in_place: definition.job_modify_index,
                },
            );
        }
    }

    let mut used_versions: Vec<u64> = snapshot
        .allocations
        .iter()
        .filter_map(|a| a.job_version)
        .filter(|v| *v != job.version)
        .collect();
    used_versions.sort_unstable();
    used_versions.dedup();
    let mut history = Vec::new();
    for version in used_versions {
        if let Some(definition) = by_version.get(&version) {
            let path = format!("job/{}/versions", job.id);
            history.push(core::PastVersion {
                version,
                create_index: definition.create_index,
                groups: groups(&cx, &path, definition)?,
            });
        }
    }

    let node_ids: Vec<&String> = snapshot.nodes.keys().collect();
    let nodes = snapshot
        .nodes
        .iter()
        .map(|(id, node)| node_of(&cx, id, node.as_ref()))
        .collect::<Result<Vec<_>, _>>()?;

    let alloc_path = format!("job/{}/allocations", job.id);
    let lookups = Lookups::of(snapshot);
    let mut by_group: BTreeMap<String, Vec<core::Allocation>> = BTreeMap::new();
    for (i, alloc) in snapshot.allocations.iter().enumerate() {
        let field = |name: &str| format!("[{i}] (allocation {}).{name}", alloc.id);
        let version = alloc.job_version.unwrap_or(job.version);
        let Some(fingerprint) = fingerprints.get(&(version, alloc.task_group.clone())) else {
            let known_version = by_version.contains_key(&version);
            let in_job = fingerprints.keys().any(|(_, g)| *g == alloc.task_group);
            if known_version || !in_job {
                return Err(cx.error(
                    &alloc_path,
                    field("TaskGroup"),
                    format!(
                        "group {:?} is in neither the job nor version {version} of it",
                        alloc.task_group
                    ),
                ));
            }
            return Err(cx.error(
                &alloc_path,
                field("JobVersion"),
                format!("version {version} is neither listed nor embedded in the allocation"),
            ));
        };
        let node = node_ids
            .binary_search(&&alloc.node_id)
            .map_err(|_| cx.error(&alloc_path, field("NodeID"), "the node was not read"))?;
        let allocation = allocation(
            &cx,
            &lookups,
            &alloc_path,
            i,
            alloc,
            *fingerprint,
            node,
            version,
        )?;
        by_group
            .entry(alloc.task_group.clone())
            .or_default()
            .push(allocation);
    }
    // The job's groups first, in its order, then groups it no longer has.
    let mut allocations = Vec::new();
    for group in &current_groups {
        if let Some(list) = by_group.remove(&group.name) {
            allocations.push(core::GroupAllocations {
                group: group.name.clone(),
                allocations: list,
            });
        }
    }
    for (group, list) in by_group {
        allocations.push(core::GroupAllocations {
            group,
            allocations: list,
        });
    }

    let deployment = snapshot
        .deployment
        .as_ref()
        .map(|d| deployment_of(&cx, d))
        .transpose()?;
    Ok(core::ReconcileInput {
        job_id: job.id.clone(),
        job: Some(core::Job {
            id: job.id.clone(),
            kind,
            version: job.version,
            create_index: job.create_index,
            modify_index: job.modify_index,
            job_modify_index: job.job_modify_index,
            priority: job.priority,
            stopped: job.stop,
            multiregion: job.multiregion.as_ref().is_some_and(|m| !m.is_null()),
            groups: current_groups,
            history,
        }),
        nodes,
        allocations,
        deployment,
        eval: core::Evaluation {
            id: PLAN_EVALUATION.to_string(),
            priority: job.priority,
        },
        now,
        explain: false,
        ext: Vec::new(),
        system: None,
    })
}

fn groups(cx: &Context, path: &str, job: &api::Job) -> Result<Vec<core::TaskGroup>, MappingError> {
    let mut out = Vec::new();
    for (i, raw) in job.task_groups.iter().enumerate() {
        let field = format!("TaskGroups[{i}]");
        let group: api::TaskGroup = serde_json::from_value(raw.clone())
            .map_err(|e| cx.error(path, field.clone(), e.to_string()))?;
        let reschedule = match &group.reschedule_policy {
            Some(p) => Some(core::ReschedulePolicy {
                attempts: p.attempts,
                interval: p.interval,
                delay: p.delay,
                delay_function: match p.delay_function.as_str() {
                    "" | "constant" => core::DelayFunction::Constant,
                    "exponential" => core::DelayFunction::Exponential,
                    "fibonacci" => core::DelayFunction::Fibonacci,
                    other => {
                        return Err(cx.error(
                            path,
                            format!("{field}.ReschedulePolicy.DelayFunction"),
                            format!("unknown delay function {other:?}"),
                        ))
                    }
                },
                max_delay: p.max_delay,
                unlimited: p.unlimited,
            }),
            None => None,
        };
        let disconnect = match (&group.disconnect, group.max_client_disconnect) {
            (Some(d), _) => Some(core::DisconnectPolicy {
                lost_after: d.lost_after,
                replace: d.replace.unwrap_or(true),
                reconcile: match d.reconcile.as_str() {
                    "" | "best_score" => core::ReconnectStrategy::BestScore,
                    "longest_running" => core::ReconnectStrategy::LongestRunning,
                    "keep_original" => core::ReconnectStrategy::KeepOriginal,
                    "keep_replacement" => core::ReconnectStrategy::KeepReplacement,
                    other => {
                        return Err(cx.error(
                            path,
                            format!("{field}.Disconnect.Reconcile"),
                            format!("unknown reconcile strategy {other:?}"),
                        ))
                    }
                },
                stop_on_client_after: d.stop_on_client_after,
            }),
            (None, Some(lost_after)) => Some(core::DisconnectPolicy {
                lost_after,
                replace: true,
                reconcile: core::ReconnectStrategy::BestScore,
                stop_on_client_after: group.stop_after_client_disconnect,
            }),
            (None, None) => group
                .stop_after_client_disconnect
                .map(|stop| core::DisconnectPolicy {
                    lost_after: 0,
                    replace: true,
                    reconcile: core::ReconnectStrategy::BestScore,
                    stop_on_client_after: Some(stop),
                }),
        };
        out.push(core::TaskGroup {
            name: group.name.clone(),
            count: group.count,
            update: group.update.as_ref().map(|u| core::UpdateStrategy {
                max_parallel: u.max_parallel,
                canary: u.canary,
                auto_promote: u.auto_promote,
                auto_revert: u.auto_revert,
                progress_deadline: u.progress_deadline,
            }),
            reschedule,
            disconnect,
            tasks: group
                .tasks
                .iter()
                .map(|t| core::Task {
                    name: t.name.clone(),
                    leader: t.leader,
                    kill_timeout: t.kill_timeout.unwrap_or(DEFAULT_KILL_TIMEOUT),
                })
                .collect(),
            fingerprint: core::Fingerprint {
                destructive: fingerprint::destructive(&job.meta, raw),
                in_place: job.job_modify_index,
            },
        });
    }
    Ok(out)
}

fn node_of(cx: &Context, id: &str, node: Option<&api::Node>) -> Result<core::Node, MappingError> {
    let Some(node) = node else {
        return Ok(core::Node {
            id: id.to_string(),
            status: core::NodeStatus::Unknown,
            draining: false,
            meta: Vec::new(),
        });
    };
    let status = match node.status.as_str() {
        "ready" => core::NodeStatus::Ready,
        "initializing" => core::NodeStatus::Initializing,
        "down" => core::NodeStatus::Down,
        "disconnected" => core::NodeStatus::Disconnected,
        other => {
            return Err(cx.error(
                &format!("node/{id}"),
                "Status".into(),
                format!("unknown node status {other:?}"),
            ))
        }
    };
    Ok(core::Node {
        id: id.to_string(),
        status,
        draining: node.drain_strategy.as_ref().is_some_and(|d| !d.is_null()) || node.drain,
        meta: node.meta.clone().into_iter().collect(),
    })
}

fn deployment_of(cx: &Context, d: &api::Deployment) -> Result<core::Deployment, MappingError> {
    let status = match d.status.as_str() {
        "running" => core::DeploymentStatus::Running,
        "paused" => core::DeploymentStatus::Paused,
        "failed" => core::DeploymentStatus::Failed,
        "successful" => core::DeploymentStatus::Successful,
        "cancelled" => core::DeploymentStatus::Cancelled,
        "initializing" => core::DeploymentStatus::Initializing,
        "pending" => core::DeploymentStatus::Pending,
        "blocked" => core::DeploymentStatus::Blocked,
        "unblocking" => core::DeploymentStatus::Unblocking,
        other => {
            return Err(cx.error(
                &format!("job/{}/deployment", d.job_id),
                "Status".into(),
                format!("unknown deployment status {other:?}"),
            ))
        }
    };
    Ok(core::Deployment {
        id: d.id.clone(),
        job_id: d.job_id.clone(),
        job_version: d.job_version,
        job_create_index: d.job_create_index,
        status,
        description: d.status_description.clone(),
        groups: d
            .task_groups
            .iter()
            .map(|(name, g)| core::DeploymentGroup {
                group: name.clone(),
                promoted: g.promoted,
                placed_canaries: g.placed_canaries.clone(),
                desired_canaries: g.desired_canaries,
                desired_total: g.desired_total,
                placed_allocs: g.placed_allocs,
                healthy_allocs: g.healthy_allocs,
                unhealthy_allocs: g.unhealthy_allocs,
                auto_promote: g.auto_promote,
                auto_revert: g.auto_revert,
                progress_deadline: g.progress_deadline,
            })
            .collect(),
    })
}
