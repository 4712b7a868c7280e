//! The library against the stand-in Nomad server: fixtures reproduce Nomad's plans over HTTP and from disk, every fault gives an error naming the endpoint and no input, TLS works through rustls, and the token stays hidden.

use slotwise_nomad::compare::{compare, nomad_plan};
use slotwise_nomad::http::{Http, Settings, Tls, Token};
use slotwise_nomad::input;
use slotwise_nomad::saved::{Origin, SavedScenario};
use slotwise_nomad::snapshot::{list_jobs, JobSnapshot, NodeCache};
use slotwise_nomad::source::{Directory, Source};
use slotwise_nomad::stand_in::{Fault, Fixtures, Options, StandIn};
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Duration;

/// 2026-03-01T12:00:00Z, when the fixtures were saved.
const NOW: i64 = 1_772_366_400_000_000_000;
const TOKEN: &str = "3f9c1a52-7d7e-4b0e-9a57-secret-token";

fn fixture(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../tests/nomad")
        .join(name)
}

/// The fixtures of `tests/nomad/` that describe a plannable job.
const FIXTURES: [&str; 6] = [
    "canary-rollout",
    "batch-failed",
    "node-down",
    "node-draining",
    "disconnected-client",
    "three-versions",
];

fn serve(name: &str, options: Options) -> StandIn {
    StandIn::start(Arc::new(Fixtures(fixture(name))), options).expect("the stand-in starts")
}

fn client(server: &StandIn, token: Option<&str>) -> Http {
    let mut settings = Settings::new(&server.address());
    settings.token = token.and_then(|t| Token::new(t.into()));
    settings.timeout = Duration::from_secs(2);
    Http::new(settings).expect("valid settings")
}

fn only_job(source: &dyn Source) -> String {
    let jobs = list_jobs(source, "*").expect("the job list is read");
    assert_eq!(jobs.len(), 1, "{jobs:?}");
    jobs[0].1.clone()
}

/// Plans `job` from `source`, or gives the first error as text.
fn plan(source: &dyn Source, job: &str) -> Result<slotwise_reconciler::Plan, String> {
    let snapshot = JobSnapshot::fetch(source, "default", job, &NodeCache::default())
        .map_err(|e| e.to_string())?;
    let input = input::build(&snapshot, NOW).map_err(|e| e.to_string())?;
    slotwise_reconciler::reconcile(&input).map_err(|e| format!("{}: {}", e.field, e.message))
}

#[test]
fn every_fixture_planned_over_http_matches_nomads_counters() {
    for name in FIXTURES {
        let server = serve(name, Options::default());
        let http = client(&server, None);
        let job = only_job(&http);
        let snapshot =
            JobSnapshot::fetch(&http, "default", &job, &NodeCache::default()).expect("read");
        let input = input::build(&snapshot, NOW).expect("mapped");
        let plan = slotwise_reconciler::reconcile(&input).expect("planned");
        let nomad = nomad_plan(&http, &snapshot).expect("Nomad's plan is read");
        for group in compare(&plan, &nomad) {
            assert!(!group.differs(), "{name}: {group:?}");
        }
    }
}

#[test]
fn saved_responses_and_the_server_give_the_same_input() {
    for name in FIXTURES {
        let server = serve(name, Options::default());
        let http = client(&server, None);
        let directory = Directory::new(fixture(name));
        let job = only_job(&directory);
        let read = |source: &dyn Source| {
            let snapshot =
                JobSnapshot::fetch(source, "default", &job, &NodeCache::default()).expect("read");
            input::build(&snapshot, NOW).expect("mapped")
        };
        assert_eq!(read(&http), read(&directory), "{name}");
    }
}

#[test]
fn the_three_versions_give_destructive_and_in_place_updates() {
    let plan = plan(&Directory::new(fixture("three-versions")), "storefront").expect("planned");
    let web = &plan.groups[0].counters;
    // Version 0 had another image (destructive, one at a time); version 1
    // only another service tag (in place).
    assert_eq!((web.destructive, web.in_place, web.ignore), (1, 2, 1));
}

#[test]
fn an_unknown_allocation_and_its_replacement_are_read_in_full() {
    let directory = Directory::new(fixture("disconnected-client"));
    let snapshot =
        JobSnapshot::fetch(&directory, "default", "cache", &NodeCache::default()).expect("read");
    let input = input::build(&snapshot, NOW).expect("mapped");
    let slot_two: Vec<_> = input.allocations[0]
        .allocations
        .iter()
        .filter(|a| a.spec.name_index == 2)
        .collect();
    let [original, replacement] = slot_two.as_slice() else {
        panic!("two allocations claim slot 2: {slot_two:?}");
    };
    // The list stub has no history of client statuses: it came from
    // /v1/allocation/:id.
    let states = original
        .observed
        .client_states
        .as_deref()
        .expect("states read");
    assert_eq!(
        states[0].status,
        Some(slotwise_reconciler::ClientStatus::Unknown)
    );
    assert_eq!(
        replacement.spec.previous_allocation.as_deref(),
        Some(original.spec.id.as_str())
    );
    assert_eq!(replacement.spec.placement_score, Some(0.6));
    assert_eq!(
        original.spec.next_allocation,
        Some(replacement.spec.id.clone())
    );
}

/// The error of planning job `job` of fixture `name` served with `options`.
fn fault(name: &str, job: &str, options: Options, token: Option<&str>) -> String {
    let server = serve(name, options);
    let http = client(&server, token);
    plan(&http, job).expect_err("the fault surfaces as an error, never a plan")
}

#[test]
fn a_bad_acl_token_is_refused_naming_the_endpoint() {
    let options = Options {
        token: Some(TOKEN.into()),
        ..Options::default()
    };
    let error = fault("node-down", "payments", options, Some("wrong-token"));
    assert!(
        error.contains("GET /v1/job/payments: permission denied (HTTP 403)"),
        "{error}"
    );
    assert!(!error.contains("wrong-token"), "{error}");
}

#[test]
fn the_right_acl_token_is_let_through() {
    let options = Options {
        token: Some(TOKEN.into()),
        ..Options::default()
    };
    let server = serve("node-down", options);
    assert!(plan(&client(&server, Some(TOKEN)), "payments").is_ok());
}

#[test]
fn a_missing_job_is_a_404_naming_the_endpoint() {
    let error = fault("node-down", "no-such-job", Options::default(), None);
    assert!(
        error.contains("GET /v1/job/no-such-job: not found (HTTP 404)"),
        "{error}"
    );
}

#[test]
fn a_server_error_is_reported_with_its_status_and_message() {
    let options = Options {
        faults: vec![("/allocations".into(), Fault::Status(500))],
        ..Options::default()
    };
    let error = fault("node-down", "payments", options, None);
    assert!(
        error.contains("GET /v1/job/payments/allocations: HTTP 500: rpc error"),
        "{error}"
    );
}

#[test]
fn a_refused_connection_names_the_endpoint_and_the_address() {
    // A port that was free a moment ago: nothing listens there now.
    let address = {
        let listener = std::net::TcpListener::bind("127.0.0.1:0").expect("a free port");
        listener.local_addr().expect("its address")
    };
    let mut settings = Settings::new(&format!("http://{address}"));
    settings.timeout = Duration::from_secs(2);
    let http = Http::new(settings).expect("valid settings");
    let error = plan(&http, "payments").expect_err("nothing listens");
    assert!(
        error.contains(&format!(
            "GET /v1/job/payments: cannot reach http://{address}"
        )),
        "{error}"
    );
}

#[test]
fn a_slow_answer_times_out_naming_the_endpoint() {
    let options = Options {
        faults: vec![("/versions".into(), Fault::Delay(Duration::from_secs(5)))],
        ..Options::default()
    };
    let error = fault("node-down", "payments", options, None);
    assert!(
        error.contains("GET /v1/job/payments/versions: no answer within 2 s"),
        "{error}"
    );
}

#[test]
fn malformed_json_is_reported_with_where_it_broke() {
    let options = Options {
        faults: vec![(
            "/deployment".into(),
            Fault::Body(b"{\"ID\": \"d1\", ".to_vec()),
        )],
        ..Options::default()
    };
    let error = fault("node-down", "payments", options, None);
    assert!(
        error.contains("GET /v1/job/payments/deployment: malformed response"),
        "{error}"
    );
}

#[test]
fn an_answer_over_the_size_limit_is_refused() {
    let huge = format!("[{}]", vec!["{}"; 200_000].join(","));
    let options = Options {
        faults: vec![("/allocations".into(), Fault::Body(huge.into_bytes()))],
        ..Options::default()
    };
    let server = serve("node-down", options);
    let mut settings = Settings::new(&server.address());
    settings.response_limit = 64 * 1024;
    let http = Http::new(settings).expect("valid settings");
    let error = plan(&http, "payments").expect_err("too large");
    assert!(
        error.contains(
            "GET /v1/job/payments/allocations: the response is larger than the limit of 65536 bytes"
        ),
        "{error}"
    );
}

#[test]
fn an_allocation_of_a_group_the_job_never_had_is_refused() {
    let error = plan(&Directory::new(fixture("unknown-group")), "payments")
        .expect_err("the group is unknown");
    assert!(
        error.contains("GET /v1/job/payments/allocations: [2]"),
        "{error}"
    );
    assert!(
        error.contains("TaskGroup: group \"worker\" is in neither the job nor version 0 of it"),
        "{error}"
    );
}

#[test]
fn the_token_is_hidden_from_debug_output() {
    let mut settings = Settings::new("http://127.0.0.1:4646");
    settings.token = Token::new(TOKEN.into());
    let shown = format!("{settings:?}");
    assert!(!shown.contains(TOKEN), "{shown}");
}

#[test]
fn a_saved_scenario_holds_the_input_and_never_the_token() {
    let directory = Directory::new(fixture("canary-rollout"));
    let snapshot =
        JobSnapshot::fetch(&directory, "default", "shop-api", &NodeCache::default()).expect("read");
    let input = input::build(&snapshot, NOW).expect("mapped");
    let origin = Origin {
        job: "shop-api",
        namespace: "default",
        region: Some("global"),
        from: "http://127.0.0.1:4646",
        when: "2026-03-01T12:00:00Z",
    };
    let text = SavedScenario::new(&origin, input.clone())
        .to_yaml()
        .expect("written");
    assert!(!text.contains(TOKEN));
    let back = SavedScenario::from_yaml(&text).expect("read back");
    assert!(back
        .description
        .starts_with("Job shop-api in namespace default, region global"));
    assert_eq!(back.input, input);
}

/// A CA and a server certificate for 127.0.0.1, made now.
fn certificates() -> (String, String, String) {
    let ca_key = rcgen::KeyPair::generate().expect("a CA key");
    let mut ca_params = rcgen::CertificateParams::new(Vec::<String>::new()).expect("CA params");
    ca_params.is_ca = rcgen::IsCa::Ca(rcgen::BasicConstraints::Unconstrained);
    let ca = ca_params.self_signed(&ca_key).expect("the CA");
    let key = rcgen::KeyPair::generate().expect("a server key");
    let params =
        rcgen::CertificateParams::new(vec!["127.0.0.1".to_string()]).expect("server params");
    let issuer = rcgen::Issuer::new(ca_params, ca_key);
    let cert = params
        .signed_by(&key, &issuer)
        .expect("the server certificate");
    (ca.pem(), cert.pem(), key.serialize_pem())
}

#[test]
fn tls_with_the_cluster_ca_plans_and_without_it_is_refused() {
    let (ca, cert, key) = certificates();
    let dir = tempfile::tempdir().expect("a temporary directory");
    let ca_path = dir.path().join("ca.pem");
    std::fs::write(&ca_path, &ca).expect("CA written");
    let options = Options {
        tls: Some((cert.into_bytes(), key.into_bytes())),
        ..Options::default()
    };
    let server = serve("node-down", options);
    assert!(server.address().starts_with("https://127.0.0.1:"));

    let mut trusted = Settings::new(&server.address());
    trusted.tls = Tls {
        ca_cert: Some(ca_path),
        ..Tls::default()
    };
    assert!(plan(&Http::new(trusted).expect("valid"), "payments").is_ok());

    let error = plan(
        &Http::new(Settings::new(&server.address())).expect("valid"),
        "payments",
    )
    .expect_err("an unknown CA is refused");
    assert!(error.starts_with("GET /v1/job/payments:"), "{error}");

    let mut skipping = Settings::new(&server.address());
    skipping.tls.skip_verify = true;
    assert!(plan(&Http::new(skipping).expect("valid"), "payments").is_ok());
}
