//! The plugin contract as the host sees it, generated from `wit/plugin` by wasmtime: `slotwise:plugin@0.2.0`, and the frozen `0.1.0` for the plugins built for it.

wasmtime::component::bindgen!({
    world: "slotwise:plugin/policy-plugin",
    path: "wit/plugin",
    additional_derives: [serde::Serialize, serde::Deserialize],
});

pub use exports::slotwise::plugin::{plugin, types};
pub use slotwise::plugin::log;

/// The version of the plugin package this host speaks natively.
pub const VERSION: &str = "0.2.0";

/// The versions of the plugin package this host loads, newest first.
pub const VERSIONS: [&str; 2] = [VERSION, since_v0_1_0::VERSION];

/// The package every plugin interface belongs to.
pub const PACKAGE: &str = "slotwise:plugin";

/// A hook's name as the WIT spells it (`pre-slot`), from the case's own
/// name, so that a new hook needs no table here.
pub fn hook_name(hook: types::Hook) -> String {
    let debug = format!("{hook:?}");
    // wasmtime writes `Hook::PreSlot`.
    let case = debug.rsplit("::").next().unwrap_or(&debug);
    let mut name = String::with_capacity(case.len() + 2);
    for (i, c) in case.chars().enumerate() {
        if c.is_ascii_uppercase() && i > 0 {
            name.push('-');
        }
        name.push(c.to_ascii_lowercase());
    }
    name
}

#[cfg(test)]
mod tests {
    use super::{hook_name, types::Hook};

    #[test]
    fn hooks_are_named_as_the_wit_spells_them() {
        assert_eq!(hook_name(Hook::PreSlot), "pre-slot");
        assert_eq!(hook_name(Hook::PostSlot), "post-slot");
        assert_eq!(hook_name(Hook::Promotion), "promotion");
        assert_eq!(hook_name(Hook::Review), "review");
    }
}

/// `slotwise:plugin@0.1.0`, frozen as published.
pub mod since_v0_1_0 {
    wasmtime::component::bindgen!({
        world: "slotwise:plugin/all-hooks-plugin",
        path: "wit/plugin/since_v0.1.0",
        additional_derives: [serde::Serialize, serde::Deserialize],
    });

    pub use exports::slotwise::plugin::{plugin, post_slot, pre_slot, promotion, types};

    /// The version.
    pub const VERSION: &str = "0.1.0";
}
