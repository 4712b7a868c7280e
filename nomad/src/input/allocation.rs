//! One allocation, list stub or full, as the reconciler's allocation: its spec and what has been observed of it.

use super::provenance::{Context, MappingError};
use crate::api;
use crate::snapshot::{placed_by, JobSnapshot};
use slotwise_reconciler as core;
use std::collections::BTreeMap;

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

/// What allocations look up in the rest of the snapshot, found once: a scan
/// of every allocation per allocation was quadratic in a job's size.
pub(super) struct Lookups<'s> {
    /// Allocation by the id of the one that replaced it; the first listed.
    replaced: BTreeMap<&'s str, &'s str>,
    /// Job create index by version; the first listed.
    created: BTreeMap<u64, u64>,
}

impl<'s> Lookups<'s> {
    pub(super) fn of(snapshot: &'s JobSnapshot) -> Self {
        let mut replaced = BTreeMap::new();
        for a in snapshot
            .allocations
            .iter()
            .filter(|a| !a.next_allocation.is_empty())
        {
            replaced
                .entry(a.next_allocation.as_str())
                .or_insert(a.id.as_str());
        }
        let mut created = BTreeMap::new();
        for v in &snapshot.versions {
            created.entry(v.version).or_insert(v.create_index);
        }
        Self { replaced, created }
    }
}

#[allow(clippy::too_many_arguments)]
pub(super) fn allocation(
    cx: &Context,
    lookups: &Lookups,
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
        .or_else(|| lookups.created.get(&version).copied())
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
            let replaced = lookups.replaced.get(alloc.id.as_str())?;
            Some((*replaced).to_string())
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
