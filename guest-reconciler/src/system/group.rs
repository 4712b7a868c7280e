//! The ordered steps that decide one group of a system job, and the group as the job's run and the slot hooks see it.
//!
//! The steps follow the order of Nomad's node reconciler and of the system
//! scheduler that applies its result: live allocations are classified
//! first, free slots are filled, and only then are the job's changes paced by
//! the rollout budget and, while canaries are wanted, held for them.
//! Policy plugins have their say where they do for service jobs: pre-slot
//! after `classify`, post-slot once every change is proposed and before the
//! deployment counts them.

use super::run::NodeGroupRun;
use super::{budget, canaries, classify, completion, destructive, duplicates, placement};
use super::{rollout, screen, tainted, tally, updates};
use crate::followup::{Batch, Purpose};
use crate::pipeline::step_table;
use crate::slot_hooks::{hooked_run, HookedGroup, Place, SlotOf};
use crate::{post_slot, pre_slot, GroupPlan};
use std::collections::BTreeMap;
use std::ops::Range;

// The steps of a group that exists and wants allocations, in order.
step_table! {
    NodeGroupRun<'_> {
        "screen" => screen::run,
        "classify" => classify::run,
        "pre-slot" => pre_slot::run::<NodeGroupRun>,
        "duplicates" => duplicates::run,
        "tainted" => tainted::run,
        "updates" => updates::run,
        "placement" => placement::run,
        "rollout" => rollout::run,
        "budget" => budget::run,
        "canaries" => canaries::run,
        "reruns" => destructive::reruns,
        "destructive" => destructive::run,
        "post-slot" => post_slot::run::<NodeGroupRun>,
        "deployment-state" => tally::run,
        "completion" => completion::run,
    }
}

impl<'a> HookedGroup<'a> for NodeGroupRun<'a> {
    hooked_run!('a);

    /// A node slot is named by its position among the group's slots.
    fn claimants(&self, slot: u32) -> Range<usize> {
        self.slots
            .get(slot as usize)
            .map_or(0..0, |s| s.claimants.clone())
    }

    fn place(&self, slot: u32) -> Place {
        let s = self.slots.get(slot as usize);
        Place {
            index: s.map_or(0, |s| s.index),
            node: s.map(|s| s.node),
        }
    }

    fn slot_of(&self) -> SlotOf<'_> {
        let mut placed = BTreeMap::new();
        let mut claimed = BTreeMap::new();
        for (at, s) in self.slots.iter().enumerate() {
            placed.insert((s.node, s.index), at as u32);
            for c in &self.candidates[s.claimants.clone()] {
                claimed.insert(c.id(), at as u32);
            }
        }
        SlotOf::Node { placed, claimed }
    }

    /// Every node slot: those of eligible nodes, and those of other nodes
    /// some allocation of the group claims.
    fn pre_slot_items(&self) -> Vec<u32> {
        (0..self.slots.len() as u32).collect()
    }

    fn defer(&mut self, batches: Vec<Batch>) {
        let ctx = &self.ctx;
        let (job, eval) = (ctx.job, &ctx.input.eval);
        for (nth, batch) in batches.into_iter().enumerate() {
            let seq = self.plan.followup_evals.len();
            let id = crate::ids::followup_eval(&job.id, &eval.id, &self.spec.name, seq);
            let purpose = Purpose::PolicyDeferral;
            let e = purpose.evaluation(nth, &batch, id, job, eval.priority, ctx.input.now);
            self.plan.followup_evals.push(e);
        }
    }

    fn set_incomplete(&mut self) {
        self.complete = false;
    }

    fn finish(mut self) -> (GroupPlan, bool) {
        if self.ctx.input.explain {
            self.plan.slots = super::explain::slots(&self);
        }
        (self.plan, self.complete)
    }
}
