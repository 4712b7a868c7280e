//! What `slotwise input` prints reads back as the same input: for every scenario under `tests/` and `docs/examples/`.

use slotwise_cli::conformance;
use slotwise_scenario::{parse, Syntax};
use std::path::PathBuf;

#[test]
fn the_printed_input_of_every_scenario_reads_back_as_the_same_input() {
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("..");
    let dirs = [root.join("tests"), root.join("docs/examples")];
    let files = conformance::files(&dirs).expect("the scenario folders");
    let mut checked = 0;
    for path in files {
        // Bad input, and files of other kinds (package.json), have no input.
        let Ok(scenario) = conformance::load(&path) else {
            continue;
        };
        let printed = serde_json::to_string_pretty(&scenario.input).expect("an input prints");
        let again = parse(&printed, Syntax::Json).unwrap_or_else(|e| {
            panic!(
                "{}: the printed input does not read back: {e}",
                path.display()
            )
        });
        assert!(
            again.input == scenario.input,
            "{}: the printed input reads back as another input",
            path.display()
        );
        checked += 1;
    }
    assert!(checked > 300, "only {checked} scenarios were found");
}
