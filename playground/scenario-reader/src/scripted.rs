//! A scenario's scripted policy answering a session's questions through the scenario crate's scripted relay, as `slotwise reconcile` answers them for the same scenario.

use crate::reading::syntax_of;
use crate::Syntax;
use slotwise_reconciler::plugin::{Batch, Hook};
use slotwise_reconciler::{Question, Relay};

/// The reply of scripted plugin `plugin` of the scenario `text` to `batch`,
/// the JSON of a plugin `batch`; the reply is the JSON of a session `reply`.
///
/// # Errors
/// When the scenario cannot be read or scripts no policy, or the batch is
/// not one.
pub fn scripted_reply(
    text: &str,
    syntax: Syntax,
    plugin: u32,
    batch: &str,
) -> Result<String, String> {
    let scenario = slotwise_scenario::parse(text, syntax_of(syntax)).map_err(|e| e.to_string())?;
    let mut relay = scenario
        .policy
        .ok_or_else(|| "the scenario scripts no policy".to_string())?;
    let batch: Batch = serde_json::from_str(batch).map_err(|e| format!("not a batch: {e}"))?;
    // A script reads the batch alone: the question's other fields are the
    // session's accounts.
    let question = Question {
        plugin,
        hook: Hook::PreSlot,
        batch: None,
        items: 0,
        kept: Vec::new(),
    };
    let reply = relay.answer(&question, &batch);
    serde_json::to_string(&reply).map_err(|e| e.to_string())
}

#[cfg(test)]
mod tests {
    use super::*;

    const SCENARIO: &str = "policy:\n  name: keeper\n  pre-slot:\n    web/1: {hold: maintenance}\n";

    fn batch() -> String {
        let slot = |index: u32| {
            serde_json::json!({
                "key": {"index": index},
                "candidates": {"first": 0, "count": 0},
                "changes": {"first": 0, "count": 0}
            })
        };
        serde_json::json!({"pre-slot": {
            "now": 0,
            "groups": [{"name": "web", "count": 2, "slots": {"first": 0, "count": 2}}],
            "slots": [slot(0), slot(1)],
            "candidates": [], "changes": [], "nodes": [], "rules": [], "reasons": [],
            "packed": []
        }})
        .to_string()
    }

    #[test]
    fn a_script_holds_the_slot_it_names_and_lets_the_others_proceed() {
        let reply = scripted_reply(SCENARIO, Syntax::Yaml, 0, &batch()).unwrap();
        let reply: serde_json::Value = serde_json::from_str(&reply).unwrap();
        let answers = &reply["outcome"]["Ok"]["pre-slot"];
        assert_eq!(answers[0]["decision"], "proceed");
        assert_eq!(answers[1]["decision"]["hold"], "maintenance");
        assert_eq!(answers[1]["slot"], 1);
    }

    #[test]
    fn a_scenario_without_a_script_has_no_replies() {
        assert!(scripted_reply("now: now\n", Syntax::Yaml, 0, &batch()).is_err());
    }
}
