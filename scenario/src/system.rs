//! The cluster of a system or sysbatch job, written compactly: "100 nodes, 3 down, 2 draining, the job on all of them".
//!
//! The section adds generated nodes to the scenario's `nodes`, sets node
//! states, writes one allocation per group and slot on the nodes the job
//! already runs on (as if each were written in `allocations`), and derives
//! which nodes are eligible and which are not ready, as Nomad's scheduler
//! does, unless the scenario lists them itself.

use crate::error::ScenarioError;
use crate::file::{AllocFile, NodePick, Outdated, ScenarioFile, SystemFile};
use crate::node_list::Nodes;
use indexmap::IndexMap;
use slotwise_reconciler::{ClientStatus, Job, Node, NodeStatus, SystemNodes};
use std::collections::BTreeSet;

/// Node states a pick applies, in the order counts are taken.
#[derive(Clone, Copy, PartialEq, Eq)]
enum State {
    Status(NodeStatus),
    Draining,
    Ineligible,
    NotTargeted,
}

/// The cluster while the input is built.
pub(crate) struct Cluster<'f> {
    file: Option<&'f SystemFile>,
    ineligible: BTreeSet<u32>,
    not_targeted: BTreeSet<u32>,
}

impl<'f> Cluster<'f> {
    /// Adds the section's nodes to `nodes` and applies its node states.
    pub(crate) fn new(file: &'f ScenarioFile, nodes: &mut Nodes) -> Result<Self, ScenarioError> {
        let mut cluster = Self {
            file: file.system.as_ref(),
            ineligible: BTreeSet::new(),
            not_targeted: BTreeSet::new(),
        };
        let Some(system) = cluster.file else {
            return Ok(cluster);
        };
        let first = nodes.list.len() as u32;
        let width = system.nodes.saturating_sub(1).to_string().len();
        for k in 0..system.nodes {
            let id = format!("node-{k:0width$}");
            if nodes.by_id.contains_key(&id) {
                return Err(ScenarioError::invalid(
                    "system.nodes",
                    format!("node `{id}` is also listed in `nodes`"),
                ));
            }
            nodes.push(Node {
                id,
                status: NodeStatus::Ready,
                draining: false,
                meta: Vec::new(),
            });
        }
        let mut next = first;
        let end = first + system.nodes;
        let states = [
            ("down", &system.down, State::Status(NodeStatus::Down)),
            (
                "disconnected",
                &system.disconnected,
                State::Status(NodeStatus::Disconnected),
            ),
            ("draining", &system.draining, State::Draining),
            (
                "initializing",
                &system.initializing,
                State::Status(NodeStatus::Initializing),
            ),
            ("gone", &system.gone, State::Status(NodeStatus::Unknown)),
            ("ineligible", &system.ineligible, State::Ineligible),
            ("not-targeted", &system.not_targeted, State::NotTargeted),
        ];
        for (name, pick, state) in states {
            let Some(pick) = pick else { continue };
            let field = format!("system.{name}");
            let picked: Vec<u32> = match pick {
                NodePick::Count(n) => {
                    if next + n > end {
                        return Err(ScenarioError::invalid(
                            field,
                            format!(
                                "{n} nodes asked, but only {} of the {} added nodes are left",
                                end - next,
                                system.nodes
                            ),
                        ));
                    }
                    next += n;
                    (next - n..next).collect()
                }
                NodePick::All(_) => (0..nodes.list.len() as u32).collect(),
                NodePick::Ids(ids) => positions(nodes, ids, &field)?,
            };
            for node in picked {
                let n = &mut nodes.list[node as usize];
                match state {
                    State::Status(status) => n.status = status,
                    State::Draining => n.draining = true,
                    State::Ineligible => {
                        cluster.ineligible.insert(node);
                    }
                    State::NotTargeted => {
                        cluster.not_targeted.insert(node);
                    }
                }
            }
        }
        Ok(cluster)
    }

    /// The allocations the job already runs by `job-on`, per group, as
    /// scenario entries: one per node and slot below the group's count,
    /// except on nodes where `allocations` gives the group one.
    pub(crate) fn running(
        &self,
        file: &ScenarioFile,
        job: Option<&Job>,
        nodes: &Nodes,
    ) -> Result<IndexMap<String, Vec<AllocFile>>, ScenarioError> {
        let mut out = IndexMap::new();
        let (Some(system), Some(job)) = (self.file, job) else {
            return Ok(out);
        };
        let Some(pick) = &system.job_on else {
            return Ok(out);
        };
        let on: Vec<u32> = match pick {
            NodePick::All(_) => (0..nodes.list.len() as u32).collect(),
            NodePick::Count(n) if *n as usize > nodes.list.len() => {
                return Err(ScenarioError::invalid(
                    "system.job-on",
                    format!("{n} nodes asked, but the scenario has {}", nodes.list.len()),
                ))
            }
            NodePick::Count(n) => (0..*n).collect(),
            NodePick::Ids(ids) => positions(nodes, ids, "system.job-on")?,
        };
        for group in &job.groups {
            let written: BTreeSet<&str> = file
                .allocations
                .get(&group.name)
                .into_iter()
                .flatten()
                .filter_map(|e| e.node.as_deref())
                .collect();
            let mut entries = Vec::new();
            for &node in &on {
                let n = &nodes.list[node as usize];
                if written.contains(n.id.as_str()) {
                    continue;
                }
                for index in 0..group.count {
                    entries.push(self.entry(system, &group.name, n, index)?);
                }
            }
            out.insert(group.name.clone(), entries);
        }
        Ok(out)
    }

    /// One allocation of `group` in slot `index` on node `n`, as a scenario
    /// entry would write it.
    fn entry(
        &self,
        system: &SystemFile,
        group: &str,
        n: &Node,
        index: u32,
    ) -> Result<AllocFile, ScenarioError> {
        let mut entry = serde_json::json!({
            "index": index,
            "node": n.id,
            "client": system.client.unwrap_or(ClientStatus::Running),
        });
        if let Some(version) = system.version {
            entry["version"] = version.into();
        }
        if let Some(outdated) = system.outdated {
            entry["outdated"] = match outdated {
                Outdated::Destructive => "destructive",
                Outdated::InPlace => "in-place",
            }
            .into();
        }
        if n.draining {
            entry["transition"] = serde_json::json!(["migrate"]);
        }
        serde_json::from_value(entry).map_err(|e| {
            ScenarioError::invalid(
                "system.job-on",
                format!("cannot write the allocation of {group} on {}: {e}", n.id),
            )
        })
    }

    /// The nodes the job runs on: as the section lists them, or derived from
    /// the node states as Nomad's scheduler does. None when the job is not a
    /// system job and the section is absent.
    pub(crate) fn nodes(
        &self,
        system_job: bool,
        nodes: &Nodes,
    ) -> Result<Option<SystemNodes>, ScenarioError> {
        if !system_job && self.file.is_none() {
            return Ok(None);
        }
        let listed = |ids: &Option<Vec<String>>, field: &str| -> Result<_, ScenarioError> {
            ids.as_ref()
                .map(|ids| positions(nodes, ids, field))
                .transpose()
        };
        let eligible = listed(
            &self.file.and_then(|f| f.eligible.clone()),
            "system.eligible",
        )?;
        let not_ready = listed(
            &self.file.and_then(|f| f.not_ready.clone()),
            "system.not-ready",
        )?;
        let mut derived_eligible = Vec::new();
        let mut derived_not_ready = Vec::new();
        for (k, n) in nodes.list.iter().enumerate() {
            let k = k as u32;
            let ready =
                n.status == NodeStatus::Ready && !n.draining && !self.ineligible.contains(&k);
            if ready && !self.not_targeted.contains(&k) {
                derived_eligible.push(k);
            } else if !ready && n.status != NodeStatus::Unknown {
                derived_not_ready.push(k);
            }
        }
        Ok(Some(SystemNodes {
            eligible: eligible.unwrap_or(derived_eligible),
            not_ready: not_ready.unwrap_or(derived_not_ready),
        }))
    }
}

/// The positions of the nodes named `ids`.
fn positions(nodes: &Nodes, ids: &[String], field: &str) -> Result<Vec<u32>, ScenarioError> {
    ids.iter()
        .enumerate()
        .map(|(k, id)| {
            nodes.by_id.get(id).copied().ok_or_else(|| {
                ScenarioError::invalid(format!("{field}[{k}]"), format!("no node `{id}`"))
            })
        })
        .collect()
}
