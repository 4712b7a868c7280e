//! The job's deployment during a run: which one is current, its group states, and what changes about it.

use crate::sentence::say;
use crate::{
    ids, Deployment, DeploymentGroup, DeploymentStatus, DeploymentUpdate, Evaluation, Job,
    NewDeployment, Reason, Timestamp, UpdateStrategy,
};
use std::collections::{BTreeMap, BTreeSet};

/// Status descriptions, as Nomad words them, so that tools reading them keep working.
pub(crate) mod description {
    pub(crate) const RUNNING: &str = "Deployment is running";
    pub(crate) const NEEDS_PROMOTION: &str = "Deployment is running but requires manual promotion";
    pub(crate) const AUTO_PROMOTION: &str = "Deployment is running pending automatic promotion";
    pub(crate) const SUCCESSFUL: &str = "Deployment completed successfully";
    pub(crate) const JOB_STOPPED: &str = "Cancelled because job is stopped";
    pub(crate) const NEWER_JOB: &str = "Cancelled due to newer version of job";
    pub(crate) const BLOCKED: &str = "Deployment is complete but waiting for peer region";
    pub(crate) const PENDING: &str = "Deployment is pending, waiting for peer region";
    pub(crate) const FAILED_BY_POLICY: &str = "Failed by policy";
}

/// A deployment status as the WIT names it.
pub(crate) fn status_name(status: DeploymentStatus) -> &'static str {
    match status {
        DeploymentStatus::Running => "running",
        DeploymentStatus::Paused => "paused",
        DeploymentStatus::Failed => "failed",
        DeploymentStatus::Successful => "successful",
        DeploymentStatus::Cancelled => "cancelled",
        DeploymentStatus::Initializing => "initializing",
        DeploymentStatus::Pending => "pending",
        DeploymentStatus::Blocked => "blocked",
        DeploymentStatus::Unblocking => "unblocking",
    }
}

/// Whether a deployment in `status` is still in progress.
pub(crate) fn is_active(status: DeploymentStatus) -> bool {
    matches!(
        status,
        DeploymentStatus::Running
            | DeploymentStatus::Paused
            | DeploymentStatus::Blocked
            | DeploymentStatus::Unblocking
            | DeploymentStatus::Initializing
            | DeploymentStatus::Pending
    )
}

/// An update strategy that actually governs a rollout: present with a
/// non-zero max-parallel.
pub(crate) fn strategy(update: Option<&UpdateStrategy>) -> Option<&UpdateStrategy> {
    update.filter(|u| u.max_parallel > 0)
}

/// A deployment as candidates are asked whether they belong to it: its id,
/// and whether it is the input's deployment.
#[derive(Clone, Copy)]
pub(crate) struct Asked<'x> {
    pub(crate) id: &'x str,
    pub(crate) is_input: bool,
}

/// The deployment the run works against.
enum Current<'a> {
    /// The input's deployment, for the job's current version.
    Existing(&'a Deployment),
    /// A deployment this run creates.
    Created(NewDeployment),
}

/// The job's deployments as the run sees and changes them.
pub(crate) struct Deployments<'a> {
    /// The input's deployment when it is not current: finished, cancelled, or
    /// of another version of the job.
    pub(crate) old: Option<&'a Deployment>,
    current: Option<Current<'a>>,
    /// The current deployment's group states, as the run updates them.
    groups: Vec<DeploymentGroup>,
    /// Where each group's state is in `groups`: a job of many groups looked
    /// each one up by a scan of them all.
    positions: BTreeMap<String, usize>,
    /// How many of `groups` list each canary as placed. Every group asks,
    /// of its candidates, whether any group's state lists them, as Nomad's
    /// reconciler does: a set of them all, built per group, made a
    /// deployment of 20,000 groups take 22 s.
    placed_canaries: BTreeMap<String, u32>,
    /// Canaries of unpromoted groups: of the input's deployment when it is
    /// no longer current, and of the current one when it was in the input.
    unpromoted_old: BTreeSet<&'a str>,
    unpromoted_existing: BTreeSet<&'a str>,
    /// A policy failed the current deployment during this run.
    failed_by_policy: bool,
    /// Status changes of existing deployments.
    pub(crate) updates: Vec<DeploymentUpdate>,
}

impl<'a> Deployments<'a> {
    /// Decides which deployment is current, cancelling the input's deployment
    /// when the job was stopped or changed version while it was in progress.
    pub(crate) fn new(job: Option<&Job>, input: Option<&'a Deployment>) -> Self {
        let mut this = Self {
            old: None,
            current: None,
            groups: Vec::new(),
            positions: BTreeMap::new(),
            placed_canaries: BTreeMap::new(),
            unpromoted_old: BTreeSet::new(),
            unpromoted_existing: BTreeSet::new(),
            failed_by_policy: false,
            updates: Vec::new(),
        };
        let Some(deployment) = input else {
            return this;
        };
        let active = is_active(deployment.status);
        match job.filter(|j| !j.stopped) {
            None => {
                if active {
                    this.cancel(
                        deployment,
                        Reason::DeploymentJobStopped,
                        description::JOB_STOPPED,
                        "the job is stopped",
                    );
                }
                this.old = Some(deployment);
            }
            Some(job)
                if deployment.job_create_index != job.create_index
                    || deployment.job_version != job.version =>
            {
                if active {
                    this.cancel(
                        deployment,
                        Reason::DeploymentSuperseded,
                        description::NEWER_JOB,
                        &say!(
                            "it deploys job version ",
                            deployment.job_version,
                            " but the job is at version ",
                            job.version
                        ),
                    );
                }
                this.old = Some(deployment);
            }
            Some(_) if deployment.status == DeploymentStatus::Successful => {
                this.old = Some(deployment);
            }
            Some(_) => {
                for state in &deployment.groups {
                    this.put_group(state.clone());
                }
                this.unpromoted_existing = unpromoted_canaries(deployment);
                this.current = Some(Current::Existing(deployment));
            }
        }
        this.unpromoted_old = this.old.map(unpromoted_canaries).unwrap_or_default();
        this
    }

    fn cancel(&mut self, deployment: &Deployment, reason: Reason, description: &str, why: &str) {
        self.updates.push(DeploymentUpdate {
            deployment: deployment.id.clone(),
            status: DeploymentStatus::Cancelled,
            description: description.to_string(),
            reason,
            message: say!("deployment ", deployment.id, " is cancelled: ", why),
        });
    }

    /// The current deployment, as candidates are asked whether they belong to it.
    pub(crate) fn current_asked(&self) -> Option<Asked<'_>> {
        match self.current.as_ref()? {
            Current::Existing(d) => Some(Asked {
                id: &d.id,
                is_input: true,
            }),
            Current::Created(d) => Some(self.asked(&d.id)),
        }
    }

    /// Deployment `id`, as candidates are asked whether they belong to it.
    pub(crate) fn asked<'x>(&self, id: &'x str) -> Asked<'x> {
        let input = match &self.current {
            Some(Current::Existing(d)) => Some(*d),
            _ => self.old,
        };
        Asked {
            id,
            is_input: input.is_some_and(|d| d.id == id),
        }
    }

    /// The current deployment's identifier.
    pub(crate) fn current_id(&self) -> Option<&str> {
        match self.current.as_ref()? {
            Current::Existing(d) => Some(&d.id),
            Current::Created(d) => Some(&d.id),
        }
    }

    /// The current deployment's status, as this run leaves it.
    pub(crate) fn current_status(&self) -> Option<DeploymentStatus> {
        if self.failed_by_policy {
            return Some(DeploymentStatus::Failed);
        }
        match self.current.as_ref()? {
            Current::Existing(d) => Some(d.status),
            Current::Created(d) => Some(d.status),
        }
    }

    /// Marks the canaries of `group` promoted for the rest of the run.
    pub(crate) fn promote(&mut self, group: &str) {
        if let Some(&at) = self.positions.get(group) {
            self.groups[at].promoted = true;
        }
    }

    /// Fails the current deployment for the rest of the run, as a policy asked.
    pub(crate) fn fail_by_policy(&mut self, why: &str) {
        let Some(id) = self.current_id().map(str::to_string) else {
            return;
        };
        if !self.failed_by_policy {
            self.failed_by_policy = true;
            let description = say!(description::FAILED_BY_POLICY, ": ", why);
            self.record(
                &id,
                DeploymentStatus::Failed,
                Reason::DeploymentFailedByPolicy,
                &description,
                &say!("a policy failed it: ", why),
            );
        }
    }

    /// The input's deployment when it stays current.
    pub(crate) fn existing(&self) -> Option<&'a Deployment> {
        match self.current.as_ref()? {
            Current::Existing(d) => Some(d),
            Current::Created(_) => None,
        }
    }

    /// Paused by an operator, or a multi-region deployment not yet released:
    /// nothing new is placed.
    pub(crate) fn is_paused(&self) -> bool {
        matches!(
            self.current_status(),
            Some(
                DeploymentStatus::Paused
                    | DeploymentStatus::Pending
                    | DeploymentStatus::Initializing
            )
        )
    }

    /// Failed: nothing new is rolled out.
    pub(crate) fn is_failed(&self) -> bool {
        self.current_status() == Some(DeploymentStatus::Failed)
    }

    /// The current deployment's state for `group`.
    pub(crate) fn group(&self, group: &str) -> Option<&DeploymentGroup> {
        self.positions.get(group).map(|&at| &self.groups[at])
    }

    /// Sets the current deployment's state for a group.
    pub(crate) fn put_group(&mut self, state: DeploymentGroup) {
        for id in &state.placed_canaries {
            *self.placed_canaries.entry(id.clone()).or_default() += 1;
        }
        match self.positions.get(&state.group) {
            Some(&at) => {
                let old = std::mem::replace(&mut self.groups[at], state);
                for id in &old.placed_canaries {
                    if let Some(n) = self.placed_canaries.get_mut(id) {
                        *n -= 1;
                        if *n == 0 {
                            self.placed_canaries.remove(id);
                        }
                    }
                }
            }
            None => {
                self.positions
                    .insert(state.group.clone(), self.groups.len());
                self.groups.push(state);
            }
        }
    }

    /// Whether any group's state in the current deployment lists `id` as a
    /// placed canary.
    pub(crate) fn is_current_canary(&self, id: &str) -> bool {
        self.placed_canaries.contains_key(id)
    }

    /// Whether any group's state in the current deployment lists a placed
    /// canary.
    pub(crate) fn has_current_canaries(&self) -> bool {
        !self.placed_canaries.is_empty()
    }

    /// Whether canary `id` must go: an unpromoted one of the old deployment,
    /// or of the current deployment if it failed.
    pub(crate) fn is_doomed_canary(&self, id: &str) -> bool {
        self.unpromoted_old.contains(id)
            || (self.is_failed() && self.unpromoted_existing.contains(id))
    }

    /// Whether any canary must go.
    pub(crate) fn dooms_canaries(&self) -> bool {
        !self.unpromoted_old.is_empty()
            || (self.is_failed() && !self.unpromoted_existing.is_empty())
    }

    /// Creates a deployment for the job's current version, unless one is
    /// already current.
    pub(crate) fn create_if_absent(&mut self, job: &Job, eval: &Evaluation, now: Timestamp) {
        if self.current.is_some() {
            return;
        }
        let id = ids::deployment(&job.id, job.version, job.create_index, &eval.id);
        self.current = Some(Current::Created(NewDeployment {
            message: say!("deployment ", id, " rolls out job version ", job.version),
            id,
            job_id: job.id.clone(),
            job_version: job.version,
            job_create_index: job.create_index,
            job_modify_index: job.modify_index,
            job_spec_modify_index: job.job_modify_index,
            multiregion: job.multiregion,
            status: DeploymentStatus::Running,
            description: description::RUNNING.to_string(),
            eval_priority: eval.priority,
            create_time: now,
            groups: Vec::new(),
            reason: Reason::DeploymentCreated,
        }));
    }

    /// Records the end of the run: marks a finished deployment, and words the
    /// description of a created one. Returns the deployment the plan carries.
    pub(crate) fn finish(
        &mut self,
        job: &Job,
        every_group_complete: bool,
    ) -> Option<NewDeployment> {
        let current = self.current.take()?;
        let (id, status) = match &current {
            Current::Existing(d) => (d.id.clone(), d.status),
            Current::Created(d) => (d.id.clone(), d.status),
        };
        if every_group_complete {
            if !job.multiregion {
                self.record(
                    &id,
                    DeploymentStatus::Successful,
                    Reason::DeploymentComplete,
                    description::SUCCESSFUL,
                    "every group is placed and healthy",
                );
            } else if !matches!(
                status,
                DeploymentStatus::Unblocking | DeploymentStatus::Successful
            ) {
                self.record(
                    &id,
                    DeploymentStatus::Blocked,
                    Reason::DeploymentBlocked,
                    description::BLOCKED,
                    "this region is done; peer regions are not",
                );
            }
        }
        if status == DeploymentStatus::Initializing {
            self.record(
                &id,
                DeploymentStatus::Pending,
                Reason::DeploymentPending,
                description::PENDING,
                "its state is computed; it waits for peer regions",
            );
        }
        match current {
            Current::Created(mut created) => {
                created.groups = self.take_groups();
                created.description = promotion_description(&created.groups).to_string();
                Some(created)
            }
            Current::Existing(d) if d.status == DeploymentStatus::Initializing => {
                Some(self.send_in_full(d, job))
            }
            Current::Existing(_) => None,
        }
    }

    fn record(
        &mut self,
        id: &str,
        status: DeploymentStatus,
        reason: Reason,
        description: &str,
        why: &str,
    ) {
        self.updates.push(DeploymentUpdate {
            deployment: id.to_string(),
            status,
            description: description.to_string(),
            reason,
            message: say!("deployment ", id, ": ", why),
        });
    }

    /// A multi-region deployment still initializing, with the group states
    /// this run computed, so that they are stored.
    fn send_in_full(&mut self, d: &Deployment, job: &Job) -> NewDeployment {
        let message = say!(
            "deployment ",
            d.id,
            " is initializing; its group states are sent in full"
        );
        let groups = self.take_groups();
        in_full(d, job, groups, Reason::DeploymentInitializing, message)
    }

    /// The group states, which the run hands on: none are left.
    fn take_groups(&mut self) -> Vec<DeploymentGroup> {
        self.positions.clear();
        self.placed_canaries.clear();
        std::mem::take(&mut self.groups)
    }

    /// The current deployment's group states, as the run updates them.
    pub(crate) fn groups(&self) -> &[DeploymentGroup] {
        &self.groups
    }

    /// The input's deployment, sent in full with the group states this run
    /// recounted, when they differ from the input's; none otherwise. A
    /// system job's deployment follows the nodes the job runs on, so its
    /// totals change between runs.
    pub(crate) fn recounted(&self, job: &Job) -> Option<NewDeployment> {
        let d = self.existing()?;
        if d.groups == self.groups {
            return None;
        }
        let mut full = in_full(
            d,
            job,
            self.groups.clone(),
            Reason::DeploymentRecounted,
            say!("deployment ", d.id, ": its group states are recounted"),
        );
        if self
            .groups
            .iter()
            .any(|g| g.desired_canaries > 0 && !g.promoted)
        {
            full.description = promotion_description(&self.groups).to_string();
        }
        Some(full)
    }
}

/// Deployment `d` of `job` in full, with `groups` as its group states.
fn in_full(
    d: &Deployment,
    job: &Job,
    groups: Vec<DeploymentGroup>,
    reason: Reason,
    message: String,
) -> NewDeployment {
    NewDeployment {
        id: d.id.clone(),
        job_id: d.job_id.clone(),
        job_version: d.job_version,
        job_create_index: d.job_create_index,
        job_modify_index: job.modify_index,
        job_spec_modify_index: job.job_modify_index,
        multiregion: job.multiregion,
        status: d.status,
        description: d.description.clone(),
        eval_priority: 0,
        create_time: 0,
        groups,
        reason,
        message,
    }
}

/// The description of a new deployment: it says when canaries wait for a
/// promotion, and whether that promotion is automatic.
fn promotion_description(groups: &[DeploymentGroup]) -> &'static str {
    let mut with_canaries = groups.iter().filter(|g| g.desired_canaries > 0);
    if !groups.iter().any(|g| g.desired_canaries > 0 && !g.promoted) {
        description::RUNNING
    } else if with_canaries.all(|g| g.auto_promote) {
        description::AUTO_PROMOTION
    } else {
        description::NEEDS_PROMOTION
    }
}

/// The canaries of the groups of `d` not yet promoted.
fn unpromoted_canaries(d: &Deployment) -> BTreeSet<&str> {
    (d.groups.iter().filter(|g| !g.promoted))
        .flat_map(|g| g.placed_canaries.iter().map(String::as_str))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::Deployments;
    use crate::DeploymentGroup;

    fn state(group: &str, canaries: &[&str]) -> DeploymentGroup {
        DeploymentGroup {
            group: group.into(),
            promoted: false,
            placed_canaries: canaries.iter().map(|c| c.to_string()).collect(),
            desired_canaries: canaries.len() as u32,
            desired_total: 1,
            placed_allocs: 0,
            healthy_allocs: 0,
            unhealthy_allocs: 0,
            auto_promote: false,
            auto_revert: false,
            progress_deadline: 0,
        }
    }

    #[test]
    fn a_canary_is_current_while_some_group_state_lists_it() {
        let mut d = Deployments::new(None, None);
        d.put_group(state("web", &["a", "b"]));
        d.put_group(state("api", &["b"]));
        assert!(d.is_current_canary("a") && d.is_current_canary("b"));
        // A group's new state replaces its canaries, not the other group's.
        d.put_group(state("web", &["c"]));
        assert!(!d.is_current_canary("a"));
        assert!(d.is_current_canary("b") && d.is_current_canary("c"));
        d.put_group(state("api", &[]));
        assert!(!d.is_current_canary("b"));
        assert_eq!(d.group("web").map(|g| g.placed_canaries.len()), Some(1));
        assert_eq!(d.groups().len(), 2);
    }
}
