//! Running scenario files: natively and through the component, checking that both plans agree and meet the expectation.

use anyhow::{Context, Result};
use slotwise_host::component::{ComponentReconciler, HostError};
use slotwise_host::plugin_wit::types as host_types;
use slotwise_host::plugins::sandbox::{self, Limits};
use slotwise_host::plugins::{PluginConfig, PluginSet};
use slotwise_host::transcode::transcode;
use slotwise_host::wit;
use slotwise_host::Relay as HostRelay;
use slotwise_reconciler as core;
use slotwise_reconciler::Relay as _;
use slotwise_scenario::{Failure, Mode, OnError, PluginEntry, Scenario, ScriptedRelay};
use std::path::{Path, PathBuf};
use std::time::Duration;

/// Reads and prepares the scenario at `path`.
///
/// # Errors
/// When the file cannot be read or is not a valid scenario; the message names
/// the file and the field.
pub fn load(path: &Path) -> Result<Scenario> {
    let text = crate::source::read_text(path)?;
    slotwise_scenario::parse(&text, crate::source::syntax(path, &text))
        .with_context(|| path.display().to_string())
}

/// The scenario files under `paths`: files as given, directories searched
/// for `.yaml`, `.yml` and `.json` files, in name order. Unit-level cases
/// (`*.unit.yaml`) are left to the unit harnesses that read them.
///
/// # Errors
/// When a path does not exist or a directory cannot be read.
pub fn files(paths: &[PathBuf]) -> Result<Vec<PathBuf>> {
    let mut found = Vec::new();
    for path in paths {
        if path.is_dir() {
            collect(path, &mut found)?;
        } else if path.exists() {
            found.push(path.clone());
        } else {
            anyhow::bail!("{}: no such file or directory", path.display());
        }
    }
    Ok(found)
}

fn collect(dir: &Path, found: &mut Vec<PathBuf>) -> Result<()> {
    let mut entries: Vec<PathBuf> = std::fs::read_dir(dir)
        .with_context(|| format!("cannot read {}", dir.display()))?
        .map(|e| e.map(|e| e.path()))
        .collect::<std::io::Result<_>>()?;
    entries.sort();
    for path in entries {
        if path.is_dir() {
            collect(&path, found)?;
        } else if is_scenario(&path) {
            found.push(path);
        }
    }
    Ok(())
}

fn is_scenario(path: &Path) -> bool {
    let name = path
        .file_name()
        .and_then(|n| n.to_str())
        .unwrap_or_default();
    let scenario = name.ends_with(".yaml") || name.ends_with(".yml") || name.ends_with(".json");
    scenario && !name.ends_with(".unit.yaml")
}

/// How a run ended without a plan.
#[derive(Clone, Debug, PartialEq, serde::Serialize)]
pub enum RunFailure {
    /// The input was refused.
    Input(core::InputError),
    /// A policy failed, or the reconciler refused one of its rulings.
    Policy(String),
}

impl RunFailure {
    /// The failure as the expectation checker takes it.
    pub fn as_failure(&self) -> Failure<'_> {
        match self {
            RunFailure::Input(e) => Failure::Input(e),
            RunFailure::Policy(message) => Failure::Policy(message),
        }
    }
}

/// How running a scenario went.
pub struct Outcome {
    /// The native outcome.
    pub native: std::result::Result<core::Plan, RunFailure>,
    /// What is wrong, one line each; empty when all is well.
    pub failures: Vec<String>,
}

/// Where the reconciler's runs are and where they find plugins.
pub struct Runner<'a> {
    /// The component, when plans are to be compared with it.
    pub component: Option<&'a ComponentReconciler>,
    /// Where plugins shipped with slotwise are.
    pub shipped: &'a Path,
}

/// The policy a run consults.
pub enum Consulted<'s> {
    /// None: the reconciler decides alone.
    Nothing,
    /// A scenario's scripted policy, answered by its scripted relay.
    Scripted(&'s mut ScriptedRelay),
    /// Plugins.
    Plugins(Box<PluginSet>),
}

/// The host library's configuration of the plugins a plugins file lists.
pub fn plugin_configs(entries: &[PluginEntry]) -> Vec<PluginConfig> {
    entries
        .iter()
        .map(|e| {
            let nanos = |d: &slotwise_scenario::Duration| Duration::from_nanos(d.0.max(0) as u64);
            PluginConfig {
                path: e.path.clone(),
                plugin: e.plugin.clone(),
                name: e.name.clone(),
                sha256: e.sha256.clone(),
                settings: serde_json::to_string(&e.settings).unwrap_or_else(|_| "null".into()),
                fail_open: e.on_error == OnError::FailOpen,
                monitor: e.mode == Mode::Monitor,
                limits: Limits {
                    fuel: e.limits.fuel.unwrap_or(sandbox::DEFAULT_FUEL),
                    memory: e.limits.memory.map_or(sandbox::DEFAULT_MEMORY, |m| m.0),
                    deadline: e
                        .limits
                        .deadline
                        .as_ref()
                        .map_or(sandbox::DEFAULT_DEADLINE, nanos),
                    reconcile_deadline: e
                        .limits
                        .reconcile_deadline
                        .as_ref()
                        .map_or(sandbox::DEFAULT_RECONCILE_DEADLINE, nanos),
                },
            }
        })
        .collect()
}

/// A relay of the library's types used where the host's are taken: a
/// scripted relay driving the component's session.
struct LibraryRelay<'r>(&'r mut ScriptedRelay);

impl HostRelay for LibraryRelay<'_> {
    fn consulted(&self) -> Vec<wit::Consulted> {
        transcode(&self.0.consulted()).unwrap_or_default()
    }

    fn answer(&mut self, question: &wit::Question, batch: &host_types::Batch) -> wit::Reply {
        across(question, batch, |q, b| self.0.answer(q, b))
            .unwrap_or_else(|e| untranslatable(e.to_string()))
    }
}

/// A relay of the host's types used where the library's are taken: plugins
/// answering a session of the library run in this process.
struct HostRelayInLibrary<'r>(&'r mut dyn HostRelay);

impl core::Relay for HostRelayInLibrary<'_> {
    fn answer(&mut self, question: &core::Question, batch: &core::plugin::Batch) -> core::Reply {
        across(question, batch, |q, b| self.0.answer(q, b)).unwrap_or_else(|e| core::Reply {
            outcome: Err(core::Failure {
                kind: core::FailureKind::Load,
                message: e.to_string(),
            }),
            logs: Vec::new(),
            usage: None,
        })
    }
}

/// `relay`'s reply to `question` and `batch`, all three taken across from
/// one side's types (the library's, the host's) to the other's and back.
fn across<Q, B, R, Q2, B2, R2>(
    question: &Q,
    batch: &B,
    relay: impl FnOnce(&Q2, &B2) -> R2,
) -> std::result::Result<R, slotwise_host::transcode::TranscodeError>
where
    Q: serde::Serialize,
    B: serde::Serialize,
    R: serde::de::DeserializeOwned,
    Q2: serde::de::DeserializeOwned,
    B2: serde::de::DeserializeOwned,
    R2: serde::Serialize,
{
    let question: Q2 = transcode(question)?;
    let batch: B2 = transcode(batch)?;
    transcode(&relay(&question, &batch))
}

fn untranslatable(message: String) -> wit::Reply {
    wit::Reply {
        outcome: Err(wit::Failure {
            kind: wit::FailureKind::Load,
            message,
        }),
        logs: Vec::new(),
        usage: None,
    }
}

impl<'s> Consulted<'s> {
    /// What `scenario`, read from `path`, says to consult: its plugins, found
    /// from the scenario's directory and `shipped`, or its scripted policy.
    ///
    /// # Errors
    /// The failure, when a plugin cannot be loaded.
    pub fn of(
        scenario: &'s mut Scenario,
        path: &Path,
        shipped: &Path,
    ) -> std::result::Result<(&'s core::ReconcileInput, Self), RunFailure> {
        let consulted = if !scenario.plugins.is_empty() {
            let base = path.parent().unwrap_or(Path::new("."));
            let set = PluginSet::load(&plugin_configs(&scenario.plugins), base, shipped)
                .map_err(|e| RunFailure::Policy(e.to_string()))?;
            Consulted::Plugins(Box::new(set))
        } else if let Some(scripted) = &mut scenario.policy {
            Consulted::Scripted(scripted)
        } else {
            Consulted::Nothing
        };
        Ok((&scenario.input, consulted))
    }
}

/// Reconciles `input` once, consulting `consulted`: through `component` when
/// given, else with the library in this process.
///
/// # Errors
/// When the component traps or cannot be called. Failures of the policy are
/// outcomes, not errors.
pub fn reconcile_once(
    input: &core::ReconcileInput,
    consulted: &mut Consulted,
    component: Option<&ComponentReconciler>,
) -> Result<std::result::Result<core::Plan, RunFailure>> {
    match (consulted, component) {
        (Consulted::Nothing, None) => Ok(core::reconcile(input).map_err(RunFailure::Input)),
        (Consulted::Nothing, Some(c)) => Ok(c.reconcile_core(input)?.map_err(RunFailure::Input)),
        (Consulted::Scripted(s), None) => {
            let plugins = s.consulted();
            Ok(from_library(core::reconcile_with(
                input.clone(),
                plugins,
                *s,
            )))
        }
        (Consulted::Scripted(s), Some(c)) => {
            settle(c.reconcile_core_with(input, &mut LibraryRelay(s)))
        }
        (Consulted::Plugins(set), None) => {
            let plugins = transcode(&set.consulted())?;
            set.begin();
            let outcome = core::reconcile_with(
                input.clone(),
                plugins,
                &mut HostRelayInLibrary(set.as_mut()),
            );
            set.end();
            Ok(from_library(outcome))
        }
        (Consulted::Plugins(set), Some(c)) => settle(c.reconcile_core_with(input, set.as_mut())),
    }
}

/// As [`reconcile_once`] through `component`, with the input and the plan
/// crossing typed, field by field (`reconcile`, or a session's `open` and
/// `next`), where hosts use the encoded exports by default: what tests
/// compare the default with.
///
/// # Errors
/// As [`reconcile_once`].
pub fn reconcile_typed(
    input: &core::ReconcileInput,
    consulted: &mut Consulted,
    component: &ComponentReconciler,
) -> Result<std::result::Result<core::Plan, RunFailure>> {
    match consulted {
        Consulted::Nothing => settle(component.reconcile_core_typed(input)),
        Consulted::Scripted(s) => {
            settle(component.reconcile_core_with_typed(input, &mut LibraryRelay(s)))
        }
        Consulted::Plugins(set) => settle(component.reconcile_core_with_typed(input, set.as_mut())),
    }
}

impl Runner<'_> {
    /// Runs `scenario`, read from `path`, natively and, when given, through
    /// the component, consulting its scripted policy or plugins; the two
    /// outcomes must be identical and meet the scenario's expectation.
    ///
    /// # Errors
    /// When the component itself fails (traps, cannot be called).
    pub fn run(&self, scenario: &mut Scenario, path: &Path) -> Result<Outcome> {
        let expect = scenario.expect.take();
        let (native, through) = match Consulted::of(scenario, path, self.shipped) {
            Err(failure) => (Err(failure), None),
            Ok((input, mut consulted)) => {
                let native = reconcile_once(input, &mut consulted, None)?;
                let through = match self.component {
                    Some(c) => Some(reconcile_once(input, &mut consulted, Some(c))?),
                    None => None,
                };
                (native, through)
            }
        };
        scenario.expect = expect;
        Ok(judge(scenario, native, through))
    }
}

fn judge(
    scenario: &Scenario,
    native: std::result::Result<core::Plan, RunFailure>,
    through: Option<std::result::Result<core::Plan, RunFailure>>,
) -> Outcome {
    let mut failures = Vec::new();
    if let Some(through) = through {
        if through != native {
            failures.push(format!(
                "the component's outcome differs from the native one: {}",
                first_difference(&native, &through)
            ));
        }
    }
    if let Some(expect) = &scenario.expect {
        failures.extend(expect.check(native.as_ref().map_err(RunFailure::as_failure)));
    }
    Outcome { native, failures }
}

/// A library run's end, as a run's outcome.
fn from_library(
    outcome: std::result::Result<core::Plan, core::Refusal>,
) -> std::result::Result<core::Plan, RunFailure> {
    match outcome {
        Ok(plan) => Ok(plan),
        Err(core::Refusal::Input(e)) => Err(RunFailure::Input(e)),
        Err(core::Refusal::Session(e)) => Err(RunFailure::Policy(match transcode(&e) {
            Ok(e) => HostError::Session(Box::new(e)).to_string(),
            Err(t) => t.to_string(),
        })),
    }
}

/// A host run's end, as a run's outcome: policy failures are outcomes a
/// scenario may expect; a component that traps or fails is an error.
fn settle(
    run: std::result::Result<std::result::Result<core::Plan, core::InputError>, HostError>,
) -> Result<std::result::Result<core::Plan, RunFailure>> {
    match run {
        Ok(outcome) => Ok(outcome.map_err(RunFailure::Input)),
        Err(e @ HostError::Session(_)) => Ok(Err(RunFailure::Policy(e.to_string()))),
        Err(e) => Err(e.into()),
    }
}

/// Where two outcomes first differ, as a JSON path.
fn first_difference<T: serde::Serialize>(a: &T, b: &T) -> String {
    fn walk(a: &serde_json::Value, b: &serde_json::Value, path: &mut String) -> Option<String> {
        use serde_json::Value;
        match (a, b) {
            (Value::Object(x), Value::Object(y)) => x.iter().find_map(|(k, v)| {
                let len = path.len();
                path.push_str(&format!(".{k}"));
                let found = walk(v, y.get(k).unwrap_or(&Value::Null), path);
                path.truncate(len);
                found
            }),
            (Value::Array(x), Value::Array(y)) if x.len() == y.len() => {
                x.iter().zip(y).enumerate().find_map(|(i, (v, w))| {
                    let len = path.len();
                    path.push_str(&format!("[{i}]"));
                    let found = walk(v, w, path);
                    path.truncate(len);
                    found
                })
            }
            _ if a == b => None,
            _ => Some(format!("{path}: {a} vs {b}")),
        }
    }
    let (a, b) = (serde_json::to_value(a), serde_json::to_value(b));
    match (a, b) {
        (Ok(a), Ok(b)) => {
            walk(&a, &b, &mut String::from("plan")).unwrap_or_else(|| "unknown".into())
        }
        _ => "plans cannot be compared".into(),
    }
}
