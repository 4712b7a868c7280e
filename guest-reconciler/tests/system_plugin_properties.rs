//! Whatever plugins answer on a system or sysbatch job (holds, adjustments, vetoes, deferrals, review vetoes, promotions), the system safety rules still hold.

#[path = "clusters/system.rs"]
#[allow(dead_code)] // shared with system_properties.rs, which reads more of it
mod system_cluster;

use proptest::prelude::*;
use slotwise_reconciler::plugin::{
    Adjustment, Answers, Batch, CandidateAdjustment, Classification, Deferral, Hook,
    PostSlotAnswer, PostSlotDecision, PreSlotAnswer, PreSlotDecision, PromotionAnswer,
    PromotionDecision, SlotBatch, UpdateKind, Veto, ViewParts,
};
use slotwise_reconciler::*;
use std::collections::BTreeMap;
use system_cluster::*;

/// A plugin that answers from a seed: each question's answers are drawn
/// from the seed and the question's position, so a failing case replays.
struct Drawn {
    state: u64,
}

impl Drawn {
    /// The next number below `n` (splitmix64: the test must not depend on
    /// a random source the crate does not pin).
    fn below(&mut self, n: u64) -> u64 {
        self.state = self.state.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.state;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        (z ^ (z >> 31)) % n
    }

    fn pre_slot(&mut self, batch: &SlotBatch, at: usize) -> PreSlotDecision {
        match self.below(4) {
            0 => PreSlotDecision::Hold("drawn hold".into()),
            1 => {
                let span = batch.slots[at].candidates;
                let mut candidates = Vec::new();
                for candidate in span.first..span.first + span.count {
                    if self.below(2) == 0 {
                        continue;
                    }
                    let reclassify = [
                        None,
                        Some(Classification::Untainted),
                        Some(Classification::Migrate),
                        Some(Classification::Lost),
                    ][self.below(4) as usize];
                    let update = [
                        None,
                        Some(UpdateKind::Ignore),
                        Some(UpdateKind::InPlace),
                        Some(UpdateKind::Destructive),
                    ][self.below(4) as usize];
                    candidates.push(CandidateAdjustment {
                        candidate,
                        reclassify,
                        update,
                    });
                }
                PreSlotDecision::Adjust(Adjustment {
                    candidates,
                    reason: "drawn adjustment".into(),
                })
            }
            _ => PreSlotDecision::Proceed,
        }
    }

    fn post_slot(&mut self, now: i64) -> PostSlotDecision {
        match self.below(4) {
            0 => PostSlotDecision::Veto("drawn veto".into()),
            1 => PostSlotDecision::Defer(Deferral {
                until: now + 60_000_000_000 * (1 + self.below(60) as i64),
                reason: "drawn deferral".into(),
            }),
            _ => PostSlotDecision::Accept,
        }
    }
}

impl Relay for Drawn {
    fn answer(&mut self, _question: &Question, batch: &Batch) -> Reply {
        let answers = match batch {
            Batch::PreSlot(b) => Answers::PreSlot(
                (0..b.slots.len())
                    .map(|at| PreSlotAnswer {
                        slot: at as u32,
                        decision: self.pre_slot(b, at),
                        ext: None,
                    })
                    .collect(),
            ),
            Batch::PostSlot(b) => Answers::PostSlot(
                (0..b.slots.len())
                    .map(|at| PostSlotAnswer {
                        slot: at as u32,
                        decision: self.post_slot(b.now),
                        ext: None,
                    })
                    .collect(),
            ),
            Batch::Review(b) => Answers::Review(
                (0..b.changes.len() as u32)
                    .filter(|_| self.below(3) == 0)
                    .map(|change| Veto {
                        change,
                        reason: "drawn review veto".into(),
                    })
                    .collect(),
            ),
            Batch::Promotion(b) => Answers::Promotion(
                (0..b.groups.len() as u32)
                    .map(|group| PromotionAnswer {
                        group,
                        decision: match self.below(4) {
                            0 => PromotionDecision::Promote("drawn".into()),
                            1 => PromotionDecision::Wait("drawn".into()),
                            2 => PromotionDecision::Fail("drawn".into()),
                            _ => PromotionDecision::Abstain,
                        },
                    })
                    .collect(),
            ),
        };
        Reply {
            outcome: Ok(answers),
            logs: Vec::new(),
            usage: None,
        }
    }
}

/// One plugin on every hook, enforcing.
fn drawn_plugin() -> Vec<Consulted> {
    vec![Consulted {
        name: "drawn".into(),
        version: String::new(),
        hooks: vec![Hook::Promotion, Hook::PreSlot, Hook::PostSlot, Hook::Review],
        reads: ViewParts {
            node_ids: true,
            node_meta: false,
            allocation_ids: true,
            candidate_meta: false,
            change_messages: false,
            packed: false,
        },
        mode: Mode::Enforce,
        fail_open: false,
        unloaded: None,
    }]
}

/// The plan of `input` with the drawn plugin consulted; an answer the
/// session refuses as invalid is a bug of the drawing, not of the rules.
fn plan_with_plugin(input: &ReconcileInput, seed: u64) -> Plan {
    let mut relay = Drawn { state: seed };
    match reconcile_with(input.clone(), drawn_plugin(), &mut relay) {
        Ok(plan) => plan,
        Err(e) => panic!("the drawn plugin's answers were refused: {e:?}"),
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 400, .. ProptestConfig::default() })]

    /// Whatever the plugin answers, a node ends with at most one live
    /// allocation of a group per slot: no hold, veto or deferral keeps a
    /// duplicate, and no adjustment adds one.
    #[test]
    fn plugins_never_leave_two_live_allocations_of_one_group_on_one_node(
        input in prop_oneof![input(), rollout_input()],
        seed in any::<u64>(),
    ) {
        let plan = plan_with_plugin(&input, seed);
        at_most_one_live_per_slot(&input, &plan)?;
    }

    /// Whatever the plugin answers, nothing new goes to a tainted or
    /// ineligible node: neither a placement nor the replacement a
    /// destructive update makes.
    #[test]
    fn plugins_never_put_anything_on_a_tainted_or_ineligible_node(
        input in prop_oneof![input(), rollout_input()],
        seed in any::<u64>(),
    ) {
        let plan = plan_with_plugin(&input, seed);
        let node_of: BTreeMap<&str, u32> = input
            .allocations
            .iter()
            .flat_map(|g| &g.allocations)
            .map(|a| (a.spec.id.as_str(), a.spec.node))
            .collect();
        for g in &plan.groups {
            let placed = g.placements.iter().map(|p| p.node.expect("a system placement names its node"));
            let replaced = g.destructive_updates.iter().map(|d| node_of[d.allocation.as_str()]);
            for node in placed.chain(replaced) {
                prop_assert!(eligible(&input).contains(&node), "new allocation on {}, not eligible", node);
                prop_assert!(!tainted(&input.nodes[node as usize]), "new allocation on tainted {}", node);
            }
        }
    }

    /// Whatever the plugin answers, each counter counts the plan's entries:
    /// a withdrawn change takes off its own count and no other.
    #[test]
    fn plugins_leave_every_counter_counting_the_entries_of_the_plan(
        input in prop_oneof![input(), rollout_input()],
        seed in any::<u64>(),
    ) {
        counters_agree_with_entries(&plan_with_plugin(&input, seed))?;
    }

    /// The plan is the same every time for the same input and answers.
    #[test]
    fn the_same_answers_give_the_same_plan(input in input(), seed in any::<u64>()) {
        prop_assert_eq!(plan_with_plugin(&input, seed), plan_with_plugin(&input, seed));
    }
}
