//! The group definition an allocation follows: the one of the job version it was created from.

use crate::{AllocationSpec, DisconnectPolicy, Duration, Job, ReschedulePolicy, TaskGroup};

/// Kill timeout Nomad assumes for a task that sets none, and the floor of any.
pub(crate) const DEFAULT_KILL_TIMEOUT: Duration = 5_000_000_000;

/// The definitions of one group across the versions the job lists.
pub(crate) struct GroupVersions<'a> {
    current: Option<(u64, u64, &'a TaskGroup)>,
    past: Vec<(u64, u64, &'a TaskGroup)>,
}

impl<'a> GroupVersions<'a> {
    /// Collects the definitions of `group` in the current version of `job` and
    /// in the past versions it lists.
    pub(crate) fn new(job: Option<&'a Job>, group: &str) -> Self {
        let Some(job) = job else {
            return Self {
                current: None,
                past: Vec::new(),
            };
        };
        let current = job
            .groups
            .iter()
            .find(|g| g.name == group)
            .map(|g| (job.version, job.create_index, g));
        let past = job
            .history
            .iter()
            .filter_map(|v| {
                let g = v.groups.iter().find(|g| g.name == group)?;
                Some((v.version, v.create_index, g))
            })
            .collect();
        Self { current, past }
    }

    /// The definition an allocation follows: that of its own version when the
    /// job lists it, else the current one.
    pub(crate) fn for_allocation(&self, spec: &AllocationSpec) -> Option<&'a TaskGroup> {
        let own = |&(version, create_index, group): &(u64, u64, &'a TaskGroup)| {
            (version == spec.job_version && create_index == spec.job_create_index).then_some(group)
        };
        self.current
            .iter()
            .find_map(own)
            .or_else(|| self.past.iter().find_map(own))
            .or(self.current.map(|(_, _, g)| g))
    }
}

/// The policies of the group definition an allocation follows. An allocation
/// whose group cannot be found has none: it is not rescheduled and is lost as
/// soon as its client disconnects.
#[derive(Clone, Copy)]
pub(crate) struct Policy<'a> {
    group: Option<&'a TaskGroup>,
}

impl<'a> Policy<'a> {
    pub(crate) fn new(group: Option<&'a TaskGroup>) -> Self {
        Self { group }
    }

    pub(crate) fn group(&self) -> Option<&'a TaskGroup> {
        self.group
    }

    pub(crate) fn reschedule(&self) -> Option<&'a ReschedulePolicy> {
        self.group?.reschedule.as_ref()
    }

    fn disconnect(&self) -> Option<&'a DisconnectPolicy> {
        self.group?.disconnect.as_ref()
    }

    /// How long a disconnected allocation stays unknown; zero when it is lost at once.
    pub(crate) fn lost_after(&self) -> Duration {
        self.disconnect().map_or(0, |d| d.lost_after)
    }

    /// Whether a disconnected allocation may be replaced while unknown.
    pub(crate) fn replace_on_disconnect(&self) -> bool {
        self.disconnect().is_none_or(|d| d.replace)
    }

    /// The client-side stop delay after losing contact, when set and non-zero.
    pub(crate) fn stop_on_client_after(&self) -> Option<Duration> {
        self.disconnect()?
            .stop_on_client_after
            .filter(|&after| after != 0)
    }

    /// The longest kill timeout of the group's tasks, never below the default.
    pub(crate) fn max_kill_timeout(&self) -> Duration {
        self.group
            .map(|g| g.tasks.iter().map(|t| t.kill_timeout).max().unwrap_or(0))
            .unwrap_or(0)
            .max(DEFAULT_KILL_TIMEOUT)
    }
}
