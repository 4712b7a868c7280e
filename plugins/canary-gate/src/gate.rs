//! The gate: what blocks a canary, and the decision for a group's canaries.

use slotwise_plugin::{Candidate, PromotionDecision, Timestamp, SECOND};

/// A deployment group's canaries, as the gate weighs them.
pub struct Request<'b> {
    pub desired_canaries: u32,
    pub now: Timestamp,
    pub canaries: Vec<&'b Candidate>,
}

/// What the canaries must show to be promoted.
#[derive(Default)]
pub struct Gate {
    /// How long, in nanoseconds, each canary must have been healthy.
    pub healthy_for: i64,
    /// The metadata key of the health metric.
    pub metric: String,
    /// The metric must be under this.
    pub below: f64,
    /// A metric above this fails the deployment.
    pub fail_above: Option<f64>,
}

impl Gate {
    /// Fail when a canary's metric is over the fail threshold; else wait
    /// while a canary is missing or blocks; else promote.
    ///
    /// Failing comes first: a bad canary ends the deployment even while
    /// others are still warming up.
    pub fn decide(&self, request: &Request) -> PromotionDecision {
        if let Some(limit) = self.fail_above {
            for canary in &request.canaries {
                if let Some(Ok(value)) = self.metric_of(canary) {
                    if value > limit {
                        return PromotionDecision::Fail(format!(
                            "canary {}: {} is {value}, above the fail threshold {limit}",
                            id(canary),
                            self.metric
                        ));
                    }
                }
            }
        }
        let placed = request.canaries.len();
        let desired = request.desired_canaries as usize;
        if placed < desired {
            return PromotionDecision::Wait(format!("{placed} of {desired} canaries are placed"));
        }
        let blocking: Vec<String> = request
            .canaries
            .iter()
            .filter_map(|c| {
                self.blocker(c, request.now)
                    .map(|why| format!("canary {} {why}", id(c)))
            })
            .collect();
        if !blocking.is_empty() {
            return PromotionDecision::Wait(blocking.join("; "));
        }
        PromotionDecision::Promote(format!(
            "{} healthy for at least {} with {} under {}",
            match placed {
                1 => "the canary is".to_string(),
                n => format!("all {n} canaries are"),
            },
            duration(self.healthy_for),
            self.metric,
            self.below
        ))
    }

    /// Why `canary` holds the promotion back at `now`, if it does.
    fn blocker(&self, canary: &Candidate, now: Timestamp) -> Option<String> {
        match (canary.healthy, canary.healthy_since) {
            (None, _) => return Some("is not yet known to be healthy".into()),
            (Some(false), _) => return Some("is unhealthy".into()),
            (Some(true), None) => {
                return Some("is healthy but reports no time it became so".into())
            }
            (Some(true), Some(since)) if now - since < self.healthy_for => {
                return Some(format!(
                    "has been healthy for {} of the {} required",
                    duration(now - since),
                    duration(self.healthy_for)
                ))
            }
            (Some(true), Some(_)) => {}
        }
        match self.metric_of(canary) {
            None => Some(format!("reports no {}", self.metric)),
            Some(Err(text)) => Some(format!("reports {} `{text}`, not a number", self.metric)),
            Some(Ok(value)) if value >= self.below => Some(format!(
                "has {} {value}, not under {}",
                self.metric, self.below
            )),
            Some(Ok(_)) => None,
        }
    }

    /// The canary's metric: absent, a number, or the text that is not one.
    fn metric_of<'c>(&self, canary: &'c Candidate) -> Option<Result<f64, &'c str>> {
        let (_, text) = canary
            .meta
            .iter()
            .flatten()
            .find(|(key, _)| *key == self.metric)?;
        Some(
            text.trim()
                .parse::<f64>()
                .ok()
                .filter(|v| v.is_finite())
                .ok_or(text.as_str()),
        )
    }
}

/// `nanos` as `1h5m`, `10m`, `4m30s` or `45s`; never negative.
fn duration(nanos: i64) -> String {
    let total = nanos.max(0) / SECOND;
    let (h, m, s) = (total / 3600, total / 60 % 60, total % 60);
    let mut text = String::new();
    if h > 0 {
        text.push_str(&format!("{h}h"));
    }
    if m > 0 {
        text.push_str(&format!("{m}m"));
    }
    if s > 0 || text.is_empty() {
        text.push_str(&format!("{s}s"));
    }
    text
}

/// A canary's allocation id, as messages name it.
fn id(canary: &Candidate) -> &str {
    canary.allocation.as_deref().unwrap_or("?")
}
