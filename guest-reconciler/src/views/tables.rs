//! The tables a slot batch sends once and its items point into: the nodes shown, and the names of rules and reasons.

use crate::plugin::{self, ViewParts};
use crate::NodeStatus;
use rustc_hash::FxBuildHasher;
use std::collections::HashMap;

/// Nodes, rule names and reasons, each sent once per batch.
pub(super) struct Tables {
    /// Per input node shown, its position in `nodes`. A map, not a table
    /// over every input node: a batch shows few nodes, and a table cleared
    /// per batch made a job of many groups on many nodes quadratic (32,000
    /// groups on 32,000 nodes wrote 7 GB of it). Only looked up, never
    /// iterated, so the hash's order reaches no output. Hashed with one
    /// multiply: foldhash's 128-bit product costs the 32-bit guest a call
    /// per lookup, and the keys are positions below the input's node count.
    node_at: HashMap<u32, u32, FxBuildHasher>,
    nodes: Vec<plugin::Node>,
    rules: Names,
    reasons: Names,
}

impl Tables {
    pub(super) fn new() -> Self {
        Self {
            node_at: HashMap::default(),
            nodes: Vec::new(),
            rules: Names::default(),
            reasons: Names::default(),
        }
    }

    /// Makes room for `more` nodes.
    pub(super) fn reserve(&mut self, more: usize) {
        self.node_at.reserve(more);
        self.nodes.reserve(more);
    }

    /// The position of input node `index` in the batch's nodes.
    pub(super) fn node(&mut self, index: u32, input: &[crate::Node], reads: ViewParts) -> u32 {
        let shown = self.nodes.len() as u32;
        let at = *self.node_at.entry(index).or_insert(shown);
        if at == shown {
            let n = &input[index as usize];
            self.nodes.push(plugin::Node {
                id: reads.node_ids.then(|| n.id.clone()),
                status: node_status(n.status),
                draining: n.draining,
                meta: (reads.node_meta && !n.meta.is_empty()).then(|| n.meta.clone()),
            });
        }
        at
    }

    pub(super) fn rule(&mut self, name: &'static str) -> u32 {
        self.rules.position(name)
    }

    pub(super) fn reason(&mut self, name: &'static str) -> u32 {
        self.reasons.position(name)
    }

    pub(super) fn take(self) -> (Vec<plugin::Node>, Vec<String>, Vec<String>) {
        (self.nodes, self.rules.names, self.reasons.names)
    }
}

/// A table of names, each once. The names come from the reconciler's own
/// tables (rules, reasons), so a name is found by its address before its
/// text is compared; a batch holds a handful, so a scan beats hashing.
#[derive(Default)]
struct Names {
    names: Vec<String>,
    keys: Vec<&'static str>,
}

impl Names {
    /// The position of `name`, added at the end when absent.
    pub(super) fn position(&mut self, name: &'static str) -> u32 {
        let found = self
            .keys
            .iter()
            .position(|k| std::ptr::eq(*k, name))
            .or_else(|| self.names.iter().position(|n| n == name));
        match found {
            Some(at) => at as u32,
            None => {
                self.names.push(name.to_string());
                self.keys.push(name);
                (self.names.len() - 1) as u32
            }
        }
    }
}

fn node_status(status: NodeStatus) -> plugin::NodeStatus {
    match status {
        NodeStatus::Ready => plugin::NodeStatus::Ready,
        NodeStatus::Initializing => plugin::NodeStatus::Initializing,
        NodeStatus::Down => plugin::NodeStatus::Down,
        NodeStatus::Disconnected => plugin::NodeStatus::Disconnected,
        NodeStatus::Unknown => plugin::NodeStatus::Unknown,
    }
}
