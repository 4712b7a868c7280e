//! Checking what policies did to a plan: promotions, policy actions, failures, carried plugin data, step reports and the lines plugins logged.

use crate::file::ExpectFile;
use crate::wit_name::wit_name;
use slotwise_reconciler::Plan;

/// Appends to `out` every way `plan` differs from what `want` says of
/// policies; `nodes` are the input's node ids, by position.
pub(crate) fn check(want: &ExpectFile, plan: &Plan, nodes: &[String], out: &mut Vec<String>) {
    check_promotions(want, plan, out);
    check_actions(want, plan, nodes, out);
    check_failures(want, plan, nodes, out);
    check_ext(want, plan, out);
    check_steps(want, plan, out);
    check_logs(want, plan, out);
}

fn check_promotions(want: &ExpectFile, plan: &Plan, out: &mut Vec<String>) {
    let got = &plan.promotions;
    if got.len() != want.promotions.len() {
        let names: Vec<String> = got
            .iter()
            .map(|p| format!("{} promoted {}", p.group, p.promoted))
            .collect();
        out.push(format!(
            "promotions: expected {}, got {}: {names:?}",
            want.promotions.len(),
            got.len()
        ));
        return;
    }
    for (n, (w, g)) in want.promotions.iter().zip(got).enumerate() {
        let mut differs = Vec::new();
        if w.group != g.group {
            differs.push(format!("group {} (not {})", g.group, w.group));
        }
        if w.promoted != g.promoted {
            differs.push(format!("promoted {} (not {})", g.promoted, w.promoted));
        }
        if let Some(r) = w.reason.filter(|r| *r != g.reason) {
            differs.push(format!("reason {} (not {})", g.reason.name(), r.name()));
        }
        if let Some(m) = w
            .message
            .as_ref()
            .filter(|m| !g.message.contains(m.as_str()))
        {
            differs.push(format!("message `{}` (without `{m}`)", g.message));
        }
        if !differs.is_empty() {
            out.push(format!("promotion {n}: {}", differs.join(", ")));
        }
    }
}

/// The id of node position `node`, as expectations name nodes.
fn node_id(nodes: &[String], node: Option<u32>) -> Option<&str> {
    node.and_then(|n| nodes.get(n as usize)).map(String::as_str)
}

/// Where a slot is, as a line names it: `/3`, or `@node-2` for a node slot.
fn place(nodes: &[String], slot: Option<u32>, node: Option<u32>) -> String {
    match (node_id(nodes, node), slot) {
        (Some(node), _) => format!("@{node}"),
        (None, Some(s)) => format!("/{s}"),
        (None, None) => String::new(),
    }
}

fn check_actions(want: &ExpectFile, plan: &Plan, nodes: &[String], out: &mut Vec<String>) {
    let got = &plan.policy_actions;
    let describe = |a: &slotwise_reconciler::PolicyAction| {
        let slot = place(nodes, a.slot, a.node);
        let applied = if a.applied { "" } else { ", not applied" };
        format!(
            "{} {}{slot} by {}{applied}: {}",
            a.verdict.name(),
            a.group,
            a.plugin,
            a.reason
        )
    };
    if got.len() != want.policy_actions.len() {
        let all: Vec<String> = got.iter().map(describe).collect();
        out.push(format!(
            "policy actions: expected {}, got {}: {all:?}",
            want.policy_actions.len(),
            got.len()
        ));
        return;
    }
    for (n, (w, g)) in want.policy_actions.iter().zip(got).enumerate() {
        let matches = w.verdict == g.verdict
            && w.plugin.as_ref().is_none_or(|p| *p == g.plugin)
            && w.group.as_ref().is_none_or(|x| *x == g.group)
            && w.slot.is_none_or(|s| Some(s) == g.slot)
            && (w.node.as_deref()).is_none_or(|n| Some(n) == node_id(nodes, g.node))
            && w.applied.is_none_or(|a| a == g.applied)
            && w.reason
                .as_ref()
                .is_none_or(|r| g.reason.contains(r.as_str()));
        if !matches {
            out.push(format!(
                "policy action {n}: expected {}{}{}, got {}",
                w.verdict.name(),
                w.slot.map(|s| format!(" of slot {s}")).unwrap_or_default()
                    + &w.node
                        .as_ref()
                        .map(|n| format!(" on {n}"))
                        .unwrap_or_default(),
                w.plugin
                    .as_ref()
                    .map(|p| format!(" by {p}"))
                    .unwrap_or_default(),
                describe(g)
            ));
        }
    }
}

fn check_failures(want: &ExpectFile, plan: &Plan, nodes: &[String], out: &mut Vec<String>) {
    let got = &plan.plugin_failures;
    let describe = |f: &slotwise_reconciler::PluginFailure| {
        let place = match &f.group {
            Some(g) => format!(" {g}{}", place(nodes, f.slot, f.node)),
            None => String::new(),
        };
        format!("{} at {}{place}: {}", f.plugin, f.hook, f.cause)
    };
    if got.len() != want.plugin_failures.len() {
        let all: Vec<String> = got.iter().map(describe).collect();
        out.push(format!(
            "plugin failures: expected {}, got {}: {all:?}",
            want.plugin_failures.len(),
            got.len()
        ));
        return;
    }
    for (n, (w, g)) in want.plugin_failures.iter().zip(got).enumerate() {
        let matches = w.plugin.as_ref().is_none_or(|p| *p == g.plugin)
            && w.hook.as_ref().is_none_or(|h| *h == g.hook)
            && w.group.as_ref().is_none_or(|x| g.group.as_ref() == Some(x))
            && w.slot.is_none_or(|s| Some(s) == g.slot)
            && (w.node.as_deref()).is_none_or(|n| Some(n) == node_id(nodes, g.node))
            && w.cause
                .as_ref()
                .is_none_or(|c| g.cause.contains(c.as_str()));
        if !matches {
            out.push(format!("plugin failure {n}: got {}", describe(g)));
        }
    }
}

fn check_ext(want: &ExpectFile, plan: &Plan, out: &mut Vec<String>) {
    let Some(expected) = &want.ext else {
        return;
    };
    let render = |plugin: &str, group: &str, node: &Option<String>, slot: u32, data: &[u8]| {
        let at = node.as_ref().map(|n| format!("@{n}")).unwrap_or_default();
        format!(
            "{plugin} {group}/{slot}{at}: {}",
            String::from_utf8_lossy(data)
        )
    };
    let got: Vec<String> = plan
        .ext
        .iter()
        .map(|e| render(&e.plugin, &e.group, &e.node, e.slot, &e.data))
        .collect();
    let wanted: Vec<String> = expected
        .iter()
        .map(|e| {
            let group = e.group.as_deref().unwrap_or("web");
            render(&e.plugin, group, &e.node, e.slot, e.text.as_bytes())
        })
        .collect();
    if got != wanted {
        out.push(format!("ext: expected {wanted:?}, got {got:?}"));
    }
}

fn check_steps(want: &ExpectFile, plan: &Plan, out: &mut Vec<String>) {
    for w in &want.steps {
        let found = plan.steps.iter().any(|s| {
            s.step == w.step
                && w.group.as_ref().is_none_or(|g| s.group.as_ref() == Some(g))
                && w.status.is_none_or(|st| st == s.status)
                && w.message
                    .as_ref()
                    .is_none_or(|m| s.message.contains(m.as_str()))
        });
        if !found {
            let same: Vec<String> = plan
                .steps
                .iter()
                .filter(|s| s.step == w.step)
                .map(|s| format!("{} ({}): {}", s.step, wit_name(&s.status), s.message))
                .collect();
            out.push(format!(
                "step {}: no report matches{}; got {same:?}",
                w.step,
                w.message
                    .as_ref()
                    .map(|m| format!(" `{m}`"))
                    .unwrap_or_default()
            ));
        }
    }
}

fn check_logs(want: &ExpectFile, plan: &Plan, out: &mut Vec<String>) {
    let Some(expected) = &want.plugin_logs else {
        return;
    };
    let describe = |l: &slotwise_reconciler::PluginLog| {
        let group = l
            .group
            .as_ref()
            .map(|g| format!(" {g}"))
            .unwrap_or_default();
        format!(
            "{} at {}{group}, {}: {}",
            l.plugin,
            l.hook,
            wit_name(&l.level),
            l.message
        )
    };
    let got = &plan.plugin_logs;
    if got.len() != expected.len() {
        let all: Vec<String> = got.iter().map(describe).collect();
        out.push(format!(
            "plugin logs: expected {} lines, got {}: {all:?}",
            expected.len(),
            got.len()
        ));
        return;
    }
    for (n, (w, g)) in expected.iter().zip(got).enumerate() {
        let matches = w.plugin.as_ref().is_none_or(|p| *p == g.plugin)
            && w.hook.as_ref().is_none_or(|h| *h == g.hook)
            && w.group.as_ref().is_none_or(|x| g.group.as_ref() == Some(x))
            && w.level.is_none_or(|l| l == g.level)
            && g.message.contains(w.message.as_str());
        if !matches {
            out.push(format!(
                "plugin log {n}: expected `{}`, got {}",
                w.message,
                describe(g)
            ));
        }
    }
}
