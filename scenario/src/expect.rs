//! Checking a plan against a scenario's expectations, and saying in plain lines what differs.

use crate::file::{CountersExpect, DeploymentExpect, Entries, EvalExpect, ExpectFile, GroupExpect};
use crate::time::from_now;
use crate::wit_name::wit_name;
use slotwise_reconciler::{DesiredUpdates, GroupPlan, InputError, Plan};
use std::collections::BTreeMap;

mod entries;

use entries::{check_entries, Actual};

/// What a scenario expects, with its times resolved against its `now`.
pub struct Expectation {
    pub(crate) file: ExpectFile,
    pub(crate) now: i64,
    /// The input's node ids, by position, and each allocation's node, so
    /// that entries can be expected by node.
    pub(crate) nodes: Nodes,
}

/// The nodes of a scenario's input, for entries expected by node.
#[derive(Default)]
pub(crate) struct Nodes {
    pub(crate) ids: Vec<String>,
    pub(crate) of_allocation: BTreeMap<String, u32>,
}

impl Nodes {
    /// The nodes of `input`.
    pub(crate) fn of(input: &slotwise_reconciler::ReconcileInput) -> Self {
        Self {
            ids: input.nodes.iter().map(|n| n.id.clone()).collect(),
            of_allocation: input
                .allocations
                .iter()
                .flat_map(|g| &g.allocations)
                .map(|a| (a.spec.id.clone(), a.spec.node))
                .collect(),
        }
    }

    fn id(&self, node: Option<u32>) -> Option<String> {
        node.and_then(|n| self.ids.get(n as usize)).cloned()
    }

    fn of_alloc(&self, alloc: &str) -> Option<String> {
        self.id(self.of_allocation.get(alloc).copied())
    }
}

/// How a run ended without a plan.
#[derive(Clone, Copy, Debug)]
pub enum Failure<'a> {
    /// The input was refused.
    Input(&'a InputError),
    /// A policy failed, or gave a ruling the reconciler refused.
    Policy(&'a str),
}

impl Expectation {
    /// The differences between `outcome` and the expectation, one line each;
    /// empty when the outcome meets it.
    pub fn check(&self, outcome: Result<&Plan, Failure>) -> Vec<String> {
        let mut out = Vec::new();
        match (outcome, &self.file.error) {
            (Err(failure), Some(want)) => {
                let (field, message) = match failure {
                    Failure::Input(e) => (Some(e.field.as_str()), e.message.as_str()),
                    Failure::Policy(message) => (None, message),
                };
                if want.field.as_deref() != field {
                    out.push(format!(
                        "error: expected at `{}`, got at `{}`: {message}",
                        want.field.as_deref().unwrap_or("(a policy)"),
                        field.unwrap_or("(a policy)"),
                    ));
                }
                if let Some(text) = want.message.as_deref().filter(|t| !message.contains(t)) {
                    out.push(format!(
                        "error: expected a message containing `{text}`, got `{message}`"
                    ));
                }
            }
            (Err(Failure::Input(e)), None) => out.push(format!(
                "expected a plan, got an error: {}: {}",
                e.field, e.message
            )),
            (Err(Failure::Policy(message)), None) => {
                out.push(format!("expected a plan, got a policy error: {message}"))
            }
            (Ok(_), Some(want)) => out.push(format!(
                "expected an error{}, got a plan",
                want.field
                    .as_deref()
                    .map(|f| format!(" at `{f}`"))
                    .unwrap_or_default()
            )),
            (Ok(plan), None) => self.check_plan(plan, &mut out),
        }
        out
    }

    fn check_plan(&self, plan: &Plan, out: &mut Vec<String>) {
        let file = &self.file;
        if let Some(groups) = &file.groups {
            for g in &plan.groups {
                if !groups.contains_key(&g.group) {
                    out.push(format!(
                        "{}: group not expected, but the plan has it",
                        g.group
                    ));
                }
            }
            // Looked up in a map, not by a scan per expected group: a file
            // may expect tens of thousands of groups. Reversed, so that the first
            // of two groups of one name counts, as a scan finds it.
            let planned: BTreeMap<&str, &GroupPlan> = (plan.groups.iter().rev())
                .map(|g| (g.group.as_str(), g))
                .collect();
            for (name, want) in groups {
                match planned.get(name.as_str()) {
                    Some(got) => self.check_group(got, want, out),
                    None => out.push(format!("{name}: group missing from the plan")),
                }
            }
        }
        check_deployment(plan, file.deployment.as_ref(), out);
        let got: Vec<String> = plan
            .deployment_updates
            .iter()
            .map(|u| format!("{} ({})", wit_name(&u.status), u.description))
            .collect();
        let matches = got.len() == file.deployment_updates.len()
            && plan
                .deployment_updates
                .iter()
                .zip(&file.deployment_updates)
                .all(|(g, w)| {
                    g.status == w.status
                        && w.description.as_ref().is_none_or(|d| d == &g.description)
                });
        if !matches {
            let want: Vec<String> = file
                .deployment_updates
                .iter()
                .map(|u| {
                    format!(
                        "{} ({})",
                        wit_name(&u.status),
                        u.description.as_deref().unwrap_or("any")
                    )
                })
                .collect();
            out.push(format!(
                "deployment updates: expected {want:?}, got {got:?}"
            ));
        }
        // Each allocation's first explanation, found once for every expected
        // classification rather than by a scan of the whole plan for each.
        let mut explained = BTreeMap::new();
        if !file.classification.is_empty() {
            let candidates =
                (plan.groups.iter().flat_map(|g| &g.slots)).flat_map(|s| &s.candidates);
            for c in candidates {
                explained.entry(c.allocation.as_str()).or_insert(c);
            }
        }
        for (alloc, want) in &file.classification {
            let got = explained.get(alloc.as_str()).copied();
            match got {
                Some(c) if c.classification == Some(*want) => {}
                Some(c) => out.push(format!(
                    "{alloc}: expected classification {}, got {} (rule {})",
                    want.name(),
                    c.classification.map_or("none", |k| k.name()),
                    c.rule
                )),
                None => out.push(format!("{alloc}: not in the plan's explanation")),
            }
        }
        crate::policy_expect::check(file, plan, &self.nodes.ids, out);
    }

    fn check_group(&self, got: &GroupPlan, want: &GroupExpect, out: &mut Vec<String>) {
        let name = &got.group;
        for (counter, expected, actual) in counters(&want.counters, &got.counters) {
            if expected != actual {
                out.push(format!(
                    "{name}: counter {counter}: expected {expected}, got {actual}"
                ));
            }
        }
        let evals: Vec<&str> = got.followup_evals.iter().map(|e| e.id.as_str()).collect();
        let eval_of = |id: &Option<String>| {
            id.as_deref()
                .and_then(|id| evals.iter().position(|e| *e == id))
        };
        let kinds: [(&str, &Option<Entries>, Vec<Actual>); 7] = [
            (
                "place",
                &want.place,
                got.placements
                    .iter()
                    .map(|p| Actual {
                        index: p.name_index,
                        alloc: p.previous_allocation.clone(),
                        canary: p.canary,
                        reschedule: p.reschedule,
                        lost: p.previous_lost,
                        downgrade: p.downgrade_non_canary,
                        node: self.nodes.id(p.node),
                        ..Actual::default()
                    })
                    .collect(),
            ),
            (
                "stop",
                &want.stop,
                got.stops
                    .iter()
                    .map(|s| Actual {
                        index: s.name_index,
                        alloc: Some(s.allocation.clone()),
                        client_status: s.client_status,
                        eval: eval_of(&s.followup_eval),
                        node: self.nodes.of_alloc(&s.allocation),
                        ..Actual::default()
                    })
                    .collect(),
            ),
            (
                "destructive",
                &want.destructive,
                got.destructive_updates
                    .iter()
                    .map(|d| Actual {
                        index: d.name_index,
                        alloc: Some(d.allocation.clone()),
                        node: self.nodes.of_alloc(&d.allocation),
                        ..Actual::default()
                    })
                    .collect(),
            ),
            (
                "in-place",
                &want.in_place,
                updates(&got.in_place_updates, &eval_of, &self.nodes),
            ),
            (
                "attribute",
                &want.attribute,
                updates(&got.attribute_updates, &eval_of, &self.nodes),
            ),
            (
                "disconnect",
                &want.disconnect,
                updates(&got.disconnect_updates, &eval_of, &self.nodes),
            ),
            (
                "reconnect",
                &want.reconnect,
                updates(&got.reconnect_updates, &eval_of, &self.nodes),
            ),
        ];
        for (kind, expected, actual) in kinds {
            check_entries(&format!("{name}: {kind}"), expected.as_ref(), &actual, out);
        }
        self.check_evals(got, want.followup_evals.as_deref(), out);
    }

    fn check_evals(&self, got: &GroupPlan, want: Option<&[EvalExpect]>, out: &mut Vec<String>) {
        let name = &got.group;
        let want = want.unwrap_or_default();
        if want.len() != got.followup_evals.len() {
            out.push(format!(
                "{name}: follow-up evals: expected {}, got {}",
                want.len(),
                got.followup_evals.len()
            ));
            return;
        }
        for (n, (w, g)) in want.iter().zip(&got.followup_evals).enumerate() {
            if let Some(t) = w.wait_until.filter(|t| t.resolve(self.now) != g.wait_until) {
                out.push(format!(
                    "{name}: follow-up eval {n}: expected wait-until {t}, got {}",
                    from_now(g.wait_until - self.now)
                ));
            }
            if let Some(trigger) = w.trigger.filter(|t| *t != g.trigger) {
                out.push(format!(
                    "{name}: follow-up eval {n}: expected trigger {}, got {}",
                    wit_name(&trigger),
                    wit_name(&g.trigger)
                ));
            }
            if let Some(d) = w.description.as_ref().filter(|d| **d != g.description) {
                out.push(format!(
                    "{name}: follow-up eval {n}: expected description `{d}`, got `{}`",
                    g.description
                ));
            }
        }
    }
}

fn counters(want: &CountersExpect, got: &DesiredUpdates) -> [(&'static str, u32, u32); 11] {
    [
        ("ignore", want.ignore, got.ignore),
        ("place", want.place, got.place),
        ("migrate", want.migrate, got.migrate),
        ("stop", want.stop, got.stop),
        ("in-place", want.in_place, got.in_place),
        ("destructive", want.destructive, got.destructive),
        ("canary", want.canary, got.canary),
        ("reschedule-now", want.reschedule_now, got.reschedule_now),
        (
            "reschedule-later",
            want.reschedule_later,
            got.reschedule_later,
        ),
        ("disconnect", want.disconnect, got.disconnect),
        ("reconnect", want.reconnect, got.reconnect),
    ]
}

fn check_deployment(plan: &Plan, want: Option<&DeploymentExpect>, out: &mut Vec<String>) {
    let (want, got) = match (want, &plan.deployment) {
        (None, None) => return,
        (None, Some(d)) => {
            return out.push(format!(
                "deployment: expected none, got {} ({})",
                d.id, d.description
            ))
        }
        (Some(_), None) => return out.push("deployment: expected one, got none".to_string()),
        (Some(w), Some(g)) => (w, g),
    };
    if let Some(d) = want.description.as_ref().filter(|d| **d != got.description) {
        out.push(format!(
            "deployment: expected description `{d}`, got `{}`",
            got.description
        ));
    }
    if let Some(s) = want.status.filter(|s| *s != got.status) {
        out.push(format!(
            "deployment: expected status {}, got {}",
            wit_name(&s),
            wit_name(&got.status)
        ));
    }
    let names: Vec<&str> = got.groups.iter().map(|g| g.group.as_str()).collect();
    let wanted: Vec<&str> = want.groups.keys().map(String::as_str).collect();
    let (mut sorted_names, mut sorted_wanted) = (names.clone(), wanted.clone());
    sorted_names.sort_unstable();
    sorted_wanted.sort_unstable();
    if sorted_names != sorted_wanted {
        out.push(format!(
            "deployment: expected groups {wanted:?}, got {names:?}"
        ));
    }
    let by_name: BTreeMap<&str, _> = (got.groups.iter().rev())
        .map(|g| (g.group.as_str(), g))
        .collect();
    for (name, w) in &want.groups {
        let Some(g) = by_name.get(name.as_str()) else {
            continue;
        };
        let fields = [
            ("desired-total", w.desired_total, g.desired_total),
            ("desired-canaries", w.desired_canaries, g.desired_canaries),
        ];
        for (field, expected, actual) in fields {
            if let Some(e) = expected.filter(|e| *e != actual) {
                out.push(format!(
                    "deployment: {name}: expected {field} {e}, got {actual}"
                ));
            }
        }
        if let Some(n) = w.placed_canaries.filter(|n| *n != g.placed_canaries.len()) {
            out.push(format!(
                "deployment: {name}: expected {n} placed canaries, got {}",
                g.placed_canaries.len()
            ));
        }
        if let Some(p) = w.promoted.filter(|p| *p != g.promoted) {
            out.push(format!(
                "deployment: {name}: expected promoted {p}, got {}",
                g.promoted
            ));
        }
    }
}

fn updates(
    list: &[slotwise_reconciler::AllocationUpdate],
    eval_of: &dyn Fn(&Option<String>) -> Option<usize>,
    nodes: &Nodes,
) -> Vec<Actual> {
    list.iter()
        .map(|u| Actual {
            index: u.name_index,
            alloc: Some(u.allocation.clone()),
            eval: eval_of(&u.followup_eval),
            node: nodes.of_alloc(&u.allocation),
            ..Actual::default()
        })
        .collect()
}
