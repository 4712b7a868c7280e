//! The 0.1 adapter: a plugin built for `slotwise:plugin@0.1.0` answers a 0.2 batch by being called once per slot (or deployment group) with the 0.1 view of it, its answers turned into 0.2 answers.
//!
//! The enums of both versions have the same cases in the same order, so
//! they cross by transcoding; records are rebuilt field by field.

use super::sandbox::PluginState;
use crate::plugin_wit::since_v0_1_0 as v1;
use crate::plugin_wit::types::{
    Adjustment, Answers, Batch, Candidate, CandidateAdjustment, Deferral, Hook, Kept,
    PluginMetadata, PostSlotAnswer, PostSlotDecision, PreSlotAnswer, PreSlotDecision,
    PromotionAnswer, PromotionDecision, SlotBatch, SlotKey, ViewParts,
};
use crate::transcode::transcode;
use wasmtime::Store;

/// A 0.1 plugin's exports, bound to its instance.
pub struct Hooks {
    pub plugin: v1::plugin::Guest,
    pub pre_slot: Option<v1::pre_slot::Guest>,
    pub post_slot: Option<v1::post_slot::Guest>,
    pub promotion: Option<v1::promotion::Guest>,
}

/// Every optional part of a batch: a 0.1 view carries them all.
pub fn every_part() -> ViewParts {
    ViewParts {
        node_ids: true,
        node_meta: true,
        allocation_ids: true,
        candidate_meta: true,
        change_messages: true,
        // The adapter reads the typed lists to build its per-slot views.
        packed: false,
    }
}

impl Hooks {
    /// The plugin's metadata, as 0.2 states it.
    ///
    /// # Errors
    /// When the call fails.
    pub fn metadata(&self, store: &mut Store<PluginState>) -> wasmtime::Result<PluginMetadata> {
        let m = self.plugin.call_metadata(&mut *store)?;
        let hooks: Vec<Hook> = transcode(&m.hooks)?;
        Ok(PluginMetadata {
            name: m.name,
            version: m.version,
            description: m.description,
            hooks,
            reads: every_part(),
            settings_example: String::new(),
        })
    }

    /// The answers to `batch`, one 0.1 call per item.
    ///
    /// # Errors
    /// When a call fails, or the plugin does not export the batch's hook.
    pub fn answer(
        &self,
        store: &mut Store<PluginState>,
        batch: &Batch,
        kept: &[Kept],
    ) -> wasmtime::Result<Answers> {
        let missing = |hook: &str| wasmtime::Error::msg(format!("exports no {hook} hook"));
        match batch {
            Batch::PreSlot(b) => {
                let guest = self.pre_slot.as_ref().ok_or_else(|| missing("pre-slot"))?;
                let mut answers = Vec::with_capacity(b.slots.len());
                for at in 0..b.slots.len() {
                    let view = slot_view(b, at, kept)?;
                    let answer = guest.call_pre_slot(&mut *store, &view)?;
                    answers.push(PreSlotAnswer {
                        slot: at as u32,
                        decision: pre_slot_decision(b, at, answer.decision)?,
                        ext: answer.ext,
                    });
                }
                Ok(Answers::PreSlot(answers))
            }
            Batch::PostSlot(b) => {
                let guest = self
                    .post_slot
                    .as_ref()
                    .ok_or_else(|| missing("post-slot"))?;
                let mut answers = Vec::with_capacity(b.slots.len());
                for at in 0..b.slots.len() {
                    let proposal = v1::types::SlotProposal {
                        slot: slot_view(b, at, kept)?,
                        changes: changes(b, at)?,
                    };
                    let answer = guest.call_post_slot(&mut *store, &proposal)?;
                    let decision = match answer.decision {
                        v1::types::PostSlotDecision::Accept => PostSlotDecision::Accept,
                        v1::types::PostSlotDecision::Veto(why) => PostSlotDecision::Veto(why),
                        v1::types::PostSlotDecision::Defer(d) => {
                            PostSlotDecision::Defer(Deferral {
                                until: d.until,
                                reason: d.reason,
                            })
                        }
                    };
                    answers.push(PostSlotAnswer {
                        slot: at as u32,
                        decision,
                        ext: answer.ext,
                    });
                }
                Ok(Answers::PostSlot(answers))
            }
            Batch::Promotion(b) => {
                let guest = self
                    .promotion
                    .as_ref()
                    .ok_or_else(|| missing("promotion"))?;
                let mut answers = Vec::with_capacity(b.groups.len());
                for (at, g) in b.groups.iter().enumerate() {
                    let first = g.canaries.first as usize;
                    let canaries = (first..first + g.canaries.count as usize)
                        .map(|c| candidate_view(&b.candidates, &b.nodes, &b.rules, c))
                        .collect::<wasmtime::Result<_>>()?;
                    let request = v1::types::PromotionRequest {
                        deployment: g.deployment.clone(),
                        group: g.group.clone(),
                        desired_canaries: g.desired_canaries,
                        canaries,
                        now: b.now,
                    };
                    let decision = match guest.call_promotion(&mut *store, &request)? {
                        v1::types::PromotionDecision::Promote(w) => PromotionDecision::Promote(w),
                        v1::types::PromotionDecision::Wait(w) => PromotionDecision::Wait(w),
                        v1::types::PromotionDecision::Fail(w) => PromotionDecision::Fail(w),
                    };
                    answers.push(PromotionAnswer {
                        group: at as u32,
                        decision,
                    });
                }
                Ok(Answers::Promotion(answers))
            }
            // 0.1 knows no other hook, and a plugin is asked only at its own.
            _ => Err(wasmtime::Error::msg(
                "a 0.1 plugin answers pre-slot, post-slot and promotion batches only",
            )),
        }
    }
}

/// Batch slot `at` as a 0.1 slot view.
fn slot_view(b: &SlotBatch, at: usize, kept: &[Kept]) -> wasmtime::Result<v1::types::SlotView> {
    let slot = &b.slots[at];
    let group = b
        .groups
        .iter()
        .find(|g| (g.slots.first..g.slots.first + g.slots.count).contains(&(at as u32)))
        .ok_or_else(|| wasmtime::Error::msg("a slot of no group"))?;
    let index = match slot.key {
        SlotKey::Index(i) => i,
        SlotKey::Node(_) => {
            return Err(wasmtime::Error::msg(
                "a 0.1 plugin cannot be asked about node slots",
            ))
        }
    };
    let first = slot.candidates.first as usize;
    let candidates = (first..first + slot.candidates.count as usize)
        .map(|c| candidate_view(&b.candidates, &b.nodes, &b.rules, c))
        .collect::<wasmtime::Result<_>>()?;
    Ok(v1::types::SlotView {
        group: group.name.clone(),
        index,
        count: group.count,
        candidates,
        now: b.now,
        ext: kept
            .iter()
            .find(|k| k.slot as usize == at)
            .map(|k| k.data.clone()),
    })
}

/// Candidate `at` of a batch as a 0.1 view.
fn candidate_view(
    candidates: &[Candidate],
    nodes: &[crate::plugin_wit::types::Node],
    rules: &[String],
    at: usize,
) -> wasmtime::Result<v1::types::CandidateView> {
    let c = &candidates[at];
    let node = &nodes[c.node as usize];
    Ok(v1::types::CandidateView {
        allocation: c.allocation.clone().unwrap_or_default(),
        job_version: c.job_version,
        node: v1::types::NodeView {
            id: node.id.clone().unwrap_or_default(),
            status: transcode(&node.status)?,
            draining: node.draining,
            meta: node.meta.clone(),
        },
        client_status: transcode(&c.client_status)?,
        healthy: c.healthy,
        healthy_since: c.healthy_since,
        canary: c.canary,
        classification: transcode(&c.classification)?,
        rule: rules.get(c.rule as usize).cloned().unwrap_or_default(),
        update: c.update.map(|u| transcode(&u)).transpose()?,
        meta: c.meta.clone(),
    })
}

/// The changes proposed for batch slot `at`, as 0.1 states them.
fn changes(b: &SlotBatch, at: usize) -> wasmtime::Result<Vec<v1::types::ProposedChange>> {
    let span = b.slots[at].changes;
    let first = span.first as usize;
    b.changes[first..first + span.count as usize]
        .iter()
        .map(|c| {
            Ok(v1::types::ProposedChange {
                kind: transcode(&c.kind)?,
                allocation: c
                    .candidate
                    .and_then(|p| b.candidates.get(p as usize))
                    .and_then(|c| c.allocation.clone()),
                reason: b
                    .reasons
                    .get(c.reason as usize)
                    .cloned()
                    .unwrap_or_default(),
                message: c.message.clone().unwrap_or_default(),
            })
        })
        .collect()
}

/// A 0.1 pre-slot decision on batch slot `at`, its allocations turned into
/// candidate positions; one the slot does not hold becomes a position past
/// every candidate, which the reconciler refuses as such.
fn pre_slot_decision(
    b: &SlotBatch,
    at: usize,
    decision: v1::types::PreSlotDecision,
) -> wasmtime::Result<PreSlotDecision> {
    Ok(match decision {
        v1::types::PreSlotDecision::Proceed => PreSlotDecision::Proceed,
        v1::types::PreSlotDecision::Hold(why) => PreSlotDecision::Hold(why),
        v1::types::PreSlotDecision::Adjust(a) => {
            let span = b.slots[at].candidates;
            let first = span.first as usize;
            let own = &b.candidates[first..first + span.count as usize];
            let mut candidates = Vec::with_capacity(a.candidates.len());
            for c in a.candidates {
                let found = own
                    .iter()
                    .position(|v| v.allocation.as_deref() == Some(c.allocation.as_str()));
                candidates.push(CandidateAdjustment {
                    candidate: found.map_or(b.candidates.len() as u32, |p| span.first + p as u32),
                    reclassify: c.reclassify.map(|r| transcode(&r)).transpose()?,
                    update: c.update.map(|u| transcode(&u)).transpose()?,
                });
            }
            PreSlotDecision::Adjust(Adjustment {
                candidates,
                reason: a.reason,
            })
        }
    })
}
