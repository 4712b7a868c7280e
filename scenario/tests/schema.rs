//! The JSON Schema in `docs/` is the one the scenario types describe.

#[test]
fn the_documented_schema_matches_the_scenario_format() {
    let path =
        std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../docs/scenario.schema.json");
    let documented: serde_json::Value = serde_json::from_str(
        &std::fs::read_to_string(&path).expect("docs/scenario.schema.json exists"),
    )
    .expect("the documented schema is JSON");
    assert!(
        documented == slotwise_scenario::schema(),
        "docs/scenario.schema.json is stale: regenerate it with `target/debug/slotwise schema > docs/scenario.schema.json`"
    );
}
