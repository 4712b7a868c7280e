//! Scenario files: the state of a job at one instant, written compactly in YAML or JSON, with the plan expected of it.
//!
//! Defaults follow Nomad's test fixtures, so that a conformance case reads in
//! a few lines; `docs/scenarios.md` describes the format and
//! `docs/scenario.schema.json` is its JSON Schema.
//!
//! ---
#![doc = include_str!("../README.md")]

mod declared;
mod document;
mod error;
mod expect;
mod file;
mod forms;
mod input;
pub mod limits;
mod node_list;
mod plugin_types;
mod plugins;
mod policy;
mod policy_expect;
mod reading;
mod script_slots;
mod scripted_relay;
mod system;
mod time;
mod wit_name;
pub mod wording;

pub use error::ScenarioError;
pub use expect::{Expectation, Failure};
pub use file::ScenarioFile;
pub use file::{NodePick, SystemFile};
pub use input::DEFAULT_NOW;
pub use plugins::{
    fails_open, parse_size, ByteSize, LimitsFile, Mode, OnError, PluginEntry, PluginsFile,
};
pub use policy::PolicyFile;
pub use reading::Syntax;
pub use scripted_relay::{packed, ScriptedRelay};
pub use time::{from_now, parse_duration, rfc3339, Duration};
pub use wit_name::wit_name;

use slotwise_reconciler::ReconcileInput;

/// A scenario, ready to run.
pub struct Scenario {
    /// What it shows.
    pub description: Option<String>,
    /// The Nomad test it reproduces.
    pub nomad: Option<String>,
    /// The reconciler's input.
    pub input: ReconcileInput,
    /// The scripted policy, if the scenario gives one.
    pub policy: Option<ScriptedRelay>,
    /// The policy plugins to consult, in order.
    pub plugins: Vec<PluginEntry>,
    /// The plan expected, if any.
    pub expect: Option<Expectation>,
}

/// Reads a scenario from its text: a scenario file (compact fields or a
/// full `input`), or a bare reconciler input as `slotwise input` prints it.
///
/// # Errors
/// When the text is empty or malformed, has unknown or mistyped fields, or
/// describes an inconsistent input or one beyond the limits; the error names
/// the field.
pub fn parse(text: &str, syntax: Syntax) -> Result<Scenario, ScenarioError> {
    match document::read(text, syntax)? {
        document::Document::Scenario(file) => from_file(*file),
        document::Document::Input(input) => Ok(Scenario {
            description: None,
            nomad: None,
            input: *input,
            policy: None,
            plugins: Vec::new(),
            expect: None,
        }),
    }
}

/// Prepares a scenario already read.
///
/// # Errors
/// When it describes an inconsistent input.
pub fn from_file(mut file: ScenarioFile) -> Result<Scenario, ScenarioError> {
    let (input, now) = match file.input.take() {
        Some(input) => {
            document::check_raw(&file, &input)?;
            let now = input.now;
            (*input, now)
        }
        None => input::build(&file)?,
    };
    if file.policy.is_some() && !file.plugins.is_empty() {
        return Err(ScenarioError::Invalid {
            field: "policy".into(),
            message: "a scenario gives a scripted policy or plugins, not both".into(),
        });
    }
    let policy = match &file.policy {
        Some(p) => Some(ScriptedRelay::new(p, now)?),
        None => None,
    };
    let expect = file.expect.map(|file| Expectation {
        file,
        now,
        nodes: expect::Nodes::of(&input),
    });
    Ok(Scenario {
        description: file.description,
        nomad: file.nomad,
        input,
        policy,
        plugins: file.plugins,
        expect,
    })
}

/// The JSON Schema of scenario files.
pub fn schema() -> serde_json::Value {
    serde_json::to_value(schemars::schema_for!(ScenarioFile)).unwrap_or_default()
}

/// The JSON Schema of plugins files.
pub fn plugins_schema() -> serde_json::Value {
    serde_json::to_value(schemars::schema_for!(PluginsFile)).unwrap_or_default()
}

/// Reads a plugins file from its text.
///
/// # Errors
/// When the text is malformed or has unknown or mistyped fields; the error
/// names the field.
pub fn parse_plugins(text: &str, syntax: Syntax) -> Result<PluginsFile, ScenarioError> {
    reading::read(text, syntax)
}
