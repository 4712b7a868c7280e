//! The plugin's decisions, called natively on batches built with the SDK's testing module.

use crate::ZoneDrain;
use slotwise_plugin::testing::{node, slots};
use slotwise_plugin::{Classification, ClientStatus, Plugin, PreSlotDecision, SlotBatch, SlotKey};

fn draining(settings: &str) -> ZoneDrain {
    let mut p = ZoneDrain::default();
    p.configure(settings).unwrap();
    p
}

/// Two slots of one candidate each; the first candidate's node in `zone`.
fn batch(key: &str, zone: &str) -> SlotBatch {
    let mut b = slots(&[1, 1]);
    b.nodes[0].meta = Some(vec![(key.into(), zone.into())]);
    b
}

#[test]
fn an_allocation_in_a_drained_zone_is_reclassified_as_migrating() {
    let answers = draining(r#"{"zones": ["eu-1a"]}"#).pre_slot(&batch("zone", "eu-1a"), &[]);
    assert_eq!(answers.len(), 2);
    let PreSlotDecision::Adjust(adjustment) = &answers[0].decision else {
        panic!("expected an adjustment");
    };
    assert_eq!(adjustment.candidates.len(), 1);
    assert_eq!(adjustment.candidates[0].candidate, 0);
    assert_eq!(
        adjustment.candidates[0].reclassify,
        Some(Classification::Migrate)
    );
    assert_eq!(
        adjustment.reason,
        "zone drain moves web-0 on node node-0 in zone eu-1a"
    );
    assert!(matches!(answers[1].decision, PreSlotDecision::Proceed));
}

#[test]
fn allocations_in_other_zones_or_without_a_zone_proceed() {
    let answers = draining(r#"{"zones": ["eu-1a"]}"#).pre_slot(&batch("zone", "eu-1b"), &[]);
    assert!(answers
        .iter()
        .all(|a| matches!(a.decision, PreSlotDecision::Proceed)));
}

#[test]
fn the_zone_is_read_under_the_configured_key() {
    let answers =
        draining(r#"{"zones": ["eu-1a"], "meta-key": "az"}"#).pre_slot(&batch("az", "eu-1a"), &[]);
    assert!(matches!(answers[0].decision, PreSlotDecision::Adjust(_)));
}

#[test]
fn a_lost_or_finished_allocation_is_left_to_the_reconciler() {
    let mut b = batch("zone", "eu-1a");
    b.candidates[0].client_status = ClientStatus::Complete;
    let answers = draining(r#"{"zones": ["eu-1a"]}"#).pre_slot(&b, &[]);
    assert!(matches!(answers[0].decision, PreSlotDecision::Proceed));
}

#[test]
fn settings_without_zones_are_refused_naming_the_field() {
    let refused = ZoneDrain::default().configure(r#"{"zones": []}"#);
    assert_eq!(
        refused,
        Err("zones: empty; name at least one zone to drain".into())
    );
    let wrong = ZoneDrain::default().configure(r#"{"zones": "eu-1a"}"#);
    assert!(wrong.is_err_and(|e| e.starts_with("bad settings: zones:")));
}

#[test]
fn an_empty_node_slot_in_a_drained_zone_is_held() {
    let mut b = slots(&[0, 0]);
    b.nodes = vec![node(0), node(1)];
    b.slots[0].key = SlotKey::Node(0);
    b.slots[1].key = SlotKey::Node(1);
    b.nodes[0].meta = Some(vec![("zone".into(), "eu-1a".into())]);
    b.nodes[1].meta = Some(vec![("zone".into(), "eu-1b".into())]);
    let answers = draining(r#"{"zones": ["eu-1a"]}"#).pre_slot(&b, &[]);
    let PreSlotDecision::Hold(why) = &answers[0].decision else {
        panic!("expected a hold, got {:?}", answers[0].decision);
    };
    assert!(why.contains("drained zone eu-1a"), "{why}");
    assert!(matches!(answers[1].decision, PreSlotDecision::Proceed));
}
