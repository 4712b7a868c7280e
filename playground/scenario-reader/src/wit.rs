//! The reader's contract, generated from `wit/`.

// The generated code is not ours to lint.
#![allow(missing_docs, clippy::all)]

wit_bindgen::generate!({
    world: "scenario-reader",
    path: "wit",
});
