//! A reconcile driven question by question: what plugins are asked, and how the session refuses to be driven wrongly.

use slotwise_reconciler::plugin::{Hook, PromotionDecision, PromotionRequest};
use slotwise_reconciler::{
    reconcile, reconcile_step, Consulted, Hooks, PreSlotReply, Progress, PromotionReply, Question,
    Replies, Session,
};
use slotwise_scenario::{parse, Syntax};

fn plugin(name: &str, hooks: &[Hook]) -> Consulted {
    Consulted {
        name: name.into(),
        version: "1.0.0".into(),
        hooks: hooks.to_vec(),
        monitor: false,
        fail_open: false,
    }
}

/// A promotion plugin that waits, and remembers what it was asked.
struct Recorder {
    consulted: Vec<Consulted>,
    asked: Vec<PromotionRequest>,
}

impl Hooks for Recorder {
    fn consulted(&self) -> &[Consulted] {
        &self.consulted
    }

    fn promotion(&mut self, requests: &[PromotionRequest]) -> Option<Vec<Vec<PromotionReply>>> {
        self.asked.extend_from_slice(requests);
        let wait = |_| {
            vec![PromotionReply {
                plugin: "recorder".into(),
                answer: Ok(PromotionDecision::Wait("not yet".into())),
            }]
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

const STEADY: &str = "allocations: {web: [{index: 0-9, client: running}]}";

#[test]
fn a_promotion_plugin_sees_each_awaiting_group_with_its_live_canaries_and_their_health() {
    let scenario = parse(ROLLOUT, Syntax::Yaml).expect("a valid scenario");
    let mut recorder = Recorder {
        consulted: vec![plugin("recorder", &[Hook::Promotion])],
        asked: Vec::new(),
    };
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
fn a_plugin_is_asked_only_at_the_hooks_it_implements() {
    let scenario = parse(ROLLOUT, Syntax::Yaml).expect("a valid scenario");
    let mut recorder = Recorder {
        consulted: vec![plugin("recorder", &[Hook::PostSlot])],
        asked: Vec::new(),
    };
    let progress = reconcile_step(&scenario.input, &mut recorder).expect("a reconcile");
    assert!(matches!(progress, Progress::Done(_)));
    assert!(recorder.asked.is_empty());
}

#[test]
fn a_session_asks_in_order_and_its_plan_equals_the_plain_reconcile_when_all_proceed() {
    let scenario = parse(STEADY, Syntax::Yaml).expect("a valid scenario");
    let mut session =
        Session::open(scenario.input.clone(), vec![plugin("p", &[Hook::PreSlot])]).expect("opens");
    let Ok(Progress::Ask(Question::PreSlot(slots))) = session.next(None) else {
        panic!("the pre-slot question comes first");
    };
    assert_eq!(slots.len(), 10);
    let proceed = |_| {
        vec![PreSlotReply {
            plugin: "p".into(),
            answer: Ok(slotwise_reconciler::plugin::PreSlotAnswer {
                decision: slotwise_reconciler::plugin::PreSlotDecision::Proceed,
                ext: None,
            }),
        }]
    };
    let replies = Replies::PreSlot(slots.iter().map(proceed).collect());
    let Ok(Progress::Done(mut plan)) = session.next(Some(replies)) else {
        panic!("the plan comes next");
    };
    let mut plain = reconcile(&scenario.input).expect("a plan");
    // Only the step reports differ: the session's says the plugin was asked.
    plan.steps.clear();
    plain.steps.clear();
    assert_eq!(plan, plain);
}

#[test]
fn a_session_refuses_replies_of_the_wrong_kind_or_none_at_all() {
    let scenario = parse(STEADY, Syntax::Yaml).expect("a valid scenario");
    let mut session =
        Session::open(scenario.input, vec![plugin("p", &[Hook::PreSlot])]).expect("opens");
    let early = session.next(Some(Replies::PostSlot(Vec::new())));
    assert!(early.is_err_and(|e| e.message.contains("nothing was asked")));
    assert!(matches!(session.next(None), Ok(Progress::Ask(_))));
    let wrong = session.next(Some(Replies::PostSlot(Vec::new())));
    assert!(wrong.is_err_and(|e| e
        .message
        .contains("post-slot replies given to the pre-slot")));
    let missing = session.next(None);
    assert!(missing.is_err_and(|e| e.message.contains("awaits its replies")));
    let short = session.next(Some(Replies::PreSlot(Vec::new())));
    assert!(short.is_err_and(|e| e.message.contains("0 replies for 10 items")));
}

#[test]
fn a_session_refuses_two_plugins_of_one_name() {
    let scenario = parse(STEADY, Syntax::Yaml).expect("a valid scenario");
    let twins = vec![
        plugin("p", &[Hook::PreSlot]),
        plugin("p", &[Hook::PostSlot]),
    ];
    let refused = Session::open(scenario.input, twins);
    assert!(refused.is_err_and(|e| e.field == "plugins[1].name"));
}
