//! The group definition an allocation follows: the one of the job version it was created from.

use crate::{DisconnectPolicy, Duration, ReschedulePolicy, TaskGroup};

/// Kill timeout Nomad assumes for a task that sets none, and the floor of any.
pub(crate) const DEFAULT_KILL_TIMEOUT: Duration = 5_000_000_000;

/// A job version and instance: `(version, create-index)`.
pub(crate) type Instance = (u64, u64);

/// The definitions of one group across the versions the job lists.
pub(crate) struct GroupVersions<'a> {
    current: Option<(Instance, &'a TaskGroup)>,
    /// Sorted by instance, in history order among equal ones: an allocation
    /// finds its own by a binary search, where a scan of every past version
    /// per allocation made a long history quadratic.
    past: Vec<(Instance, &'a TaskGroup)>,
}

impl<'a> GroupVersions<'a> {
    /// The definitions of a group: `current` in the job's current version,
    /// `past` in the versions its history lists, in its order.
    pub(crate) fn new(
        current: Option<(Instance, &'a TaskGroup)>,
        mut past: Vec<(Instance, &'a TaskGroup)>,
    ) -> Self {
        past.sort_by_key(|&(instance, _)| instance);
        Self { current, past }
    }

    /// The definition an allocation follows: that of its own version when the
    /// job lists it, else the current one.
    /// `job_version` and `job_create_index` are the allocation's.
    pub(crate) fn for_allocation(
        &self,
        job_version: u64,
        job_create_index: u64,
    ) -> Option<&'a TaskGroup> {
        let own = (job_version, job_create_index);
        if let Some((_, g)) = self.current.filter(|&(instance, _)| instance == own) {
            return Some(g);
        }
        let first = self.past.partition_point(|&(instance, _)| instance < own);
        match self.past.get(first) {
            Some(&(instance, g)) if instance == own => Some(g),
            _ => self.current.map(|(_, g)| g),
        }
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

#[cfg(test)]
mod tests {
    use super::GroupVersions;
    use crate::{Fingerprint, TaskGroup};

    /// A definition told apart by its count.
    fn definition(count: u32) -> TaskGroup {
        TaskGroup {
            name: "web".into(),
            count,
            update: None,
            reschedule: None,
            disconnect: None,
            tasks: Vec::new(),
            fingerprint: Fingerprint {
                destructive: 0,
                in_place: 0,
            },
        }
    }

    fn count(versions: &GroupVersions, version: u64, create_index: u64) -> Option<u32> {
        versions
            .for_allocation(version, create_index)
            .map(|g| g.count)
    }

    #[test]
    fn an_allocation_follows_the_definition_of_its_own_version_in_a_history_in_any_order() {
        let past: Vec<TaskGroup> = (0..1000).map(definition).collect();
        let current = definition(1000);
        // Listed newest first, and each version twice, of two job instances.
        let listed = (past.iter().rev())
            .flat_map(|g| [((u64::from(g.count), 7), g), ((u64::from(g.count), 3), g)])
            .collect();
        let versions = GroupVersions::new(Some(((1000, 7), &current)), listed);
        for v in [0, 1, 17, 500, 998, 999] {
            assert_eq!(count(&versions, v, 7), Some(v as u32));
            assert_eq!(count(&versions, v, 3), Some(v as u32));
        }
        assert_eq!(count(&versions, 1000, 7), Some(1000));
        // A version or instance the job does not list follows the current one.
        assert_eq!(count(&versions, 17, 5), Some(1000));
        assert_eq!(count(&versions, 5000, 7), Some(1000));
    }

    #[test]
    fn of_two_definitions_of_one_version_the_current_then_the_first_listed_counts() {
        let (current, first, second) = (definition(1), definition(2), definition(3));
        let versions = GroupVersions::new(
            Some(((4, 1), &current)),
            vec![((4, 1), &first), ((2, 1), &first), ((2, 1), &second)],
        );
        assert_eq!(count(&versions, 4, 1), Some(1));
        assert_eq!(count(&versions, 2, 1), Some(2));
    }

    #[test]
    fn without_a_current_definition_an_unlisted_version_follows_none() {
        let first = definition(2);
        let versions = GroupVersions::new(None, vec![((2, 1), &first)]);
        assert_eq!(count(&versions, 2, 1), Some(2));
        assert_eq!(count(&versions, 3, 1), None);
    }
}
