//! Classification: every live allocation gets its set from the system rule table, and the rule that put it there.

use super::rules::{classify, NodeFacts, Verdict};
use super::run::NodeGroupRun;
use crate::candidate::{Marks, Standing};
use crate::classification::Taint;
use crate::pipeline::Outcome;
use crate::sentence::say;
use std::collections::BTreeMap;

pub(super) fn run(g: &mut NodeGroupRun) -> Outcome {
    let (now, sysbatch) = (g.ctx.input.now, g.ctx.sysbatch);
    let mut tally: BTreeMap<&'static str, u32> = BTreeMap::new();
    for (i, c) in g.candidates.iter_mut().enumerate() {
        if !c.has(Marks::TRACKED) || !c.is(Standing::Unclassified) {
            continue;
        }
        let rule = classify(&NodeFacts {
            observed: &c.observed(),
            policy: c.policy,
            taint: Taint::of(c.node),
            eligibility: g.ctx.cluster.nodes.of(c.alloc().node()),
            sysbatch,
            now,
        });
        g.rules[i] = Some(rule);
        c.standing = match rule.verdict {
            Verdict::Migrate => Standing::Migrating,
            Verdict::Lost => Standing::Lost,
            Verdict::Keep => Standing::Ignored,
            Verdict::Reconnect => Standing::Reconnecting,
            Verdict::Disconnect => Standing::Disconnecting,
            Verdict::Judge => Standing::Untainted,
        };
        c.settle(|| say!(rule.class.name(), " (rule ", rule.name, ")"));
        *tally.entry(rule.name).or_default() += 1;
    }
    if tally.is_empty() {
        return Outcome::skipped("no live allocation to classify");
    }
    let summary: Vec<String> = tally.iter().map(|(rule, n)| say!(n, " ", rule)).collect();
    Outcome::done(summary.join(", "))
}
