//! The plugin contract as the host sees it, generated from `wit/plugin` by wasmtime: one set of bindings per hook interface, so a plugin exports only the hooks it implements.

wasmtime::component::bindgen!({
    world: "slotwise:plugin/all-hooks-plugin",
    path: "wit/plugin",
    additional_derives: [serde::Serialize, serde::Deserialize],
});

pub use exports::slotwise::plugin::types;
pub use exports::slotwise::plugin::{plugin, post_slot, pre_slot, promotion};

/// The version of the plugin package this host speaks.
pub const VERSION: &str = "0.1.0";

/// The package every plugin interface belongs to.
pub const PACKAGE: &str = "slotwise:plugin";
