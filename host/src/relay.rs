//! A host's side of a session: the plugins it consults, as the session is opened with them, and the call of the one each question names. It decides nothing: what a reply means is the session's business, and it knows no hook by name, so a new hook changes no relay.

use crate::plugin_wit::types::{Batch, Hook, Kept};
use crate::wit::{Consulted, Reply};

/// A question as a relay gets it: the session's question, its batch found
/// (the question's own, or the one before's that the driver kept).
#[derive(Clone, Copy, Debug)]
pub struct Asked<'q> {
    /// The plugin: its position in `consulted`.
    pub plugin: u32,
    /// The hook; a relay needs it only to keep accounts per hook.
    pub hook: Hook,
    /// How many items the batch asks about: slots, or deployment groups.
    pub items: u32,
    pub batch: &'q Batch,
    /// The bytes the plugin kept for the batch's slots.
    pub kept: &'q [Kept],
}

/// A host's side of a session: it knows the plugins and calls them, and
/// decides nothing.
pub trait Relay {
    /// The plugins, as the session is opened with them.
    fn consulted(&self) -> Vec<Consulted>;

    /// A reconcile starts.
    fn begin(&mut self) {}

    /// The reply of the plugin `asked` names to its batch.
    fn answer(&mut self, asked: Asked) -> Reply;

    /// The reconcile ended, with a plan or without.
    fn end(&mut self) {}
}
