//! The session: a reconcile driven question by question, one plugin and one batch at a time, that resumes where it paused and decides everything a host only relays.

use slotwise_reconciler::plugin::{
    neutral_answers, Answers, Batch, Hook, PreSlotAnswer, Veto, READS_NOTHING,
};
use slotwise_reconciler::{
    reconcile, Consulted, Failure, FailureKind, LogLevel, LogLine, Mode, Progress, Reply, Session,
    MAX_KEPT_LOG_LINES,
};
use slotwise_scenario::{parse, Syntax};

fn plugin(name: &str, hooks: &[Hook]) -> Consulted {
    Consulted {
        name: name.into(),
        version: "1.0.0".into(),
        hooks: hooks.to_vec(),
        reads: READS_NOTHING,
        mode: Mode::Enforce,
        fail_open: false,
        unloaded: None,
    }
}

fn reply(answers: Answers) -> Reply {
    Reply {
        outcome: Ok(answers),
        logs: Vec::new(),
        usage: None,
    }
}

const TWO_GROUPS: &str = "
job: {groups: [{name: web, count: 3}, {name: api, count: 2}]}
allocations:
  web: [{index: 0-1, client: running}]
  api: [{index: 0-1, client: running}]
";

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

fn input(text: &str) -> slotwise_reconciler::ReconcileInput {
    parse(text, Syntax::Yaml).expect("a valid scenario").input
}

/// Drives a session to its end, answering with `answer`; returns the plan
/// and the questions asked, as (plugin, hook, whether the batch came along).
fn drive(
    session: &mut Session,
    mut answer: impl FnMut(u32, &Batch) -> Reply,
) -> (slotwise_reconciler::Plan, Vec<(u32, Hook, bool)>) {
    let mut asked = Vec::new();
    let mut last = None;
    let mut given = None;
    loop {
        match session.next(given.take()).expect("no error") {
            Progress::Done(plan) => return (plan, asked),
            Progress::Ask(q) => {
                asked.push((q.plugin, q.hook, q.batch.is_some()));
                if q.batch.is_some() {
                    last = q.batch;
                }
                let batch = last.as_ref().expect("the first question carries its batch");
                given = Some(answer(q.plugin, batch));
            }
        }
    }
}

#[test]
fn each_question_names_one_plugin_and_a_later_plugin_on_the_same_batch_gets_none_again() {
    let plugins = vec![
        plugin("a", &[Hook::PreSlot]),
        plugin("b", &[Hook::PreSlot, Hook::PostSlot]),
    ];
    let mut session = Session::open(input(TWO_GROUPS), plugins).expect("opens");
    let (_, asked) = drive(&mut session, |_, b| reply(neutral_answers(b)));
    assert_eq!(
        asked,
        vec![
            (0, Hook::PreSlot, true),
            (1, Hook::PreSlot, false),
            (1, Hook::PostSlot, true),
            (0, Hook::PreSlot, true),
            (1, Hook::PreSlot, false),
        ],
        "one pre-slot batch per group for each plugin; a post-slot batch only for web, the group with changes"
    );
}

#[test]
fn a_session_whose_plugins_change_nothing_plans_as_the_plain_reconcile() {
    let all = [Hook::PreSlot, Hook::PostSlot, Hook::Promotion, Hook::Review];
    let mut session = Session::open(input(TWO_GROUPS), vec![plugin("p", &all)]).expect("opens");
    let (mut plan, _) = drive(&mut session, |_, b| reply(neutral_answers(b)));
    let mut plain = reconcile(&input(TWO_GROUPS)).expect("a plan");
    // Only the step reports differ: the session's say the plugins were asked.
    plan.steps.clear();
    plain.steps.clear();
    assert_eq!(plan, plain);
}

#[test]
fn a_promotion_plugin_sees_each_awaiting_group_with_its_live_canaries_and_their_health() {
    let plugins = vec![plugin("p", &[Hook::Promotion])];
    let mut session = Session::open(input(ROLLOUT), plugins).expect("opens");
    let mut seen = Vec::new();
    drive(&mut session, |_, b| {
        if let Batch::Promotion(p) = b {
            for g in &p.groups {
                let first = g.canaries.first as usize;
                let health: Vec<Option<bool>> = p.candidates
                    [first..first + g.canaries.count as usize]
                    .iter()
                    .map(|c| c.healthy)
                    .collect();
                seen.push((g.group.clone(), g.desired_canaries, health));
            }
        }
        reply(neutral_answers(b))
    });
    assert_eq!(
        seen,
        vec![("web".to_string(), 2, vec![Some(true), Some(false)])],
        "a finished canary is not shown"
    );
}

#[test]
fn a_review_veto_withdraws_every_change_of_its_slot_and_is_reported() {
    let text = "
nodes: [{id: down, status: down}]
job: {groups: [{count: 3}]}
allocations:
  web: [{index: 0-1, client: running}, {index: 2, node: down}]
";
    let plain = reconcile(&input(text)).expect("a plan");
    assert_eq!(plain.groups[0].placements.len(), 1);
    let mut session =
        Session::open(input(text), vec![plugin("budget", &[Hook::Review])]).expect("opens");
    let (plan, _) = drive(&mut session, |_, b| match b {
        Batch::Review(_) => reply(Answers::Review(vec![Veto {
            change: 0,
            reason: "no budget left".into(),
        }])),
        other => reply(neutral_answers(other)),
    });
    let web = &plan.groups[0];
    assert!(web.placements.is_empty() && web.stops.is_empty(), "{web:?}");
    assert_eq!(web.counters.place, 0);
    let action = &plan.policy_actions[0];
    assert_eq!(
        (action.plugin.as_str(), action.slot, action.applied),
        ("budget", Some(2), true)
    );
}

#[test]
fn log_lines_are_kept_in_the_plan_with_the_plugin_and_hook_in_order() {
    let plugins = vec![plugin("a", &[Hook::PreSlot]), plugin("b", &[Hook::PreSlot])];
    let mut session = Session::open(input(TWO_GROUPS), plugins).expect("opens");
    let (plan, _) = drive(&mut session, |p, b| Reply {
        logs: vec![LogLine {
            level: LogLevel::Info,
            message: format!("line of {p}"),
        }],
        ..reply(neutral_answers(b))
    });
    let logs: Vec<(String, String, Option<String>, String)> = plan
        .plugin_logs
        .iter()
        .map(|l| {
            (
                l.plugin.clone(),
                l.hook.clone(),
                l.group.clone(),
                l.message.clone(),
            )
        })
        .collect();
    let line = |p: &str, g: &str, n: u32| {
        (
            p.to_string(),
            "pre-slot".to_string(),
            Some(g.to_string()),
            format!("line of {n}"),
        )
    };
    assert_eq!(
        logs,
        vec![
            line("a", "web", 0),
            line("b", "web", 1),
            line("a", "api", 0),
            line("b", "api", 1)
        ]
    );
}

#[test]
fn a_plugin_keeps_at_most_a_thousand_log_lines_a_reconcile_and_the_rest_are_counted() {
    // Thirty groups, a question each at pre-slot, a hundred lines an answer:
    // 3,000 lines of one plugin, 1,000 of the other's, which are all kept.
    let groups: String = (0..30)
        .map(|g| format!("{{name: g{g}, count: 1}}, "))
        .collect();
    let text = format!("job: {{groups: [{groups}]}}");
    let plugins = vec![
        plugin("chatty", &[Hook::PreSlot]),
        plugin("terse", &[Hook::PreSlot]),
    ];
    let mut session = Session::open(input(&text), plugins).expect("opens");
    let mut calls = [0usize; 2];
    let (plan, _) = drive(&mut session, |p, b| {
        calls[p as usize] += 1;
        let lines = if p == 0 { 100 } else { 1000 / 30 + 1 };
        Reply {
            logs: (0..lines)
                .map(|n| LogLine {
                    level: LogLevel::Info,
                    message: format!("call {} line {n}", calls[p as usize]),
                })
                .collect(),
            ..reply(neutral_answers(b))
        }
    });
    assert_eq!(calls, [30, 30]);
    let of = |name: &str| -> Vec<&slotwise_reconciler::PluginLog> {
        plan.plugin_logs
            .iter()
            .filter(|l| l.plugin == name)
            .collect()
    };
    let chatty = of("chatty");
    assert_eq!(chatty.len(), MAX_KEPT_LOG_LINES + 1);
    assert_eq!(chatty[MAX_KEPT_LOG_LINES - 1].message, "call 10 line 99");
    let summary = chatty[MAX_KEPT_LOG_LINES];
    assert_eq!(
        (
            summary.level,
            summary.hook.as_str(),
            summary.group.as_deref()
        ),
        (LogLevel::Warn, "pre-slot", None)
    );
    assert_eq!(
        summary.message,
        "2000 further lines not kept: at most 1000 are kept of a plugin in one reconcile"
    );
    // 34 lines a call, 1,020 in all: the last 20 are not kept either.
    let terse = of("terse");
    assert_eq!(terse.len(), MAX_KEPT_LOG_LINES + 1);
    assert!(terse[MAX_KEPT_LOG_LINES]
        .message
        .starts_with("20 further lines"));
    // The summaries come last, after every kept line.
    assert_eq!(plan.plugin_logs.len(), 2 * (MAX_KEPT_LOG_LINES + 1));
    assert!(plan.plugin_logs[..2 * MAX_KEPT_LOG_LINES]
        .iter()
        .all(|l| l.level == LogLevel::Info));
}

/// The error a session ends with when plugin `p` answers pre-slot with `garble` applied.
fn refusal(garble: impl Fn(&mut Vec<PreSlotAnswer>)) -> String {
    let mut session =
        Session::open(input(TWO_GROUPS), vec![plugin("p", &[Hook::PreSlot])]).expect("opens");
    let Ok(Progress::Ask(q)) = session.next(None) else {
        panic!("a question comes first");
    };
    let Some(Answers::PreSlot(mut answers)) = q.batch.as_ref().map(neutral_answers) else {
        panic!("a pre-slot batch");
    };
    garble(&mut answers);
    match session.next(Some(reply(Answers::PreSlot(answers)))) {
        Err(e) => e.message,
        Ok(progress) => panic!("the answers were taken: {progress:?}"),
    }
}

#[test]
fn answers_of_the_wrong_count_order_or_slot_are_refused_naming_the_plugin() {
    let short = refusal(|a| {
        a.pop();
    });
    assert!(short.contains("plugin p 1.0.0 failed at pre-slot (group web): answered something invalid: gave 2 answers for 3 slots"), "{short}");
    let reversed = refusal(|a| a.reverse());
    assert!(
        reversed.contains("answers slot 2 where slot 0 is due"),
        "{reversed}"
    );
    let unknown = refusal(|a| a[2].slot = 9);
    assert!(
        unknown.contains("(group web, slot 2)") && unknown.contains("answers slot 9"),
        "{unknown}"
    );
}

#[test]
fn a_failure_of_a_plugin_that_fails_open_is_reported_and_it_is_not_asked_again() {
    let mut trapping = plugin("t", &[Hook::PreSlot, Hook::PostSlot]);
    trapping.fail_open = true;
    let mut session = Session::open(input(TWO_GROUPS), vec![trapping]).expect("opens");
    let (plan, asked) = drive(&mut session, |_, _| Reply {
        outcome: Err(Failure {
            kind: FailureKind::Trap,
            message: "trapped: unreachable".into(),
        }),
        logs: Vec::new(),
        usage: None,
    });
    assert_eq!(asked.len(), 1, "{asked:?}");
    assert_eq!(plan.plugin_failures.len(), 1);
    assert_eq!(plan.plugin_failures[0].cause, "trapped: unreachable");
    let mut plain = reconcile(&input(TWO_GROUPS)).expect("a plan");
    let mut plan = plan;
    plan.steps.clear();
    plain.steps.clear();
    plan.plugin_failures.clear();
    assert_eq!(plan, plain);
}

#[test]
fn a_session_refuses_to_be_driven_wrongly() {
    let mut session =
        Session::open(input(TWO_GROUPS), vec![plugin("p", &[Hook::PreSlot])]).expect("opens");
    let early = session.next(Some(reply(Answers::Review(Vec::new()))));
    assert!(early.is_err_and(|e| e.message.contains("nothing was asked")));
    let mut session =
        Session::open(input(TWO_GROUPS), vec![plugin("p", &[Hook::PreSlot])]).expect("opens");
    assert!(matches!(session.next(None), Ok(Progress::Ask(_))));
    let missing = session.next(None);
    assert!(missing.is_err_and(|e| e.message.contains("awaits its reply")));
    let over = session.next(None);
    assert!(over.is_err_and(|e| e.message.contains("the session is over")));
}

#[test]
fn a_session_refuses_two_plugins_of_one_name() {
    let twins = vec![
        plugin("p", &[Hook::PreSlot]),
        plugin("p", &[Hook::PostSlot]),
    ];
    let refused = Session::open(input(TWO_GROUPS), twins);
    assert!(refused.is_err_and(|e| e.field == "plugins[1].name"));
}
