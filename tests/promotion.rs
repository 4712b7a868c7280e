//! Canaries are promoted only when a policy asks and the guards allow it: a running deployment, every desired canary placed and healthy.

use slotwise_reconciler::{
    reconcile, reconcile_with, DeploymentStatus, Hooks, Plan, PromotionRequest, PromotionVerdict,
    Reason,
};
use slotwise_scenario::{parse, Syntax};

/// A policy that answers every promotion request the same way, and remembers
/// what it was asked.
struct Policy {
    verdict: PromotionVerdict,
    asked: Vec<PromotionRequest>,
}

impl Hooks for Policy {
    fn promotion(&mut self, request: &PromotionRequest) -> Option<PromotionVerdict> {
        self.asked.push(request.clone());
        Some(self.verdict.clone())
    }
}

/// Ten allocations of the old version, and two canaries of the new one
/// awaiting promotion; `status` and the canaries' health vary.
fn canary_rollout(status: &str, canary_health: [&str; 2]) -> String {
    format!(
        "job: {{version: 1, groups: [{{update: canary}}]}}
deployment:
  status: {status}
  groups:
    web: {{desired-canaries: 2, desired-total: 10, placed-canaries: [c0, c1]}}
allocations:
  web:
    - {{index: 0-9, version: 0, client: running, outdated: destructive}}
    - {{index: 0, id: c0, canary: true, deployment: deployment-1, client: running, healthy: {}}}
    - {{index: 1, id: c1, canary: true, deployment: deployment-1, client: running, healthy: {}}}
",
        canary_health[0], canary_health[1]
    )
}

fn run(text: &str, verdict: PromotionVerdict) -> (Plan, Vec<PromotionRequest>) {
    let scenario = parse(text, Syntax::Yaml).expect("a valid scenario");
    let mut policy = Policy {
        verdict,
        asked: Vec::new(),
    };
    let plan = reconcile_with(&scenario.input, &mut policy).expect("a plan");
    (plan, policy.asked)
}

fn promote() -> PromotionVerdict {
    PromotionVerdict::Promote("healthy for long enough".into())
}

#[test]
fn without_a_policy_canaries_stay_unpromoted_as_in_nomad() {
    let scenario =
        parse(&canary_rollout("running", ["true", "true"]), Syntax::Yaml).expect("valid");
    let plan = reconcile(&scenario.input).expect("a plan");
    assert!(plan.promotions.is_empty());
    assert!(
        plan.groups[0].destructive_updates.is_empty(),
        "old allocations wait for promotion"
    );
}

#[test]
fn the_policy_is_asked_about_the_canaries_awaiting_promotion() {
    let (_, asked) = run(
        &canary_rollout("running", ["true", "false"]),
        PromotionVerdict::Wait("not yet".into()),
    );
    assert_eq!(asked.len(), 1);
    assert_eq!(asked[0].group, "web");
    assert_eq!(asked[0].desired_canaries, 2);
    let healthy: Vec<Option<bool>> = asked[0].canaries.iter().map(|c| c.healthy).collect();
    assert_eq!(healthy, vec![Some(true), Some(false)]);
}

#[test]
fn a_promotion_the_guards_allow_is_applied_and_the_rollout_continues() {
    let (plan, _) = run(&canary_rollout("running", ["true", "true"]), promote());
    assert_eq!(plan.promotions.len(), 1);
    assert!(plan.promotions[0].promoted);
    assert_eq!(plan.promotions[0].reason, Reason::CanariesPromoted);
    let web = &plan.groups[0];
    let retired: Vec<u32> = web
        .stops
        .iter()
        .filter(|s| s.reason == Reason::CanaryPromoted)
        .map(|s| s.name_index)
        .collect();
    assert_eq!(
        retired,
        vec![1, 0],
        "the old allocations sharing the canaries' slots go"
    );
    assert_eq!(
        web.destructive_updates.len(),
        2,
        "max-parallel 2 of the rest are replaced"
    );
}

#[test]
fn a_promotion_is_refused_while_a_canary_is_unhealthy() {
    let (plan, _) = run(&canary_rollout("running", ["true", "false"]), promote());
    assert!(!plan.promotions[0].promoted);
    assert_eq!(plan.promotions[0].reason, Reason::PromotionRefused);
    assert!(
        plan.promotions[0]
            .message
            .contains("1 of 2 canaries are healthy"),
        "{}",
        plan.promotions[0].message
    );
    assert!(plan.groups[0].destructive_updates.is_empty());
}

#[test]
fn a_promotion_is_refused_until_every_desired_canary_is_placed() {
    let text = canary_rollout("running", ["true", "true"])
        .replace("desired-canaries: 2", "desired-canaries: 3");
    let (plan, _) = run(&text, promote());
    assert!(!plan.promotions[0].promoted);
    assert!(
        plan.promotions[0]
            .message
            .contains("2 of 3 canaries are placed"),
        "{}",
        plan.promotions[0].message
    );
}

#[test]
fn a_promotion_is_refused_unless_the_deployment_is_running() {
    let (plan, _) = run(&canary_rollout("paused", ["true", "true"]), promote());
    assert!(!plan.promotions[0].promoted);
    assert!(
        plan.promotions[0]
            .message
            .contains("the deployment is paused, not running"),
        "{}",
        plan.promotions[0].message
    );
}

#[test]
fn a_policy_that_fails_the_deployment_fails_it_and_its_canaries_are_stopped() {
    let (plan, _) = run(
        &canary_rollout("running", ["true", "false"]),
        PromotionVerdict::Fail("error rate too high".into()),
    );
    assert_eq!(plan.deployment_updates.len(), 1);
    assert_eq!(plan.deployment_updates[0].status, DeploymentStatus::Failed);
    assert_eq!(
        plan.deployment_updates[0].description,
        "Failed by policy: error rate too high"
    );
    let cancelled: Vec<&str> = plan.groups[0]
        .stops
        .iter()
        .filter(|s| s.reason == Reason::CanaryCancelled)
        .map(|s| s.allocation.as_str())
        .collect();
    assert_eq!(cancelled, vec!["c0", "c1"]);
}
