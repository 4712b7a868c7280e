//! The plugin's decisions, called natively on requests built with the SDK's testing module.

use crate::CanaryGate;
use slotwise_plugin::testing::{candidate, promotion, NOW};
use slotwise_plugin::{Candidate, Plugin, PromotionBatch, PromotionDecision, MINUTE};

const SETTINGS: &str =
    r#"{"healthy-minutes": 10, "metric": "error-rate", "below": 0.01, "fail-above": 0.05}"#;

fn gate() -> CanaryGate {
    let mut p = CanaryGate::default();
    p.configure(SETTINGS).unwrap();
    p
}

/// A canary healthy since `minutes` ago, reporting `rate` when given.
fn canary(id: &str, minutes: i64, rate: Option<&str>) -> Candidate {
    let mut c = candidate(0);
    c.allocation = Some(id.into());
    c.canary = true;
    c.healthy = Some(true);
    c.healthy_since = Some(NOW - minutes * MINUTE);
    c.meta = rate.map(|r| vec![("error-rate".to_string(), r.to_string())]);
    c
}

#[test]
fn canaries_healthy_long_enough_and_under_the_threshold_are_promoted() {
    let request = promotion(vec![
        canary("c0", 10, Some("0.001")),
        canary("c1", 30, Some("0")),
    ]);
    let decision = decide(&request);
    let PromotionDecision::Promote(why) = decision else {
        panic!("expected promotion, got {decision:?}");
    };
    assert_eq!(
        why,
        "all 2 canaries are healthy for at least 10m with error-rate under 0.01"
    );
}

#[test]
fn a_canary_healthy_for_too_short_a_time_blocks_and_is_named() {
    let request = promotion(vec![
        canary("c0", 30, Some("0")),
        canary("c1", 4, Some("0")),
    ]);
    let decision = decide(&request);
    let PromotionDecision::Wait(why) = decision else {
        panic!("expected waiting, got {decision:?}");
    };
    assert_eq!(why, "canary c1 has been healthy for 4m of the 10m required");
}

#[test]
fn a_metric_at_or_over_the_threshold_blocks() {
    let request = promotion(vec![canary("c0", 30, Some("0.01"))]);
    let decision = decide(&request);
    let PromotionDecision::Wait(why) = decision else {
        panic!("expected waiting, got {decision:?}");
    };
    assert_eq!(why, "canary c0 has error-rate 0.01, not under 0.01");
}

#[test]
fn every_blocking_canary_is_named_with_its_reason() {
    let mut unhealthy = canary("c1", 30, Some("0"));
    unhealthy.healthy = Some(false);
    let request = promotion(vec![
        canary("c0", 30, None),
        unhealthy,
        canary("c2", 30, Some("lots")),
    ]);
    let PromotionDecision::Wait(why) = decide(&request) else {
        panic!("expected waiting");
    };
    assert_eq!(
        why,
        "canary c0 reports no error-rate; canary c1 is unhealthy; canary c2 reports error-rate `lots`, not a number"
    );
}

#[test]
fn a_metric_above_the_fail_threshold_fails_even_while_others_warm_up() {
    let request = promotion(vec![
        canary("c0", 1, Some("0")),
        canary("c1", 30, Some("0.2")),
    ]);
    let decision = decide(&request);
    let PromotionDecision::Fail(why) = decision else {
        panic!("expected failure, got {decision:?}");
    };
    assert_eq!(
        why,
        "canary c1: error-rate is 0.2, above the fail threshold 0.05"
    );
}

#[test]
fn without_a_fail_threshold_a_bad_metric_only_waits() {
    let mut p = CanaryGate::default();
    p.configure(r#"{"healthy-minutes": 10, "metric": "error-rate", "below": 0.01}"#)
        .unwrap();
    let decision = p
        .promotion(&promotion(vec![canary("c0", 30, Some("0.9"))]))
        .remove(0)
        .decision;
    assert!(
        matches!(decision, PromotionDecision::Wait(_)),
        "{decision:?}"
    );
}

#[test]
fn missing_canaries_are_waited_for() {
    let mut request = promotion(vec![canary("c0", 30, Some("0"))]);
    request.groups[0].desired_canaries = 2;
    let PromotionDecision::Wait(why) = decide(&request) else {
        panic!("expected waiting");
    };
    assert_eq!(why, "1 of 2 canaries are placed");
}

#[test]
fn bad_settings_name_the_field() {
    let refuse = |text: &str| CanaryGate::default().configure(text).unwrap_err();
    let missing = refuse(r#"{"metric": "error-rate", "below": 0.01}"#);
    assert!(missing.contains("healthy-minutes"), "{missing}");
    let negative = refuse(r#"{"healthy-minutes": -1, "metric": "m", "below": 1}"#);
    assert!(negative.contains("healthy-minutes"), "{negative}");
    let backwards =
        refuse(r#"{"healthy-minutes": 1, "metric": "m", "below": 1, "fail-above": 0.5}"#);
    assert!(backwards.starts_with("fail-above:"), "{backwards}");
    assert!(refuse(r#"{"healthy-minutes": 1, "metric": " ", "below": 1}"#).starts_with("metric:"));
}

/// The gate's decision on the one group of `batch`.
fn decide(batch: &PromotionBatch) -> PromotionDecision {
    gate().promotion(batch).remove(0).decision
}
