//! Policy plugins: the plugins of a plugins file, loaded once, given a fresh sandboxed instance per reconcile, and asked in order at every hook point.
//!
//! The host only calls plugins and hands their replies to the reconciler,
//! which checks and composes them. A plugin that traps, runs out of fuel or
//! time, or exceeds its memory replies with what went wrong and is not asked
//! again in that reconcile (its instance cannot be entered again); the
//! reconciler then skips it or ends the reconcile, as the plugin's on-error
//! says. An answer larger than the host keeps is dropped at once, as a
//! failure of the plugin.

pub mod answer_size;
pub mod loading;
pub mod plugin_file;
pub mod sandbox;
pub mod usage;

use crate::plugin_wit::types::{
    Hook, PostSlotAnswer, PreSlotAnswer, PromotionDecision, PromotionRequest, SlotProposal,
    SlotView,
};
use crate::policy::Policy;
use crate::wit::{
    Consulted, Plan, PluginFailure, PostSlotReply, PreSlotReply, PromotionReply, ReconcileInput,
    StepReport, StepStatus,
};
use loading::{Live, LoadError, LoadedPlugin};
use sandbox::{Deadline, Sandbox};
use slotwise_scenario::{Mode, PluginEntry};
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
    /// The data each plugin kept, in the plugins' order, by group and slot:
    /// looked up for every slot and plugin, so a plugin that keeps none
    /// costs no lookup at all.
    ext: Vec<BTreeMap<(String, u32), Vec<u8>>>,
    /// Each plugin's instance, made at its first call.
    instances: Vec<Instance>,
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
    /// Failed: not asked again in this reconcile.
    Failed,
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
                    version: Some(p.metadata.version.clone()),
                    cause: "another plugin goes by the same name; give one a `name`".into(),
                }),
                None => Ok(p),
            });
            match loaded {
                Ok(p) => plugins.push(p),
                Err(e) if entry.fails_open() => unloaded.push(e),
                Err(e) => return Err(crate::HostError::PluginLoad(e)),
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

    /// Asks plugin `p` through `call`, in its sandbox: its answer, what
    /// went wrong, or `None` once it failed earlier in this reconcile.
    fn ask<R>(
        &mut self,
        p: usize,
        hook: Hook,
        call: impl FnOnce(&mut Live) -> wasmtime::Result<R>,
    ) -> Option<Result<R, String>> {
        let plugin = &self.plugins[p];
        if let Instance::Absent = self.round.instances[p] {
            match plugin.instantiate(&self.sandbox) {
                Ok(live) => self.round.instances[p] = Instance::Live(Box::new(live)),
                Err(cause) => {
                    self.round.instances[p] = Instance::Failed;
                    return Some(Err(cause));
                }
            }
        }
        let Instance::Live(live) = &mut self.round.instances[p] else {
            return None;
        };
        let limits = plugin.limits;
        let Some(deadline) = Deadline::of_call(limits, self.round.usage[p].total_time()) else {
            self.round.instances[p] = Instance::Failed;
            return Some(Err(sandbox::out_of_time(limits)));
        };
        Sandbox::arm(&mut live.store, limits.fuel, deadline);
        let started = Instant::now();
        let outcome = call(live);
        let time = started.elapsed();
        let fuel = limits.fuel - live.store.get_fuel().unwrap_or(0);
        let peak = live.store.data().peak_memory();
        self.round.usage[p].record(hook, fuel, time, peak);
        Some(outcome.map_err(|e| {
            // A trapped instance cannot be entered again.
            self.round.instances[p] = Instance::Failed;
            sandbox::failure(&e, limits, deadline)
        }))
    }

    /// The plugins that implement `hook`, in order.
    fn implementing(&self, hook: Hook) -> Vec<usize> {
        (0..self.plugins.len())
            .filter(|&p| self.plugins[p].implements(hook))
            .collect()
    }

    /// Per item, the replies of the plugins implementing `hook`. After a
    /// failure of a plugin that fails closed the reconcile ends, so later
    /// items are not asked.
    fn replies<T, R>(
        &mut self,
        hook: Hook,
        items: &mut [T],
        mut ask: impl FnMut(&mut Self, usize, &mut T) -> Option<Result<R, String>>,
    ) -> Vec<Vec<(String, Result<R, String>)>> {
        let asked = self.implementing(hook);
        let mut all = Vec::with_capacity(items.len());
        let mut closed = false;
        for item in items.iter_mut() {
            let mut replies = Vec::new();
            for &p in &asked {
                if closed {
                    break;
                }
                if let Some(answer) = ask(self, p, item) {
                    let plugin = &self.plugins[p];
                    closed = answer.is_err() && !plugin.fails_open();
                    replies.push((plugin.name.clone(), answer));
                }
            }
            all.push(replies);
        }
        all
    }

    /// The data plugin `p` kept for slot `index` of `group`.
    fn ext_of(&self, p: usize, group: &str, index: u32) -> Option<Vec<u8>> {
        let kept = self.round.ext.get(p)?;
        if kept.is_empty() {
            return None;
        }
        kept.get(&(group.to_string(), index)).cloned()
    }
}

impl Policy for PluginSet {
    fn consulted(&self) -> Vec<Consulted> {
        self.plugins
            .iter()
            .map(|p| Consulted {
                name: p.name.clone(),
                version: p.metadata.version.clone(),
                hooks: usage::HOOKS
                    .into_iter()
                    .filter(|&h| p.implements(h))
                    .collect(),
                monitor: p.mode == Mode::Monitor,
                fail_open: p.fails_open(),
            })
            .collect()
    }

    fn begin(&mut self, input: &ReconcileInput) {
        self.round = Round {
            ext: self
                .plugins
                .iter()
                .map(|p| {
                    input
                        .ext
                        .iter()
                        .filter(|e| e.plugin == p.name)
                        .map(|e| ((e.group.clone(), e.slot), e.data.clone()))
                        .collect()
                })
                .collect(),
            instances: (0..self.plugins.len()).map(|_| Instance::Absent).collect(),
            usage: vec![Usage::default(); self.plugins.len()],
        };
    }

    fn promotion(
        &mut self,
        requests: &mut [PromotionRequest],
    ) -> Result<Vec<Vec<PromotionReply>>, crate::HostError> {
        let replies = self.replies(Hook::Promotion, requests, |set, p, request| {
            let answer = set.ask(p, Hook::Promotion, |live| match &live.promotion {
                Some(g) => g.call_promotion(&mut live.store, request),
                None => Err(wasmtime::Error::msg("exports no promotion hook")),
            });
            answer.map(|a| a.and_then(|a| answer_size::promotion(&a).map(|()| a)))
        });
        Ok(tag(
            replies,
            |plugin, answer: Result<PromotionDecision, String>| PromotionReply { plugin, answer },
        ))
    }

    fn pre_slot(
        &mut self,
        slots: &mut [SlotView],
    ) -> Result<Vec<Vec<PreSlotReply>>, crate::HostError> {
        let replies = self.replies(Hook::PreSlot, slots, |set, p, slot| {
            slot.ext = set.ext_of(p, &slot.group, slot.index);
            let view: &SlotView = slot;
            let answer = set.ask(p, Hook::PreSlot, |live| match &live.pre_slot {
                Some(g) => g.call_pre_slot(&mut live.store, view),
                None => Err(wasmtime::Error::msg("exports no pre-slot hook")),
            });
            answer.map(|a| a.and_then(|a| answer_size::pre_slot(&a).map(|()| a)))
        });
        Ok(tag(
            replies,
            |plugin, answer: Result<PreSlotAnswer, String>| PreSlotReply { plugin, answer },
        ))
    }

    fn post_slot(
        &mut self,
        proposals: &mut [SlotProposal],
    ) -> Result<Vec<Vec<PostSlotReply>>, crate::HostError> {
        let replies = self.replies(Hook::PostSlot, proposals, |set, p, proposal| {
            proposal.slot.ext = set.ext_of(p, &proposal.slot.group, proposal.slot.index);
            let view: &SlotProposal = proposal;
            let answer = set.ask(p, Hook::PostSlot, |live| match &live.post_slot {
                Some(g) => g.call_post_slot(&mut live.store, view),
                None => Err(wasmtime::Error::msg("exports no post-slot hook")),
            });
            answer.map(|a| a.and_then(|a| answer_size::post_slot(&a).map(|()| a)))
        });
        Ok(tag(
            replies,
            |plugin, answer: Result<PostSlotAnswer, String>| PostSlotReply { plugin, answer },
        ))
    }

    fn finish(&mut self, plan: Option<&mut Plan>) {
        let round = std::mem::take(&mut self.round);
        for (total, used) in self.lifetime.iter_mut().zip(&round.usage) {
            total.add(used);
        }
        let Some(plan) = plan else {
            return;
        };
        for e in &self.unloaded {
            plan.plugin_failures.push(PluginFailure {
                plugin: e.plugin.clone(),
                hook: "load".into(),
                group: None,
                slot: None,
                cause: e.cause.clone(),
            });
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
        }
    }
}

/// Replies as the session takes them.
fn tag<R, T>(
    replies: Vec<Vec<(String, Result<R, String>)>>,
    reply: impl Fn(String, Result<R, String>) -> T,
) -> Vec<Vec<T>> {
    replies
        .into_iter()
        .map(|item| item.into_iter().map(|(p, a)| reply(p, a)).collect())
        .collect()
}

fn plugin_step(name: &str, status: StepStatus, message: String) -> StepReport {
    StepReport {
        step: format!("plugin {name}"),
        group: None,
        status,
        message,
    }
}
