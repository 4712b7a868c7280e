//! What a promotion policy is asked: every deployment group whose canaries await promotion, with those canaries as plugins see them.

use slotwise_reconciler::plugin::{Hook, PromotionDecision, PromotionRequest};
use slotwise_reconciler::{reconcile_step, Hooks, Progress, PromotionRuling};
use slotwise_scenario::{parse, Syntax};

/// A policy that only waits, and remembers what it was asked.
#[derive(Default)]
struct Recorder {
    asked: Vec<PromotionRequest>,
}

impl Hooks for Recorder {
    fn asks(&self, hook: Hook) -> bool {
        hook == Hook::Promotion
    }

    fn promotion(&mut self, requests: &[PromotionRequest]) -> Option<Vec<PromotionRuling>> {
        self.asked.extend_from_slice(requests);
        let wait = |_| PromotionRuling {
            decision: Some(PromotionDecision::Wait("not yet".into())),
            by: "recorder".into(),
        };
        Some(requests.iter().map(wait).collect())
    }
}

const ROLLOUT: &str = "
job: {version: 1, groups: [{update: canary}]}
deployment:
  groups:
    web: {desired-canaries: 2, desired-total: 10, placed-canaries: [c0, c1, c2]}
allocations:
  web:
    - {index: 0-9, version: 0, client: running, outdated: destructive}
    - {index: 0, id: c0, canary: true, deployment: deployment-1, client: running, healthy: true}
    - {index: 1, id: c1, canary: true, deployment: deployment-1, client: running, healthy: false}
    - {index: 2, id: c2, canary: true, deployment: deployment-1, client: failed, desired: stop}
";

#[test]
fn the_policy_sees_each_awaiting_group_with_its_live_canaries_and_their_health() {
    let scenario = parse(ROLLOUT, Syntax::Yaml).expect("a valid scenario");
    let mut recorder = Recorder::default();
    let progress = reconcile_step(&scenario.input, &mut recorder).expect("a reconcile");
    assert!(matches!(progress, Progress::Done(_)));
    assert_eq!(recorder.asked.len(), 1);
    let request = &recorder.asked[0];
    assert_eq!(
        (request.group.as_str(), request.desired_canaries),
        ("web", 2)
    );
    let seen: Vec<(&str, Option<bool>)> = request
        .canaries
        .iter()
        .map(|c| (c.allocation.as_str(), c.healthy))
        .collect();
    assert_eq!(
        seen,
        vec![("c0", Some(true)), ("c1", Some(false))],
        "a finished canary is not shown"
    );
}

#[test]
fn a_policy_that_asks_nothing_is_never_consulted() {
    struct Silent;
    impl Hooks for Silent {
        fn asks(&self, _: Hook) -> bool {
            false
        }
        fn promotion(&mut self, _: &[PromotionRequest]) -> Option<Vec<PromotionRuling>> {
            panic!("asked although it asks nothing")
        }
    }
    let scenario = parse(ROLLOUT, Syntax::Yaml).expect("a valid scenario");
    let progress = reconcile_step(&scenario.input, &mut Silent).expect("a reconcile");
    let Progress::Done(plan) = progress else {
        panic!("a plan was expected");
    };
    assert!(plan.promotions.is_empty());
    assert!(plan.policy_actions.is_empty());
}
