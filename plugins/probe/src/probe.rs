//! A plugin on every hook that leaves every decision to the reconciler and reads no optional part of a batch: what remains is the cost of asking.

use slotwise_plugin::{Hook, Plugin};

#[derive(Default)]
struct Probe;

impl Plugin for Probe {
    const NAME: &'static str = "probe";
    const VERSION: &'static str = "0.2.0";
    const DESCRIPTION: &'static str = "Changes nothing; measures what a hook call costs.";
    const HOOKS: &'static [Hook] = &[Hook::Promotion, Hook::PreSlot, Hook::PostSlot, Hook::Review];
}

slotwise_plugin::export!(Probe);
