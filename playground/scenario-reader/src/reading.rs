//! Reading a scenario's text into the reconciler input and the plugins it names, with errors placed on a line.

use crate::location::{line_of_field, position_in_message};
use crate::{PluginEntry, ReadError, Scenario, Syntax};
use slotwise_scenario::{Mode, ScenarioError};

/// Reads the scenario `text`, written in `syntax`.
///
/// # Errors
/// When `slotwise input` would refuse the text: the error carries the same
/// message, and the line (and column) when the message or the field gives it.
pub fn read(text: &str, syntax: Syntax) -> Result<Scenario, ReadError> {
    let scenario = slotwise_scenario::parse(text, syntax_of(syntax)).map_err(|e| error(text, e))?;
    let input = serde_json::to_string_pretty(&scenario.input).map_err(|e| ReadError {
        message: format!("the input cannot be written as JSON: {e}"),
        field: None,
        line: None,
        column: None,
    })?;
    let scripted = match &scenario.policy {
        Some(policy) => {
            let consulted = policy.consulted();
            Some(serde_json::to_string(&consulted).unwrap_or_default())
        }
        None => None,
    };
    Ok(Scenario {
        description: scenario.description,
        input,
        plugins: scenario.plugins.iter().map(plugin_entry).collect(),
        scripted,
    })
}

pub(crate) fn syntax_of(syntax: Syntax) -> slotwise_scenario::Syntax {
    match syntax {
        Syntax::Yaml => slotwise_scenario::Syntax::Yaml,
        Syntax::Json => slotwise_scenario::Syntax::Json,
    }
}

fn plugin_entry(entry: &slotwise_scenario::PluginEntry) -> PluginEntry {
    PluginEntry {
        plugin: entry.plugin.clone(),
        path: entry.path.as_ref().map(|p| p.display().to_string()),
        name: entry.name.clone(),
        sha256: entry.sha256.clone(),
        settings: entry.settings.to_string(),
        monitor: entry.mode == Mode::Monitor,
        fail_open: entry.fails_open(),
        deadline: entry.limits.deadline.map(|d| d.0),
        reconcile_deadline: entry.limits.reconcile_deadline.map(|d| d.0),
    }
}

fn error(text: &str, e: ScenarioError) -> ReadError {
    match e {
        ScenarioError::Format(message) => {
            let (line, column) = position_in_message(&message).unzip();
            ReadError {
                field: None,
                line,
                column,
                message,
            }
        }
        ScenarioError::Invalid { field, message } => ReadError {
            line: line_of_field(text, &field),
            column: None,
            message: format!("{field}: {message}"),
            field: Some(field),
        },
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_scenario_reads_into_the_input_slotwise_input_prints() {
        let scenario = read("allocations:\n  web:\n    - index: 0-4\n", Syntax::Yaml).unwrap();
        let input: serde_json::Value = serde_json::from_str(&scenario.input).unwrap();
        assert_eq!(input["job-id"], "mock-job");
        assert_eq!(
            input["allocations"][0]["allocations"]
                .as_array()
                .unwrap()
                .len(),
            5
        );
        assert!(scenario.plugins.is_empty());
        assert_eq!(scenario.scripted, None);
    }

    #[test]
    fn an_unknown_field_is_reported_at_its_line() {
        let e = read(
            "job:\n  id: a\nallocations:\n  web:\n    - {index: 0, colour: red}\n",
            Syntax::Yaml,
        )
        .unwrap_err();
        assert_eq!(e.line, Some(5), "{}", e.message);
        assert!(e.message.contains("colour"), "{}", e.message);
    }

    #[test]
    fn an_inconsistent_field_is_placed_on_the_line_that_sets_it() {
        let text = "nodes:\n  - {id: n1}\nallocations:\n  web:\n    - {index: 0, node: n1}\n    - {index: 1, node: n9}\n";
        let e = read(text, Syntax::Yaml).unwrap_err();
        assert_eq!(e.field.as_deref(), Some("allocations.web[1].node"));
        assert_eq!(e.line, Some(6));
    }

    #[test]
    fn a_json_syntax_error_is_reported_at_its_line() {
        let e = read("{\n  \"now\": \n}", Syntax::Json).unwrap_err();
        assert_eq!(e.line, Some(3), "{}", e.message);
    }

    #[test]
    fn plugins_are_listed_with_their_settings_and_handling() {
        let text = "plugins:\n  - plugin: probe\n    settings: {limit: 2}\n    on-error: fail-open\n    mode: monitor\n    limits: {deadline: 50ms, reconcile-deadline: 2s}\n";
        let scenario = read(text, Syntax::Yaml).unwrap();
        let entry = &scenario.plugins[0];
        assert_eq!(entry.plugin.as_deref(), Some("probe"));
        assert_eq!(entry.settings, r#"{"limit":2}"#);
        assert!(entry.fail_open && entry.monitor);
        assert_eq!(entry.deadline, Some(50_000_000));
        assert_eq!(entry.reconcile_deadline, Some(2_000_000_000));
    }

    #[test]
    fn a_monitoring_plugin_counts_as_failing_open() {
        let text = "plugins:\n  - plugin: probe\n    mode: monitor\n";
        let scenario = read(text, Syntax::Yaml).unwrap();
        assert!(scenario.plugins[0].fail_open);
    }
}
