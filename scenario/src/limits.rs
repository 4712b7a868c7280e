//! The sizes a scenario may declare, checked before anything of that size is allocated; docs/limits.md lists them.

use crate::file::{AllocFile, GroupFile, ScenarioFile};
use crate::input::span;
use crate::ScenarioError;
use serde::de::{Deserialize, Deserializer, SeqAccess, Visitor};
use std::fmt;
use std::marker::PhantomData;

/// The largest scenario or plugins file read, in bytes.
pub const MAX_FILE_BYTES: u64 = 64 << 20;

/// The most values YAML aliases may stand for in one file, in all: enough
/// to reuse a block, too few for an alias bomb.
pub const MAX_ALIAS_VALUES: usize = 100_000;

/// The deepest nesting of lists and maps a YAML file may have (the JSON
/// reader's own limit is 128).
pub const MAX_DEPTH: usize = 64;

/// The most allocations a scenario describes, over all groups, ranges
/// expanded: the reconciler's own limit on a group's count.
pub const MAX_ALLOCATIONS: u64 = slotwise_reconciler::MAX_COUNT as u64;

/// The largest sum of the groups' counts of a job (or of one past version).
pub const MAX_TOTAL_COUNT: u64 = slotwise_reconciler::MAX_COUNT as u64;

/// The most nodes a scenario lists. Nomad's largest published clusters run
/// about 10,000 client nodes; ten times that leaves room and keeps a
/// scenario's nodes under a few tens of megabytes.
pub const MAX_NODES: usize = 100_000;

/// The most bytes of text the allocations of a scenario copy, in all: ids,
/// node names, deployment and neighbour ids, metadata and task names, once
/// per allocation a range expands to.
pub const MAX_COPIED_TEXT: u64 = 128 << 20;

/// Deserializes a list, refusing it once it holds more than `MAX` items:
/// a list is never grown past its limit, whatever the file declares.
pub fn bounded<'de, D, T, const MAX: usize>(d: D) -> Result<Vec<T>, D::Error>
where
    D: Deserializer<'de>,
    T: Deserialize<'de>,
{
    struct Bounded<T, const MAX: usize>(PhantomData<T>);

    impl<'de, T: Deserialize<'de>, const MAX: usize> Visitor<'de> for Bounded<T, MAX> {
        type Value = Vec<T>;

        fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
            write!(f, "a list of at most {MAX} items")
        }

        fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Vec<T>, A::Error> {
            let mut out = Vec::with_capacity(seq.size_hint().unwrap_or(0).min(1024));
            while let Some(item) = seq.next_element()? {
                if out.len() == MAX {
                    return Err(serde::de::Error::custom(format!(
                        "more than {MAX} items; the limit is {MAX}"
                    )));
                }
                out.push(item);
            }
            Ok(out)
        }
    }

    d.deserialize_seq(Bounded::<T, MAX>(PhantomData))
}

/// [`bounded`] at [`MAX_NODES`].
pub fn nodes<'de, D, T>(d: D) -> Result<Vec<T>, D::Error>
where
    D: Deserializer<'de>,
    T: Deserialize<'de>,
{
    bounded::<D, T, MAX_NODES>(d)
}

/// Checks what the file declares against the limits before anything of that
/// size is built: the allocations its ranges expand to, the text they copy,
/// and the sum of the groups' counts.
pub(crate) fn check_declared(file: &ScenarioFile) -> Result<(), ScenarioError> {
    let (mut allocations, mut copied) = (0u64, 0u64);
    for (group, entries) in &file.allocations {
        for (i, entry) in entries.iter().enumerate() {
            let path = format!("allocations.{group}[{i}].index");
            let slots = span(&entry.index, &path)?;
            let n = u64::from(slots.end() - slots.start()) + 1;
            allocations += n;
            if allocations > MAX_ALLOCATIONS {
                return Err(invalid(
                    path,
                    format!(
                        "this entry brings the scenario to {allocations} allocations; the limit \
                         is {MAX_ALLOCATIONS} over all groups"
                    ),
                ));
            }
            copied = copied.saturating_add(n.saturating_mul(copied_text(group, entry)));
            if copied > MAX_COPIED_TEXT {
                return Err(invalid(
                    format!("allocations.{group}[{i}]"),
                    format!(
                        "its {n} allocations would copy more than {} MiB of ids, metadata and \
                         task names in all; the limit is {} MiB",
                        copied >> 20,
                        MAX_COPIED_TEXT >> 20
                    ),
                ));
            }
        }
    }
    if let Some(Some(job)) = &file.job {
        if let Some(groups) = &job.groups {
            check_counts(groups, "job.groups")?;
        }
        for (v, past) in job.history.iter().enumerate() {
            check_counts(&past.groups, &format!("job.history[{v}].groups"))?;
        }
    }
    Ok(())
}

fn check_counts(groups: &[GroupFile], path: &str) -> Result<(), ScenarioError> {
    let mut total = 0u64;
    for (i, g) in groups.iter().enumerate() {
        total += u64::from(g.count.unwrap_or(10));
        if total > MAX_TOTAL_COUNT {
            return Err(invalid(
                format!("{path}[{i}].count"),
                format!(
                    "the groups' counts add up to {total} here; the limit is {MAX_TOTAL_COUNT} \
                     over all groups"
                ),
            ));
        }
    }
    Ok(())
}

/// About how many bytes of text each allocation of `entry` holds of its own.
fn copied_text(group: &str, entry: &AllocFile) -> u64 {
    let len = |s: &Option<String>| s.as_ref().map_or(0, String::len);
    let id = entry.id.as_ref().map_or(group.len() + 12, String::len);
    let node = if entry.node.is_some() { 0 } else { id + 5 };
    let meta = entry
        .meta
        .iter()
        .flatten()
        .map(|(k, v)| k.len() + v.len() + 48)
        .sum::<usize>();
    let tasks = entry
        .tasks
        .iter()
        .flatten()
        .map(|t| t.name.len() + 96)
        .sum::<usize>();
    let events = 32
        * (entry.reschedule_events.as_ref().map_or(0, Vec::len)
            + entry.client_states.as_ref().map_or(0, Vec::len));
    let sum = id
        + node
        + len(&entry.deployment)
        + len(&entry.previous)
        + len(&entry.next)
        + len(&entry.followup_eval)
        + meta
        + tasks
        + events;
    sum as u64
}

fn invalid(field: impl Into<String>, message: impl Into<String>) -> ScenarioError {
    ScenarioError::Invalid {
        field: field.into(),
        message: message.into(),
    }
}
