//! The plugin's decisions, called natively on views built with the SDK's testing module.

use crate::MaintenanceWindow;
use slotwise_plugin::testing::{propose, slots, NOW};
use slotwise_plugin::{
    ChangeKind, Classification, ClientStatus, Plugin, PostSlotDecision, SlotBatch, MINUTE,
};

const HOUR: i64 = 60 * MINUTE;

/// Saturdays 02:00–05:00 UTC; NOW (2026-01-01) is a Thursday.
fn saturday_nights() -> MaintenanceWindow {
    let mut p = MaintenanceWindow::default();
    p.configure(r#"{"windows": [{"days": ["sat"], "start": "02:00", "end": "05:00"}]}"#)
        .unwrap();
    p
}

/// Slot 3 of group web, its one candidate `web-0`, with a change of `kind`.
fn one_change(kind: ChangeKind, now: i64) -> SlotBatch {
    let mut b = slots(&[0, 0, 0, 1]);
    b.now = now;
    propose(&mut b, 3, kind);
    b
}

fn decide(p: &mut MaintenanceWindow, kind: ChangeKind, now: i64) -> PostSlotDecision {
    p.post_slot(&one_change(kind, now), &[]).remove(3).decision
}

#[test]
fn a_destructive_update_outside_the_window_waits_for_the_next_window_start() {
    let decision = decide(&mut saturday_nights(), ChangeKind::DestructiveUpdate, NOW);
    let PostSlotDecision::Defer(d) = decision else {
        panic!("expected a deferral, got {decision:?}");
    };
    // Thursday 00:00 to Saturday 02:00.
    assert_eq!(d.until, NOW + 50 * HOUR);
    assert!(
        d.reason
            .contains("destructive update of web-0 in slot web/3"),
        "{}",
        d.reason
    );
    assert!(d.reason.contains("2026-01-03T02:00:00Z"), "{}", d.reason);
}

#[test]
fn stops_and_migrations_are_deferred_too() {
    for kind in [ChangeKind::Stop, ChangeKind::Migrate] {
        let decision = decide(&mut saturday_nights(), kind, NOW);
        assert!(
            matches!(decision, PostSlotDecision::Defer(_)),
            "{kind:?}: {decision:?}"
        );
    }
}

#[test]
fn inside_a_window_every_change_is_accepted() {
    let saturday_3am = NOW + 51 * HOUR;
    let decision = decide(
        &mut saturday_nights(),
        ChangeKind::DestructiveUpdate,
        saturday_3am,
    );
    assert!(matches!(decision, PostSlotDecision::Accept));
}

#[test]
fn placements_and_in_place_updates_pass_outside_the_window() {
    for kind in [
        ChangeKind::Place,
        ChangeKind::InPlaceUpdate,
        ChangeKind::Reconnect,
    ] {
        let decision = decide(&mut saturday_nights(), kind, NOW);
        assert!(matches!(decision, PostSlotDecision::Accept), "{kind:?}");
    }
}

#[test]
fn stopping_an_allocation_that_no_longer_serves_is_not_disruptive() {
    let mut p = saturday_nights();
    let mut b = slots(&[2]);
    b.candidates[0].client_status = ClientStatus::Failed;
    b.candidates[1].classification = Classification::Lost;
    for kind in [ChangeKind::Place, ChangeKind::Stop, ChangeKind::Stop] {
        propose(&mut b, 0, kind);
    }
    b.changes[2].candidate = Some(1);
    let answers = p.post_slot(&b, &[]);
    assert!(matches!(answers[0].decision, PostSlotDecision::Accept));
}

#[test]
fn the_earliest_of_several_windows_is_chosen() {
    let mut p = MaintenanceWindow::default();
    p.configure(
        r#"{"windows": [
            {"days": ["sat"], "start": "02:00", "end": "05:00"},
            {"start": "2026-01-01T12:00:00Z", "end": "2026-01-01T13:00:00Z"}
        ]}"#,
    )
    .unwrap();
    let PostSlotDecision::Defer(d) = decide(&mut p, ChangeKind::Stop, NOW) else {
        panic!("expected a deferral");
    };
    assert_eq!(d.until, NOW + 12 * HOUR);
}

#[test]
fn when_no_window_opens_again_the_change_is_vetoed() {
    let mut p = MaintenanceWindow::default();
    p.configure(
        r#"{"windows": [{"start": "2025-12-24T00:00:00Z", "end": "2025-12-25T00:00:00Z"}]}"#,
    )
    .unwrap();
    let decision = decide(&mut p, ChangeKind::Stop, NOW);
    let PostSlotDecision::Veto(why) = decision else {
        panic!("expected a veto, got {decision:?}");
    };
    assert!(
        why.contains("none opens after 2026-01-01T00:00:00Z"),
        "{why}"
    );
}

#[test]
fn bad_settings_name_the_field() {
    let refuse = |text: &str| MaintenanceWindow::default().configure(text).unwrap_err();
    assert!(refuse("{}").contains("windows"), "{}", refuse("{}"));
    assert!(refuse(r#"{"windows": []}"#).starts_with("windows: empty"));
    let wrong_type = refuse(r#"{"windows": [{"start": 2, "end": "03:00"}]}"#);
    assert!(wrong_type.contains("windows[0].start"), "{wrong_type}");
    let unknown = refuse(r#"{"windows": [{"start": "01:00", "end": "03:00", "tz": "CET"}]}"#);
    assert!(unknown.contains("tz"), "{unknown}");
    let bad_day =
        refuse(r#"{"windows": [{"days": ["mon", "funday"], "start": "01:00", "end": "03:00"}]}"#);
    assert!(bad_day.starts_with("windows[0].days[1]:"), "{bad_day}");
}

#[test]
fn the_slots_that_wait_are_counted_in_one_log_line_per_batch() {
    let _ = slotwise_plugin::log::take();
    let mut p = saturday_nights();
    p.post_slot(&one_change(ChangeKind::Stop, NOW), &[]);
    assert_eq!(
        slotwise_plugin::log::take(),
        ["info: outside the maintenance windows at 2026-01-01T00:00:00Z: 1 of 4 slots wait"]
    );
    p.post_slot(&one_change(ChangeKind::Stop, NOW + 50 * HOUR), &[]);
    assert!(
        slotwise_plugin::log::take().is_empty(),
        "inside a window nothing waits"
    );
}
