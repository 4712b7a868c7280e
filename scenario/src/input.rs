//! Building the reconciler's input from a scenario file, filling in Nomad's test-fixture defaults.

use crate::error::ScenarioError;
use crate::file::span;
use crate::file::{
    AllocFile, DeploymentFile, FingerprintFile, GroupFile, JobFile, JobKind, Outdated,
    RescheduleFile, ScenarioFile, TaskStateFile, Transition, UpdateFile, UpdatePreset,
};
use crate::node_list::Nodes;
use slotwise_reconciler::{
    Allocation, AllocationSpec, ClientStateChange, ClientStatus, DelayFunction, Deployment,
    DeploymentGroup, DeploymentHealth, DeploymentStatus, DesiredStatus, DesiredTransition,
    DisconnectPolicy, Evaluation, Fingerprint, GroupAllocations, Job, JobType, ObservedState,
    PastVersion, ReconcileInput, ReconnectStrategy, RescheduleEvent, ReschedulePolicy,
    RescheduleTracker, Task, TaskGroup, TaskLifecycle, TaskState, UpdateStrategy,
};
use std::collections::BTreeMap;

/// The time of a scenario that sets none: 2026-01-01T00:00:00Z.
pub const DEFAULT_NOW: i64 = 1_767_225_600_000_000_000;

const SECOND: i64 = 1_000_000_000;
const MINUTE: i64 = 60 * SECOND;
const DEFAULT_JOB_ID: &str = "mock-job";
const DEFAULT_GROUP: &str = "web";
const DEFAULT_FINGERPRINT: Fingerprint = Fingerprint {
    destructive: 1,
    in_place: 1,
};

/// The reconciler input a scenario file describes, and its time.
pub(crate) fn build(file: &ScenarioFile) -> Result<(ReconcileInput, i64), ScenarioError> {
    crate::declared::check_declared(file)?;
    let now = file.now.map_or(DEFAULT_NOW, |t| t.resolve(DEFAULT_NOW));
    let job = match &file.job {
        None => Some(job(&JobFile::default())?),
        Some(None) => None,
        Some(Some(j)) => Some(job(j)?),
    };
    let job_id = match (&file.job_id, &job) {
        (Some(id), _) => id.clone(),
        (None, Some(j)) => j.id.clone(),
        (None, None) => DEFAULT_JOB_ID.to_string(),
    };
    let mut nodes = Nodes::new(file)?;
    let cluster = crate::system::Cluster::new(file, &mut nodes)?;
    let running = cluster.running(file, job.as_ref(), &nodes)?;
    let mut allocations = Vec::new();
    let mut created = 0u64;
    let no_entries = Vec::new();
    let only_running = running
        .keys()
        .filter(|g| !file.allocations.contains_key(*g));
    for group in file.allocations.keys().chain(only_running) {
        let entries = file.allocations.get(group).unwrap_or(&no_entries);
        let spec = job
            .as_ref()
            .and_then(|j| j.groups.iter().find(|g| &g.name == group));
        let mut builder = GroupBuilder {
            group,
            spec,
            job: job.as_ref(),
            now,
            created: &mut created,
            ids: BTreeMap::new(),
            out: Vec::new(),
        };
        for (i, entry) in entries.iter().enumerate() {
            builder.add(&format!("allocations.{group}[{i}]"), entry, &mut nodes)?;
        }
        for (i, entry) in running.get(group).into_iter().flatten().enumerate() {
            builder.add(&format!("system.job-on({group})[{i}]"), entry, &mut nodes)?;
        }
        allocations.push(GroupAllocations {
            group: group.clone(),
            allocations: builder.out,
        });
    }
    let deployment = file
        .deployment
        .as_ref()
        .map(|d| deployment(d, &job_id, job.as_ref()));
    let eval = Evaluation {
        id: file.eval.as_ref().map(|e| e.id.clone()).unwrap_or_default(),
        priority: file.eval.as_ref().and_then(|e| e.priority).unwrap_or(50),
    };
    let system_job = job.as_ref().is_some_and(|j| is_system(j.kind));
    let system = cluster.nodes(system_job, &nodes)?;
    let input = ReconcileInput {
        system,
        job_id,
        job,
        nodes: nodes.list,
        allocations,
        deployment,
        eval,
        now,
        explain: file.explain
            || file
                .expect
                .as_ref()
                .is_some_and(|e| !e.classification.is_empty()),
        ext: file
            .ext
            .iter()
            .map(|e| slotwise_reconciler::SlotExt {
                plugin: e.plugin.clone(),
                group: e.group.clone().unwrap_or_else(|| DEFAULT_GROUP.to_string()),
                slot: e.slot,
                node: e.node.clone(),
                data: e.text.as_bytes().to_vec(),
            })
            .collect(),
    };
    Ok((input, now))
}

/// Whether jobs of `kind` run on every eligible node.
fn is_system(kind: JobType) -> bool {
    matches!(kind, JobType::System | JobType::Sysbatch)
}

fn job(file: &JobFile) -> Result<Job, ScenarioError> {
    let create_index = file.create_index.unwrap_or(42);
    let kind = match file.kind {
        Some(JobKind::Batch) => JobType::Batch,
        Some(JobKind::System) => JobType::System,
        Some(JobKind::Sysbatch) => JobType::Sysbatch,
        Some(JobKind::Service) | None => JobType::Service,
    };
    // A system job runs one allocation of a group per node.
    let count = if is_system(kind) { 1 } else { 10 };
    let group = |g: &GroupFile, path: &str| group(g, path, count);
    let groups = match &file.groups {
        Some(groups) => groups
            .iter()
            .enumerate()
            .map(|(i, g)| group(g, &format!("job.groups[{i}]")))
            .collect::<Result<_, _>>()?,
        None => vec![group(&GroupFile::default(), "job")?],
    };
    let history = file
        .history
        .iter()
        .enumerate()
        .map(|(v, past)| {
            Ok(PastVersion {
                version: past.version,
                create_index: past.create_index.unwrap_or(create_index),
                groups: past
                    .groups
                    .iter()
                    .enumerate()
                    .map(|(i, g)| group(g, &format!("job.history[{v}].groups[{i}]")))
                    .collect::<Result<_, _>>()?,
            })
        })
        .collect::<Result<_, ScenarioError>>()?;
    Ok(Job {
        id: file
            .id
            .clone()
            .unwrap_or_else(|| DEFAULT_JOB_ID.to_string()),
        kind,
        version: file.version.unwrap_or(0),
        create_index,
        modify_index: file.modify_index.unwrap_or(99),
        job_modify_index: file.job_modify_index.unwrap_or(99),
        priority: file.priority.unwrap_or(50),
        stopped: file.stopped,
        multiregion: file.multiregion,
        groups,
        history,
    })
}

fn group(file: &GroupFile, path: &str, default_count: u32) -> Result<TaskGroup, ScenarioError> {
    let update = file.update.as_ref().map(|u| match u {
        UpdateFile::Preset(UpdatePreset::Canary) => strategy(2, 2),
        UpdateFile::Preset(UpdatePreset::Rolling) => strategy(4, 0),
        UpdateFile::Strategy(s) => UpdateStrategy {
            max_parallel: s.max_parallel.unwrap_or(1),
            canary: s.canary,
            auto_promote: s.auto_promote,
            auto_revert: s.auto_revert,
            progress_deadline: s.progress_deadline.map_or(10 * MINUTE, |d| d.0),
        },
    });
    let reschedule = match &file.reschedule {
        None => Some(ReschedulePolicy {
            attempts: 2,
            interval: 10 * MINUTE,
            delay: 5 * SECOND,
            delay_function: DelayFunction::Constant,
            max_delay: 0,
            unlimited: false,
        }),
        Some(None) => None,
        Some(Some(r)) => Some(reschedule(r)),
    };
    let disconnect = file.disconnect.as_ref().map(|d| DisconnectPolicy {
        lost_after: d.lost_after.map_or(0, |d| d.0),
        replace: d.replace.unwrap_or(true),
        reconcile: d.reconcile.unwrap_or(ReconnectStrategy::BestScore),
        stop_on_client_after: d.stop_on_client_after.map(|d| d.0),
    });
    let tasks = match &file.tasks {
        Some(tasks) => tasks
            .iter()
            .map(|t| Task {
                name: t.name.clone(),
                leader: t.leader,
                kill_timeout: t.kill_timeout.map_or(5 * SECOND, |d| d.0),
            })
            .collect(),
        None => vec![Task {
            name: DEFAULT_GROUP.to_string(),
            leader: false,
            kill_timeout: 5 * SECOND,
        }],
    };
    let name = file
        .name
        .clone()
        .unwrap_or_else(|| DEFAULT_GROUP.to_string());
    if name.is_empty() {
        return Err(ScenarioError::invalid(
            format!("{path}.name"),
            "must not be empty",
        ));
    }
    Ok(TaskGroup {
        name,
        count: file.count.unwrap_or(default_count),
        update,
        reschedule,
        disconnect,
        tasks,
        fingerprint: file.fingerprint.map_or(DEFAULT_FINGERPRINT, fingerprint),
    })
}

/// A preset strategy: as Nomad's test fixtures, no progress deadline.
fn strategy(max_parallel: u32, canary: u32) -> UpdateStrategy {
    UpdateStrategy {
        max_parallel,
        canary,
        auto_promote: false,
        auto_revert: false,
        progress_deadline: 0,
    }
}

fn reschedule(r: &RescheduleFile) -> ReschedulePolicy {
    ReschedulePolicy {
        attempts: r.attempts,
        interval: r.interval.map_or(0, |d| d.0),
        delay: r.delay.map_or(0, |d| d.0),
        delay_function: r.function.unwrap_or(DelayFunction::Constant),
        max_delay: r.max_delay.map_or(0, |d| d.0),
        unlimited: r.unlimited,
    }
}

fn fingerprint(f: FingerprintFile) -> Fingerprint {
    Fingerprint {
        destructive: f.destructive,
        in_place: f.in_place,
    }
}

/// Builds the allocations of one group.
struct GroupBuilder<'f> {
    group: &'f str,
    spec: Option<&'f TaskGroup>,
    job: Option<&'f Job>,
    now: i64,
    created: &'f mut u64,
    /// How many allocations each default id has named so far.
    ids: BTreeMap<String, u32>,
    out: Vec<Allocation>,
}

impl GroupBuilder<'_> {
    fn add(
        &mut self,
        path: &str,
        entry: &AllocFile,
        nodes: &mut Nodes,
    ) -> Result<(), ScenarioError> {
        let indexes = span(&entry.index, &format!("{path}.index"))?;
        if entry.id.is_some() && indexes.start() != indexes.end() {
            return Err(ScenarioError::invalid(
                format!("{path}.id"),
                "an id names one allocation, not a range",
            ));
        }
        if entry.fingerprint.is_some() && entry.outdated.is_some() {
            return Err(ScenarioError::invalid(
                format!("{path}.outdated"),
                "give a fingerprint or say what is outdated, not both",
            ));
        }
        if entry.tasks.is_some() && entry.finished.is_some() {
            return Err(ScenarioError::invalid(
                format!("{path}.finished"),
                "give tasks or a finish time, not both",
            ));
        }
        let system = self.job.is_some_and(|j| is_system(j.kind));
        for index in indexes {
            // A system job's allocations are told apart by their node.
            let base = match (system, entry.node.as_deref(), index) {
                (true, Some(node), 0) => format!("{}-{node}", self.group),
                (true, Some(node), _) => format!("{}-{node}-{index}", self.group),
                _ => format!("{}-{index}", self.group),
            };
            let seen = self.ids.entry(base.clone()).or_insert(0);
            *seen += 1;
            let id = match (&entry.id, *seen) {
                (Some(id), _) => id.clone(),
                (None, 1) => base,
                (None, n) => format!("{base}-{n}"),
            };
            let node = nodes.resolve(entry.node.as_deref(), &id, path)?;
            *self.created += 1;
            let spec = self.spec(entry, id, index, node);
            let observed = self.observed(entry);
            self.out.push(Allocation {
                spec,
                observed,
                update: entry.update,
            });
        }
        Ok(())
    }

    fn spec(&self, entry: &AllocFile, id: String, index: u32, node: u32) -> AllocationSpec {
        let group_fingerprint = self.spec.map_or(DEFAULT_FINGERPRINT, |g| g.fingerprint);
        let fingerprint = match (entry.fingerprint, entry.outdated) {
            (Some(f), _) => fingerprint(f),
            (None, Some(Outdated::Destructive)) => Fingerprint {
                destructive: group_fingerprint.destructive.wrapping_add(1),
                ..group_fingerprint
            },
            (None, Some(Outdated::InPlace)) => Fingerprint {
                in_place: group_fingerprint.in_place.wrapping_add(1),
                ..group_fingerprint
            },
            (None, None) => group_fingerprint,
        };
        AllocationSpec {
            id,
            name_index: index,
            job_version: entry.version.unwrap_or(self.job.map_or(0, |j| j.version)),
            job_create_index: entry
                .job_create_index
                .unwrap_or(self.job.map_or(42, |j| j.create_index)),
            node,
            deployment: entry.deployment.clone(),
            previous_allocation: entry.previous.clone(),
            next_allocation: entry.next.clone(),
            create_index: entry.create_index.unwrap_or(100 + *self.created),
            fingerprint,
            placement_score: entry.score,
        }
    }

    fn observed(&self, entry: &AllocFile) -> ObservedState {
        let now = self.now;
        let client_status = entry.client.unwrap_or(ClientStatus::Pending);
        let has = |t: Transition| entry.transition.contains(&t);
        let desired_transition = (!entry.transition.is_empty()).then(|| DesiredTransition {
            migrate: has(Transition::Migrate),
            reschedule: has(Transition::Reschedule),
            force_reschedule: has(Transition::ForceReschedule),
            migrate_disable_placement: has(Transition::MigrateDisablePlacement),
        });
        let health = (entry.healthy.is_some() || entry.canary || entry.health_changed.is_some())
            .then(|| DeploymentHealth {
                healthy: entry.healthy,
                canary: entry.canary,
                changed_at: entry.health_changed.map(|t| t.resolve(now)),
            });
        let reschedule =
            (entry.reschedule_events.is_some() || entry.reschedule_failed).then(|| {
                RescheduleTracker {
                    events: entry
                        .reschedule_events
                        .iter()
                        .flatten()
                        .map(|e| RescheduleEvent {
                            at: e.at.resolve(now),
                            delay: e.delay.0,
                        })
                        .collect(),
                    last_failed: entry.reschedule_failed,
                }
            });
        let tasks = match (&entry.tasks, entry.finished) {
            (Some(tasks), _) => Some(tasks.iter().map(|t| task_state(t, now)).collect()),
            (None, Some(at)) => Some(vec![TaskState {
                name: DEFAULT_GROUP.to_string(),
                state: TaskLifecycle::Dead,
                failed: client_status == ClientStatus::Failed,
                started_at: None,
                finished_at: Some(at.resolve(now)),
                restarts: 0,
                last_restart: None,
            }]),
            (None, None) => None,
        };
        ObservedState {
            desired_status: entry.desired.unwrap_or(DesiredStatus::Run),
            client_status,
            desired_transition,
            health,
            reschedule,
            followup_eval: entry.followup_eval.clone(),
            client_states: entry.client_states.as_ref().map(|states| {
                states
                    .iter()
                    .map(|s| ClientStateChange {
                        status: s.status,
                        at: s.at.map_or(0, |t| t.resolve(now)),
                    })
                    .collect()
            }),
            tasks,
            modify_time: entry.modify_time.map_or(0, |t| t.resolve(now)),
            meta: entry
                .meta
                .as_ref()
                .map(|m| m.iter().map(|(k, v)| (k.clone(), v.clone())).collect()),
        }
    }
}

fn task_state(t: &TaskStateFile, now: i64) -> TaskState {
    TaskState {
        name: t.name.clone(),
        state: t.state.unwrap_or(TaskLifecycle::Running),
        failed: t.failed,
        started_at: t.started.map(|x| x.resolve(now)),
        finished_at: t.finished.map(|x| x.resolve(now)),
        restarts: t.restarts,
        last_restart: t.last_restart.map(|x| x.resolve(now)),
    }
}

fn deployment(file: &DeploymentFile, job_id: &str, job: Option<&Job>) -> Deployment {
    Deployment {
        id: file
            .id
            .clone()
            .unwrap_or_else(|| "deployment-1".to_string()),
        job_id: file.job_id.clone().unwrap_or_else(|| job_id.to_string()),
        job_version: file.version.unwrap_or(job.map_or(0, |j| j.version)),
        job_create_index: file
            .job_create_index
            .unwrap_or(job.map_or(42, |j| j.create_index)),
        status: file.status.unwrap_or(DeploymentStatus::Running),
        description: file.description.clone(),
        groups: file
            .groups
            .iter()
            .map(|(name, g)| DeploymentGroup {
                group: name.clone(),
                promoted: g.promoted,
                placed_canaries: g.placed_canaries.clone(),
                desired_canaries: g.desired_canaries,
                desired_total: g.desired_total,
                placed_allocs: g.placed,
                healthy_allocs: g.healthy,
                unhealthy_allocs: g.unhealthy,
                auto_promote: g.auto_promote,
                auto_revert: g.auto_revert,
                progress_deadline: g.progress_deadline.map_or(0, |d| d.0),
            })
            .collect(),
    }
}
