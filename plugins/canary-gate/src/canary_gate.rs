//! The canary-gate plugin: on promotion, promotes when every canary has been healthy long enough and reports a health metric under a threshold, waits naming the canary that blocks, and fails the deployment when a canary's metric is over a fail threshold.

mod gate;

use gate::Gate;
use serde::Deserialize;
use slotwise_plugin::{
    Hook, Plugin, PromotionAnswer, PromotionBatch, ViewParts, MINUTE, READS_NOTHING,
};

/// The plugin, configured.
#[derive(Default)]
pub struct CanaryGate {
    gate: Gate,
}

/// The settings as written.
#[derive(Deserialize)]
#[serde(deny_unknown_fields, rename_all = "kebab-case")]
struct Settings {
    /// How long every canary must have been healthy.
    healthy_minutes: u32,
    /// The key of the health metric in the canaries' metadata.
    metric: String,
    /// The metric must be under this to promote.
    below: f64,
    /// A canary whose metric is above this fails the deployment.
    fail_above: Option<f64>,
}

impl Plugin for CanaryGate {
    const NAME: &'static str = "canary-gate";
    const VERSION: &'static str = "0.2.0";
    const DESCRIPTION: &'static str =
        "Promotes canaries healthy for long enough whose health metric is under a threshold.";
    const HOOKS: &'static [Hook] = &[Hook::Promotion];
    const READS: ViewParts = ViewParts {
        allocation_ids: true,
        candidate_meta: true,
        ..READS_NOTHING
    };
    const SETTINGS_EXAMPLE: &'static str =
        r#"{"healthy-minutes": 10, "metric": "error-rate", "below": 0.01, "fail-above": 0.05}"#;

    fn configure(&mut self, settings: &str) -> Result<(), String> {
        let s: Settings = slotwise_plugin::settings(settings)?;
        if s.metric.trim().is_empty() {
            return Err("metric: empty; name the metadata key of the health metric".into());
        }
        if let Some(fail) = s.fail_above {
            if fail < s.below {
                return Err(format!(
                    "fail-above: {fail} is under `below` ({}); a canary could then fail while good enough to promote",
                    s.below
                ));
            }
        }
        self.gate = Gate {
            healthy_for: i64::from(s.healthy_minutes) * MINUTE,
            metric: s.metric,
            below: s.below,
            fail_above: s.fail_above,
        };
        Ok(())
    }

    fn promotion(&mut self, batch: &PromotionBatch) -> Vec<PromotionAnswer> {
        batch
            .groups
            .iter()
            .enumerate()
            .map(|(at, g)| {
                let first = g.canaries.first as usize;
                let request = gate::Request {
                    desired_canaries: g.desired_canaries,
                    now: batch.now,
                    canaries: batch.candidates[first..first + g.canaries.count as usize]
                        .iter()
                        .collect(),
                };
                PromotionAnswer {
                    group: at as u32,
                    decision: self.gate.decide(&request),
                }
            })
            .collect()
    }
}

slotwise_plugin::export!(CanaryGate);

#[cfg(test)]
mod tests;
