//! The plugin package's types under the name `packed` reads them by, which it shares with the scenario crate's copy of it.

pub use crate::bindings::exports::slotwise::plugin::types::*;
