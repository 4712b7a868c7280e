//! Write a slotwise policy plugin in Rust: implement [`Plugin`] for the hooks you need, and `export!` it.
//!
//! ```ignore
//! #[derive(Default)]
//! struct Freeze { until: i64 }
//!
//! impl slotwise_plugin::Plugin for Freeze {
//!     const NAME: &'static str = "freeze";
//!     const VERSION: &'static str = "0.2.0";
//!     const DESCRIPTION: &'static str = "Defers every change until a given time.";
//!     const HOOKS: &'static [slotwise_plugin::Hook] = &[slotwise_plugin::Hook::PostSlot];
//!
//!     fn configure(&mut self, settings: &str) -> Result<(), String> {
//!         self.until = slotwise_plugin::settings::<i64>(settings)?;
//!         Ok(())
//!     }
//!
//!     fn post_slot(&mut self, batch: &slotwise_plugin::SlotBatch, _: &[slotwise_plugin::Kept])
//!         -> Vec<slotwise_plugin::PostSlotAnswer> {
//!         let until = self.until.max(batch.now + 1);
//!         slotwise_plugin::each_post_slot(batch, |_| slotwise_plugin::defer(until, "frozen"))
//!     }
//! }
//!
//! slotwise_plugin::export!(Freeze);
//! ```
//!
//! A plugin is asked once per batch: every slot of a group before it is
//! decided (pre-slot), with the changes proposed (post-slot), the canaries
//! awaiting promotion (promotion), and the whole proposed plan (review). It
//! answers every slot, in order; [`view::SlotRef`] reads a slot through the
//! batch's tables. The host asks only the hooks in [`Plugin::HOOKS`], and
//! sends the optional parts of a batch named in [`Plugin::READS`]. A fresh
//! instance serves each reconcile: the plugin value lives for one
//! reconcile, and memory across reconciles goes in the slots' ext data.
//!
//! [`testing`] builds batches, so that a plugin's decisions are unit-tested
//! natively by calling its methods; `export!` exports only in a `wasm32` build.

mod answers;
#[doc(hidden)]
pub mod bindings;
pub mod log;
// The reader lives in the scenario crate, which is published with it; the
// SDK compiles the same file over its own bindings' types.
#[path = "../../../scenario/src/packed.rs"]
pub mod packed;
mod plugin_types;
pub mod testing;
pub mod view;

pub use answers::*;
pub use bindings::exports::slotwise::plugin::types::*;
pub use view::{slots, SlotRef};

/// Whether the SDK asks for slot batches packed and unpacks them in the
/// plugin: one copy of bytes across each component boundary instead of a
/// record per item, measured faster (docs/writing-plugins.md). The plugin
/// sees the same typed [`SlotBatch`] either way.
pub const PACKED: bool = true;

/// No optional part of a batch: the cheapest batches.
pub const READS_NOTHING: ViewParts = ViewParts {
    node_ids: false,
    node_meta: false,
    allocation_ids: false,
    candidate_meta: false,
    change_messages: false,
    packed: false,
};

/// A policy plugin. Every hook has a default that leaves the decision to
/// the reconciler; the host calls only the hooks in [`Plugin::HOOKS`].
pub trait Plugin: Default + 'static {
    /// The plugin's name, unique among the plugins a host loads.
    const NAME: &'static str;
    /// Its version.
    const VERSION: &'static str;
    /// What it does, in a sentence.
    const DESCRIPTION: &'static str;
    /// The hooks it implements.
    const HOOKS: &'static [Hook];
    /// The optional parts of a batch it reads; the others are left out.
    /// Its `packed` is the SDK's business ([`PACKED`]), not the plugin's.
    const READS: ViewParts = READS_NOTHING;
    /// An example of its settings, JSON text, shown to operators; empty
    /// when it takes none.
    const SETTINGS_EXAMPLE: &'static str = "";

    /// Takes the settings from the host's plugins file (JSON text), saying
    /// clearly what is wrong with them. The default accepts none: `null` or
    /// an empty object.
    ///
    /// # Errors
    /// What is wrong with the settings.
    fn configure(&mut self, settings: &str) -> Result<(), String> {
        match serde_json::from_str::<serde_json::Value>(settings) {
            Ok(serde_json::Value::Null) => Ok(()),
            Ok(serde_json::Value::Object(map)) if map.is_empty() => Ok(()),
            _ => Err(format!("{} takes no settings", Self::NAME)),
        }
    }

    /// Every slot of a group before it is decided: one answer per slot.
    fn pre_slot(&mut self, batch: &SlotBatch, kept: &[Kept]) -> Vec<PreSlotAnswer> {
        let _ = kept;
        each_pre_slot(batch, |_| PreSlotDecision::Proceed)
    }

    /// Every slot of a group with its proposed changes: one answer per slot.
    fn post_slot(&mut self, batch: &SlotBatch, kept: &[Kept]) -> Vec<PostSlotAnswer> {
        let _ = kept;
        each_post_slot(batch, |_| PostSlotDecision::Accept)
    }

    /// Every deployment group whose canaries await promotion: one answer per group.
    fn promotion(&mut self, batch: &PromotionBatch) -> Vec<PromotionAnswer> {
        (0..batch.groups.len())
            .map(|at| PromotionAnswer {
                group: at as u32,
                decision: PromotionDecision::Abstain,
            })
            .collect()
    }

    /// The whole proposed plan: the changes to veto, if any.
    fn review(&mut self, batch: &SlotBatch) -> Vec<Veto> {
        let _ = batch;
        Vec::new()
    }
}

/// The metadata of plugin `P`.
pub fn metadata<P: Plugin>() -> PluginMetadata {
    PluginMetadata {
        name: P::NAME.to_string(),
        version: P::VERSION.to_string(),
        description: P::DESCRIPTION.to_string(),
        hooks: P::HOOKS.to_vec(),
        reads: ViewParts {
            packed: PACKED,
            ..P::READS
        },
        settings_example: P::SETTINGS_EXAMPLE.to_string(),
    }
}

/// Plugin `plugin`'s answers to `batch`, its packed slots unpacked first.
/// A packed buffer the SDK cannot read is logged as an error and answered
/// with what the reconciler refuses, so that the call fails as invalid and
/// the plugin's failure policy applies; the plugin is not asked.
pub fn answer<P: Plugin>(plugin: &mut P, mut batch: Batch, kept: &[Kept]) -> Answers {
    let unpacked = match &mut batch {
        Batch::PreSlot(b) | Batch::PostSlot(b) | Batch::Review(b) => packed::unpack(b),
        Batch::Promotion(_) => Ok(()),
    };
    if let Err(e) = unpacked {
        log::error(e.to_string());
        return match batch {
            // No answer for any slot: the wrong count.
            Batch::PreSlot(_) => Answers::PreSlot(Vec::new()),
            Batch::PostSlot(_) => Answers::PostSlot(Vec::new()),
            Batch::Promotion(_) => Answers::Promotion(Vec::new()),
            // No answer would accept the plan: a veto of no change instead.
            Batch::Review(_) => Answers::Review(vec![Veto {
                change: u32::MAX,
                reason: e.to_string(),
            }]),
        };
    }
    match &batch {
        Batch::PreSlot(b) => Answers::PreSlot(plugin.pre_slot(b, kept)),
        Batch::PostSlot(b) => Answers::PostSlot(plugin.post_slot(b, kept)),
        Batch::Promotion(b) => Answers::Promotion(plugin.promotion(b)),
        Batch::Review(b) => Answers::Review(plugin.review(b)),
    }
}

/// Reads settings of type `T` from their JSON text.
///
/// # Errors
/// What is wrong, naming the field, like `windows[0].start: invalid type`.
pub fn settings<T: serde::de::DeserializeOwned>(text: &str) -> Result<T, String> {
    let mut json = serde_json::Deserializer::from_str(text);
    serde_path_to_error::deserialize(&mut json).map_err(|e| {
        let path = e.path().to_string();
        let inner = e.into_inner();
        // A path of `.` is the settings as a whole: nothing to name.
        if path == "." {
            format!("bad settings: {inner}")
        } else {
            format!("bad settings: {path}: {inner}")
        }
    })
}

/// Exports plugin type `$plugin` as the component's `slotwise:plugin` exports.
#[macro_export]
macro_rules! export {
    ($plugin:ty) => {
        // Only a WebAssembly build exports: a native build (unit tests of
        // the plugin's decisions) cannot link the export names, which hold
        // `:` and `@`. Natively, naming the constructor keeps the plugin
        // type from reading as dead code.
        #[cfg(not(target_arch = "wasm32"))]
        const _: fn() -> $plugin = <$plugin as ::core::default::Default>::default;
        #[cfg(target_arch = "wasm32")]
        const _: () = {
            struct Exported;

            ::std::thread_local! {
                static PLUGIN: ::core::cell::RefCell<$plugin> =
                    ::core::cell::RefCell::new(<$plugin as ::core::default::Default>::default());
            }

            impl $crate::bindings::exports::slotwise::plugin::plugin::Guest for Exported {
                fn metadata() -> $crate::PluginMetadata {
                    $crate::metadata::<$plugin>()
                }

                fn configure(
                    settings: ::std::string::String,
                ) -> ::core::result::Result<(), ::std::string::String> {
                    let mut fresh = <$plugin as ::core::default::Default>::default();
                    $crate::Plugin::configure(&mut fresh, &settings)?;
                    PLUGIN.with(|p| *p.borrow_mut() = fresh);
                    Ok(())
                }

                fn answer(
                    batch: $crate::Batch,
                    kept: ::std::vec::Vec<$crate::Kept>,
                ) -> $crate::Answers {
                    PLUGIN.with(|p| $crate::answer(&mut *p.borrow_mut(), batch, &kept))
                }
            }

    $crate::bindings::export!(Exported with_types_in $crate::bindings);
        };
    };
}
