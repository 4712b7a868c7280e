//! Policies crossing between the library's types and the host's: a library policy consulted by the component, and the host's plugins consulted by the library.

use crate::component::HostError;
use crate::plugin_wit::types::{Hook, PromotionRequest, SlotProposal, SlotView};
use crate::policy::{Policy, PolicyError};
use crate::transcode::transcode;
use crate::wit::{Plan, PostSlotRuling, PreSlotRuling, PromotionRuling, ReconcileInput};
use slotwise_reconciler as core;

const HOOKS: [Hook; 3] = [Hook::Promotion, Hook::PreSlot, Hook::PostSlot];

/// A policy written against the library (a scenario's scripted policy),
/// consulted by a reconcile through the component.
pub struct LibraryPolicy<'h>(pub &'h mut dyn core::Hooks);

fn crossing_error(e: impl std::fmt::Display) -> PolicyError {
    PolicyError {
        plugin: "(library policy)".into(),
        version: String::new(),
        hook: "crossing",
        group: None,
        slot: None,
        cause: e.to_string(),
    }
}

/// Asks `ask` on the library's rendering of `items`, and brings the rulings back.
fn across<T, L, R, W>(
    items: &[T],
    ask: impl FnOnce(&[L]) -> Option<Vec<R>>,
) -> Result<Vec<W>, PolicyError>
where
    T: serde::Serialize,
    L: serde::de::DeserializeOwned,
    R: serde::Serialize,
    W: serde::de::DeserializeOwned,
{
    let items: Vec<L> = transcode(items).map_err(crossing_error)?;
    let rulings = ask(&items).ok_or_else(|| crossing_error("the policy gave no answer"))?;
    transcode(&rulings).map_err(crossing_error)
}

impl Policy for LibraryPolicy<'_> {
    fn hooks(&self) -> Vec<Hook> {
        HOOKS
            .into_iter()
            .filter(|h| transcode(h).is_ok_and(|h| self.0.asks(h)))
            .collect()
    }

    fn begin(&mut self, _: &ReconcileInput) {}

    fn promotion(
        &mut self,
        requests: &mut [PromotionRequest],
    ) -> Result<Vec<PromotionRuling>, PolicyError> {
        across(requests, |r: &[core::plugin::PromotionRequest]| {
            self.0.promotion(r)
        })
    }

    fn pre_slot(&mut self, slots: &mut [SlotView]) -> Result<Vec<PreSlotRuling>, PolicyError> {
        across(slots, |s: &[core::plugin::SlotView]| self.0.pre_slot(s))
    }

    fn post_slot(
        &mut self,
        proposals: &mut [SlotProposal],
    ) -> Result<Vec<PostSlotRuling>, PolicyError> {
        across(proposals, |p: &[core::plugin::SlotProposal]| {
            self.0.post_slot(p)
        })
    }

    fn finish(&mut self, _: Option<&mut Plan>) {}
}

/// The host's policy, consulted by the library's reconcile.
struct HostHooks<'p> {
    policy: &'p mut dyn Policy,
    hooks: Vec<Hook>,
    error: Option<PolicyError>,
}

impl HostHooks<'_> {
    /// Asks the host's policy on its rendering of `items`; `None` once it failed.
    fn across<L, T, W, R>(
        &mut self,
        items: &[L],
        ask: impl FnOnce(&mut dyn Policy, &mut [T]) -> Result<Vec<W>, PolicyError>,
    ) -> Option<Vec<R>>
    where
        L: serde::Serialize,
        T: serde::de::DeserializeOwned,
        W: serde::Serialize,
        R: serde::de::DeserializeOwned,
    {
        if self.error.is_some() {
            return None;
        }
        let outcome = transcode::<_, Vec<T>>(items)
            .map_err(crossing_error)
            .and_then(|mut host| ask(&mut *self.policy, &mut host))
            .and_then(|rulings| transcode(&rulings).map_err(crossing_error));
        match outcome {
            Ok(rulings) => Some(rulings),
            Err(e) => {
                self.error = Some(e);
                None
            }
        }
    }
}

impl core::Hooks for HostHooks<'_> {
    fn asks(&self, hook: core::plugin::Hook) -> bool {
        transcode(&hook).is_ok_and(|h: Hook| self.hooks.contains(&h))
    }

    fn promotion(
        &mut self,
        requests: &[core::plugin::PromotionRequest],
    ) -> Option<Vec<core::PromotionRuling>> {
        self.across(requests, |p, r: &mut [PromotionRequest]| p.promotion(r))
    }

    fn pre_slot(&mut self, slots: &[core::plugin::SlotView]) -> Option<Vec<core::PreSlotRuling>> {
        self.across(slots, |p, s: &mut [SlotView]| p.pre_slot(s))
    }

    fn post_slot(
        &mut self,
        proposals: &[core::plugin::SlotProposal],
    ) -> Option<Vec<core::PostSlotRuling>> {
        self.across(proposals, |p, s: &mut [SlotProposal]| p.post_slot(s))
    }
}

/// Runs the reconciler library in this process, consulting `policy` as the
/// component would.
///
/// # Errors
/// As [`crate::ComponentReconciler::reconcile_with`], but the library cannot trap.
pub fn reconcile_natively(
    input: &core::ReconcileInput,
    policy: &mut dyn Policy,
) -> Result<Result<core::Plan, core::InputError>, HostError> {
    policy.begin(&transcode(input)?);
    let hooks = policy.hooks();
    let mut host = HostHooks {
        policy,
        hooks,
        error: None,
    };
    let outcome = core::reconcile_step(input, &mut host);
    let HostHooks { policy, error, .. } = host;
    let done = match outcome {
        Ok(core::Progress::Done(plan)) => plan,
        other => {
            policy.finish(None);
            return match (other, error) {
                (_, Some(e)) => Err(HostError::from(e)),
                (Err(core::StepError::Input(e)), None) => Ok(Err(e)),
                (Err(core::StepError::Ruling(e)), None) => {
                    Err(HostError::Refused(Box::new(transcode(&e)?)))
                }
                (_, None) => Err(HostError::Call("a question went unanswered".into())),
            };
        }
    };
    let mut plan: Plan = transcode(&done)?;
    policy.finish(Some(&mut plan));
    Ok(Ok(transcode(&plan)?))
}
