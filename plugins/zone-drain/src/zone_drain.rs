//! The zone-drain plugin: on pre-slot, reclassifies the serving allocations on nodes of the listed zones as migrating, so the reconciler moves them as a node drain would.
//!
//! The zone is a node attribute (`node.meta`), read under a configurable key.
//! For a system job, whose slots are nodes, a node slot of a drained zone
//! with nothing to move is held, so that nothing new is placed there.

use serde::Deserialize;
use slotwise_plugin::{
    each_pre_slot, Adjustment, Candidate, CandidateAdjustment, Classification, ClientStatus, Hook,
    Kept, Node, Plugin, PreSlotAnswer, PreSlotDecision, SlotBatch, SlotRef, ViewParts,
    READS_NOTHING,
};
use std::collections::BTreeSet;

/// The plugin, configured.
#[derive(Default)]
pub struct ZoneDrain {
    zones: BTreeSet<String>,
    key: String,
}

/// The settings as written.
#[derive(Deserialize)]
#[serde(deny_unknown_fields, rename_all = "kebab-case")]
struct Settings {
    /// The zones to drain.
    zones: Vec<String>,
    /// The node attribute holding a node's zone. Default `zone`.
    meta_key: Option<String>,
}

impl Plugin for ZoneDrain {
    const NAME: &'static str = "zone-drain";
    const VERSION: &'static str = "0.2.0";
    const DESCRIPTION: &'static str =
        "Migrates allocations off the nodes of listed zones, read from node metadata.";
    const HOOKS: &'static [Hook] = &[Hook::PreSlot];
    const READS: ViewParts = ViewParts {
        node_ids: true,
        node_meta: true,
        allocation_ids: true,
        ..READS_NOTHING
    };
    const SETTINGS_EXAMPLE: &'static str = r#"{"zones": ["eu-1a"], "meta-key": "zone"}"#;

    fn configure(&mut self, settings: &str) -> Result<(), String> {
        let settings: Settings = slotwise_plugin::settings(settings)?;
        if settings.zones.is_empty() {
            return Err("zones: empty; name at least one zone to drain".into());
        }
        if let Some(i) = settings.zones.iter().position(|z| z.trim().is_empty()) {
            return Err(format!("zones[{i}]: empty; a zone has a name"));
        }
        let key = settings.meta_key.unwrap_or_else(|| "zone".into());
        if key.trim().is_empty() {
            return Err("meta-key: empty; name the node attribute that holds the zone".into());
        }
        self.zones = settings.zones.into_iter().collect();
        self.key = key;
        Ok(())
    }

    fn pre_slot(&mut self, batch: &SlotBatch, _: &[Kept]) -> Vec<PreSlotAnswer> {
        each_pre_slot(batch, |at| self.decide(SlotRef::new(batch, at)))
    }
}

impl ZoneDrain {
    fn decide(&self, slot: SlotRef) -> PreSlotDecision {
        let drained: Vec<(u32, &Candidate, &str)> = slot
            .candidates()
            .filter(|(_, c)| movable(c))
            .filter_map(|(p, c)| self.drained_zone(slot.node(c)).map(|zone| (p, c, zone)))
            .collect();
        if drained.is_empty() {
            return match slot.slot_node() {
                Some(node) => match self.drained_zone(node) {
                    Some(zone) => PreSlotDecision::Hold(format!(
                        "node {} is in drained zone {zone}; nothing new goes there",
                        node.id.as_deref().unwrap_or("?")
                    )),
                    None => PreSlotDecision::Proceed,
                },
                None => PreSlotDecision::Proceed,
            };
        }
        let moved: Vec<String> = drained
            .iter()
            .map(|(_, c, zone)| {
                let id = c.allocation.as_deref().unwrap_or("?");
                let node = slot.node(c).id.as_deref().unwrap_or("?");
                format!("{id} on node {node} in zone {zone}")
            })
            .collect();
        PreSlotDecision::Adjust(Adjustment {
            candidates: drained
                .iter()
                .map(|(p, _, _)| CandidateAdjustment {
                    candidate: *p,
                    reclassify: Some(Classification::Migrate),
                    update: None,
                })
                .collect(),
            reason: format!("zone drain moves {}", moved.join(", ")),
        })
    }

    /// The zone of `node`, when it is one to drain.
    fn drained_zone<'b>(&self, node: &'b Node) -> Option<&'b str> {
        node.meta
            .iter()
            .flatten()
            .find(|(key, _)| *key == self.key)
            .map(|(_, zone)| zone.as_str())
            .filter(|zone| self.zones.contains(*zone))
    }
}

/// Whether the reconciler would otherwise leave `candidate` running where
/// it is. Allocations already lost, migrating, disconnected or finished are
/// the reconciler's business: turning them into migrations would stop what
/// is not running, or replace what is coming back.
fn movable(candidate: &Candidate) -> bool {
    candidate.classification == Classification::Untainted
        && matches!(
            candidate.client_status,
            ClientStatus::Running | ClientStatus::Pending
        )
}

slotwise_plugin::export!(ZoneDrain);

#[cfg(test)]
mod tests;
