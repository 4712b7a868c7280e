//! Promotion: canaries awaiting promotion are put to whoever wants a say, and a proposal to promote is applied only when the guards allow it.

use crate::candidate::gather;
use crate::pipeline::Outcome;
use crate::ruling::{Promotion as Call, Ruling, Rulings};
use crate::run::{Awaiting, JobRun};
use crate::sentence::say;
use crate::{DeploymentStatus, PolicyAction, PolicyVerdict, Promotion, Reason};

/// The promotion step: when someone wants a say, pauses with every group of
/// the current deployment whose canaries await promotion, and applies what
/// the guards allow of the rulings it is resumed with.
pub(crate) fn run(run: &mut JobRun) -> Outcome {
    let Some(deployment) = run.deployments.existing() else {
        return Outcome::skipped("no current deployment");
    };
    if run.awaiting.is_empty() {
        run.awaiting = deployment
            .groups
            .iter()
            .filter(|g| g.desired_canaries > 0 && !g.promoted)
            .map(|state| Awaiting {
                deployment: &deployment.id,
                group: &state.group,
                desired_canaries: state.desired_canaries,
                canaries: (run.groups.get(&state.group))
                    .map_or_else(Vec::new, |g| gather(run.input, g))
                    .into_iter()
                    .filter(|c| state.placed_canaries.iter().any(|id| id == c.id()))
                    .filter(|c| !c.is_terminal())
                    .collect(),
            })
            .collect();
    }
    if run.awaiting.is_empty() {
        return Outcome::skipped("no canaries await promotion");
    }
    if !run.wants.promotion {
        let lines: Vec<String> = run.awaiting.iter().map(awaiting).collect();
        return Outcome::skipped(lines.join("; "));
    }
    let rulings = match run.rulings.take() {
        Some(Rulings::Promotion(rulings)) => rulings,
        other => {
            run.rulings = other;
            return Outcome::pause();
        }
    };
    let awaited = std::mem::take(&mut run.awaiting);
    let mut lines = Vec::with_capacity(awaited.len());
    for (request, Ruling { ruled, monitored }) in awaited.iter().zip(rulings) {
        lines.push(match ruled {
            Some(ruled) => apply(run, request, &ruled.by, ruled.decision),
            None => awaiting(request),
        });
        run.actions.extend(monitored);
    }
    run.awaiting = awaited;
    Outcome::done(lines.join("; "))
}

/// Applies the decision of `by` on `request`; returns what happened, in a phrase.
fn apply(run: &mut JobRun, request: &Awaiting, by: &str, decision: Call) -> String {
    let group = request.group;
    let mut act = |verdict, reason: &str, applied| {
        run.actions.push(PolicyAction {
            plugin: by.to_string(),
            group: group.to_string(),
            slot: None,
            node: None,
            verdict,
            reason: reason.to_string(),
            applied,
        })
    };
    match decision {
        Call::Wait(why) => {
            act(PolicyVerdict::Waited, &why, true);
            say!(group, ": ", by, " waits: ", why)
        }
        Call::Fail(why) => {
            act(PolicyVerdict::Failed, &why, true);
            run.deployments.fail_by_policy(&why);
            say!(group, ": ", by, " failed the deployment")
        }
        Call::Promote(why) => {
            let status = run
                .deployments
                .current_status()
                .unwrap_or(DeploymentStatus::Running);
            let (promoted, reason, message) = match guard(status, request) {
                Ok(()) => (
                    true,
                    Reason::CanariesPromoted,
                    say!("canaries promoted: ", why, " (", by, ")"),
                ),
                Err(refusal) => (
                    false,
                    Reason::PromotionRefused,
                    say!(
                        "promotion refused: ",
                        refusal,
                        " (",
                        by,
                        " said: ",
                        why,
                        ")"
                    ),
                ),
            };
            act(PolicyVerdict::Promoted, &why, promoted);
            if promoted {
                run.deployments.promote(group);
            }
            run.promotions.push(Promotion {
                deployment: request.deployment.to_string(),
                group: group.to_string(),
                promoted,
                reason,
                message,
            });
            let what = if promoted {
                "promoted"
            } else {
                "promotion refused"
            };
            say!(group, ": ", what)
        }
    }
}

/// The guards every promotion must pass, whoever proposes it: the deployment
/// is running, and every desired canary is placed and healthy.
fn guard(status: DeploymentStatus, request: &Awaiting) -> Result<(), String> {
    if status != DeploymentStatus::Running {
        return Err(say!(
            "the deployment is ",
            crate::deployment::status_name(status),
            ", not running"
        ));
    }
    let placed = request.canaries.len() as u32;
    if placed < request.desired_canaries {
        return Err(say!(
            placed,
            " of ",
            request.desired_canaries,
            " canaries are placed"
        ));
    }
    let healthy = request.healthy() as u32;
    if healthy < placed {
        return Err(say!(healthy, " of ", placed, " canaries are healthy"));
    }
    Ok(())
}

/// A group left awaiting promotion, with its canaries' health.
fn awaiting(request: &Awaiting) -> String {
    say!(
        request.group,
        ": awaits promotion (",
        request.canaries.len(),
        " of ",
        request.desired_canaries,
        " canaries placed, ",
        request.healthy(),
        " healthy)"
    )
}
