//! The maintenance-window plugin: on post-slot, defers disruptive changes proposed outside every maintenance window to the next window's start.
//!
//! Time is the reconcile's `now` from the slot view, never a clock, so the
//! same input gives the same answer.

mod calendar;
mod disruption;
mod windows;

use serde::Deserialize;
use slotwise_plugin::{
    defer, each_post_slot, Hook, Kept, Plugin, PostSlotAnswer, PostSlotDecision, SlotBatch,
    SlotRef, ViewParts, READS_NOTHING,
};
use windows::{Window, WindowText};

/// The plugin, configured.
#[derive(Default)]
pub struct MaintenanceWindow {
    windows: Vec<Window>,
}

/// The settings as written.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct Settings {
    windows: Vec<WindowText>,
}

impl Plugin for MaintenanceWindow {
    const NAME: &'static str = "maintenance-window";
    const VERSION: &'static str = "0.2.0";
    const DESCRIPTION: &'static str =
        "Defers stops, migrations and destructive updates to the next maintenance window.";
    const HOOKS: &'static [Hook] = &[Hook::PostSlot];
    const READS: ViewParts = ViewParts {
        allocation_ids: true,
        ..READS_NOTHING
    };
    const SETTINGS_EXAMPLE: &'static str =
        r#"{"windows": [{"days": ["sat", "sun"], "start": "02:00", "end": "05:00"}]}"#;

    fn configure(&mut self, settings: &str) -> Result<(), String> {
        let settings: Settings = slotwise_plugin::settings(settings)?;
        if settings.windows.is_empty() {
            return Err("windows: empty; give at least one window".into());
        }
        self.windows = settings
            .windows
            .iter()
            .enumerate()
            .map(|(i, text)| Window::read(&format!("windows[{i}]"), text))
            .collect::<Result<_, _>>()?;
        Ok(())
    }

    fn post_slot(&mut self, batch: &SlotBatch, _: &[Kept]) -> Vec<PostSlotAnswer> {
        let answers = each_post_slot(batch, |at| self.decide(SlotRef::new(batch, at), batch.now));
        let held = answers
            .iter()
            .filter(|a| !matches!(a.decision, PostSlotDecision::Accept))
            .count();
        if held > 0 {
            slotwise_plugin::log::info(format!(
                "outside the maintenance windows at {}: {held} of {} slots wait",
                calendar::format_instant(batch.now),
                batch.slots.len()
            ));
        }
        answers
    }
}

impl MaintenanceWindow {
    /// Defers the disruptive changes of `slot` outside every window.
    fn decide(&self, slot: SlotRef, now: i64) -> PostSlotDecision {
        let disruptive = disruption::disruptive(slot);
        let Some(first) = disruptive.first() else {
            return PostSlotDecision::Accept;
        };
        if self.windows.iter().any(|w| w.is_open(now)) {
            return PostSlotDecision::Accept;
        }
        let what = match disruptive.len() {
            1 => disruption::describe(slot, first),
            n => format!("{} and {} more", disruption::describe(slot, first), n - 1),
        };
        let name = slot.name();
        match self.windows.iter().filter_map(|w| w.next_start(now)).min() {
            Some(next) => defer(
                next,
                format!(
                    "outside the maintenance windows: the {what} in slot {name} waits for the window opening at {}",
                    calendar::format_instant(next)
                ),
            ),
            None => PostSlotDecision::Veto(format!(
                "outside the maintenance windows, and none opens after {}: the {what} in slot {name} is not allowed",
                calendar::format_instant(now)
            )),
        }
    }
}

slotwise_plugin::export!(MaintenanceWindow);

#[cfg(test)]
mod tests;
