//! Promotion: canaries awaiting promotion are put to the policy, and its proposal is applied only when the guards allow it.

use crate::composition::{self, Tally};
use crate::pipeline::Outcome;
use crate::plugin::{Hook, PromotionDecision, PromotionRequest};
use crate::reconcile::{gather, JobRun};
use crate::{
    views, DeploymentStatus, PolicyAction, PolicyVerdict, Promotion, Question, Reason, SessionError,
};

/// The promotion step: asks the policy about every group of the current
/// deployment whose canaries await promotion, and applies what the guards
/// allow.
pub(crate) fn run(run: &mut JobRun) -> Outcome {
    let Some(deployment) = run.deployments.existing() else {
        return Outcome::skipped("no current deployment");
    };
    let requests: Vec<PromotionRequest> = deployment
        .groups
        .iter()
        .filter(|g| g.desired_canaries > 0 && !g.promoted)
        .map(|state| PromotionRequest {
            deployment: deployment.id.clone(),
            group: state.group.clone(),
            desired_canaries: state.desired_canaries,
            canaries: gather(run.input, run.job, &state.group)
                .iter()
                .filter(|c| state.placed_canaries.iter().any(|id| id == c.id()))
                .filter(|c| !c.observed().is_terminal())
                .map(|c| views::candidate(c, run.input.now))
                .collect(),
            now: run.input.now,
        })
        .collect();
    if requests.is_empty() {
        return Outcome::skipped("no canaries await promotion");
    }
    if !run.hooks.asks(Hook::Promotion) {
        let lines: Vec<String> = requests.iter().map(awaiting).collect();
        return Outcome::skipped(lines.join("; "));
    }
    let Some(replies) = run.hooks.promotion(&requests) else {
        let asked = requests.len();
        run.pending = Some(Question::Promotion(requests));
        return Outcome::waiting(format!("asks the plugins about {asked} deployment groups"))
            .and_finish();
    };
    if replies.len() != requests.len() {
        run.refused = Some(SessionError {
            plugin: String::new(),
            group: String::new(),
            slot: None,
            message: format!(
                "{} replies for {} promotion requests",
                replies.len(),
                requests.len()
            ),
        });
        return Outcome::skipped("stopped: replies miscounted").and_finish();
    }
    let mut lines = Vec::with_capacity(requests.len());
    for (request, replies) in requests.iter().zip(replies) {
        let mut tally = Tally::default();
        let composed =
            composition::promotion(run.hooks.consulted(), &request.group, replies, &mut tally);
        let line = match composed {
            Ok(decision) => apply(run, request, decision),
            Err(error) => {
                run.refused = Some(error);
                return Outcome::skipped("stopped on a plugin's failure").and_finish();
            }
        };
        run.actions.extend(tally.monitored);
        run.failures.extend(tally.failures);
        lines.push(line);
    }
    Outcome::done(lines.join("; "))
}

/// Applies the composed decision on `request`; returns what happened, in a phrase.
fn apply(
    run: &mut JobRun,
    request: &PromotionRequest,
    decision: Option<(PromotionDecision, String)>,
) -> String {
    let group = &request.group;
    let Some((decision, by)) = decision else {
        return awaiting(request);
    };
    let mut act = |verdict, reason: &str, applied| {
        run.actions.push(PolicyAction {
            plugin: by.clone(),
            group: group.clone(),
            slot: None,
            verdict,
            reason: reason.to_string(),
            applied,
        })
    };
    match decision {
        PromotionDecision::Wait(why) => {
            act(PolicyVerdict::Waited, &why, true);
            format!("{group}: {by} waits: {why}")
        }
        PromotionDecision::Fail(why) => {
            act(PolicyVerdict::Failed, &why, true);
            run.deployments.fail_by_policy(&why);
            format!("{group}: {by} failed the deployment")
        }
        PromotionDecision::Promote(why) => {
            let status = run
                .deployments
                .current_status()
                .unwrap_or(DeploymentStatus::Running);
            let (promoted, reason, message) = match guard(status, request) {
                Ok(()) => (
                    true,
                    Reason::CanariesPromoted,
                    format!("canaries promoted: {why} ({by})"),
                ),
                Err(refusal) => (
                    false,
                    Reason::PromotionRefused,
                    format!("promotion refused: {refusal} ({by} said: {why})"),
                ),
            };
            act(PolicyVerdict::Promoted, &why, promoted);
            if promoted {
                run.deployments.promote(group);
            }
            run.promotions.push(Promotion {
                deployment: request.deployment.clone(),
                group: group.clone(),
                promoted,
                reason,
                message,
            });
            let what = if promoted {
                "promoted"
            } else {
                "promotion refused"
            };
            format!("{group}: {what}")
        }
    }
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

/// A group left awaiting promotion, with its canaries' health.
fn awaiting(request: &PromotionRequest) -> String {
    let healthy = request
        .canaries
        .iter()
        .filter(|c| c.healthy == Some(true))
        .count();
    format!(
        "{}: awaits promotion ({} of {} canaries placed, {healthy} healthy)",
        request.group,
        request.canaries.len(),
        request.desired_canaries
    )
}
