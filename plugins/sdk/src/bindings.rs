//! The `slotwise:plugin` bindings, for the world the crate's features select.

// The generated code is not ours to lint.
#![allow(missing_docs, clippy::all)]

#[cfg(all(
    feature = "pre-slot",
    not(feature = "post-slot"),
    not(feature = "promotion")
))]
wit_bindgen::generate!({
    world: "slotwise:plugin/pre-slot-plugin",
    path: "../../wit/plugin",
    pub_export_macro: true,
});

#[cfg(all(
    not(feature = "pre-slot"),
    feature = "post-slot",
    not(feature = "promotion")
))]
wit_bindgen::generate!({
    world: "slotwise:plugin/post-slot-plugin",
    path: "../../wit/plugin",
    pub_export_macro: true,
});

#[cfg(all(
    not(feature = "pre-slot"),
    not(feature = "post-slot"),
    feature = "promotion"
))]
wit_bindgen::generate!({
    world: "slotwise:plugin/promotion-plugin",
    path: "../../wit/plugin",
    pub_export_macro: true,
});

#[cfg(all(
    feature = "pre-slot",
    feature = "post-slot",
    not(feature = "promotion")
))]
wit_bindgen::generate!({
    world: "slotwise:plugin/pre-and-post-slot-plugin",
    path: "../../wit/plugin",
    pub_export_macro: true,
});

#[cfg(all(
    feature = "pre-slot",
    not(feature = "post-slot"),
    feature = "promotion"
))]
wit_bindgen::generate!({
    world: "slotwise:plugin/pre-slot-and-promotion-plugin",
    path: "../../wit/plugin",
    pub_export_macro: true,
});

#[cfg(all(
    not(feature = "pre-slot"),
    feature = "post-slot",
    feature = "promotion"
))]
wit_bindgen::generate!({
    world: "slotwise:plugin/post-slot-and-promotion-plugin",
    path: "../../wit/plugin",
    pub_export_macro: true,
});

// Every hook, and also what a build with no hook feature gets (documentation,
// tests of the SDK itself).
#[cfg(any(
    all(feature = "pre-slot", feature = "post-slot", feature = "promotion"),
    not(any(feature = "pre-slot", feature = "post-slot", feature = "promotion"))
))]
wit_bindgen::generate!({
    world: "slotwise:plugin/all-hooks-plugin",
    path: "../../wit/plugin",
    pub_export_macro: true,
});
