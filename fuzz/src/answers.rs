//! The plugin-answer target: the fuzzed bytes decide what two plugins answer to every question of a session that asks at every hook; the reconciler may refuse their answers, never panic.
//!
//! The bytes are read as a stream of choices, so that every mutation of
//! them is a different way to answer: a failure or answers, how many (the
//! right count, one more, one fewer), which slot, candidate, group or change
//! each names (in range or not), what it decides, the bytes it keeps and the
//! lines it logs.

use slotwise_reconciler::plugin::{
    Adjustment, Answers, Batch, CandidateAdjustment, Classification, Deferral, Hook,
    PostSlotAnswer, PostSlotDecision, PreSlotAnswer, PreSlotDecision, PromotionAnswer,
    PromotionDecision, UpdateKind, Veto, READS_EVERY_PART,
};
use slotwise_reconciler::{
    Consulted, Failure, FailureKind, LogLevel, LogLine, Mode, Progress, ReconcileInput, Reply,
    Session, Usage,
};
use std::sync::LazyLock;

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

/// The scenario's input, read once per process: reading its YAML took more
/// time than the session a case runs on it.
pub(crate) fn input() -> Option<ReconcileInput> {
    static READ: LazyLock<Option<ReconcileInput>> = LazyLock::new(|| {
        slotwise_scenario::parse(SCENARIO, slotwise_scenario::Syntax::Yaml)
            .ok()
            .map(|s| s.input)
    });
    READ.clone()
}

/// A plugin that fails closed and one that fails open (and monitors, when
/// the first byte says so), both at every hook, reading every part.
fn consulted(monitor: bool) -> Vec<Consulted> {
    let plugin = |name: &str, mode, fail_open| Consulted {
        name: name.into(),
        version: "1".into(),
        hooks: vec![Hook::Promotion, Hook::PreSlot, Hook::PostSlot, Hook::Review],
        reads: READS_EVERY_PART,
        mode,
        fail_open,
        unloaded: None,
    };
    let second = if monitor {
        Mode::Monitor
    } else {
        Mode::Enforce
    };
    vec![
        plugin("strict", Mode::Enforce, false),
        plugin("lenient", second, true),
    ]
}

/// The fuzzed bytes, read as choices; past their end every choice is zero.
struct Choices<'a> {
    data: &'a [u8],
    at: usize,
}

impl Choices<'_> {
    fn byte(&mut self) -> u8 {
        let b = self.data.get(self.at).copied().unwrap_or(0);
        self.at += 1;
        b
    }

    /// A choice among `n`; zero when there is none.
    fn below(&mut self, n: u32) -> u32 {
        u32::from(self.byte()) % n.max(1)
    }

    /// True once in `n` choices, never for a zero: past the data's end
    /// every branch taken is the ordinary one, not the costly one.
    fn one_in(&mut self, n: u8) -> bool {
        self.byte() % n == n - 1
    }

    /// A position among `n` items, now and then just past them or far off.
    fn position(&mut self, n: u32) -> u32 {
        match self.byte() % 16 {
            15 => n,
            14 => u32::MAX,
            _ => self.below(n),
        }
    }

    fn text(&mut self) -> String {
        let n = self.below(12);
        (0..n)
            .map(|_| char::from(b' ' + self.byte() % 95))
            .collect()
    }

    fn time(&mut self) -> i64 {
        let raw = i64::from_le_bytes(std::array::from_fn(|_| self.byte()));
        match self.byte() % 4 {
            0 => raw,
            // Near the scenario's now (2026-01-01), before and after it.
            _ => 1_767_225_600_000_000_000 + raw % 3_600_000_000_000,
        }
    }
}

/// Runs a session whose two plugins answer as `data` decides: the reconciler
/// may refuse what they answer, never panic.
pub fn plugin_answers(data: &[u8]) {
    let mut choices = Choices { data, at: 0 };
    let Some(input) = input() else {
        return;
    };
    let monitor = choices.one_in(2);
    let Ok(mut session) = Session::open(input, consulted(monitor)) else {
        return;
    };
    let mut reply = None;
    let mut batch: Option<Batch> = None;
    // A session asks a bounded number of questions; the bound is a guard.
    for _ in 0..64 {
        let question = match session.next(reply.take()) {
            Ok(Progress::Ask(question)) => question,
            Ok(Progress::Done(_)) | Err(_) => return,
        };
        // A question without a batch is about the previous question's.
        if let Some(fresh) = question.batch {
            batch = Some(fresh);
        }
        let Some(asked) = &batch else {
            return;
        };
        reply = Some(Reply {
            outcome: outcome(&mut choices, asked, question.items),
            logs: logs(&mut choices),
            usage: choices.one_in(2).then(|| Usage {
                fuel: u64::from(choices.byte()) << 20,
                memory: u64::from(choices.byte()) << 16,
            }),
        });
    }
}

fn outcome(choices: &mut Choices, batch: &Batch, items: u32) -> Result<Answers, Failure> {
    if choices.one_in(8) {
        let kinds = [
            FailureKind::Trap,
            FailureKind::Fuel,
            FailureKind::Memory,
            FailureKind::Deadline,
            FailureKind::TooLarge,
            FailureKind::Invalid,
            FailureKind::Load,
        ];
        return Err(Failure {
            kind: kinds[choices.below(kinds.len() as u32) as usize],
            message: choices.text(),
        });
    }
    // The right count most of the time; one more or one fewer now and then.
    let count = match choices.byte() % 16 {
        15 => items + 1,
        14 => items.saturating_sub(1),
        _ => items,
    };
    let answers = match batch {
        Batch::PreSlot(b) => Answers::PreSlot(
            (0..count)
                .map(|i| pre_slot(choices, i, b.candidates.len() as u32))
                .collect(),
        ),
        Batch::PostSlot(_) => {
            Answers::PostSlot((0..count).map(|i| post_slot(choices, i)).collect())
        }
        Batch::Promotion(_) => {
            Answers::Promotion((0..count).map(|i| promotion(choices, i)).collect())
        }
        Batch::Review(b) => {
            let vetoes = choices.below(4);
            Answers::Review(
                (0..vetoes)
                    .map(|_| Veto {
                        change: choices.position(b.changes.len() as u32),
                        reason: choices.text(),
                    })
                    .collect(),
            )
        }
    };
    Ok(answers)
}

/// The slot an answer names: its own position, now and then another.
fn slot(choices: &mut Choices, i: u32) -> u32 {
    if choices.one_in(16) {
        choices.position(i + 2)
    } else {
        i
    }
}

fn ext(choices: &mut Choices) -> Option<Vec<u8>> {
    choices.one_in(4).then(|| {
        let n = match choices.byte() % 8 {
            7 => 8 << 10,
            _ => usize::from(choices.byte()),
        };
        vec![choices.byte(); n]
    })
}

fn pre_slot(choices: &mut Choices, i: u32, candidates: u32) -> PreSlotAnswer {
    let classes = [
        Classification::Untainted,
        Classification::Migrate,
        Classification::Lost,
        Classification::Ignore,
        Classification::Expiring,
    ];
    let updates = [
        UpdateKind::Ignore,
        UpdateKind::InPlace,
        UpdateKind::Destructive,
    ];
    let slot = slot(choices, i);
    let decision = match choices.byte() % 4 {
        1 => PreSlotDecision::Hold(choices.text()),
        2 => PreSlotDecision::Adjust(Adjustment {
            candidates: (0..choices.below(3))
                .map(|_| CandidateAdjustment {
                    candidate: choices.position(candidates),
                    reclassify: choices
                        .one_in(2)
                        .then(|| classes[choices.below(classes.len() as u32) as usize]),
                    update: choices
                        .one_in(2)
                        .then(|| updates[choices.below(updates.len() as u32) as usize]),
                })
                .collect(),
            reason: choices.text(),
        }),
        _ => PreSlotDecision::Proceed,
    };
    PreSlotAnswer {
        slot,
        decision,
        ext: ext(choices),
    }
}

fn post_slot(choices: &mut Choices, i: u32) -> PostSlotAnswer {
    let slot = slot(choices, i);
    let decision = match choices.byte() % 4 {
        1 => PostSlotDecision::Veto(choices.text()),
        2 => PostSlotDecision::Defer(Deferral {
            until: choices.time(),
            reason: choices.text(),
        }),
        _ => PostSlotDecision::Accept,
    };
    PostSlotAnswer {
        slot,
        decision,
        ext: ext(choices),
    }
}

fn promotion(choices: &mut Choices, i: u32) -> PromotionAnswer {
    let group = slot(choices, i);
    let decision = match choices.byte() % 3 {
        0 => PromotionDecision::Promote(choices.text()),
        1 => PromotionDecision::Wait(choices.text()),
        _ => PromotionDecision::Fail(choices.text()),
    };
    PromotionAnswer { group, decision }
}

fn logs(choices: &mut Choices) -> Vec<LogLine> {
    let levels = [
        LogLevel::Debug,
        LogLevel::Info,
        LogLevel::Warn,
        LogLevel::Error,
    ];
    let n = match choices.byte() % 16 {
        15 => 300,
        k => usize::from(k % 3),
    };
    (0..n)
        .map(|_| LogLine {
            level: levels[choices.below(levels.len() as u32) as usize],
            message: if choices.one_in(32) {
                "x".repeat(8 << 10)
            } else {
                choices.text()
            },
        })
        .collect()
}

/// Starting points for the corpus: byte streams that answer soundly, hold,
/// adjust, veto, defer, promote, fail, miscount and log.
pub fn seeds() -> Vec<(String, Vec<u8>)> {
    vec![
        ("all-neutral".into(), Vec::new()),
        ("holds-and-vetoes".into(), [1, 3, 2, 0, 4, 1].repeat(40)),
        ("adjustments".into(), [1, 5, 2, 1, 2, 7, 3, 1].repeat(40)),
        ("deferrals".into(), [9, 2, 4, 1, 1, 200, 13, 0].repeat(40)),
        (
            "failures-and-miscounts".into(),
            [0, 8, 16, 1, 17].repeat(40),
        ),
        ("logs".into(), [2, 3, 16, 5, 32].repeat(40)),
    ]
}
