//! Promotion: canaries awaiting promotion are put to the policy, and its proposal is applied only when the guards allow it.

use crate::deployment::Deployments;
use crate::hooks::{Canary, Hooks, PromotionRequest, PromotionVerdict};
use crate::pipeline::Outcome;
use crate::{DeploymentStatus, Promotion, Reason, ReconcileInput};

/// Asks `hooks` about every group of the current deployment whose canaries
/// await promotion, applies what the guards allow, and returns the decisions
/// for the plan.
pub(crate) fn decide(
    input: &ReconcileInput,
    deployments: &mut Deployments,
    hooks: &mut dyn Hooks,
) -> (Vec<Promotion>, Outcome) {
    let Some(deployment) = deployments.existing() else {
        return (Vec::new(), Outcome::skipped("no current deployment"));
    };
    let awaiting: Vec<_> = deployment
        .groups
        .iter()
        .filter(|g| g.desired_canaries > 0 && !g.promoted)
        .collect();
    if awaiting.is_empty() {
        return (Vec::new(), Outcome::skipped("no canaries await promotion"));
    }
    let mut decisions = Vec::new();
    let mut lines = Vec::new();
    for state in awaiting {
        let request = PromotionRequest {
            deployment: deployment.id.clone(),
            group: state.group.clone(),
            desired_canaries: state.desired_canaries,
            canaries: canaries(input, &state.group, &state.placed_canaries),
            now: input.now,
        };
        let group = &request.group;
        match hooks.promotion(&request) {
            None => lines.push(format!("{group}: awaits promotion ({})", health(&request))),
            Some(PromotionVerdict::Wait(why)) => {
                lines.push(format!("{group}: the policy waits: {why}"))
            }
            Some(PromotionVerdict::Promote(why)) => {
                let status = deployments
                    .current_status()
                    .unwrap_or(DeploymentStatus::Running);
                let decision = match guard(status, &request) {
                    Ok(()) => {
                        deployments.promote(group);
                        lines.push(format!("{group}: promoted"));
                        promotion(
                            &request,
                            true,
                            Reason::CanariesPromoted,
                            format!("canaries promoted: {why}"),
                        )
                    }
                    Err(refusal) => {
                        lines.push(format!("{group}: promotion refused"));
                        let message =
                            format!("promotion refused: {refusal} (the policy said: {why})");
                        promotion(&request, false, Reason::PromotionRefused, message)
                    }
                };
                decisions.push(decision);
            }
            Some(PromotionVerdict::Fail(why)) => {
                deployments.fail_by_policy(&why);
                lines.push(format!("{group}: the policy failed the deployment"));
            }
        }
    }
    (decisions, Outcome::done(lines.join("; ")))
}

/// The guards every promotion must pass, whoever proposes it: the deployment
/// is running, and every desired canary is placed and healthy.
pub(crate) fn guard(status: DeploymentStatus, request: &PromotionRequest) -> Result<(), String> {
    if status != DeploymentStatus::Running {
        return Err(format!(
            "the deployment is {}, not running",
            crate::deployment::status_name(status)
        ));
    }
    let placed = request.canaries.len() as u32;
    if placed < request.desired_canaries {
        return Err(format!(
            "{placed} of {} canaries are placed",
            request.desired_canaries
        ));
    }
    let healthy = request
        .canaries
        .iter()
        .filter(|c| c.healthy == Some(true))
        .count() as u32;
    if healthy < placed {
        return Err(format!("{healthy} of {placed} canaries are healthy"));
    }
    Ok(())
}

/// The placed canaries of `group` that still run or are starting.
fn canaries(input: &ReconcileInput, group: &str, placed: &[String]) -> Vec<Canary> {
    input
        .allocations
        .iter()
        .filter(|g| g.group == group)
        .flat_map(|g| &g.allocations)
        .filter(|a| placed.contains(&a.spec.id) && !a.observed.is_terminal())
        .map(|a| Canary {
            allocation: a.spec.id.clone(),
            healthy: a.observed.health.as_ref().and_then(|h| h.healthy),
            healthy_since: a.observed.health.as_ref().and_then(|h| h.changed_at),
            client_status: a.observed.client_status,
        })
        .collect()
}

fn health(request: &PromotionRequest) -> String {
    let healthy = request
        .canaries
        .iter()
        .filter(|c| c.healthy == Some(true))
        .count();
    format!(
        "{} of {} canaries placed, {healthy} healthy",
        request.canaries.len(),
        request.desired_canaries
    )
}

fn promotion(
    request: &PromotionRequest,
    promoted: bool,
    reason: Reason,
    message: String,
) -> Promotion {
    Promotion {
        deployment: request.deployment.clone(),
        group: request.group.clone(),
        promoted,
        reason,
        message,
    }
}
