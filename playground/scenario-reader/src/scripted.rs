//! A scenario's scripted policy answering a session's questions, as `slotwise reconcile` answers them for the same scenario.

use crate::reading::syntax_of;
use crate::Syntax;
use slotwise_reconciler::{Hooks, Question, Replies};

/// The replies of the policy the scenario `text` scripts to `question`, the
/// JSON of a session `question`; the replies are the JSON of `replies`.
///
/// # Errors
/// When the scenario cannot be read or scripts no policy, or the question
/// is not one.
pub fn scripted_replies(text: &str, syntax: Syntax, question: &str) -> Result<String, String> {
    let scenario = slotwise_scenario::parse(text, syntax_of(syntax)).map_err(|e| e.to_string())?;
    let mut policy = scenario
        .policy
        .ok_or_else(|| "the scenario scripts no policy".to_string())?;
    let question: Question =
        serde_json::from_str(question).map_err(|e| format!("not a session question: {e}"))?;
    // A script always knows its answers: none of these is ever `None`.
    let replies = match question {
        Question::Promotion(requests) => policy.promotion(&requests).map(Replies::Promotion),
        Question::PreSlot(slots) => policy.pre_slot(&slots).map(Replies::PreSlot),
        Question::PostSlot(proposals) => policy.post_slot(&proposals).map(Replies::PostSlot),
    }
    .ok_or_else(|| "the script has no replies".to_string())?;
    serde_json::to_string(&replies).map_err(|e| e.to_string())
}

#[cfg(test)]
mod tests {
    use super::*;

    const SCENARIO: &str = "policy:\n  name: keeper\n  pre-slot:\n    web/1: {hold: maintenance}\n";

    fn slot(index: u32) -> serde_json::Value {
        serde_json::json!({
            "group": "web", "index": index, "count": 2, "candidates": [],
            "now": 0, "ext": null
        })
    }

    #[test]
    fn a_script_holds_the_slot_it_names_and_lets_the_others_proceed() {
        let question = serde_json::json!({"pre-slot": [slot(0), slot(1)]}).to_string();
        let replies = scripted_replies(SCENARIO, Syntax::Yaml, &question).unwrap();
        let replies: serde_json::Value = serde_json::from_str(&replies).unwrap();
        let per_slot = &replies["pre-slot"];
        assert_eq!(per_slot[0][0]["plugin"], "keeper");
        assert_eq!(per_slot[0][0]["answer"]["Ok"]["decision"], "proceed");
        assert_eq!(
            per_slot[1][0]["answer"]["Ok"]["decision"]["hold"],
            "maintenance"
        );
    }

    #[test]
    fn a_scenario_without_a_script_has_no_replies() {
        let question = serde_json::json!({"pre-slot": []}).to_string();
        assert!(scripted_replies("now: now\n", Syntax::Yaml, &question).is_err());
    }
}
