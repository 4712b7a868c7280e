//! A host's side of a session: the plugins it consults, as the session is opened with them, and the call of the one each question names. It decides nothing: what a reply means is the session's business.

use crate::plugin_wit::types::{Batch, Kept};
use crate::wit::{Consulted, Reply};

/// A host's side of a session: it knows the plugins and calls them, and
/// decides nothing.
pub trait Relay {
    /// The plugins, as the session is opened with them.
    fn consulted(&self) -> Vec<Consulted>;

    /// A reconcile starts.
    fn begin(&mut self) {}

    /// The reply of plugin `plugin` (its position in `consulted`) to
    /// `batch`, given the bytes it kept for the batch's slots.
    fn answer(&mut self, plugin: u32, batch: &Batch, kept: &[Kept]) -> Reply;

    /// The reconcile ended, with a plan or without.
    fn end(&mut self) {}
}
