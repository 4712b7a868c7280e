//! Write a slotwise policy plugin in Rust: implement [`Plugin`] for the hooks you need, and `export!` it.
//!
//! ```ignore
//! #[derive(Default)]
//! struct Freeze { until: i64 }
//!
//! impl slotwise_plugin::Plugin for Freeze {
//!     const NAME: &'static str = "freeze";
//!     const VERSION: &'static str = "0.1.0";
//!     const DESCRIPTION: &'static str = "Defers every change until a given time.";
//!
//!     fn configure(&mut self, settings: &str) -> Result<(), String> {
//!         self.until = slotwise_plugin::settings::<i64>(settings)?;
//!         Ok(())
//!     }
//!
//!     fn post_slot(&mut self, p: &slotwise_plugin::SlotProposal) -> slotwise_plugin::PostSlotAnswer {
//!         slotwise_plugin::defer(self.until.max(p.slot.now + 1), "frozen")
//!     }
//! }
//!
//! slotwise_plugin::export!(Freeze);
//! ```
//!
//! The hooks a plugin implements are the crate features it enables
//! (`pre-slot`, `post-slot`, `promotion`); each combination selects the
//! `slotwise:plugin` world that exports exactly those hooks, so the host
//! calls only them. A fresh instance serves each reconcile: the plugin value
//! lives for one reconcile, and memory across reconciles goes in the slots'
//! ext data.
//!
//! [`testing`] builds views, so that a plugin's decisions are unit-tested
//! natively by calling its methods; `export!` exports only in a `wasm32` build.

mod answers;
#[doc(hidden)]
pub mod bindings;
pub mod testing;

pub use answers::*;
pub use bindings::exports::slotwise::plugin::types::*;

/// A policy plugin. Every hook has a default that leaves the decision to
/// the reconciler; the host calls only the hooks the crate's features name.
pub trait Plugin: Default + 'static {
    /// The plugin's name, unique among the plugins a host loads.
    const NAME: &'static str;
    /// Its version.
    const VERSION: &'static str;
    /// What it does, in a sentence.
    const DESCRIPTION: &'static str;

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

    /// Looks at a slot before it is decided.
    fn pre_slot(&mut self, slot: &SlotView) -> PreSlotAnswer {
        let _ = slot;
        proceed()
    }

    /// Accepts, vetoes or defers the changes proposed for a slot.
    fn post_slot(&mut self, proposal: &SlotProposal) -> PostSlotAnswer {
        let _ = proposal;
        accept()
    }

    /// Decides about canaries awaiting promotion.
    fn promotion(&mut self, request: &PromotionRequest) -> PromotionDecision {
        let _ = request;
        PromotionDecision::Wait(format!("{} has no promotion policy", Self::NAME))
    }
}

/// The hooks this build of a plugin implements, from the crate features.
pub const HOOKS: &[Hook] = &[
    #[cfg(feature = "pre-slot")]
    Hook::PreSlot,
    #[cfg(feature = "post-slot")]
    Hook::PostSlot,
    #[cfg(feature = "promotion")]
    Hook::Promotion,
];

/// The metadata of plugin `P`.
pub fn metadata<P: Plugin>() -> PluginMetadata {
    PluginMetadata {
        name: P::NAME.to_string(),
        version: P::VERSION.to_string(),
        description: P::DESCRIPTION.to_string(),
        hooks: HOOKS.to_vec(),
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
            }

            $crate::__export_pre_slot!(Exported, $plugin, PLUGIN);
            $crate::__export_post_slot!(Exported, $plugin, PLUGIN);
            $crate::__export_promotion!(Exported, $plugin, PLUGIN);

    $crate::bindings::export!(Exported with_types_in $crate::bindings);
        };
    };
}

#[cfg(any(
    feature = "pre-slot",
    not(any(feature = "post-slot", feature = "promotion"))
))]
#[doc(hidden)]
#[macro_export]
macro_rules! __export_pre_slot {
    ($shim:ident, $plugin:ty, $state:ident) => {
        impl $crate::bindings::exports::slotwise::plugin::pre_slot::Guest for $shim {
            fn pre_slot(slot: $crate::SlotView) -> $crate::PreSlotAnswer {
                $state.with(|p| $crate::Plugin::pre_slot(&mut *p.borrow_mut(), &slot))
            }
        }
    };
}

#[cfg(not(any(
    feature = "pre-slot",
    not(any(feature = "post-slot", feature = "promotion"))
)))]
#[doc(hidden)]
#[macro_export]
macro_rules! __export_pre_slot {
    ($shim:ident, $plugin:ty, $state:ident) => {};
}

#[cfg(any(
    feature = "post-slot",
    not(any(feature = "pre-slot", feature = "promotion"))
))]
#[doc(hidden)]
#[macro_export]
macro_rules! __export_post_slot {
    ($shim:ident, $plugin:ty, $state:ident) => {
        impl $crate::bindings::exports::slotwise::plugin::post_slot::Guest for $shim {
            fn post_slot(proposal: $crate::SlotProposal) -> $crate::PostSlotAnswer {
                $state.with(|p| $crate::Plugin::post_slot(&mut *p.borrow_mut(), &proposal))
            }
        }
    };
}

#[cfg(not(any(
    feature = "post-slot",
    not(any(feature = "pre-slot", feature = "promotion"))
)))]
#[doc(hidden)]
#[macro_export]
macro_rules! __export_post_slot {
    ($shim:ident, $plugin:ty, $state:ident) => {};
}

#[cfg(any(
    feature = "promotion",
    not(any(feature = "pre-slot", feature = "post-slot"))
))]
#[doc(hidden)]
#[macro_export]
macro_rules! __export_promotion {
    ($shim:ident, $plugin:ty, $state:ident) => {
        impl $crate::bindings::exports::slotwise::plugin::promotion::Guest for $shim {
            fn promotion(request: $crate::PromotionRequest) -> $crate::PromotionDecision {
                $state.with(|p| $crate::Plugin::promotion(&mut *p.borrow_mut(), &request))
            }
        }
    };
}

#[cfg(not(any(
    feature = "promotion",
    not(any(feature = "pre-slot", feature = "post-slot"))
)))]
#[doc(hidden)]
#[macro_export]
macro_rules! __export_promotion {
    ($shim:ident, $plugin:ty, $state:ident) => {};
}
