//! A plugin whose answers are drawn from a seed, at every hook, for the property tests of any job type.

use slotwise_reconciler::plugin::{
    Adjustment, Answers, Batch, CandidateAdjustment, Classification, Deferral, Hook,
    PostSlotAnswer, PostSlotDecision, PreSlotAnswer, PreSlotDecision, PromotionAnswer,
    PromotionDecision, SlotBatch, UpdateKind, Veto, ViewParts,
};
use slotwise_reconciler::*;

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

/// Every hook a plugin can answer at.
pub const EVERY_HOOK: [Hook; 4] = [Hook::Promotion, Hook::PreSlot, Hook::PostSlot, Hook::Review];

/// One plugin on `hooks`, enforcing.
fn drawn_plugin(hooks: &[Hook]) -> Vec<Consulted> {
    vec![Consulted {
        name: "drawn".into(),
        version: String::new(),
        hooks: hooks.to_vec(),
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

/// The plan of `input` with the drawn plugin consulted at every hook; an answer the
/// session refuses as invalid is a bug of the drawing, not of the rules.
pub fn plan_with_plugin(input: &ReconcileInput, seed: u64) -> Plan {
    plan_with_plugin_at(input, seed, &EVERY_HOOK)
}

/// As [`plan_with_plugin`], the plugin answering at `hooks` only.
pub fn plan_with_plugin_at(input: &ReconcileInput, seed: u64, hooks: &[Hook]) -> Plan {
    let mut relay = Drawn { state: seed };
    match reconcile_with(input.clone(), drawn_plugin(hooks), &mut relay) {
        Ok(plan) => plan,
        Err(e) => panic!("the drawn plugin's answers were refused: {e:?}"),
    }
}
