//! A 0.1 plugin without the SDK: holds the slots its settings list, naming the slot's first allocation, and accepts every proposal, so that tests see a 0.1 plugin loaded and adapted; with no slot listed it changes nothing, and the bench times the 0.1 adapter with it.

#[allow(missing_docs, clippy::all)]
mod bindings {
    wit_bindgen::generate!({
        world: "slotwise:plugin/pre-and-post-slot-plugin",
        path: "../../wit/plugin/since_v0.1.0",
    });
}

use bindings::exports::slotwise::plugin::plugin::Guest as PluginGuest;
use bindings::exports::slotwise::plugin::post_slot::Guest as PostSlotGuest;
use bindings::exports::slotwise::plugin::pre_slot::Guest as PreSlotGuest;
use bindings::exports::slotwise::plugin::types::{
    Hook, PluginMetadata, PostSlotAnswer, PostSlotDecision, PreSlotAnswer, PreSlotDecision,
    SlotProposal, SlotView,
};
use std::cell::RefCell;

std::thread_local! {
    static HELD: RefCell<Vec<u32>> = const { RefCell::new(Vec::new()) };
}

/// The slot indexes in `settings`, a JSON list like `[3, 5]`.
fn parse(settings: &str) -> Result<Vec<u32>, String> {
    let inner = settings
        .trim()
        .strip_prefix('[')
        .and_then(|s| s.strip_suffix(']'))
        .ok_or_else(|| {
            format!("settings must be a list of slot indexes like [3, 5], not {settings}")
        })?;
    inner
        .split(',')
        .map(str::trim)
        .filter(|s| !s.is_empty())
        .map(|s| {
            s.parse::<u32>()
                .map_err(|e| format!("`{s}` is not a slot index: {e}"))
        })
        .collect()
}

struct Hold;

impl PluginGuest for Hold {
    fn metadata() -> PluginMetadata {
        PluginMetadata {
            name: "hold-v0-1".into(),
            version: "0.1.0".into(),
            description:
                "Holds the slots its settings list and accepts every proposal (a 0.1 test plugin)."
                    .into(),
            hooks: vec![Hook::PreSlot, Hook::PostSlot],
        }
    }

    fn configure(settings: String) -> Result<(), String> {
        let held = parse(&settings)?;
        HELD.with(|h| *h.borrow_mut() = held);
        Ok(())
    }
}

impl PreSlotGuest for Hold {
    fn pre_slot(slot: SlotView) -> PreSlotAnswer {
        let held = HELD.with(|h| h.borrow().contains(&slot.index));
        let decision = match (held, slot.candidates.first()) {
            (true, Some(c)) => PreSlotDecision::Hold(format!(
                "held by a 0.1 plugin: {} in {}/{}",
                c.allocation, slot.group, slot.index
            )),
            (true, None) => PreSlotDecision::Hold(format!(
                "held by a 0.1 plugin: {}/{}",
                slot.group, slot.index
            )),
            (false, _) => PreSlotDecision::Proceed,
        };
        PreSlotAnswer {
            decision,
            ext: None,
        }
    }
}

impl PostSlotGuest for Hold {
    fn post_slot(_: SlotProposal) -> PostSlotAnswer {
        PostSlotAnswer {
            decision: PostSlotDecision::Accept,
            ext: None,
        }
    }
}

#[cfg(target_arch = "wasm32")]
bindings::export!(Hold with_types_in bindings);

#[cfg(test)]
mod tests {
    use super::parse;

    #[test]
    fn settings_are_a_list_of_slot_indexes() {
        assert_eq!(parse("[3, 5]"), Ok(vec![3, 5]));
        assert_eq!(parse("[]"), Ok(vec![]));
        assert!(parse("{}").is_err());
        assert!(parse("[x]").is_err_and(|e| e.contains("`x`")));
    }
}
