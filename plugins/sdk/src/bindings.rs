//! The `slotwise:plugin@0.2.0` bindings: one world, whatever the hooks a plugin implements.

// The generated code is not ours to lint.
#![allow(missing_docs, clippy::all)]

wit_bindgen::generate!({
    world: "slotwise:plugin/policy-plugin",
    path: "../../wit/plugin",
    pub_export_macro: true,
});
