//! What a scenario declares, summed and checked against the limits before anything of that size is built.

use crate::error::ScenarioError;
use crate::file::span;
use crate::file::{AllocFile, GroupFile, ScenarioFile};
use crate::limits::{MAX_ALLOCATIONS, MAX_COPIED_TEXT, MAX_TOTAL_COUNT};

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
                return Err(ScenarioError::invalid(
                    path,
                    format!(
                        "this entry brings the scenario to {allocations} allocations; the limit \
                         is {MAX_ALLOCATIONS} over all groups"
                    ),
                ));
            }
            copied = copied.saturating_add(n.saturating_mul(copied_text(group, entry)));
            if copied > MAX_COPIED_TEXT {
                return Err(ScenarioError::invalid(
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
            return Err(ScenarioError::invalid(
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
