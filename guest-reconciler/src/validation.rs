//! Input checks: an inconsistent input is refused with the path of the offending field, never half-reconciled.

use crate::allocation_ref::{AllocationList, AllocationRef};
use crate::sentence::say;
use crate::{Duration, InputError, Job, JobType, ReconcileInput, SystemNodes, TaskGroup};

mod distinct_ids;
mod limits;
mod repeats;
mod screen;

pub use limits::{MAX_COUNT, MAX_NAME_INDEX};
pub(crate) use screen::{Noted, Noting, Screen, Unnoted};

fn error(field: String, message: String) -> InputError {
    InputError { field, message }
}

/// Checks that `input` is consistent.
///
/// # Errors
/// The first inconsistency found, with the path of its field.
pub fn check(input: &ReconcileInput) -> Result<(), InputError> {
    check_with(input, &AllocationList::of_input(input), None)
}

/// As [`check`], from the notes of the input's reader when it has them.
///
/// # Errors
/// As [`check`]: the same error for the same input.
pub(crate) fn check_noted<I: Noted + ?Sized>(input: &I) -> Result<(), InputError> {
    check_with(input, &input.lists(), input.screen())
}

/// `lists` are the allocations of `input`'s groups, in input order.
fn check_with(
    input: &ReconcileInput,
    lists: &[AllocationList],
    screen: Option<&Screen>,
) -> Result<(), InputError> {
    if let Some(job) = &input.job {
        if job.id != input.job_id {
            return Err(error(
                "job.id".into(),
                say!("`", job.id, "` differs from job-id `", input.job_id, "`"),
            ));
        }
        check_groups(&job.groups, "job.groups")?;
        check_total_count(job, input.system.as_ref())?;
        for (v, past) in job.history.iter().enumerate() {
            check_groups(&past.groups, &say!("job.history[", v, "].groups"))?;
        }
    }
    unique(
        input.nodes.iter().map(|n| n.id.as_str()),
        |i| say!("nodes[", i, "].id"),
        "node",
    )?;
    unique(
        input.allocations.iter().map(|g| g.group.as_str()),
        |i| say!("allocations[", i, "].group"),
        "group",
    )?;
    check_allocations(input, lists, screen)?;
    check_system(input)?;
    if let Some(deployment) = &input.deployment {
        if deployment.job_id != input.job_id {
            return Err(error(
                "deployment.job-id".into(),
                say!(
                    "the deployment is for job `",
                    deployment.job_id,
                    "`, not `",
                    input.job_id,
                    "`"
                ),
            ));
        }
        unique(
            deployment.groups.iter().map(|g| g.group.as_str()),
            |i| say!("deployment.groups[", i, "].group"),
            "group",
        )?;
    }
    Ok(())
}

fn check_allocations(
    input: &ReconcileInput,
    lists: &[AllocationList],
    screen: Option<&Screen>,
) -> Result<(), InputError> {
    // Valid inputs, the rule, are cleared from their notes without a set of
    // every id; any doubt goes to the exact check, which finds the first
    // error in input order.
    let nodes = input.nodes.len();
    let cleared = match screen.and_then(|s| s.clears(lists, nodes)) {
        Some(cleared) => cleared,
        None => Screen::of(lists, nodes).clears(lists, nodes) == Some(true),
    };
    if cleared {
        return Ok(());
    }
    first_inconsistency(input, lists)
}

/// The first allocation, in input order, with an empty, repeated or
/// dangling field.
fn first_inconsistency(input: &ReconcileInput, lists: &[AllocationList]) -> Result<(), InputError> {
    let flat = || lists.iter().flat_map(|list| list.iter());
    let repeat = repeats::first_repeat(flat().map(AllocationRef::id));
    let mut p = 0;
    for (g, group) in lists.iter().enumerate() {
        for (a, alloc) in group.iter().enumerate() {
            let at = |field: &str| say!("allocations[", g, "].allocations[", a, "].spec.", field);
            if alloc.id().is_empty() {
                return Err(error(at("id"), "must not be empty".into()));
            }
            if let Some((first, _)) = repeat.filter(|&(_, r)| r == p) {
                let (g0, a0) = group_and_place(lists, first);
                return Err(error(
                    at("id"),
                    say!(
                        "`",
                        alloc.id(),
                        "` is also the id of allocations[",
                        g0,
                        "].allocations[",
                        a0,
                        "]"
                    ),
                ));
            }
            if alloc.node() as usize >= input.nodes.len() {
                return Err(error(
                    at("node"),
                    say!(
                        alloc.node(),
                        " is not a node: the input lists ",
                        input.nodes.len(),
                        " nodes"
                    ),
                ));
            }
            if alloc.name_index() > MAX_NAME_INDEX {
                return Err(error(
                    at("name-index"),
                    say!(alloc.name_index(), " exceeds the limit of ", MAX_NAME_INDEX),
                ));
            }
            p += 1;
        }
    }
    Ok(())
}

/// The group and the place in it of the allocation at position `p` of all
/// groups' allocations in input order.
fn group_and_place(lists: &[AllocationList], mut p: usize) -> (usize, usize) {
    for (g, group) in lists.iter().enumerate() {
        if p < group.len() {
            return (g, p);
        }
        p -= group.len();
    }
    (0, 0)
}

/// Refuses a job whose groups ask for more than [`MAX_COUNT`] allocations
/// in all, or a job of many groups, one canary count or a sysbatch count
/// on many nodes would still plan millions of placements. A service or
/// batch group asks for its count and the canaries an update places beside
/// it, which Nomad does not hold to the count. A system or sysbatch group
/// asks for its count on every eligible node; its canaries replace
/// allocations on those nodes and add none.
fn check_total_count(job: &Job, system: Option<&SystemNodes>) -> Result<(), InputError> {
    let on_nodes = crate::job::is_system(job.kind);
    let eligible = system.map_or(0, |s| s.eligible.len() as u64);
    let mut total = 0u64;
    for (i, group) in job.groups.iter().enumerate() {
        let (count, canaries) = if on_nodes {
            (u64::from(group.count) * eligible, 0)
        } else {
            let canaries = group.update.as_ref().map_or(0, |u| u.canary);
            (u64::from(group.count), u64::from(canaries))
        };
        for (field, n) in [("count", count), ("update.canary", canaries)] {
            total += n;
            if total <= u64::from(MAX_COUNT) {
                continue;
            }
            let what = match (on_nodes, field) {
                (true, _) => say!("counts on ", eligible, " eligible nodes"),
                (false, "count") => "counts".to_string(),
                (false, _) => "counts and canaries".to_string(),
            };
            return Err(error(
                say!("job.groups[", i, "].", field),
                say!(
                    "the groups' ",
                    what,
                    " add up to ",
                    total,
                    " here; the limit is ",
                    MAX_COUNT,
                    " over all groups"
                ),
            ));
        }
    }
    Ok(())
}

fn check_groups(groups: &[TaskGroup], path: &str) -> Result<(), InputError> {
    unique(
        groups.iter().map(|g| g.name.as_str()),
        |i| say!(path, "[", i, "].name"),
        "group",
    )?;
    for (i, group) in groups.iter().enumerate() {
        let at = |field: &str| say!(path, "[", i, "].", field);
        if group.name.is_empty() {
            return Err(error(at("name"), "must not be empty".into()));
        }
        if group.count > MAX_COUNT {
            return Err(error(
                at("count"),
                say!(group.count, " exceeds the limit of ", MAX_COUNT),
            ));
        }
        // Field paths are written only for an error: a valid input, the
        // common case, formats nothing here.
        let durations = [
            (group.update.as_ref()).map(|u| ("update.progress-deadline", u.progress_deadline)),
            (group.reschedule.as_ref()).map(|r| ("reschedule.interval", r.interval)),
            (group.reschedule.as_ref()).map(|r| ("reschedule.delay", r.delay)),
            (group.reschedule.as_ref()).map(|r| ("reschedule.max-delay", r.max_delay)),
            (group.disconnect.as_ref()).map(|d| ("disconnect.lost-after", d.lost_after)),
            (group.disconnect.as_ref())
                .and_then(|d| d.stop_on_client_after)
                .map(|after| ("disconnect.stop-on-client-after", after)),
        ];
        let negative = |field: String, d: Duration| {
            Err(error(field, say!(d, " is negative; durations cannot be")))
        };
        if let Some((field, d)) = durations.into_iter().flatten().find(|(_, d)| *d < 0) {
            return negative(at(field), d);
        }
        if let Some((t, task)) = (group.tasks.iter().enumerate()).find(|(_, t)| t.kill_timeout < 0)
        {
            return negative(at(&say!("tasks[", t, "].kill-timeout")), task.kill_timeout);
        }
    }
    Ok(())
}

/// Refuses the second occurrence of a name.
fn unique<'a>(
    names: impl Iterator<Item = &'a str>,
    field: impl Fn(usize) -> String,
    what: &str,
) -> Result<(), InputError> {
    let names: Vec<&str> = names.collect();
    match repeats::first_repeat(names.iter().copied()) {
        Some((first, i)) => Err(error(
            field(i),
            say!(
                what,
                " `",
                names[i],
                "` is listed twice (first at position ",
                first,
                ")"
            ),
        )),
        None => Ok(()),
    }
}

/// Checks what system and sysbatch jobs add: the nodes they run on, and
/// counts a system job can have.
fn check_system(input: &ReconcileInput) -> Result<(), InputError> {
    let job = input.job.as_ref();
    let kind = job.map(|j| j.kind);
    let system = kind.is_some_and(crate::job::is_system);
    match (&input.system, job) {
        (None, Some(job)) if system && !job.stopped => {
            return Err(error(
                "system".into(),
                say!(
                    "a ",
                    kind_name(job.kind),
                    " job needs the nodes it runs on: eligible and not ready"
                ),
            ));
        }
        (Some(_), Some(job)) if !system => {
            return Err(error(
                "system".into(),
                say!(
                    "only system and sysbatch jobs run on listed nodes; this job is a ",
                    kind_name(job.kind),
                    " job"
                ),
            ));
        }
        _ => {}
    }
    if let Some(job) = job.filter(|j| j.kind == JobType::System) {
        if let Some((i, g)) = job.groups.iter().enumerate().find(|(_, g)| g.count > 1) {
            return Err(error(
                say!("job.groups[", i, "].count"),
                say!(
                    "a system job runs one allocation of a group per node; group `",
                    g.name,
                    "` asks for ",
                    g.count
                ),
            ));
        }
    }
    let Some(nodes) = &input.system else {
        return Ok(());
    };
    let lists = [
        ("eligible", &nodes.eligible),
        ("not-ready", &nodes.not_ready),
    ];
    // Per node position, the list and place it was first seen at: a system
    // job lists every node of a cluster, so no map and no field name per node.
    let mut seen: Vec<Option<(&str, usize)>> = vec![None; input.nodes.len()];
    for (name, list) in lists {
        for (k, &node) in list.iter().enumerate() {
            let field = || say!("system.", name, "[", k, "]");
            let Some(first) = seen.get_mut(node as usize) else {
                return Err(error(
                    field(),
                    say!(
                        node,
                        " is not a node: the input lists ",
                        input.nodes.len(),
                        " nodes"
                    ),
                ));
            };
            let Some((list, at)) = *first else {
                *first = Some((name, k));
                continue;
            };
            let id = &input.nodes[node as usize].id;
            let message = if list == name {
                say!(
                    "node `",
                    id,
                    "` is listed twice (first at system.",
                    list,
                    "[",
                    at,
                    "])"
                )
            } else {
                say!(
                    "node `",
                    id,
                    "` is also listed at system.",
                    list,
                    "[",
                    at,
                    "]; a node is eligible or not ready, not both"
                )
            };
            return Err(error(field(), message));
        }
    }
    Ok(())
}

/// A job type as the WIT names it.
fn kind_name(kind: JobType) -> &'static str {
    match kind {
        JobType::Service => "service",
        JobType::Batch => "batch",
        JobType::System => "system",
        JobType::Sysbatch => "sysbatch",
    }
}
