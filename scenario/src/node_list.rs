//! The scenario's nodes, listed or generated, each found by id at its position in the input.

use crate::error::ScenarioError;
use crate::file::ScenarioFile;
use slotwise_reconciler::{Node, NodeStatus};
use std::collections::BTreeMap;

/// The input's node list: the file's nodes, then the nodes its `system`
/// section adds, then one ready node per allocation that names none.
pub(crate) struct Nodes {
    pub(crate) list: Vec<Node>,
    pub(crate) by_id: BTreeMap<String, u32>,
}

impl Nodes {
    pub(crate) fn new(file: &ScenarioFile) -> Result<Self, ScenarioError> {
        let mut nodes = Self {
            list: Vec::new(),
            by_id: BTreeMap::new(),
        };
        for (i, n) in file.nodes.iter().enumerate() {
            if nodes.by_id.contains_key(&n.id) {
                return Err(ScenarioError::invalid(
                    format!("nodes[{i}].id"),
                    format!("node `{}` is listed twice", n.id),
                ));
            }
            nodes.push(Node {
                id: n.id.clone(),
                status: n.status.unwrap_or(NodeStatus::Ready),
                draining: n.draining,
                meta: n.meta.iter().map(|(k, v)| (k.clone(), v.clone())).collect(),
            });
        }
        Ok(nodes)
    }

    pub(crate) fn push(&mut self, node: Node) -> u32 {
        let at = self.list.len() as u32;
        self.by_id.insert(node.id.clone(), at);
        self.list.push(node);
        at
    }

    /// The position of node `id`, or of a fresh ready node for `alloc`.
    pub(crate) fn resolve(
        &mut self,
        id: Option<&str>,
        alloc: &str,
        path: &str,
    ) -> Result<u32, ScenarioError> {
        match id {
            Some(id) => self.by_id.get(id).copied().ok_or_else(|| {
                ScenarioError::invalid(format!("{path}.node"), format!("no node `{id}` in `nodes`"))
            }),
            None => {
                let mut id = format!("node-{alloc}");
                while self.by_id.contains_key(&id) {
                    id.push('\'');
                }
                Ok(self.push(Node {
                    id,
                    status: NodeStatus::Ready,
                    draining: false,
                    meta: Vec::new(),
                }))
            }
        }
    }
}
