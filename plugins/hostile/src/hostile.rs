//! A test plugin that misbehaves on purpose, as its settings choose, to check that the host contains misbehaving plugins.

use serde::Deserialize;
use slotwise_plugin::{
    accept, defer, proceed, veto, Adjustment, CandidateAdjustment, Classification, Plugin,
    PostSlotAnswer, PreSlotAnswer, PreSlotDecision, PromotionDecision, PromotionRequest,
    SlotProposal, SlotView, MINUTE,
};
use std::hint::black_box;

/// The hooks, as the WIT names them.
const HOOKS: [&str; 3] = ["pre-slot", "post-slot", "promotion"];

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
    const VERSION: &'static str = "0.1.0";
    const DESCRIPTION: &'static str =
        "A test plugin, not an example: misbehaves as its settings say.";

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

    fn pre_slot(&mut self, slot: &SlotView) -> PreSlotAnswer {
        if !self.targets("pre-slot", Some(slot.index)) {
            return proceed();
        }
        misbehave(self.behaviour);
        let first = slot.candidates.first().map(|c| c.allocation.clone());
        let adjust = |candidates: Vec<CandidateAdjustment>| PreSlotAnswer {
            decision: PreSlotDecision::Adjust(Adjustment {
                candidates,
                reason: format!("hostile: {:?}", self.behaviour),
            }),
            ext: None,
        };
        let change = |allocation: String, reclassify| CandidateAdjustment {
            allocation,
            reclassify,
            update: None,
        };
        match (self.behaviour, first) {
            (Behaviour::AdjustStranger, _) => {
                adjust(vec![change("no-such-allocation".into(), None)])
            }
            (Behaviour::AdjustTwice, Some(a)) => {
                adjust(vec![change(a.clone(), None), change(a, None)])
            }
            (Behaviour::HugeAnswer, _) => PreSlotAnswer {
                decision: PreSlotDecision::Hold(self.huge()),
                ext: Some(self.huge().into_bytes()),
            },
            (Behaviour::Reclassify, Some(_)) => {
                let class = self.class.unwrap_or(Classification::Disconnecting);
                let all = slot.candidates.iter();
                adjust(
                    all.map(|c| change(c.allocation.clone(), Some(class)))
                        .collect(),
                )
            }
            _ => proceed(),
        }
    }

    fn post_slot(&mut self, proposal: &SlotProposal) -> PostSlotAnswer {
        if !self.targets("post-slot", Some(proposal.slot.index)) {
            return accept();
        }
        misbehave(self.behaviour);
        match self.behaviour {
            Behaviour::DeferIntoThePast => defer(proposal.slot.now - MINUTE, "hostile: the past"),
            Behaviour::HugeAnswer => PostSlotAnswer {
                ext: Some(self.huge().into_bytes()),
                ..veto(self.huge())
            },
            _ => accept(),
        }
    }

    fn promotion(&mut self, request: &PromotionRequest) -> PromotionDecision {
        let wait = format!("hostile waits on {}", request.group);
        if !self.targets("promotion", None) {
            return PromotionDecision::Wait(wait);
        }
        misbehave(self.behaviour);
        match self.behaviour {
            Behaviour::HugeAnswer => PromotionDecision::Wait(self.huge()),
            _ => PromotionDecision::Wait(wait),
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
