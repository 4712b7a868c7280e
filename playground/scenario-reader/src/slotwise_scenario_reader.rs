//! Scenario files read inside a zero-import WebAssembly component, so that a browser gets exactly the input `slotwise input` prints.
//!
//! The `scenario` crate owns the format and its defaults; this crate only
//! carries its results across the component boundary as JSON, and places
//! errors on a line of the text for an editor.

mod component;
mod location;
mod reading;
mod scripted;
mod wit;

pub use location::line_of_field;
pub use reading::read;
pub use scripted::scripted_reply;
pub use wit::exports::slotwise::scenario_reader::reader::{
    PluginEntry, ReadError, Scenario, Syntax,
};
