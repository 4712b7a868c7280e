//! Policy plugins: the plugins of a plugins file, loaded once, given a fresh sandboxed instance per reconcile, and asked in order at every hook point.
//!
//! A plugin proposes; its answers are checked against the slot before they
//! are composed with the other plugins' (the most cautious wins), and the
//! reconciler checks the composed ruling again. A plugin that traps, runs out
//! of fuel or time, exceeds its memory or answers something invalid fails:
//! fail-closed ends the reconcile with an error naming it, fail-open skips
//! its answers for the rest of the reconcile and reports that in the plan.

pub mod composition;
pub mod loading;
pub mod sandbox;
pub mod usage;

use crate::plugin_wit::types::{
    Hook, PostSlotDecision, PreSlotDecision, PromotionDecision, PromotionRequest, SlotProposal,
    SlotView,
};
use crate::policy::{hook_name, Policy, PolicyError};
use crate::transcode::transcode;
use crate::wit::{
    Plan, PolicyAction, PolicyVerdict, PostSlotRuling, PreSlotRuling, PromotionRuling,
    ReconcileInput, StepReport, StepStatus,
};
use composition::{PostSlotVotes, PreSlotVotes, PromotionVotes};
use loading::{Live, LoadError, LoadedPlugin};
use sandbox::Sandbox;
use slotwise_reconciler as core;
use slotwise_scenario::{Mode, OnError, PluginEntry};
use std::collections::BTreeMap;
use std::path::Path;
use std::time::Instant;
use usage::Usage;

/// The plugins a host runs, in the order they are asked.
pub struct PluginSet {
    sandbox: Sandbox,
    plugins: Vec<LoadedPlugin>,
    /// Fail-open plugins that could not be loaded; every plan says so.
    unloaded: Vec<LoadError>,
    /// What each plugin used since it was loaded.
    lifetime: Vec<Usage>,
    round: Round,
}

/// The state of one reconcile.
#[derive(Default)]
struct Round {
    /// The data each plugin kept, by plugin, group and slot.
    ext: BTreeMap<(String, String, u32), Vec<u8>>,
    /// Each plugin's instance, made at its first call.
    instances: Vec<Instance>,
    /// What monitoring plugins would have done.
    monitored: Vec<PolicyAction>,
    /// Failures skipped under fail-open, by plugin.
    skipped: Vec<(usize, String)>,
    /// What each plugin used in this reconcile.
    usage: Vec<Usage>,
}

/// A plugin's instance in the current reconcile.
#[derive(Default)]
enum Instance {
    /// Not called yet.
    #[default]
    Absent,
    Live(Box<Live>),
    /// Failed under fail-open: not asked again in this reconcile.
    Failed,
}

/// Where in a reconcile a plugin is being asked.
struct Asking<'a> {
    hook: Hook,
    group: &'a str,
    slot: Option<u32>,
}

impl PluginSet {
    /// Loads the plugins `entries` list. Relative paths start from `base`;
    /// shipped plugins are looked up in `shipped`.
    ///
    /// # Errors
    /// When a fail-closed plugin cannot be loaded, or two plugins go by the
    /// same name. A fail-open plugin that cannot be loaded is left out, and
    /// every plan reports it.
    pub fn load(
        entries: &[PluginEntry],
        base: &Path,
        shipped: &Path,
    ) -> Result<Self, crate::HostError> {
        let sandbox = Sandbox::new()?;
        let mut plugins: Vec<LoadedPlugin> = Vec::new();
        let mut unloaded = Vec::new();
        for entry in entries {
            let loaded = loading::file_of(entry, base, shipped)
                .and_then(|path| loading::load(&sandbox, entry, &path));
            let loaded = loaded.and_then(|p| match plugins.iter().find(|q| q.name == p.name) {
                Some(_) => Err(LoadError {
                    plugin: p.name.clone(),
                    cause: "another plugin goes by the same name; give one a `name`".into(),
                }),
                None => Ok(p),
            });
            match (loaded, entry.on_error) {
                (Ok(p), _) => plugins.push(p),
                (Err(e), OnError::FailOpen) => unloaded.push(e),
                (Err(e), OnError::FailClosed) => return Err(crate::HostError::PluginLoad(e)),
            }
        }
        let lifetime = vec![Usage::default(); plugins.len()];
        Ok(Self {
            sandbox,
            plugins,
            unloaded,
            lifetime,
            round: Round::default(),
        })
    }

    /// The plugins loaded, in order.
    pub fn plugins(&self) -> &[LoadedPlugin] {
        &self.plugins
    }

    /// What each plugin used since it was loaded, in order.
    pub fn usage(&self) -> &[Usage] {
        &self.lifetime
    }

    /// Asks plugin `p` through `call`, in its sandbox. Returns `None` when
    /// the plugin failed and its failure is to be skipped.
    fn ask<R>(
        &mut self,
        p: usize,
        at: &Asking,
        call: impl FnOnce(&mut Live) -> wasmtime::Result<R>,
    ) -> Result<Option<R>, PolicyError> {
        let plugin = &self.plugins[p];
        if let Instance::Absent = self.round.instances[p] {
            self.round.instances[p] = match plugin.instantiate(&self.sandbox) {
                Ok(live) => Instance::Live(Box::new(live)),
                Err(cause) => {
                    self.round.instances[p] = Instance::Failed;
                    return self.fail(p, at, cause).map(|()| None);
                }
            };
        }
        let Instance::Live(live) = &mut self.round.instances[p] else {
            return Ok(None);
        };
        let limits = plugin.limits;
        Sandbox::arm(&mut live.store, limits);
        let started = Instant::now();
        let outcome = call(live);
        let time = started.elapsed();
        let fuel = limits.fuel - live.store.get_fuel().unwrap_or(0);
        let peak = live.store.data().peak_memory();
        self.round.usage[p].record(at.hook, fuel, time, peak);
        match outcome {
            Ok(answer) => Ok(Some(answer)),
            Err(e) => {
                // A trapped instance cannot be entered again.
                self.round.instances[p] = Instance::Failed;
                let cause = sandbox::failure(&e, limits);
                self.fail(p, at, cause).map(|()| None)
            }
        }
    }

    /// A failure of plugin `p`: an error under fail-closed, a report line
    /// under fail-open.
    fn fail(&mut self, p: usize, at: &Asking, cause: String) -> Result<(), PolicyError> {
        let plugin = &self.plugins[p];
        let error = PolicyError {
            plugin: plugin.name.clone(),
            version: plugin.metadata.version.clone(),
            hook: hook_name(at.hook),
            group: Some(at.group.to_string()),
            slot: at.slot,
            cause,
        };
        match plugin.on_error {
            OnError::FailClosed => Err(error),
            OnError::FailOpen => {
                self.round.skipped.push((p, error.to_string()));
                Ok(())
            }
        }
    }

    /// The plugins that implement `hook`, in order.
    fn implementing(&self, hook: Hook) -> Vec<usize> {
        (0..self.plugins.len())
            .filter(|&p| self.plugins[p].implements(hook))
            .collect()
    }

    /// Records what monitoring plugin `p` would have done.
    fn monitor(&mut self, p: usize, at: &Asking, verdict: PolicyVerdict, reason: String) {
        self.round.monitored.push(PolicyAction {
            plugin: self.plugins[p].name.clone(),
            group: at.group.to_string(),
            slot: at.slot,
            verdict,
            reason,
            applied: false,
        });
    }
}

impl Policy for PluginSet {
    fn hooks(&self) -> Vec<Hook> {
        usage::HOOKS
            .into_iter()
            .filter(|&h| self.plugins.iter().any(|p| p.implements(h)))
            .collect()
    }

    fn begin(&mut self, input: &ReconcileInput) {
        let names: Vec<&str> = self.plugins.iter().map(|p| p.name.as_str()).collect();
        self.round = Round {
            ext: input
                .ext
                .iter()
                .filter(|e| names.contains(&e.plugin.as_str()))
                .map(|e| ((e.plugin.clone(), e.group.clone(), e.slot), e.data.clone()))
                .collect(),
            instances: (0..self.plugins.len()).map(|_| Instance::Absent).collect(),
            usage: vec![Usage::default(); self.plugins.len()],
            ..Round::default()
        };
    }

    fn promotion(
        &mut self,
        requests: &mut [PromotionRequest],
    ) -> Result<Vec<PromotionRuling>, PolicyError> {
        let asked = self.implementing(Hook::Promotion);
        let mut rulings = Vec::with_capacity(requests.len());
        for request in requests.iter() {
            let at = Asking {
                hook: Hook::Promotion,
                group: &request.group,
                slot: None,
            };
            let mut votes = PromotionVotes::default();
            for &p in &asked {
                let answer = self.ask(p, &at, |live| match &live.promotion {
                    Some(g) => g.call_promotion(&mut live.store, request),
                    None => Err(wasmtime::Error::msg("exports no promotion hook")),
                })?;
                let Some(decision) = answer else { continue };
                if self.plugins[p].mode == Mode::Monitor {
                    let (verdict, why) = match decision {
                        PromotionDecision::Promote(w) => (PolicyVerdict::Promoted, w),
                        PromotionDecision::Wait(w) => (PolicyVerdict::Waited, w),
                        PromotionDecision::Fail(w) => (PolicyVerdict::Failed, w),
                    };
                    self.monitor(p, &at, verdict, why);
                } else {
                    votes.add(&self.plugins[p].name, decision);
                }
            }
            rulings.push(votes.ruling());
        }
        Ok(rulings)
    }

    fn pre_slot(&mut self, slots: &mut [SlotView]) -> Result<Vec<PreSlotRuling>, PolicyError> {
        let asked = self.implementing(Hook::PreSlot);
        let mut rulings = Vec::with_capacity(slots.len());
        for slot in slots.iter_mut() {
            let mut votes = PreSlotVotes::default();
            for &p in &asked {
                let name = self.plugins[p].name.clone();
                let key = (name.clone(), slot.group.clone(), slot.index);
                slot.ext = self.round.ext.get(&key).cloned();
                let view: &SlotView = slot;
                let at = Asking {
                    hook: Hook::PreSlot,
                    group: &view.group,
                    slot: Some(view.index),
                };
                let answer = self.ask(p, &at, |live| match &live.pre_slot {
                    Some(g) => g.call_pre_slot(&mut live.store, view),
                    None => Err(wasmtime::Error::msg("exports no pre-slot hook")),
                })?;
                let Some(answer) = answer else { continue };
                if let PreSlotDecision::Adjust(_) = &answer.decision {
                    if let Err(cause) = check_pre_slot(view, &name, &answer.decision) {
                        self.fail(p, &at, format!("answered something invalid: {cause}"))?;
                        continue;
                    }
                }
                if let Some(data) = answer.ext {
                    votes.ext.push(crate::wit::PluginExt {
                        plugin: name.clone(),
                        data,
                    });
                }
                if self.plugins[p].mode == Mode::Monitor {
                    match answer.decision {
                        PreSlotDecision::Proceed => {}
                        PreSlotDecision::Hold(why) => {
                            self.monitor(p, &at, PolicyVerdict::Held, why)
                        }
                        PreSlotDecision::Adjust(a) => {
                            self.monitor(p, &at, PolicyVerdict::Adjusted, a.reason)
                        }
                    }
                } else {
                    votes.add(&name, answer.decision);
                }
            }
            slot.ext = None;
            rulings.push(votes.ruling());
        }
        Ok(rulings)
    }

    fn post_slot(
        &mut self,
        proposals: &mut [SlotProposal],
    ) -> Result<Vec<PostSlotRuling>, PolicyError> {
        let asked = self.implementing(Hook::PostSlot);
        let mut rulings = Vec::with_capacity(proposals.len());
        for proposal in proposals.iter_mut() {
            let mut votes = PostSlotVotes::default();
            for &p in &asked {
                let name = self.plugins[p].name.clone();
                let key = (
                    name.clone(),
                    proposal.slot.group.clone(),
                    proposal.slot.index,
                );
                proposal.slot.ext = self.round.ext.get(&key).cloned();
                let view: &SlotProposal = proposal;
                let at = Asking {
                    hook: Hook::PostSlot,
                    group: &view.slot.group,
                    slot: Some(view.slot.index),
                };
                let answer = self.ask(p, &at, |live| match &live.post_slot {
                    Some(g) => g.call_post_slot(&mut live.store, view),
                    None => Err(wasmtime::Error::msg("exports no post-slot hook")),
                })?;
                let Some(answer) = answer else { continue };
                if let PostSlotDecision::Defer(_) = &answer.decision {
                    if let Err(cause) = check_post_slot(view, &name, &answer.decision) {
                        self.fail(p, &at, format!("answered something invalid: {cause}"))?;
                        continue;
                    }
                }
                if let Some(data) = answer.ext {
                    votes.ext.push(crate::wit::PluginExt {
                        plugin: name.clone(),
                        data,
                    });
                }
                if self.plugins[p].mode == Mode::Monitor {
                    match answer.decision {
                        PostSlotDecision::Accept => {}
                        PostSlotDecision::Veto(why) => {
                            self.monitor(p, &at, PolicyVerdict::Vetoed, why)
                        }
                        PostSlotDecision::Defer(d) => {
                            self.monitor(p, &at, PolicyVerdict::Deferred, d.reason)
                        }
                    }
                } else {
                    votes.add(&name, answer.decision);
                }
            }
            proposal.slot.ext = None;
            rulings.push(votes.ruling());
        }
        Ok(rulings)
    }

    fn finish(&mut self, plan: Option<&mut Plan>) {
        let round = std::mem::take(&mut self.round);
        for (total, used) in self.lifetime.iter_mut().zip(&round.usage) {
            total.add(used);
        }
        let Some(plan) = plan else {
            return;
        };
        for action in &round.monitored {
            if let (Some(index), Some(group)) = (
                action.slot,
                plan.groups.iter_mut().find(|g| g.group == action.group),
            ) {
                if let Some(report) = group.slots.iter_mut().find(|s| s.index == index) {
                    report.policy.push(format!(
                        "{} by {}: {} (monitoring; not applied)",
                        verdict_name(action.verdict),
                        action.plugin,
                        action.reason
                    ));
                }
            }
        }
        plan.policy_actions.extend(round.monitored);
        for e in &self.unloaded {
            plan.steps.push(plugin_step(
                &e.plugin,
                StepStatus::Skipped,
                format!("not loaded: {}", e.cause),
            ));
        }
        for (p, plugin) in self.plugins.iter().enumerate() {
            let mode = match plugin.mode {
                Mode::Enforce => "enforcing",
                Mode::Monitor => "monitoring",
            };
            plan.steps.push(plugin_step(
                &plugin.name,
                StepStatus::Done,
                format!(
                    "{} {mode}; {}",
                    plugin.metadata.version,
                    round.usage[p].summary()
                ),
            ));
            for (_, why) in round.skipped.iter().filter(|(q, _)| *q == p) {
                plan.steps.push(plugin_step(
                    &plugin.name,
                    StepStatus::Skipped,
                    format!("answer skipped (fail-open): {why}"),
                ));
            }
        }
    }
}

fn plugin_step(name: &str, status: StepStatus, message: String) -> StepReport {
    StepReport {
        step: format!("plugin {name}"),
        group: None,
        status,
        message,
    }
}

fn verdict_name(verdict: PolicyVerdict) -> &'static str {
    let core: core::PolicyVerdict = transcode(&verdict).unwrap_or(core::PolicyVerdict::Held);
    core.name()
}

/// Checks a pre-slot adjustment with the reconciler's own rules.
fn check_pre_slot(slot: &SlotView, by: &str, decision: &PreSlotDecision) -> Result<(), String> {
    let slot: core::plugin::SlotView = transcode(slot).map_err(|e| e.to_string())?;
    let decision: core::plugin::PreSlotDecision = transcode(decision).map_err(|e| e.to_string())?;
    let ruling = core::PreSlotRuling {
        decision,
        by: by.to_string(),
        ext: Vec::new(),
    };
    core::rulings::check_pre_slot(&slot, &ruling)
}

/// Checks a post-slot deferral with the reconciler's own rules.
fn check_post_slot(
    proposal: &SlotProposal,
    by: &str,
    decision: &PostSlotDecision,
) -> Result<(), String> {
    let proposal: core::plugin::SlotProposal = transcode(proposal).map_err(|e| e.to_string())?;
    let decision: core::plugin::PostSlotDecision =
        transcode(decision).map_err(|e| e.to_string())?;
    let ruling = core::PostSlotRuling {
        decision,
        by: by.to_string(),
        ext: Vec::new(),
    };
    core::rulings::check_post_slot(&proposal, &ruling)
}
