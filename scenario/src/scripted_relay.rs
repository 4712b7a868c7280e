//! The scripted relay: a scenario's scripted plugins answering a session's questions, plugged in as a host's relay is, so that the same scenarios test the one orchestration in every host.

use crate::error::ScenarioError;
use crate::file::span;
use crate::file::Indexes;
use crate::plugins::{Mode, OnError};
use crate::policy::{AdjustFile, PolicyFile, PostSlotFile, PreSlotFile, PromotionFile, ScriptFile};
use crate::script_slots::{BySlot, SlotName};
use slotwise_reconciler::plugin::{
    Adjustment, Answers, Batch, CandidateAdjustment, Deferral, Hook, PostSlotAnswer,
    PostSlotDecision, PreSlotAnswer, PreSlotDecision, PromotionAnswer, PromotionDecision,
    SlotBatch, SlotKey, Veto, ViewParts,
};
use slotwise_reconciler::{
    Consulted, Failure, FailureKind, LogLevel, LogLine, Mode as SessionMode, Question, Relay, Reply,
};
use std::collections::{BTreeMap, HashMap};
use std::rc::Rc;

/// The Rust SDK's reader of packed slot batches, compiled here over the
/// reconciler's types: scripts read a packed batch as its typed lists, and
/// the fuzz targets reach the reader through this crate.
#[path = "packed.rs"]
pub mod packed;

/// Plugins that answer from scripts, relayed as a host relays plugins.
pub struct ScriptedRelay {
    consulted: Vec<Consulted>,
    scripts: Vec<Script>,
}

/// One script, read.
struct Script {
    pre_slot: BySlot<Result<PreSlotScript, String>>,
    post_slot: BySlot<Result<PostSlotDecision, String>>,
    promotion: BTreeMap<String, Result<PromotionDecision, String>>,
    review: BySlot<Result<String, String>>,
    ext: BySlot<Vec<u8>>,
    log: BTreeMap<Hook, String>,
}

/// A scripted pre-slot decision: adjustments name allocations, which the
/// relay finds in each batch.
#[derive(Clone)]
enum PreSlotScript {
    Proceed,
    Hold(String),
    Adjust(AdjustFile),
}

/// The optional parts of a batch scripts read: they adjust candidates by
/// allocation id, and name a system job's node slots by node id.
fn script_reads() -> ViewParts {
    ViewParts {
        allocation_ids: true,
        node_ids: true,
        node_meta: false,
        candidate_meta: false,
        change_messages: false,
        packed: false,
    }
}

impl ScriptedRelay {
    /// The plugins `file` scripts, with times resolved against `now`.
    pub(crate) fn new(file: &PolicyFile, now: i64) -> Result<Self, ScenarioError> {
        let files = match file {
            PolicyFile::One(one) => std::slice::from_ref(one.as_ref()),
            PolicyFile::Many(many) => many.as_slice(),
        };
        let mut consulted = Vec::new();
        let mut scripts = Vec::new();
        for (n, file) in files.iter().enumerate() {
            let field = match file {
                _ if files.len() == 1 => "policy".to_string(),
                _ => format!("policy[{n}]"),
            };
            let script = Script::new(file, now, &field)?;
            let hooks = [
                (
                    Hook::PreSlot,
                    !(script.pre_slot.is_empty() && script.ext.is_empty())
                        || file.log.contains_key(&Hook::PreSlot),
                ),
                (
                    Hook::PostSlot,
                    !script.post_slot.is_empty() || file.log.contains_key(&Hook::PostSlot),
                ),
                (
                    Hook::Promotion,
                    !script.promotion.is_empty() || file.log.contains_key(&Hook::Promotion),
                ),
                (
                    Hook::Review,
                    !script.review.is_empty() || file.log.contains_key(&Hook::Review),
                ),
            ];
            consulted.push(Consulted {
                name: file.name.clone().unwrap_or_else(|| "scripted".to_string()),
                version: String::new(),
                hooks: hooks
                    .iter()
                    .filter(|(_, on)| *on)
                    .map(|(h, _)| *h)
                    .collect(),
                reads: script_reads(),
                mode: match file.mode {
                    Mode::Enforce => SessionMode::Enforce,
                    Mode::Monitor => SessionMode::Monitor,
                },
                fail_open: file.on_error == OnError::FailOpen,
                unloaded: None,
            });
            scripts.push(script);
        }
        Ok(Self { consulted, scripts })
    }

    /// The plugins the scripts stand for, as a session is opened with them.
    pub fn consulted(&self) -> Vec<Consulted> {
        self.consulted.clone()
    }

    /// The same scripts, asking for slot batches packed and unpacking them
    /// before they read them: their answers must be the typed relay's.
    #[must_use]
    pub fn packed(mut self) -> Self {
        for c in &mut self.consulted {
            c.reads.packed = true;
        }
        self
    }
}

impl Relay for ScriptedRelay {
    fn answer(&mut self, question: &Question, batch: &Batch) -> Reply {
        let plugin = question.plugin;
        let Some(script) = self.scripts.get(plugin as usize) else {
            return failed(FailureKind::Load, format!("no script {plugin}"));
        };
        let hook = match batch {
            Batch::PreSlot(_) => Hook::PreSlot,
            Batch::PostSlot(_) => Hook::PostSlot,
            Batch::Promotion(_) => Hook::Promotion,
            Batch::Review(_) => Hook::Review,
        };
        let logs = script
            .log
            .get(&hook)
            .map(|line| LogLine {
                level: LogLevel::Info,
                message: line.clone(),
            })
            .into_iter()
            .collect();
        let unpacked;
        let batch = match batch {
            Batch::PreSlot(b) | Batch::PostSlot(b) | Batch::Review(b) if !b.packed.is_empty() => {
                let mut typed = b.clone();
                if let Err(e) = packed::unpack(&mut typed) {
                    return failed(FailureKind::Invalid, e.to_string());
                }
                unpacked = match batch {
                    Batch::PreSlot(_) => Batch::PreSlot(typed),
                    Batch::PostSlot(_) => Batch::PostSlot(typed),
                    _ => Batch::Review(typed),
                };
                &unpacked
            }
            _ => batch,
        };
        let outcome = match batch {
            Batch::PreSlot(b) => script.pre_slot(b).map(Answers::PreSlot),
            Batch::PostSlot(b) => script.post_slot(b).map(Answers::PostSlot),
            Batch::Promotion(b) => {
                let mut answers = Vec::new();
                for (at, g) in b.groups.iter().enumerate() {
                    let decision = match script.promotion.get(&g.group) {
                        Some(Ok(d)) => d.clone(),
                        Some(Err(cause)) => return failed(FailureKind::Trap, cause.clone()),
                        // A group a script does not name gets no say from it.
                        None => PromotionDecision::Abstain,
                    };
                    answers.push(PromotionAnswer {
                        group: at as u32,
                        decision,
                    });
                }
                Ok(Answers::Promotion(answers))
            }
            Batch::Review(b) => script.review(b).map(Answers::Review),
        };
        Reply {
            outcome,
            logs,
            usage: None,
        }
    }
}

/// A reply with no answers.
fn failed(kind: FailureKind, message: String) -> Reply {
    Reply {
        outcome: Err(Failure { kind, message }),
        logs: Vec::new(),
        usage: None,
    }
}

/// Each slot of `batch`, by position, with its group and name: its name
/// index, or for a node slot its node's id.
fn slots(batch: &SlotBatch) -> impl Iterator<Item = (usize, (String, SlotName))> + '_ {
    batch.groups.iter().flat_map(move |g| {
        let first = g.slots.first as usize;
        (first..first + g.slots.count as usize).filter_map(move |at| {
            let name = match batch.slots.get(at)?.key {
                SlotKey::Index(index) => SlotName::Index(index),
                SlotKey::Node(node) => SlotName::Node(batch.nodes.get(node as usize)?.id.clone()?),
            };
            Some((at, (g.name.clone(), name)))
        })
    })
}

/// The most bytes of text and slot data one scripted reply may hold: the
/// memory a plugin has by default. A script's answer is copied into every
/// slot its range names, and no plugin could answer more than its memory
/// holds; without a bound, a reason of a few kilobytes given to a million
/// slots took gigabytes before the reconciler read it.
const MAX_REPLY_BYTES: usize = 64 << 20;

/// Counts the bytes of a reply as it is built, failing it past the limit.
struct Budget(usize);

impl Budget {
    fn spend(&mut self, bytes: usize) -> Result<(), Failure> {
        self.0 = self.0.saturating_add(bytes);
        if self.0 > MAX_REPLY_BYTES {
            return Err(Failure {
                kind: FailureKind::Memory,
                message: format!(
                    "the scripted answers hold more than {} MiB of text and slot data, the memory a plugin has by default",
                    MAX_REPLY_BYTES >> 20
                ),
            });
        }
        Ok(())
    }
}

/// A scripted failure, as a trap.
fn trap(cause: &str) -> Failure {
    Failure {
        kind: FailureKind::Trap,
        message: cause.to_string(),
    }
}

impl Script {
    fn pre_slot(&self, batch: &SlotBatch) -> Result<Vec<PreSlotAnswer>, Failure> {
        let mut answers = Vec::with_capacity(batch.slots.len());
        let mut budget = Budget(0);
        for (at, key) in slots(batch) {
            let decision = match self.pre_slot.get(&key) {
                None | Some(Ok(PreSlotScript::Proceed)) => PreSlotDecision::Proceed,
                Some(Ok(PreSlotScript::Hold(why))) => {
                    budget.spend(why.len())?;
                    PreSlotDecision::Hold(why.clone())
                }
                Some(Ok(PreSlotScript::Adjust(a))) => {
                    budget.spend(a.reason.len() + 8 * a.candidates.len())?;
                    PreSlotDecision::Adjust(adjustment(batch, at, a))
                }
                Some(Err(cause)) => return Err(trap(cause)),
            };
            let ext = self.ext.get(&key);
            budget.spend(ext.map_or(0, Vec::len))?;
            answers.push(PreSlotAnswer {
                slot: at as u32,
                decision,
                ext: ext.cloned(),
            });
        }
        Ok(answers)
    }

    fn post_slot(&self, batch: &SlotBatch) -> Result<Vec<PostSlotAnswer>, Failure> {
        let mut answers = Vec::with_capacity(batch.slots.len());
        let mut budget = Budget(0);
        for (at, key) in slots(batch) {
            let decision = match self.post_slot.get(&key) {
                None => PostSlotDecision::Accept,
                Some(Ok(d)) => {
                    budget.spend(match d {
                        PostSlotDecision::Accept => 0,
                        PostSlotDecision::Veto(why) => why.len(),
                        PostSlotDecision::Defer(d) => d.reason.len(),
                    })?;
                    d.clone()
                }
                Some(Err(cause)) => return Err(trap(cause)),
            };
            answers.push(PostSlotAnswer {
                slot: at as u32,
                decision,
                ext: None,
            });
        }
        Ok(answers)
    }

    fn review(&self, batch: &SlotBatch) -> Result<Vec<Veto>, Failure> {
        let mut vetoes = Vec::new();
        let mut budget = Budget(0);
        for (at, key) in slots(batch) {
            match self.review.get(&key) {
                None => {}
                Some(Ok(reason)) => {
                    let changes = batch.slots[at].changes;
                    if changes.count > 0 {
                        budget.spend(reason.len())?;
                        vetoes.push(Veto {
                            change: changes.first,
                            reason: reason.clone(),
                        });
                    }
                }
                Some(Err(cause)) => return Err(trap(cause)),
            }
        }
        Ok(vetoes)
    }
}

/// The scripted adjustment `a` of batch slot `at`, its allocations found
/// among the batch's candidates; one the slot does not hold is named by a
/// position past every candidate, which the reconciler refuses. Allocations
/// are found through a map of the slot's: a scan per listed allocation was
/// quadratic in a slot of many candidates.
fn adjustment(batch: &SlotBatch, at: usize, a: &AdjustFile) -> Adjustment {
    let span = batch.slots[at].candidates;
    let range = span.first as usize..(span.first + span.count) as usize;
    let mut by_id: HashMap<&str, u32> = HashMap::new();
    for (p, v) in batch
        .candidates
        .get(range)
        .unwrap_or(&[])
        .iter()
        .enumerate()
        .rev()
    {
        if let Some(id) = &v.allocation {
            by_id.insert(id, span.first + p as u32);
        }
    }
    let candidates = a
        .candidates
        .iter()
        .map(|c| CandidateAdjustment {
            candidate: by_id
                .get(c.allocation.as_str())
                .copied()
                .unwrap_or(batch.candidates.len() as u32),
            reclassify: c.reclassify,
            update: c.update,
        })
        .collect();
    Adjustment {
        candidates,
        reason: a.reason.clone(),
    }
}

impl Script {
    fn new(file: &ScriptFile, now: i64, field: &str) -> Result<Self, ScenarioError> {
        let mut pre_slot = by_slot(&file.pre_slot, &format!("{field}.pre-slot"), |r| {
            Ok(match r {
                PreSlotFile::Proceed => PreSlotScript::Proceed,
                PreSlotFile::Hold(why) => PreSlotScript::Hold(why.clone()),
                PreSlotFile::Adjust(a) => PreSlotScript::Adjust(a.clone()),
            })
        })?;
        pre_slot.extend(failing(
            &file.fail.pre_slot,
            &format!("{field}.fail.pre-slot"),
        )?);
        let mut post_slot = by_slot(&file.post_slot, &format!("{field}.post-slot"), |r| {
            Ok(match r {
                PostSlotFile::Accept => PostSlotDecision::Accept,
                PostSlotFile::Veto(why) => PostSlotDecision::Veto(why.clone()),
                PostSlotFile::Defer(d) => PostSlotDecision::Defer(Deferral {
                    until: d.until.resolve(now),
                    reason: d.reason.clone(),
                }),
            })
        })?;
        post_slot.extend(failing(
            &file.fail.post_slot,
            &format!("{field}.fail.post-slot"),
        )?);
        let mut promotion: BTreeMap<String, Result<PromotionDecision, String>> = file
            .promotion
            .iter()
            .map(|(group, r)| {
                let decision = match r {
                    PromotionFile::Promote(why) => PromotionDecision::Promote(why.clone()),
                    PromotionFile::Wait(why) => PromotionDecision::Wait(why.clone()),
                    PromotionFile::Fail(why) => PromotionDecision::Fail(why.clone()),
                };
                (group.clone(), Ok(decision))
            })
            .collect();
        promotion.extend(
            file.fail
                .promotion
                .iter()
                .map(|(group, cause)| (group.clone(), Err(cause.clone()))),
        );
        let mut review = by_slot(&file.review, &format!("{field}.review"), |why| {
            Ok(why.clone())
        })?;
        review.extend(failing(&file.fail.review, &format!("{field}.fail.review"))?);
        Ok(Self {
            pre_slot,
            post_slot,
            promotion,
            review,
            ext: by_slot(&file.ext, &format!("{field}.ext"), |text| {
                text.as_bytes().to_vec()
            })?,
            log: file.log.clone(),
        })
    }
}

/// The failures `fail` scripts, keyed by group and slot.
fn failing<T: Clone>(
    fail: &BTreeMap<String, String>,
    field: &str,
) -> Result<BySlot<Result<T, String>>, ScenarioError> {
    by_slot(fail, field, |cause| Err(cause.clone()))
}

/// `entries` keyed by group and slot, each slot of a range sharing its value.
fn by_slot<F, T>(
    entries: &BTreeMap<String, F>,
    field: &str,
    convert: impl Fn(&F) -> T,
) -> Result<BySlot<T>, ScenarioError> {
    let mut out = BySlot::default();
    for (key, entry) in entries {
        let path = format!("{field}.{key}");
        let value = Rc::new(convert(entry));
        if let Some((group, node)) = key.split_once('@').filter(|(_, n)| !n.is_empty()) {
            out.insert_node(group, node, value);
            continue;
        }
        let Some((group, slots)) = key.split_once('/') else {
            return Err(ScenarioError::Invalid {
                field: path,
                message: "a slot is named `group/index`, like `web/3`, or for a system job `group@node`, like `web@node-2`".into(),
            });
        };
        let indexes = match slots.parse::<u32>() {
            Ok(i) => Indexes::One(i),
            Err(_) => Indexes::Range(slots.to_string()),
        };
        out.insert_range(group, span(&indexes, &path)?, value);
    }
    Ok(out)
}
