//! Plans and inputs render in JSON with the WIT's names: kebab-case fields and enum cases.

use slotwise_scenario::{parse, Syntax};

const ROUND: &str = include_str!("../../docs/examples/canary-rollout/round-4-promoted.yaml");

/// Every object key, and every string under a key whose values are enum cases.
fn check(value: &serde_json::Value, path: &str, bad: &mut Vec<String>) {
    const ENUM_KEYS: [&str; 8] = [
        "reason",
        "status",
        "kind",
        "client-status",
        "desired-status",
        "classification",
        "trigger",
        "reconcile",
    ];
    match value {
        serde_json::Value::Object(map) => {
            for (key, inner) in map {
                let kebab = !key.contains('_') && key.chars().all(|c| !c.is_ascii_uppercase());
                if !kebab {
                    bad.push(format!("{path}.{key}"));
                }
                if ENUM_KEYS.contains(&key.as_str()) {
                    if let Some(text) = inner.as_str() {
                        if !text.chars().all(|c| c.is_ascii_lowercase() || c == '-') {
                            bad.push(format!("{path}.{key} = {text}"));
                        }
                    }
                }
                check(inner, &format!("{path}.{key}"), bad);
            }
        }
        serde_json::Value::Array(items) => {
            for (i, item) in items.iter().enumerate() {
                check(item, &format!("{path}[{i}]"), bad);
            }
        }
        _ => {}
    }
}

#[test]
fn inputs_and_plans_render_with_the_wit_names() {
    let mut scenario = parse(ROUND, Syntax::Yaml).expect("a valid scenario");
    scenario.input.explain = true;
    let plan = slotwise_reconciler::reconcile(&scenario.input).expect("a plan");
    let mut bad = Vec::new();
    check(
        &serde_json::to_value(&scenario.input).expect("JSON"),
        "input",
        &mut bad,
    );
    check(
        &serde_json::to_value(&plan).expect("JSON"),
        "plan",
        &mut bad,
    );
    assert_eq!(
        bad,
        Vec::<String>::new(),
        "every contract type must be listed in guest-reconciler/src/wit.rs"
    );
}
