//! Plans for people: per group a table of changes and the counters, the deployment, and on request the why.

use crate::clock::{from_now, iso8601};
use slotwise_reconciler::{Allocation, DesiredUpdates, GroupPlan, Plan, ReconcileInput, TaskGroup};
use slotwise_scenario::wit_name;
use std::collections::BTreeMap;
use std::fmt::Write;

/// The plan as text; with `explain`, each slot's claimants and the step report.
pub fn plan(input: &ReconcileInput, plan: &Plan, explain: bool) -> String {
    let now = input.now;
    let mut out = String::new();
    let job = match &input.job {
        Some(job) if job.stopped => format!("job {} (stopped)", job.id),
        Some(job) => format!("job {} · version {}", job.id, job.version),
        None => format!("job {} (gone)", input.job_id),
    };
    let _ = writeln!(out, "{job} · now {}", iso8601(now));
    // Each group's definition and allocations, found once: a scan of the
    // job's groups per group made a plan of 100,000 groups take 40 s.
    let specs: BTreeMap<&str, &TaskGroup> = (input.job.iter())
        .flat_map(|j| j.groups.iter().rev())
        .map(|s| (s.name.as_str(), s))
        .collect();
    let allocations: BTreeMap<&str, &[Allocation]> = (input.allocations.iter().rev())
        .map(|g| (g.group.as_str(), g.allocations.as_slice()))
        .collect();
    for group in &plan.groups {
        let _ = writeln!(out);
        let spec = specs.get(group.group.as_str()).copied();
        let place = Place::new(input, allocations.get(group.group.as_str()).copied());
        group_section(&mut out, group, spec, &place, now);
        if explain {
            slots_section(&mut out, input, group);
        }
    }
    let _ = writeln!(out);
    match &plan.deployment {
        Some(d) => {
            let groups: Vec<String> = d
                .groups
                .iter()
                .map(|g| {
                    format!(
                        "{} (total {}, canaries {})",
                        g.group, g.desired_total, g.desired_canaries
                    )
                })
                .collect();
            let _ = writeln!(
                out,
                "deployment {}: {} — {}",
                d.id,
                d.description,
                groups.join(", ")
            );
        }
        None => {
            let _ = writeln!(out, "deployment: none created");
        }
    }
    for u in &plan.deployment_updates {
        let _ = writeln!(
            out,
            "deployment {} → {}: {} ({})",
            u.deployment,
            wit_name(&u.status),
            u.description,
            u.message
        );
    }
    for p in &plan.promotions {
        let what = if p.promoted {
            "promoted"
        } else {
            "not promoted"
        };
        let _ = writeln!(
            out,
            "promotion {} {}: {what} — {}",
            p.deployment, p.group, p.message
        );
    }
    if !plan.policy_actions.is_empty() {
        let _ = writeln!(out, "\npolicy");
        for a in &plan.policy_actions {
            let slot = a.slot.map(|s| format!(" slot {s}")).unwrap_or_default();
            let slot = slot + &on_node(input, a.node);
            let applied = if a.applied { "" } else { " (not applied)" };
            let _ = writeln!(
                out,
                "  {} {}{slot} by {}{applied}: {}",
                a.verdict.name(),
                a.group,
                a.plugin,
                a.reason
            );
        }
    }
    if !plan.plugin_failures.is_empty() {
        let _ = writeln!(
            out,
            "\nplugin failures (the plan goes without their answers)"
        );
        for f in &plan.plugin_failures {
            let place = match (&f.group, f.slot) {
                (Some(g), Some(s)) => format!(" {g}/{s}{}", on_node(input, f.node)),
                (Some(g), None) => format!(" {g}"),
                _ => String::new(),
            };
            let _ = writeln!(out, "  {} at {}{place}: {}", f.plugin, f.hook, f.cause);
        }
    }
    if explain && !plan.plugin_logs.is_empty() {
        let _ = writeln!(out, "\nplugin logs");
        let rows = plan
            .plugin_logs
            .iter()
            .map(|l| {
                vec![
                    l.plugin.clone(),
                    l.hook.clone(),
                    l.group.clone().unwrap_or_else(|| "-".into()),
                    wit_name(&l.level),
                    l.message.clone(),
                ]
            })
            .collect();
        out.push_str(&table(
            &["PLUGIN", "HOOK", "GROUP", "LEVEL", "MESSAGE"],
            rows,
        ));
    }
    if explain {
        let _ = writeln!(out, "\nsteps");
        let rows = plan
            .steps
            .iter()
            .map(|s| {
                vec![
                    s.step.clone(),
                    s.group.clone().unwrap_or_else(|| "-".into()),
                    wit_name(&s.status),
                    s.message.clone(),
                ]
            })
            .collect();
        out.push_str(&table(&["STEP", "GROUP", "STATUS", "MESSAGE"], rows));
    }
    out
}

/// One line per plugin whose answers the plan goes without: where it first
/// failed and why, and how many more times it did.
pub fn warnings(plan: &Plan) -> Vec<String> {
    let mut lines: Vec<(String, String, usize)> = Vec::new();
    for f in &plan.plugin_failures {
        if let Some(seen) = lines.iter_mut().find(|(plugin, _, _)| *plugin == f.plugin) {
            seen.2 += 1;
            continue;
        }
        let mut at = f.hook.clone();
        if let Some(group) = &f.group {
            at.push_str(&format!(", group {group}"));
        }
        if let Some(slot) = f.slot {
            at.push_str(&format!(", slot {slot}"));
        }
        let first = format!(
            "plugin {} failed ({at}) and the plan goes without its answer: {}",
            f.plugin, f.cause
        );
        lines.push((f.plugin.clone(), first, 0));
    }
    lines
        .into_iter()
        .map(|(_, first, more)| match more {
            0 => first,
            n => format!("{first} (and {n} more failures)"),
        })
        .collect()
}

/// Group `g` of the plan, defined by `spec` in the job, if it is there.
fn group_section(
    out: &mut String,
    g: &GroupPlan,
    spec: Option<&TaskGroup>,
    place: &Place,
    now: i64,
) {
    let count = spec.map_or_else(
        || "not in the job".to_string(),
        |s| format!("count {}", s.count),
    );
    let _ = writeln!(out, "{} · {count}", g.group);
    let mut rows: Vec<((String, u32), usize, Vec<String>)> = Vec::new();
    let mut row = |slot: u32,
                   node: Option<&str>,
                   rank: usize,
                   change: &str,
                   alloc: &str,
                   reason: String,
                   message: &str| {
        rows.push((
            (node.unwrap_or_default().to_string(), slot),
            rank,
            vec![
                place.label(slot, node),
                change.into(),
                alloc.into(),
                reason,
                message.into(),
            ],
        ));
    };
    for p in &g.placements {
        let change = if p.canary { "place canary" } else { "place" };
        let alloc = p.previous_allocation.as_deref().unwrap_or("-");
        let node = place.node(p.node);
        row(
            p.name_index,
            node,
            0,
            change,
            alloc,
            p.reason.name().into(),
            &p.message,
        );
    }
    for s in &g.stops {
        let node = place.of(&s.allocation);
        let reason = s.reason.name().into();
        row(
            s.name_index,
            node,
            1,
            "stop",
            &s.allocation,
            reason,
            &s.message,
        );
    }
    for d in &g.destructive_updates {
        let node = place.of(&d.allocation);
        let reason = d.reason.name().into();
        row(
            d.name_index,
            node,
            2,
            "replace",
            &d.allocation,
            reason,
            &d.message,
        );
    }
    let updates = [
        ("update in place", &g.in_place_updates),
        ("attach follow-up", &g.attribute_updates),
        ("mark unknown", &g.disconnect_updates),
        ("resume", &g.reconnect_updates),
    ];
    for (rank, (change, list)) in updates.into_iter().enumerate() {
        for u in list {
            let node = place.of(&u.allocation);
            let reason = u.reason.name().into();
            row(
                u.name_index,
                node,
                3 + rank,
                change,
                &u.allocation,
                reason,
                &u.message,
            );
        }
    }
    rows.sort_by(|(a, ra, _), (b, rb, _)| (a, ra).cmp(&(b, rb)));
    if rows.is_empty() {
        let _ = writeln!(out, "  no change");
    } else {
        let rows = rows.into_iter().map(|(_, _, r)| r).collect();
        let header = [place.column(), "CHANGE", "ALLOCATION", "REASON", "WHY"];
        for line in table(&header, rows).lines() {
            let _ = writeln!(out, "  {line}");
        }
    }
    let _ = writeln!(out, "  counters: {}", counters(&g.counters));
    for e in &g.followup_evals {
        let _ = writeln!(
            out,
            "  follow-up eval {} at {} ({}): {}",
            e.id,
            from_now(e.wait_until, now),
            wit_name(&e.trigger),
            e.message
        );
    }
}

/// Where a change happens: its slot, or in a system job its node, with the
/// slot's index when it is not 0.
struct Place<'a> {
    input: &'a ReconcileInput,
    /// Each allocation's node, in a system job.
    nodes: BTreeMap<&'a str, u32>,
}

impl<'a> Place<'a> {
    /// Places in a group whose allocations are `allocations`.
    fn new(input: &'a ReconcileInput, allocations: Option<&'a [Allocation]>) -> Self {
        let nodes = match input.system {
            Some(_) => (allocations.into_iter().flatten())
                .map(|a| (a.spec.id.as_str(), a.spec.node))
                .collect(),
            None => BTreeMap::new(),
        };
        Self { input, nodes }
    }

    fn column(&self) -> &'static str {
        match self.input.system {
            Some(_) => "NODE",
            None => "SLOT",
        }
    }

    /// The id of the node at `position`.
    fn node(&self, position: Option<u32>) -> Option<&'a str> {
        let node = self.input.nodes.get(position? as usize)?;
        Some(node.id.as_str())
    }

    /// The id of the node allocation `alloc` runs on, in a system job.
    fn of(&self, alloc: &str) -> Option<&'a str> {
        self.node(self.nodes.get(alloc).copied())
    }

    fn label(&self, slot: u32, node: Option<&str>) -> String {
        match node {
            Some(node) if slot == 0 => node.to_string(),
            Some(node) => format!("{node}[{slot}]"),
            None => slot.to_string(),
        }
    }
}

fn slots_section(out: &mut String, input: &ReconcileInput, g: &GroupPlan) {
    for s in &g.slots {
        let within = if s.within_count {
            ""
        } else {
            " (beyond the count)"
        };
        let node = s.node.and_then(|n| input.nodes.get(n as usize));
        let at = node.map_or_else(String::new, |n| format!(" on {}", n.id));
        let _ = writeln!(out, "  slot {}{at}{within}: {}", s.index, s.decision);
        for line in &s.policy {
            let _ = writeln!(out, "    policy: {line}");
        }
        for c in &s.candidates {
            let class = c.classification.map_or("unclassified", |k| k.name());
            let _ = writeln!(
                out,
                "    {} · {class} by rule {} · {}",
                c.allocation, c.rule, c.outcome
            );
        }
    }
}

/// The non-zero counters, like `place 5 · ignore 5`.
/// ` on node X` for a node slot at input position `node`; nothing otherwise.
fn on_node(input: &ReconcileInput, node: Option<u32>) -> String {
    node.and_then(|n| input.nodes.get(n as usize))
        .map(|n| format!(" on node {}", n.id))
        .unwrap_or_default()
}

pub fn counters(c: &DesiredUpdates) -> String {
    let all = [
        ("ignore", c.ignore),
        ("place", c.place),
        ("migrate", c.migrate),
        ("stop", c.stop),
        ("in-place", c.in_place),
        ("destructive", c.destructive),
        ("canary", c.canary),
        ("reschedule-now", c.reschedule_now),
        ("reschedule-later", c.reschedule_later),
        ("disconnect", c.disconnect),
        ("reconnect", c.reconnect),
    ];
    let shown: Vec<String> = all
        .iter()
        .filter(|(_, n)| *n > 0)
        .map(|(name, n)| format!("{name} {n}"))
        .collect();
    if shown.is_empty() {
        "all zero".into()
    } else {
        shown.join(" · ")
    }
}

/// Rows under a header, columns padded to their widest cell.
fn table(header: &[&str], rows: Vec<Vec<String>>) -> String {
    let mut widths: Vec<usize> = header.iter().map(|h| h.len()).collect();
    for row in &rows {
        for (w, cell) in widths.iter_mut().zip(row) {
            *w = (*w).max(cell.chars().count());
        }
    }
    let mut out = String::new();
    let header: Vec<String> = header.iter().map(|h| h.to_string()).collect();
    for row in std::iter::once(header).chain(rows) {
        let last = row.len().saturating_sub(1);
        for (i, (cell, w)) in row.iter().zip(&widths).enumerate() {
            if i == last {
                out.push_str(cell);
            } else {
                let _ = write!(out, "{cell:<w$}  ");
            }
        }
        out.push('\n');
    }
    out
}
