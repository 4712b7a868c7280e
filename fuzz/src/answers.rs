//! The plugin-answer target: bytes read as pools of answers, given to a session of a reconcile that asks at every hook, as two plugins' replies.

use serde::{Deserialize, Serialize};
use slotwise_reconciler::plugin::{
    Adjustment, CandidateAdjustment, Classification, Deferral, Hook, PostSlotAnswer,
    PostSlotDecision, PreSlotAnswer, PreSlotDecision, PromotionDecision, UpdateKind,
};
use slotwise_reconciler::{
    Consulted, PostSlotReply, PreSlotReply, Progress, PromotionReply, Question, ReconcileInput,
    Replies, Session,
};

/// The answers a run draws from, in turn, for every item and plugin asked.
#[derive(Serialize, Deserialize, Default)]
#[serde(rename_all = "kebab-case")]
pub struct Pools {
    #[serde(default)]
    pub pre_slot: Vec<Result<PreSlotAnswer, String>>,
    #[serde(default)]
    pub post_slot: Vec<Result<PostSlotAnswer, String>>,
    #[serde(default)]
    pub promotion: Vec<Result<PromotionDecision, String>>,
    /// Give one reply too few or too many to the question of this number.
    #[serde(default)]
    pub miscount: Option<usize>,
}

/// A canary rollout with a lost node: every hook is asked.
const SCENARIO: &str = r#"
job:
  groups:
    - {name: web, count: 6, update: canary}
nodes:
  - {id: n1}
  - {id: n2, status: down}
allocations:
  web:
    - {index: 0-3, node: n1, client: running, outdated: destructive}
    - {index: 4-5, node: n2, client: running}
    - {index: 0, id: web-c1, node: n1, client: running, canary: true, healthy: true, deployment: deployment-1}
    - {index: 1, id: web-c2, node: n1, client: running, canary: true, healthy: true, deployment: deployment-1}
deployment:
  groups:
    web: {desired-canaries: 2, desired-total: 6, placed-canaries: [web-c1, web-c2], placed: 2, healthy: 2}
"#;

fn input() -> Option<ReconcileInput> {
    slotwise_scenario::parse(SCENARIO, slotwise_scenario::Syntax::Yaml)
        .ok()
        .map(|s| s.input)
}

fn consulted() -> Vec<Consulted> {
    let all = vec![Hook::PreSlot, Hook::PostSlot, Hook::Promotion];
    vec![
        Consulted {
            name: "strict".into(),
            version: "1".into(),
            hooks: all.clone(),
            monitor: false,
            fail_open: false,
        },
        Consulted {
            name: "lenient".into(),
            version: "1".into(),
            hooks: all,
            monitor: false,
            fail_open: true,
        },
    ]
}

/// Draws the answer after the last one drawn, cycling; `None` for an empty pool.
fn draw<T: Clone>(pool: &[T], turn: &mut usize) -> Option<T> {
    let item = pool.get(*turn % pool.len().max(1)).cloned();
    *turn += 1;
    item
}

/// Runs a session whose plugins answer from the pools in `data` (JSON): the
/// reconciler may refuse what they answer, never panic.
pub fn plugin_answers(data: &[u8]) {
    let Ok(pools) = serde_json::from_slice::<Pools>(data) else {
        return;
    };
    let Some(input) = input() else {
        return;
    };
    let Ok(mut session) = Session::open(input, consulted()) else {
        return;
    };
    let mut replies = None;
    let mut turn = 0;
    // A session asks a bounded number of questions; the bound is a guard.
    for asked in 0..64 {
        let question = match session.next(replies.take()) {
            Ok(Progress::Ask(question)) => question,
            Ok(Progress::Done(_)) | Err(_) => return,
        };
        let mut answered = answer(&question, &pools, &mut turn);
        if pools.miscount == Some(asked) {
            miscount(&mut answered);
        }
        replies = Some(answered);
    }
}

fn answer(question: &Question, pools: &Pools, turn: &mut usize) -> Replies {
    match question {
        Question::PreSlot(slots) => Replies::PreSlot(each(slots.len(), |plugin| PreSlotReply {
            plugin,
            answer: draw(&pools.pre_slot, turn).unwrap_or(Ok(PreSlotAnswer {
                decision: PreSlotDecision::Proceed,
                ext: None,
            })),
        })),
        Question::PostSlot(slots) => Replies::PostSlot(each(slots.len(), |plugin| PostSlotReply {
            plugin,
            answer: draw(&pools.post_slot, turn).unwrap_or(Ok(PostSlotAnswer {
                decision: PostSlotDecision::Accept,
                ext: None,
            })),
        })),
        Question::Promotion(groups) => {
            Replies::Promotion(each(groups.len(), |plugin| PromotionReply {
                plugin,
                answer: draw(&pools.promotion, turn)
                    .unwrap_or(Ok(PromotionDecision::Wait(String::new()))),
            }))
        }
    }
}

/// For each of `items` items, the reply of each consulted plugin, in order.
fn each<R>(items: usize, mut reply: impl FnMut(String) -> R) -> Vec<Vec<R>> {
    (0..items)
        .map(|_| {
            ["strict", "lenient"]
                .iter()
                .map(|name| reply((*name).to_string()))
                .collect()
        })
        .collect()
}

/// One item too many or too few.
fn miscount(replies: &mut Replies) {
    fn change<T: Clone>(list: &mut Vec<T>) {
        match list.first().cloned() {
            Some(first) if list.len().is_multiple_of(2) => list.push(first),
            _ => {
                list.pop();
            }
        }
    }
    match replies {
        Replies::PreSlot(l) => change(l),
        Replies::PostSlot(l) => change(l),
        Replies::Promotion(l) => change(l),
    }
}

/// Starting points for the corpus: each kind of answer, sound and unsound.
pub fn seeds() -> Vec<(String, Pools)> {
    let adjust = |allocation: &str, reclassify, update| PreSlotAnswer {
        decision: PreSlotDecision::Adjust(Adjustment {
            reason: "fuzz".into(),
            candidates: vec![CandidateAdjustment {
                allocation: allocation.into(),
                reclassify,
                update,
            }],
        }),
        ext: Some(b"state".to_vec()),
    };
    let defer = |until| PostSlotAnswer {
        decision: PostSlotDecision::Defer(Deferral {
            until,
            reason: "window".into(),
        }),
        ext: None,
    };
    vec![
        ("all-neutral".into(), Pools::default()),
        (
            "holds-and-vetoes".into(),
            Pools {
                pre_slot: vec![Ok(PreSlotAnswer {
                    decision: PreSlotDecision::Hold("frozen".into()),
                    ext: None,
                })],
                post_slot: vec![Ok(PostSlotAnswer {
                    decision: PostSlotDecision::Veto("no".into()),
                    ext: None,
                })],
                promotion: vec![Ok(PromotionDecision::Promote("healthy".into()))],
                miscount: None,
            },
        ),
        (
            "adjustments".into(),
            Pools {
                pre_slot: vec![
                    Ok(adjust("web-4", Some(Classification::Lost), None)),
                    Ok(adjust("web-0", None, Some(UpdateKind::InPlace))),
                    Ok(adjust("stranger", Some(Classification::Migrate), None)),
                    Ok(adjust("web-1", Some(Classification::Ignore), None)),
                ],
                ..Pools::default()
            },
        ),
        (
            "deferrals".into(),
            Pools {
                post_slot: vec![
                    Ok(defer(1_767_229_200_000_000_000)),
                    Ok(defer(0)),
                    Ok(defer(i64::MAX)),
                ],
                promotion: vec![Ok(PromotionDecision::Fail("bad canary".into()))],
                ..Pools::default()
            },
        ),
        (
            "failures-and-miscounts".into(),
            Pools {
                pre_slot: vec![
                    Err("trap".into()),
                    Ok(PreSlotAnswer {
                        decision: PreSlotDecision::Proceed,
                        ext: Some(vec![0; 64]),
                    }),
                ],
                post_slot: vec![Err("out of fuel".into())],
                promotion: vec![Err("deadline".into())],
                miscount: Some(1),
            },
        ),
    ]
}
