//! A host's side of a session: the plugins it consults, as the session is opened with them, and the call of the one each question names. It decides nothing: what a reply means is the session's business, and it knows no hook by name, so a new hook changes no relay.

use crate::plugin_wit::types::Batch;
use crate::wit::{Consulted, Question, Reply};

/// A host's side of a session: it knows the plugins and calls them, and
/// decides nothing.
pub trait Relay {
    /// The plugins, as the session is opened with them.
    fn consulted(&self) -> Vec<Consulted>;

    /// A reconcile starts.
    fn begin(&mut self) {}

    /// The reply of the plugin `question` names to `batch`: the
    /// question's own, or the one before's when the question carries none.
    /// The question's hook serves only to keep accounts per hook.
    fn answer(&mut self, question: &Question, batch: &Batch) -> Reply;

    /// The reconcile ended, with a plan or without.
    fn end(&mut self) {}
}
