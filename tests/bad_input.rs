//! Bad input gets a clear error naming the file and the field, never a panic.

use slotwise_cli::conformance;
use std::path::PathBuf;

fn file(name: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("bad-input")
        .join(name)
}

/// The error loading the bad scenario `name`, as the command prints it.
fn load_error(name: &str) -> String {
    match conformance::load(&file(name)) {
        Ok(_) => panic!("{name} loaded, but it is bad input"),
        Err(e) => format!("{e:#}"),
    }
}

/// The error the reconciler gives for the scenario `name`, which loads.
fn reconcile_error(name: &str) -> String {
    let scenario = conformance::load(&file(name)).expect("the scenario itself is well-formed");
    match slotwise_reconciler::reconcile(&scenario.input) {
        Ok(_) => panic!("{name} reconciled, but it is bad input"),
        Err(e) => format!("{}: {}", e.field, e.message),
    }
}

/// The names of the types the scenario format is read into: none may reach a user.
const TYPE_NAMES: [&str; 12] = [
    "untagged",
    "struct ",
    "enum ",
    "File`",
    "File ",
    "Indexes",
    "Entries",
    "EntryExpect",
    "ReconcileInput",
    "DuplicateKeyPolicy",
    "Options",
    "budget breached",
];

fn assert_in_the_files_words(message: &str) {
    for name in TYPE_NAMES {
        assert!(
            !message.contains(name),
            "`{name}` reaches the user in: {message}"
        );
    }
}

fn assert_contains(message: &str, parts: &[&str]) {
    for part in parts {
        assert!(message.contains(part), "`{part}` missing from: {message}");
    }
}

#[test]
fn an_unknown_field_is_named_with_its_file_and_path() {
    let e = load_error("unknown-field.yaml");
    assert_contains(
        &e,
        &[
            "unknown-field.yaml",
            "allocations.web[1]",
            "unknown field `clent`",
            "expected one of",
        ],
    );
}

#[test]
fn a_field_of_the_wrong_type_is_named_with_its_path() {
    let e = load_error("wrong-type.yaml");
    assert_contains(
        &e,
        &[
            "wrong-type.yaml",
            "job.groups[0].count",
            "`ten` is not a whole number",
            "line 3, column 14",
        ],
    );
}

#[test]
fn a_negative_count_is_refused() {
    let e = load_error("negative-count.yaml");
    assert_contains(&e, &["negative-count.yaml", "job.groups[0].count", "-3"]);
}

#[test]
fn an_absurd_count_is_refused_before_anything_is_built() {
    let e = load_error("absurd-count.yaml");
    assert_contains(
        &e,
        &[
            "job.groups[0].count",
            "add up to 5000000",
            "the limit is 1000000",
        ],
    );
}

#[test]
fn duplicate_allocation_ids_are_refused_naming_both() {
    let e = reconcile_error("duplicate-ids.yaml");
    assert_contains(
        &e,
        &[
            "allocations[0].allocations[1].spec.id",
            "`a1` is also the id of allocations[0].allocations[0]",
        ],
    );
}

#[test]
fn a_deployment_for_another_job_is_refused() {
    let e = reconcile_error("foreign-deployment.yaml");
    assert_contains(
        &e,
        &[
            "deployment.job-id",
            "the deployment is for job `other`, not `mock-job`",
        ],
    );
}

#[test]
fn malformed_yaml_is_reported_with_its_line() {
    let e = load_error("malformed.yaml");
    assert_contains(&e, &["malformed.yaml", "line 4"]);
}

#[test]
fn malformed_json_is_reported_with_its_line() {
    let e = load_error("malformed.json");
    assert_contains(&e, &["malformed.json", "line 3"]);
}

#[test]
fn an_allocation_on_an_unlisted_node_is_refused() {
    let e = load_error("unknown-node.yaml");
    assert_contains(&e, &["allocations.web[0].node", "no node `n9` in `nodes`"]);
}

#[test]
fn a_range_that_runs_backwards_is_refused() {
    let e = load_error("backwards-range.yaml");
    assert_contains(&e, &["allocations.web[0].index", "`5-2` runs backwards"]);
}

#[test]
fn a_missing_file_is_named() {
    let e = load_error("does-not-exist.yaml");
    assert_contains(&e, &["cannot read", "does-not-exist.yaml"]);
}

#[test]
fn an_update_of_neither_form_says_which_forms_are_accepted() {
    let e = load_error("update-of-neither-form.yaml");
    assert_contains(
        &e,
        &[
            "job.groups[0].update",
            "an update preset (`canary` or `rolling`) or a strategy",
        ],
    );
    assert_in_the_files_words(&e);
}

#[test]
fn an_allocation_that_is_not_a_map_is_said_to_need_one() {
    let e = load_error("allocation-not-a-map.yaml");
    assert_contains(&e, &["allocations.web[0]", "expected a map", "line 3"]);
    assert_in_the_files_words(&e);
}

#[test]
fn an_index_of_neither_form_says_what_an_index_is() {
    let e = load_error("index-of-neither-form.yaml");
    assert_contains(
        &e,
        &[
            "allocations.web[0].index",
            "a slot index (like 3) or a range of slots",
        ],
    );
    assert_in_the_files_words(&e);
}

#[test]
fn every_bad_input_message_is_in_the_files_words() {
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("bad-input");
    let mut names: Vec<_> = std::fs::read_dir(&dir)
        .expect("the bad-input folder")
        .map(|e| {
            e.expect("an entry")
                .file_name()
                .to_string_lossy()
                .into_owned()
        })
        .collect();
    names.sort();
    for name in names {
        if let Err(e) = conformance::load(&file(&name)) {
            assert_in_the_files_words(&format!("{e:#}"));
        }
    }
}

#[test]
fn a_duplicated_key_is_named_with_its_line_and_column() {
    let e = load_error("duplicate-key.yaml");
    assert_contains(
        &e,
        &["allocations", "duplicate key: web", "line 4, column 3"],
    );
    assert_in_the_files_words(&e);
}

#[test]
fn text_that_is_not_utf8_is_refused_at_its_line_and_column() {
    let e = load_error("not-utf8.yaml");
    assert_contains(&e, &["not-utf8.yaml", "line 1 column 17", "not UTF-8"]);
}

#[test]
fn an_empty_file_is_refused_as_an_empty_scenario() {
    for name in ["empty.yaml", "only-comments.yaml"] {
        let e = load_error(name);
        assert_contains(&e, &[name, "empty scenario"]);
    }
}

#[test]
fn a_misspelled_value_gets_a_suggestion() {
    let e = load_error("misspelled-variant.yaml");
    assert_contains(
        &e,
        &[
            "allocations.web[0].client",
            "unknown variant `runing`",
            "(did you mean `running`?)",
        ],
    );
}

#[test]
fn a_misspelled_field_gets_a_suggestion() {
    let e = load_error("unknown-field.yaml");
    assert_contains(&e, &["(did you mean `client`?)"]);
}

#[test]
fn a_full_input_beside_compact_fields_is_refused() {
    let e = load_error("input-beside-compact-fields.yaml");
    assert_contains(
        &e,
        &["now: a scenario gives a full `input` or the compact fields, not both"],
    );
}

#[test]
fn nesting_deeper_than_the_limit_is_refused() {
    let e = load_error("deep-nesting.yaml");
    assert_contains(
        &e,
        &[
            "plugins[0].settings",
            "nested 65 levels deep; the limit is 64",
        ],
    );
    assert_in_the_files_words(&e);
}

#[test]
fn an_alias_bomb_is_refused() {
    let e = load_error("alias-bomb.yaml");
    assert_contains(&e, &["aliases stand for more than 100000 values in all"]);
    assert_in_the_files_words(&e);
}

#[test]
fn a_bare_input_with_a_misspelled_field_is_refused_naming_it() {
    let e = load_error("bare-input-with-a-misspelled-field.json");
    assert_contains(&e, &["nodes[0]", "unknown field `drainng`"]);
    assert_in_the_files_words(&e);
}

#[test]
fn a_bare_input_whose_counts_add_up_past_the_limit_is_refused_before_planning() {
    let e = reconcile_error("bare-input-whose-counts-add-up-past-the-limit.json");
    assert_contains(
        &e,
        &[
            "job.groups[1].count",
            "the groups' counts add up to 1200000 here; the limit is 1000000 over all groups",
        ],
    );
}

#[test]
fn canaries_beyond_the_limit_are_refused_before_planning() {
    let e = reconcile_error("canaries-beyond-the-limit.yaml");
    assert_contains(
        &e,
        &[
            "job.groups[0].update.canary",
            "the groups' counts and canaries add up to 268435460 here; the limit is 1000000 over all groups",
        ],
    );
}
