//! From a job's API objects to the reconciler's input: one job at one instant, every field traced to the endpoint it came from.

use crate::api;
use crate::fingerprint;
use crate::snapshot::{placed_by, JobSnapshot};
use slotwise_reconciler as core;
use std::collections::BTreeMap;

/// An API object slotwise cannot turn into input. It names the endpoint and
/// the field.
#[derive(Debug, thiserror::Error)]
#[error("{endpoint}: {field}: {message}")]
pub struct MappingError {
    /// The call whose answer holds the field, like `GET /v1/job/web`.
    pub endpoint: String,
    /// The field, like `TaskGroups[0].Update.MaxParallel` or `[3].Name`.
    pub field: String,
    /// What is wrong with it.
    pub message: String,
}

/// The evaluation a plan stands for. Nomad's plan endpoint makes a new
/// evaluation, so no allocation's follow-up evaluation is ever this one; an
/// empty id would match every allocation without one and reschedule failed
/// allocations at once.
pub const PLAN_EVALUATION: &str = "slotwise-plan";

/// Nomad's default kill timeout, for tasks that leave it unset.
const DEFAULT_KILL_TIMEOUT: i64 = 5_000_000_000;

struct Context<'a> {
    snapshot: &'a JobSnapshot,
}

impl Context<'_> {
    fn error(&self, endpoint: &str, field: String, message: impl Into<String>) -> MappingError {
        let namespace = if self.snapshot.namespace == "default" {
            String::new()
        } else {
            format!("?namespace={}", self.snapshot.namespace)
        };
        MappingError {
            endpoint: format!("GET /v1/{endpoint}{namespace}"),
            field,
            message: message.into(),
        }
    }
}

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
                format!("{other:?} jobs are not reconciled by slotwise (service and batch only)"),
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
        let allocation = allocation(&cx, &alloc_path, i, alloc, *fingerprint, node, version)?;
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

/// RFC 3339 time as nanoseconds since the epoch; Go's zero time, and no
/// time, are none.
fn time_of(text: Option<&str>) -> Result<Option<i64>, String> {
    let Some(text) = text.filter(|t| !t.is_empty()) else {
        return Ok(None);
    };
    let at = time::OffsetDateTime::parse(text, &time::format_description::well_known::Rfc3339)
        .map_err(|e| format!("{text:?} is not an RFC 3339 time: {e}"))?;
    if at.year() <= 1 {
        return Ok(None);
    }
    i64::try_from(at.unix_timestamp_nanos())
        .map(Some)
        .map_err(|_| format!("{text:?} is out of range"))
}

fn client_status(text: &str) -> Option<core::ClientStatus> {
    Some(match text {
        "pending" => core::ClientStatus::Pending,
        "running" => core::ClientStatus::Running,
        "complete" => core::ClientStatus::Complete,
        "failed" => core::ClientStatus::Failed,
        "lost" => core::ClientStatus::Lost,
        "unknown" => core::ClientStatus::Unknown,
        _ => return None,
    })
}

/// The index in a name like `shop.web[3]`.
fn name_index(name: &str) -> Option<u32> {
    let open = name.rfind('[')?;
    name.strip_suffix(']')?.get(open + 1..)?.parse().ok()
}

#[allow(clippy::too_many_arguments)]
fn allocation(
    cx: &Context,
    path: &str,
    i: usize,
    alloc: &api::Allocation,
    fingerprint: core::Fingerprint,
    node: usize,
    version: u64,
) -> Result<core::Allocation, MappingError> {
    let field = |name: &str| format!("[{i}] (allocation {}).{name}", alloc.id);
    let bad = |name: &str, message: String| cx.error(path, field(name), message);
    let snapshot = cx.snapshot;
    let name_index = name_index(&alloc.name)
        .ok_or_else(|| bad("Name", format!("{:?} ends in no [index]", alloc.name)))?;
    let job_create_index = alloc
        .job
        .as_ref()
        .map(|j| j.create_index)
        .or_else(|| {
            snapshot
                .versions
                .iter()
                .find(|v| v.version == version)
                .map(|v| v.create_index)
        })
        .unwrap_or(snapshot.job.create_index);
    let deployment = match &snapshot.deployment {
        _ if alloc.deployment_id.is_some() => alloc.deployment_id.clone().filter(|d| !d.is_empty()),
        Some(d) if placed_by(alloc, d) => Some(d.id.clone()),
        _ => None,
    };
    // A list stub does not name the allocation replaced; the one that names
    // this as its next does.
    let previous = alloc
        .previous_allocation
        .clone()
        .filter(|p| !p.is_empty())
        .or_else(|| {
            snapshot
                .allocations
                .iter()
                .find(|a| a.next_allocation == alloc.id)
                .map(|a| a.id.clone())
        });
    let placement_score = alloc.metrics.as_ref().and_then(|m| {
        m.score_meta_data
            .iter()
            .find(|s| s.node_id == alloc.node_id)
            .map(|s| s.norm_score)
    });
    let desired_status = match alloc.desired_status.as_str() {
        "run" => core::DesiredStatus::Run,
        "stop" => core::DesiredStatus::Stop,
        "evict" => core::DesiredStatus::Evict,
        other => {
            return Err(bad(
                "DesiredStatus",
                format!("unknown desired status {other:?}"),
            ))
        }
    };
    let client = client_status(&alloc.client_status).ok_or_else(|| {
        bad(
            "ClientStatus",
            format!("unknown client status {:?}", alloc.client_status),
        )
    })?;
    let desired_transition = alloc.desired_transition.as_ref().and_then(|t| {
        let set = |b: Option<bool>| b.unwrap_or(false);
        let transition = core::DesiredTransition {
            migrate: set(t.migrate),
            reschedule: set(t.reschedule),
            force_reschedule: set(t.force_reschedule),
            migrate_disable_placement: set(t.migrate_disable_placement),
        };
        (transition.migrate
            || transition.reschedule
            || transition.force_reschedule
            || transition.migrate_disable_placement)
            .then_some(transition)
    });
    let health = match &alloc.deployment_status {
        Some(s) => Some(core::DeploymentHealth {
            healthy: s.healthy,
            canary: s.canary,
            changed_at: time_of(s.timestamp.as_deref())
                .map_err(|m| bad("DeploymentStatus.Timestamp", m))?,
        }),
        None => None,
    };
    let reschedule = alloc
        .reschedule_tracker
        .as_ref()
        .map(|t| core::RescheduleTracker {
            events: t
                .events
                .iter()
                .map(|e| core::RescheduleEvent {
                    at: e.reschedule_time,
                    delay: e.delay,
                })
                .collect(),
            last_failed: t.last_reschedule == "no placement",
        });
    let client_states = match &alloc.alloc_states {
        Some(states) if !states.is_empty() => {
            let mut out = Vec::new();
            for (k, s) in states.iter().enumerate() {
                if s.field != 0 {
                    continue;
                }
                let status = if s.value.is_empty() {
                    None
                } else {
                    Some(client_status(&s.value).ok_or_else(|| {
                        bad(
                            &format!("AllocStates[{k}].Value"),
                            format!("unknown client status {:?}", s.value),
                        )
                    })?)
                };
                let at = time_of(s.time.as_deref())
                    .map_err(|m| bad(&format!("AllocStates[{k}].Time"), m))?
                    .unwrap_or(0);
                out.push(core::ClientStateChange { status, at });
            }
            Some(out)
        }
        _ => None,
    };
    let tasks = if alloc.task_states.is_empty() {
        None
    } else {
        let mut out = Vec::new();
        for (name, t) in &alloc.task_states {
            let at = |what: &str, text: &Option<String>| {
                time_of(text.as_deref()).map_err(|m| bad(&format!("TaskStates.{name}.{what}"), m))
            };
            out.push(core::TaskState {
                name: name.clone(),
                state: match t.state.as_str() {
                    "pending" | "" => core::TaskLifecycle::Pending,
                    "running" => core::TaskLifecycle::Running,
                    "dead" => core::TaskLifecycle::Dead,
                    other => {
                        return Err(bad(
                            &format!("TaskStates.{name}.State"),
                            format!("unknown task state {other:?}"),
                        ))
                    }
                },
                failed: t.failed,
                started_at: at("StartedAt", &t.started_at)?,
                finished_at: at("FinishedAt", &t.finished_at)?,
                restarts: t.restarts,
                last_restart: at("LastRestart", &t.last_restart)?,
            });
        }
        Some(out)
    };
    Ok(core::Allocation {
        spec: core::AllocationSpec {
            id: alloc.id.clone(),
            name_index,
            job_version: version,
            job_create_index,
            node: u32::try_from(node).unwrap_or(u32::MAX),
            deployment,
            previous_allocation: previous,
            next_allocation: Some(alloc.next_allocation.clone()).filter(|n| !n.is_empty()),
            create_index: alloc.create_index,
            fingerprint,
            placement_score,
        },
        observed: core::ObservedState {
            desired_status,
            client_status: client,
            desired_transition,
            health,
            reschedule,
            followup_eval: Some(alloc.followup_eval_id.clone()).filter(|f| !f.is_empty()),
            client_states,
            tasks,
            modify_time: alloc.modify_time,
            meta: None,
        },
        update: None,
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_index_is_read_from_the_end_of_the_name() {
        assert_eq!(name_index("shop.web[12]"), Some(12));
        assert_eq!(name_index("a[b].web[3]"), Some(3));
        assert_eq!(name_index("shop.web"), None);
        assert_eq!(name_index("shop.web[x]"), None);
    }

    #[test]
    fn go_zero_times_are_no_time() {
        assert_eq!(time_of(Some("0001-01-01T00:00:00Z")), Ok(None));
        assert_eq!(
            time_of(Some("2026-01-01T00:00:01.5Z")),
            Ok(Some(1_767_225_601_500_000_000))
        );
        assert!(time_of(Some("yesterday")).is_err());
    }
}
