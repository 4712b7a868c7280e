//! Policy plugins: the plugins a host runs, loaded once, given a fresh sandboxed instance per reconcile, and relayed to: each question of the reconciler's session names one plugin and one batch, and the host returns that plugin's raw reply or its failure.
//!
//! The host decides nothing about what an answer means: the session checks,
//! composes and records. What only the host can know reaches the session
//! with the replies: how a call failed, what it logged, the fuel and memory
//! it used, and at the start which plugins could not be loaded.

pub mod config;
pub mod loading;
pub mod plugin_file;
pub mod sandbox;
pub mod since_v0_1_0;
pub mod usage;

pub use config::PluginConfig;

use crate::plugin_wit::types::{Batch, Hook};
use crate::relay::Relay;
use crate::wit::{Consulted, Failure, FailureKind, Mode, Question, Reply, Usage as Used};
use loading::{Bound, Live, LoadError, LoadedPlugin};
use sandbox::{Deadline, Sandbox};
use std::path::Path;
use std::time::Instant;
use usage::Usage;

/// The plugins a host runs, in the order they are asked.
pub struct PluginSet {
    sandbox: Sandbox,
    /// Every plugin named, loaded or not, in order.
    entries: Vec<Entry>,
    /// What each plugin used since it was loaded.
    lifetime: Vec<Usage>,
    round: Vec<Round>,
}

/// A plugin named in the configuration.
enum Entry {
    Loaded(Box<LoadedPlugin>),
    /// A plugin that could not be loaded, why, and how it was configured.
    Unloaded(Box<(LoadError, PluginConfig)>),
}

/// A plugin's state in the current reconcile.
#[derive(Default)]
struct Round {
    instance: Instance,
    usage: Usage,
}

/// A plugin's instance in the current reconcile.
#[derive(Default)]
enum Instance {
    /// Not called yet.
    #[default]
    Absent,
    Live(Box<Live>),
    /// Failed: its instance cannot be entered again.
    Failed,
}

impl PluginSet {
    /// Loads the plugins `configs` list. Relative paths start from `base`;
    /// shipped plugins are looked up in `shipped`.
    ///
    /// A plugin that cannot be loaded is kept, with why: the session it is
    /// consulted in decides what that means (the end of the reconcile when
    /// it fails closed, a line in the plan when it fails open).
    ///
    /// # Errors
    /// When the sandbox's engine cannot be set up.
    pub fn load(
        configs: &[PluginConfig],
        base: &Path,
        shipped: &Path,
    ) -> Result<Self, crate::HostError> {
        let sandbox = Sandbox::new()?;
        let entries: Vec<Entry> = configs
            .iter()
            .map(|config| {
                let loaded = loading::file_of(config, base, shipped)
                    .and_then(|path| loading::load(&sandbox, config, &path));
                match loaded {
                    Ok(p) => Entry::Loaded(Box::new(p)),
                    Err(e) => Entry::Unloaded(Box::new((e, config.clone()))),
                }
            })
            .collect();
        let lifetime = vec![Usage::default(); entries.len()];
        Ok(Self {
            sandbox,
            entries,
            lifetime,
            round: Vec::new(),
        })
    }

    /// The plugins that could not be loaded, with why, in order.
    pub fn unloaded(&self) -> Vec<&LoadError> {
        self.entries
            .iter()
            .filter_map(|e| match e {
                Entry::Unloaded(unloaded) => Some(&unloaded.0),
                Entry::Loaded(_) => None,
            })
            .collect()
    }

    /// The plugins loaded, in order.
    pub fn plugins(&self) -> Vec<&LoadedPlugin> {
        self.entries
            .iter()
            .filter_map(|e| match e {
                Entry::Loaded(p) => Some(p.as_ref()),
                Entry::Unloaded(..) => None,
            })
            .collect()
    }

    /// What each plugin used since it was loaded, in the order named.
    pub fn usage(&self) -> &[Usage] {
        &self.lifetime
    }

    /// Calls plugin `p` through `call` in its sandbox: its answer, or how
    /// it failed.
    fn call(
        &mut self,
        p: usize,
        hook: Hook,
        items: usize,
        call: impl FnOnce(&mut Live) -> wasmtime::Result<crate::plugin_wit::types::Answers>,
    ) -> Reply {
        let Some(Entry::Loaded(plugin)) = self.entries.get(p) else {
            return failed(FailureKind::Load, "was not loaded".into());
        };
        let round = &mut self.round[p];
        if let Instance::Absent = round.instance {
            match plugin.instantiate(&self.sandbox) {
                Ok(live) => round.instance = Instance::Live(Box::new(live)),
                Err(cause) => {
                    round.instance = Instance::Failed;
                    return failed(FailureKind::Load, cause);
                }
            }
        }
        let Instance::Live(live) = &mut round.instance else {
            return failed(FailureKind::Load, "failed earlier in this reconcile".into());
        };
        let limits = plugin.limits;
        let Some(deadline) = Deadline::of_call(limits, round.usage.total_time()) else {
            round.instance = Instance::Failed;
            return failed(FailureKind::Deadline, sandbox::out_of_time(limits));
        };
        // Fuel is a budget per item asked about: a call about a whole group
        // may do for each slot what a call about one slot may, as 0.1
        // plugins, called once per slot, always could.
        let budget = limits.fuel.saturating_mul(items.max(1) as u64);
        Sandbox::arm(&mut live.store, budget, deadline);
        let started = Instant::now();
        let outcome = call(live);
        let time = started.elapsed();
        let fuel = budget - live.store.get_fuel().unwrap_or(0);
        let peak = live.store.data().peak_memory();
        let logs = live.store.data_mut().take_logs();
        round.usage.record(hook, items, fuel, time, peak);
        let outcome = outcome.map_err(|e| {
            // A trapped instance cannot be entered again.
            round.instance = Instance::Failed;
            let mut failure = sandbox::failure(&e, limits, deadline);
            if failure.kind == FailureKind::Fuel {
                failure.message = sandbox::out_of_fuel(limits, items);
            }
            failure
        });
        Reply {
            outcome,
            logs,
            usage: Some(Used {
                fuel,
                memory: peak as u64,
            }),
        }
    }
}

impl Relay for PluginSet {
    fn consulted(&self) -> Vec<Consulted> {
        self.entries
            .iter()
            .map(|e| match e {
                Entry::Loaded(p) => Consulted {
                    name: p.name.clone(),
                    version: p.metadata.version.clone(),
                    hooks: p.metadata.hooks.clone(),
                    reads: p.reads(),
                    mode: if p.monitor {
                        Mode::Monitor
                    } else {
                        Mode::Enforce
                    },
                    fail_open: p.fail_open,
                    unloaded: None,
                },
                Entry::Unloaded(unloaded) => {
                    let (error, config) = unloaded.as_ref();
                    Consulted {
                        name: config.name.clone().unwrap_or_else(|| error.plugin.clone()),
                        version: error.version.clone().unwrap_or_default(),
                        hooks: Vec::new(),
                        reads: since_v0_1_0::every_part(),
                        mode: if config.monitor {
                            Mode::Monitor
                        } else {
                            Mode::Enforce
                        },
                        fail_open: config.fail_open,
                        unloaded: Some(error.cause.clone()),
                    }
                }
            })
            .collect()
    }

    fn begin(&mut self) {
        self.round = self.entries.iter().map(|_| Round::default()).collect();
    }

    fn answer(&mut self, question: &Question, batch: &Batch) -> Reply {
        let p = question.plugin as usize;
        if self.round.len() != self.entries.len() {
            self.begin();
        }
        let kept = &question.kept;
        self.call(
            p,
            question.hook,
            question.items as usize,
            |live| match &live.bound {
                Bound::Current(guest) => guest.call_answer(&mut live.store, batch, kept),
                Bound::V1(hooks) => hooks.answer(&mut live.store, batch, kept),
            },
        )
    }

    fn end(&mut self) {
        for (total, round) in self
            .lifetime
            .iter_mut()
            .zip(std::mem::take(&mut self.round))
        {
            total.add(&round.usage);
        }
    }
}

/// A reply with no answers.
fn failed(kind: FailureKind, message: String) -> Reply {
    Reply {
        outcome: Err(Failure { kind, message }),
        logs: Vec::new(),
        usage: None,
    }
}
