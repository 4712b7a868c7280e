//! Count cap: a group never places more allocations in one plan than its count.

use super::run::GroupRun;
use crate::pipeline::Outcome;
use crate::sentence::say;

pub(super) fn run(g: &mut GroupRun) -> Outcome {
    let count = g.spec.count as usize;
    let placed = g.plan.placements.len();
    if placed <= count {
        return Outcome::skipped(say!(placed, " placements within the count of ", count));
    }
    // Placements are ordered canaries first, migrations last, so those go first.
    g.plan.placements.truncate(count);
    g.plan.counters.place = count as u32;
    Outcome::done(say!(placed, " placements cut to the count of ", count))
}
