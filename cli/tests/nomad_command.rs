//! `slotwise nomad` end to end: plans of the saved fixtures, a planted difference found by `compare`, the whole cluster, and the token kept out of output and saved files.

use slotwise_nomad::stand_in::{Fault, Fixtures, Options, StandIn};
use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use std::sync::Arc;

const TOKEN: &str = "9d4e2b17-55aa-4c1e-b0f3-very-secret";

fn fixture(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../tests/nomad")
        .join(name)
}

/// The fixtures and the job each holds.
const FIXTURES: [(&str, &str); 6] = [
    ("canary-rollout", "shop-api"),
    ("batch-failed", "nightly-report"),
    ("node-down", "payments"),
    ("node-draining", "edge-proxy"),
    ("disconnected-client", "cache"),
    ("three-versions", "storefront"),
];

/// `slotwise` with `args`, with no Nomad setting from the environment
/// unless `env` gives it.
fn slotwise(args: &[&str], env: &[(&str, &str)]) -> Output {
    let mut command = Command::new(env!("CARGO_BIN_EXE_slotwise"));
    for name in [
        "NOMAD_ADDR",
        "NOMAD_TOKEN",
        "NOMAD_NAMESPACE",
        "NOMAD_REGION",
        "NOMAD_CACERT",
        "NOMAD_CLIENT_CERT",
        "NOMAD_CLIENT_KEY",
        "NOMAD_SKIP_VERIFY",
    ] {
        command.env_remove(name);
    }
    command.args(args).envs(env.iter().copied());
    command.output().expect("slotwise runs")
}

fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

/// The cells of a table row, trimmed.
fn cells(line: &str) -> Vec<String> {
    line.trim_matches('│')
        .split('┆')
        .map(|c| c.trim().to_string())
        .collect()
}

#[test]
fn plan_from_each_fixture_prints_the_expected_plan() {
    for (name, job) in FIXTURES {
        let dir = fixture(name);
        let out = slotwise(
            &[
                "nomad",
                "plan",
                "--native",
                "--from",
                &dir.display().to_string(),
                job,
            ],
            &[],
        );
        assert!(out.status.success(), "{name}: {}", text(&out.stderr));
        let expected = std::fs::read_to_string(dir.join("expected-plan.txt")).expect("expected");
        assert_eq!(text(&out.stdout), expected, "{name}");
    }
}

#[test]
fn plan_through_the_component_is_the_native_plan() {
    let dir = fixture("canary-rollout");
    let out = slotwise(
        &[
            "nomad",
            "plan",
            "--from",
            &dir.display().to_string(),
            "shop-api",
        ],
        &[],
    );
    assert!(out.status.success(), "{}", text(&out.stderr));
    let expected = std::fs::read_to_string(dir.join("expected-plan.txt")).expect("expected");
    assert_eq!(text(&out.stdout), expected);
}

#[test]
fn compare_agrees_with_nomad_on_every_fixture() {
    for (name, job) in FIXTURES {
        let dir = fixture(name).display().to_string();
        let out = slotwise(&["nomad", "compare", "--native", "--from", &dir, job], &[]);
        assert!(out.status.success(), "{name}: {}", text(&out.stdout));
        assert!(text(&out.stdout).contains("slotwise and Nomad agree on every counter."));
    }
}

#[test]
fn compare_finds_a_planted_difference_and_exits_non_zero() {
    // Nomad's answer, with one destructive update fewer and one more ignored.
    let planted =
        std::fs::read_to_string(fixture("three-versions").join("v1/job/storefront/plan.json"))
            .expect("the plan fixture")
            .replace("\"DestructiveUpdate\": 1", "\"DestructiveUpdate\": 0")
            .replace("\"Ignore\": 1", "\"Ignore\": 2");
    let server = StandIn::start(
        Arc::new(Fixtures(fixture("three-versions"))),
        Options {
            faults: vec![("/plan".into(), Fault::Body(planted.into_bytes()))],
            ..Options::default()
        },
    )
    .expect("the stand-in starts");
    let out = slotwise(
        &[
            "nomad",
            "compare",
            "--native",
            "--now",
            "2026-03-01T12:00:00Z",
            "--address",
            &server.address(),
            "storefront",
        ],
        &[],
    );
    assert_eq!(out.status.code(), Some(1), "{}", text(&out.stderr));
    let stdout = text(&out.stdout);
    let marked: Vec<&str> = stdout
        .lines()
        .filter(|l| l.starts_with('│') && l.contains('≠'))
        .collect();
    assert_eq!(marked.len(), 2, "{stdout}");
    assert_eq!(
        cells(marked[0]),
        ["web", "Ignore", "1", "2", "≠"],
        "{stdout}"
    );
    assert_eq!(
        cells(marked[1]),
        ["web", "DestructiveUpdate", "1", "0", "≠"],
        "{stdout}"
    );
    assert!(stdout.contains("slotwise and Nomad differ"));
}

#[test]
fn plan_all_ends_with_a_summary_table() {
    let server = StandIn::start(Arc::new(Fixtures(fixture("node-down"))), Options::default())
        .expect("the stand-in starts");
    let out = slotwise(
        &[
            "nomad",
            "plan",
            "--all",
            "--native",
            "--now",
            "2026-03-01T12:00:00Z",
            "--address",
            &server.address(),
        ],
        &[],
    );
    assert!(out.status.success(), "{}", text(&out.stderr));
    let stdout = text(&out.stdout);
    let row = |name: &str| {
        stdout
            .lines()
            .map(cells)
            .find(|c| c[0] == name)
            .map(|c| c[1].clone())
    };
    assert_eq!(row("jobs").as_deref(), Some("1"), "{stdout}");
    assert_eq!(row("allocations").as_deref(), Some("3"), "{stdout}");
    assert_eq!(row("place").as_deref(), Some("1"), "{stdout}");
    assert_eq!(row("stop").as_deref(), Some("1"), "{stdout}");
    assert_eq!(row("errors").as_deref(), Some("0"), "{stdout}");
}

#[test]
fn plan_all_lists_a_failed_job_and_exits_non_zero() {
    let dir = fixture("unknown-group").display().to_string();
    let out = slotwise(&["nomad", "plan", "--all", "--native", "--from", &dir], &[]);
    assert_eq!(out.status.code(), Some(1));
    let stdout = text(&out.stdout);
    assert!(
        stdout.contains("error: default/payments: GET /v1/job/payments/allocations: [2]"),
        "{stdout}"
    );
}

#[test]
fn a_refused_token_is_named_by_endpoint_and_never_printed() {
    let server = StandIn::start(
        Arc::new(Fixtures(fixture("node-down"))),
        Options {
            token: Some("another-token".into()),
            ..Options::default()
        },
    )
    .expect("the stand-in starts");
    let out = slotwise(
        &[
            "nomad",
            "plan",
            "--native",
            "--explain",
            "--address",
            &server.address(),
            "payments",
        ],
        &[("NOMAD_TOKEN", TOKEN)],
    );
    assert_eq!(out.status.code(), Some(1));
    let (stdout, stderr) = (text(&out.stdout), text(&out.stderr));
    assert!(
        stderr.contains("GET /v1/job/payments: permission denied (HTTP 403)"),
        "{stderr}"
    );
    assert!(!stdout.contains(TOKEN) && !stderr.contains(TOKEN));
}

#[test]
fn help_never_shows_the_token_from_the_environment() {
    let out = slotwise(&["nomad", "plan", "--help"], &[("NOMAD_TOKEN", TOKEN)]);
    assert!(out.status.success());
    assert!(!text(&out.stdout).contains(TOKEN));
}

#[test]
fn a_saved_scenario_never_holds_the_token() {
    let server = StandIn::start(
        Arc::new(Fixtures(fixture("canary-rollout"))),
        Options {
            token: Some(TOKEN.into()),
            ..Options::default()
        },
    )
    .expect("the stand-in starts");
    let dir = tempfile::tempdir().expect("a temporary directory");
    let saved = dir.path().join("shop-api.yaml");
    let out = slotwise(
        &[
            "nomad",
            "plan",
            "--native",
            "--now",
            "2026-03-01T12:00:00Z",
            "--address",
            &server.address(),
            "--save",
            &saved.display().to_string(),
            "shop-api",
        ],
        &[("NOMAD_TOKEN", TOKEN)],
    );
    assert!(out.status.success(), "{}", text(&out.stderr));
    assert!(!text(&out.stdout).contains(TOKEN) && !text(&out.stderr).contains(TOKEN));
    let written = std::fs::read_to_string(&saved).expect("the scenario is written");
    assert!(!written.contains(TOKEN), "{written}");
    let back = slotwise_nomad::saved::SavedScenario::from_yaml(&written).expect("read back");
    assert!(back
        .description
        .starts_with("Job shop-api in namespace default, read from http://127.0.0.1:"));
    assert_eq!(back.input.job_id, "shop-api");
    assert_eq!(back.input.allocations[0].allocations.len(), 7);
}

#[test]
fn a_saved_scenario_replays_through_slotwise_reconcile() {
    let dir = tempfile::tempdir().expect("a temporary directory");
    let saved = dir.path().join("storefront.yaml");
    let from = fixture("three-versions");
    let out = slotwise(
        &[
            "nomad",
            "plan",
            "--native",
            "--from",
            &from.display().to_string(),
            "--save",
            &saved.display().to_string(),
            "storefront",
        ],
        &[],
    );
    assert!(out.status.success(), "{}", text(&out.stderr));
    let replayed = slotwise(
        &["reconcile", "--native", &saved.display().to_string()],
        &[],
    );
    assert!(replayed.status.success(), "{}", text(&replayed.stderr));
    assert_eq!(text(&replayed.stdout), text(&out.stdout));
}

#[test]
fn plugins_see_the_node_meta_nomad_reports() {
    // zone-drain moves what sits in zone eu-1a: the `zone` of the nodes'
    // Meta in the fixture.
    let dir = tempfile::tempdir().expect("a temporary directory");
    let plugins = dir.path().join("plugins.yaml");
    std::fs::write(
        &plugins,
        "plugins:\n  - plugin: zone-drain\n    settings: {zones: [eu-1a]}\n",
    )
    .expect("plugins file written");
    let from = fixture("three-versions").display().to_string();
    let out = slotwise(
        &[
            "nomad",
            "plan",
            "--json",
            "--from",
            &from,
            "--plugins",
            &plugins.display().to_string(),
            "storefront",
        ],
        &[],
    );
    assert!(out.status.success(), "{}", text(&out.stderr));
    let plan: serde_json::Value = serde_json::from_slice(&out.stdout).expect("a JSON plan");
    assert_eq!(plan["groups"][0]["counters"]["migrate"], 2, "{plan}");
    assert_eq!(plan["policy-actions"][0]["plugin"], "zone-drain", "{plan}");
}
