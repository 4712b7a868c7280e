//! Classification: every allocation in play gets its set from the rule table, and the rule that put it there.

use super::run::GroupRun;
use crate::candidate::{Marks, Standing};
use crate::pipeline::Outcome;
use crate::sentence::say;
use crate::Classification;

pub(super) fn run(g: &mut GroupRun) -> Outcome {
    let mut tally = [0u32; 7];
    for c in g
        .candidates
        .iter_mut()
        .filter(|c| c.has(Marks::TRACKED) && c.is(Standing::Unclassified))
    {
        let rule = c.classify();
        c.settle(|| say!(describe(rule.class), " (rule ", rule.name, ")"));
        tally[rule.class as usize] += 1;
    }
    g.counters().ignore += tally[Classification::Ignore as usize];
    let summary: Vec<String> = CLASSES
        .iter()
        .filter(|class| tally[**class as usize] > 0)
        .map(|class| say!(tally[*class as usize], " ", class.name()))
        .collect();
    if summary.is_empty() {
        return Outcome::skipped("no allocation to classify");
    }
    Outcome::done(summary.join(", "))
}

const CLASSES: [Classification; 7] = [
    Classification::Untainted,
    Classification::Migrate,
    Classification::Lost,
    Classification::Disconnecting,
    Classification::Reconnecting,
    Classification::Ignore,
    Classification::Expiring,
];

/// What being in the set means, in a few words.
fn describe(class: Classification) -> &'static str {
    match class {
        Classification::Untainted => "counts toward the group",
        Classification::Migrate => "to be moved off its node",
        Classification::Lost => "lost with its node",
        Classification::Disconnecting => "its client just disconnected",
        Classification::Reconnecting => "its client came back",
        Classification::Ignore => "nothing to decide; ignored",
        Classification::Expiring => "unknown for longer than lost-after",
    }
}
