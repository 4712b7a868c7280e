//! A test plugin that misbehaves on purpose, as its settings choose, to check that the host contains misbehaving plugins.

use serde::Deserialize;
use slotwise_plugin::{
    defer, each_post_slot, each_pre_slot, Adjustment, CandidateAdjustment, Classification, Hook,
    Kept, Plugin, PostSlotAnswer, PostSlotDecision, PreSlotAnswer, PreSlotDecision,
    PromotionAnswer, PromotionBatch, PromotionDecision, SlotBatch, SlotRef, Veto, MINUTE,
};
use std::hint::black_box;

/// The hooks, as the WIT names them.
const HOOKS: [&str; 4] = ["pre-slot", "post-slot", "promotion", "review"];

/// What the plugin does when asked.
#[derive(Deserialize, Clone, Copy, Debug, Default, PartialEq, Eq)]
#[serde(rename_all = "kebab-case")]
enum Behaviour {
    #[default]
    Behave,
    Loop,
    MemoryBomb,
    Trap,
    Panic,
    StackOverflow,
    AdjustStranger,
    AdjustTwice,
    Reclassify,
    DeferIntoThePast,
    HugeAnswer,
    /// Answers one slot too few.
    WrongCount,
    /// Answers a slot past the batch's last.
    UnknownSlot,
    /// Answers the slots in reverse order.
    OutOfOrder,
    /// Logs more lines than a host keeps.
    LogFlood,
    /// Vetoes a change that does not exist, at review.
    VetoStranger,
}

/// Where it misbehaves.
#[derive(Deserialize, Clone, Copy, Debug, Default, PartialEq, Eq)]
#[serde(rename_all = "kebab-case")]
enum Stage {
    #[default]
    Hooks,
    Configure,
}

#[derive(Deserialize, Debug)]
#[serde(deny_unknown_fields, rename_all = "kebab-case")]
struct Settings {
    behaviour: Behaviour,
    #[serde(default)]
    stage: Stage,
    slot: Option<u32>,
    hooks: Option<Vec<String>>,
    class: Option<String>,
    size: Option<u32>,
}

#[derive(Default)]
struct Hostile {
    behaviour: Behaviour,
    slot: Option<u32>,
    /// The hooks to misbehave at, by WIT name; `None`: all.
    hooks: Option<Vec<String>>,
    class: Option<Classification>,
    /// Bytes of a huge answer.
    size: usize,
}

/// The size of a huge answer unless the settings say otherwise.
const HUGE: usize = 16 << 20;

impl Hostile {
    /// Text of the huge answer's size.
    fn huge(&self) -> String {
        "x".repeat(self.size)
    }

    /// Whether to misbehave at `hook`, for slot `index` when it has one.
    fn targets(&self, hook: &str, index: Option<u32>) -> bool {
        let at_hook = self
            .hooks
            .as_ref()
            .is_none_or(|h| h.iter().any(|n| n == hook));
        let at_slot = match (self.slot, index) {
            (Some(wanted), Some(index)) => wanted == index,
            // A promotion has no slot: a test aiming at one slot spares it.
            (Some(_), None) => false,
            (None, _) => true,
        };
        at_hook && at_slot
    }
}

impl Plugin for Hostile {
    const NAME: &'static str = "hostile";
    const VERSION: &'static str = "0.2.0";
    const DESCRIPTION: &'static str =
        "A test plugin, not an example: misbehaves as its settings say.";
    const HOOKS: &'static [Hook] = &[Hook::Promotion, Hook::PreSlot, Hook::PostSlot, Hook::Review];
    const SETTINGS_EXAMPLE: &'static str = r#"{"behaviour": "trap", "slot": 3}"#;

    fn configure(&mut self, settings: &str) -> Result<(), String> {
        let s: Settings = slotwise_plugin::settings(settings)?;
        if s.stage == Stage::Configure {
            misbehave(s.behaviour);
        }
        let class = s.class.as_deref().map(classification).transpose()?;
        if let Some(unknown) = s
            .hooks
            .iter()
            .flatten()
            .find(|h| !HOOKS.contains(&h.as_str()))
        {
            return Err(format!("bad settings: hooks: `{unknown}` is no hook"));
        }
        *self = Hostile {
            behaviour: s.behaviour,
            slot: s.slot,
            hooks: s.hooks,
            class,
            size: s.size.map_or(HUGE, |n| n as usize),
        };
        Ok(())
    }

    fn pre_slot(&mut self, batch: &SlotBatch, _: &[Kept]) -> Vec<PreSlotAnswer> {
        let mut answers =
            each_pre_slot(batch, |at| self.pre_slot_decision(SlotRef::new(batch, at)));
        if self.targets_batch("pre-slot", batch) {
            if self.behaviour == Behaviour::HugeAnswer {
                for a in answers
                    .iter_mut()
                    .filter(|a| self.targets_slot(batch, a.slot))
                {
                    a.ext = Some(self.huge().into_bytes());
                }
            }
            self.garble(&mut answers, |a, slot| a.slot = slot);
        }
        answers
    }

    fn post_slot(&mut self, batch: &SlotBatch, _: &[Kept]) -> Vec<PostSlotAnswer> {
        let mut answers = each_post_slot(batch, |at| {
            let slot = SlotRef::new(batch, at);
            if !self.targets("post-slot", slot.index()) {
                return PostSlotDecision::Accept;
            }
            misbehave(self.behaviour);
            match self.behaviour {
                Behaviour::DeferIntoThePast => defer(batch.now - MINUTE, "hostile: the past"),
                Behaviour::HugeAnswer => PostSlotDecision::Veto(self.huge()),
                _ => PostSlotDecision::Accept,
            }
        });
        if self.targets_batch("post-slot", batch) {
            if self.behaviour == Behaviour::HugeAnswer {
                for a in answers
                    .iter_mut()
                    .filter(|a| self.targets_slot(batch, a.slot))
                {
                    a.ext = Some(self.huge().into_bytes());
                }
            }
            self.garble(&mut answers, |a, slot| a.slot = slot);
        }
        answers
    }

    fn promotion(&mut self, batch: &PromotionBatch) -> Vec<PromotionAnswer> {
        (0..batch.groups.len())
            .map(|at| {
                let group = &batch.groups[at].group;
                let wait = format!("hostile waits on {group}");
                let decision = if self.targets("promotion", None) {
                    misbehave(self.behaviour);
                    match self.behaviour {
                        Behaviour::HugeAnswer => PromotionDecision::Wait(self.huge()),
                        _ => PromotionDecision::Wait(wait),
                    }
                } else {
                    PromotionDecision::Wait(wait)
                };
                PromotionAnswer {
                    group: at as u32,
                    decision,
                }
            })
            .collect()
    }

    fn review(&mut self, batch: &SlotBatch) -> Vec<Veto> {
        if !self.targets("review", None) {
            return Vec::new();
        }
        misbehave(self.behaviour);
        match self.behaviour {
            Behaviour::VetoStranger => vec![Veto {
                change: batch.changes.len() as u32 + 7,
                reason: "hostile: no such change".into(),
            }],
            Behaviour::HugeAnswer => vec![Veto {
                change: 0,
                reason: self.huge(),
            }],
            _ => Vec::new(),
        }
    }
}

impl Hostile {
    fn pre_slot_decision(&self, slot: SlotRef) -> PreSlotDecision {
        if !self.targets("pre-slot", slot.index()) {
            return PreSlotDecision::Proceed;
        }
        misbehave(self.behaviour);
        let mut own = slot.candidates().map(|(p, _)| p);
        let first = own.next();
        let adjust = |candidates: Vec<CandidateAdjustment>| {
            PreSlotDecision::Adjust(Adjustment {
                candidates,
                reason: format!("hostile: {:?}", self.behaviour),
            })
        };
        let change = |candidate: u32, reclassify| CandidateAdjustment {
            candidate,
            reclassify,
            update: None,
        };
        match (self.behaviour, first) {
            (Behaviour::AdjustStranger, _) => {
                adjust(vec![change(slot.batch.candidates.len() as u32 + 3, None)])
            }
            (Behaviour::AdjustTwice, Some(p)) => adjust(vec![change(p, None), change(p, None)]),
            (Behaviour::HugeAnswer, _) => PreSlotDecision::Hold(self.huge()),
            (Behaviour::Reclassify, Some(_)) => {
                let class = self.class.unwrap_or(Classification::Disconnecting);
                adjust(
                    slot.candidates()
                        .map(|(p, _)| change(p, Some(class)))
                        .collect(),
                )
            }
            _ => PreSlotDecision::Proceed,
        }
    }

    /// Whether the batch holds a slot to misbehave at, at `hook`.
    fn targets_batch(&self, hook: &str, batch: &SlotBatch) -> bool {
        (0..batch.slots.len()).any(|at| self.targets(hook, SlotRef::new(batch, at).index()))
    }

    /// Whether answer `slot` (a batch position) is about the targeted slot.
    fn targets_slot(&self, batch: &SlotBatch, slot: u32) -> bool {
        let index = SlotRef::new(batch, slot as usize).index();
        self.slot.is_none() || self.slot == index
    }

    /// Spoils the answers' count, order or slots, or floods the log, as the
    /// behaviour says; `renumber` sets the slot an answer names.
    fn garble<A>(&self, answers: &mut Vec<A>, renumber: impl Fn(&mut A, u32)) {
        match self.behaviour {
            Behaviour::WrongCount => {
                answers.pop();
            }
            Behaviour::UnknownSlot => {
                let past = answers.len() as u32 + 5;
                if let Some(last) = answers.last_mut() {
                    renumber(last, past);
                }
            }
            Behaviour::OutOfOrder => answers.reverse(),
            Behaviour::LogFlood => {
                for n in 0..1_000 {
                    slotwise_plugin::log::warn(format!("hostile line {n}"));
                }
            }
            _ => {}
        }
    }
}

/// The classification named `name`, as the WIT spells it.
fn classification(name: &str) -> Result<Classification, String> {
    Ok(match name {
        "untainted" => Classification::Untainted,
        "migrate" => Classification::Migrate,
        "lost" => Classification::Lost,
        "disconnecting" => Classification::Disconnecting,
        "reconnecting" => Classification::Reconnecting,
        "ignore" => Classification::Ignore,
        "expiring" => Classification::Expiring,
        other => {
            return Err(format!(
                "bad settings: class: `{other}` is no classification"
            ))
        }
    })
}

/// Does what `behaviour` says if it is one that never answers.
fn misbehave(behaviour: Behaviour) {
    match behaviour {
        Behaviour::Loop => {
            // black_box keeps the optimizer from proving the loop useless.
            let mut n: u64 = 0;
            loop {
                n = black_box(n.wrapping_add(1));
            }
        }
        Behaviour::MemoryBomb => {
            let mut hoard: Vec<Vec<u8>> = Vec::new();
            loop {
                hoard.push(black_box(vec![0xA5; 1 << 20]));
            }
        }
        Behaviour::Trap => trap(),
        Behaviour::Panic => panic!("hostile plugin panics as asked"),
        Behaviour::StackOverflow => {
            black_box(descend(0));
        }
        _ => {}
    }
}

/// Recurses without end; the frame's array keeps it from becoming a loop.
#[allow(unconditional_recursion)] // The point: a stack that runs out.
fn descend(depth: u64) -> u64 {
    let frame = black_box([depth; 16]);
    descend(frame[(depth % 16) as usize] + 1) + frame[0]
}

#[cfg(target_arch = "wasm32")]
fn trap() -> ! {
    core::arch::wasm32::unreachable()
}

#[cfg(not(target_arch = "wasm32"))]
fn trap() -> ! {
    std::process::abort()
}

slotwise_plugin::export!(Hostile);
