//! The maintenance-window plugin: on post-slot, defers disruptive changes proposed outside every maintenance window to the next window's start.
//!
//! Time is the reconcile's `now` from the slot view, never a clock, so the
//! same input gives the same answer.

mod calendar;
mod disruption;
mod windows;

use serde::Deserialize;
use slotwise_plugin::{accept, defer, veto, Plugin, PostSlotAnswer, SlotProposal};
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
    const VERSION: &'static str = "0.1.0";
    const DESCRIPTION: &'static str =
        "Defers stops, migrations and destructive updates to the next maintenance window.";

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

    fn post_slot(&mut self, proposal: &SlotProposal) -> PostSlotAnswer {
        let now = proposal.slot.now;
        let disruptive = disruption::disruptive(proposal);
        let Some(first) = disruptive.first() else {
            return accept();
        };
        if self.windows.iter().any(|w| w.is_open(now)) {
            return accept();
        }
        let what = match disruptive.len() {
            1 => disruption::describe(first),
            n => format!("{} and {} more", disruption::describe(first), n - 1),
        };
        let slot = format!("{}/{}", proposal.slot.group, proposal.slot.index);
        match self.windows.iter().filter_map(|w| w.next_start(now)).min() {
            Some(next) => defer(
                next,
                format!(
                    "outside the maintenance windows: the {what} in slot {slot} waits for the window opening at {}",
                    calendar::format_instant(next)
                ),
            ),
            None => veto(format!(
                "outside the maintenance windows, and none opens after {}: the {what} in slot {slot} is not allowed",
                calendar::format_instant(now)
            )),
        }
    }
}

slotwise_plugin::export!(MaintenanceWindow);

#[cfg(test)]
mod tests;
