//! The plugin's decisions, called natively on views built with the SDK's testing module.

use crate::ZoneDrain;
use slotwise_plugin::testing::{candidate, slot};
use slotwise_plugin::{CandidateView, Classification, ClientStatus, Plugin, PreSlotDecision};

fn in_zone(id: &str, key: &str, zone: &str) -> CandidateView {
    let mut c = candidate(id);
    c.node.meta = Some(vec![(key.into(), zone.into())]);
    c
}

fn draining(settings: &str) -> ZoneDrain {
    let mut p = ZoneDrain::default();
    p.configure(settings).unwrap();
    p
}

#[test]
fn an_allocation_in_a_drained_zone_is_reclassified_as_migrating() {
    let mut p = draining(r#"{"zones": ["eu-1a"]}"#);
    let answer = p.pre_slot(&slot(2, vec![in_zone("web-2", "zone", "eu-1a")]));
    let PreSlotDecision::Adjust(adjustment) = answer.decision else {
        panic!("expected an adjustment");
    };
    assert_eq!(adjustment.candidates.len(), 1);
    assert_eq!(adjustment.candidates[0].allocation, "web-2");
    assert_eq!(
        adjustment.candidates[0].reclassify,
        Some(Classification::Migrate)
    );
    assert_eq!(
        adjustment.reason,
        "zone drain moves web-2 on node node-web-2 in zone eu-1a"
    );
}

#[test]
fn allocations_in_other_zones_or_without_a_zone_proceed() {
    let mut p = draining(r#"{"zones": ["eu-1a"]}"#);
    for c in [in_zone("web-0", "zone", "eu-1b"), candidate("web-0")] {
        let answer = p.pre_slot(&slot(0, vec![c]));
        assert!(matches!(answer.decision, PreSlotDecision::Proceed));
    }
}

#[test]
fn the_zone_is_read_under_the_configured_key() {
    let mut p = draining(r#"{"zones": ["eu-1a"], "meta-key": "topology.zone"}"#);
    let under_other_key = p.pre_slot(&slot(0, vec![in_zone("web-0", "zone", "eu-1a")]));
    assert!(matches!(under_other_key.decision, PreSlotDecision::Proceed));
    let under_key = p.pre_slot(&slot(0, vec![in_zone("web-0", "topology.zone", "eu-1a")]));
    assert!(matches!(under_key.decision, PreSlotDecision::Adjust(_)));
}

#[test]
fn allocations_that_are_lost_or_finished_are_left_to_the_reconciler() {
    let mut p = draining(r#"{"zones": ["eu-1a"]}"#);
    let mut lost = in_zone("web-0", "zone", "eu-1a");
    lost.classification = Classification::Lost;
    let mut failed = in_zone("web-0-2", "zone", "eu-1a");
    failed.client_status = ClientStatus::Failed;
    let answer = p.pre_slot(&slot(0, vec![lost, failed]));
    assert!(matches!(answer.decision, PreSlotDecision::Proceed));
}

#[test]
fn bad_settings_name_the_field() {
    let refuse = |text: &str| ZoneDrain::default().configure(text).unwrap_err();
    assert!(refuse(r#"{"zones": []}"#).starts_with("zones: empty"));
    assert!(refuse(r#"{"zones": ["a", " "]}"#).starts_with("zones[1]:"));
    let wrong_type = refuse(r#"{"zones": "eu-1a"}"#);
    assert!(wrong_type.contains("zones"), "{wrong_type}");
    assert!(refuse(r#"{"zones": ["a"], "meta-key": ""}"#).starts_with("meta-key:"));
    assert!(refuse(r#"{"zone": ["a"]}"#).contains("zone"));
}
