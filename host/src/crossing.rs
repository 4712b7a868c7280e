//! Policies crossing between the library's types and the host's: a library policy consulted by the component, and the host's plugins consulted by the library.

use crate::component::HostError;
use crate::plugin_wit::types::{PromotionRequest, SlotProposal, SlotView};
use crate::policy::Policy;
use crate::transcode::transcode;
use crate::wit::{Consulted, Plan, PostSlotReply, PreSlotReply, PromotionReply, ReconcileInput};
use serde::{de::DeserializeOwned, Serialize};
use slotwise_reconciler as core;

/// A policy written against the library (a scenario's scripted policy),
/// consulted by a reconcile through the component.
pub struct LibraryPolicy<'h>(pub &'h mut dyn core::Hooks);

/// Asks `ask` on the library's rendering of `items`, and brings the replies back.
fn across<T, L, R, W>(
    items: &[T],
    ask: impl FnOnce(&[L]) -> Option<Vec<R>>,
) -> Result<Vec<W>, HostError>
where
    T: Serialize,
    L: DeserializeOwned,
    R: Serialize,
    W: DeserializeOwned,
{
    let items: Vec<L> = transcode(items)?;
    let replies =
        ask(&items).ok_or_else(|| HostError::Call("the policy gave no replies".into()))?;
    Ok(transcode(&replies)?)
}

impl Policy for LibraryPolicy<'_> {
    fn consulted(&self) -> Vec<Consulted> {
        transcode(self.0.consulted()).unwrap_or_default()
    }

    fn begin(&mut self, _: &ReconcileInput) {}

    fn promotion(
        &mut self,
        requests: &mut [PromotionRequest],
    ) -> Result<Vec<Vec<PromotionReply>>, HostError> {
        across(requests, |r: &[core::plugin::PromotionRequest]| {
            self.0.promotion(r)
        })
    }

    fn pre_slot(&mut self, slots: &mut [SlotView]) -> Result<Vec<Vec<PreSlotReply>>, HostError> {
        across(slots, |s: &[core::plugin::SlotView]| self.0.pre_slot(s))
    }

    fn post_slot(
        &mut self,
        proposals: &mut [SlotProposal],
    ) -> Result<Vec<Vec<PostSlotReply>>, HostError> {
        across(proposals, |p: &[core::plugin::SlotProposal]| {
            self.0.post_slot(p)
        })
    }

    fn finish(&mut self, _: Option<&mut Plan>) {}
}

/// The host's policy, consulted by the library's reconcile.
struct HostHooks<'p> {
    policy: &'p mut dyn Policy,
    consulted: Vec<core::Consulted>,
    error: Option<HostError>,
}

impl HostHooks<'_> {
    /// Asks the host's policy on its rendering of `items`; `None` once the
    /// host failed.
    fn across<L, T, W, R>(
        &mut self,
        items: &[L],
        ask: impl FnOnce(&mut dyn Policy, &mut [T]) -> Result<Vec<W>, HostError>,
    ) -> Option<Vec<R>>
    where
        L: Serialize,
        T: DeserializeOwned,
        W: Serialize,
        R: DeserializeOwned,
    {
        if self.error.is_some() {
            return None;
        }
        let outcome = transcode::<_, Vec<T>>(items)
            .map_err(HostError::from)
            .and_then(|mut host| ask(&mut *self.policy, &mut host))
            .and_then(|replies| Ok(transcode(&replies)?));
        match outcome {
            Ok(replies) => Some(replies),
            Err(e) => {
                self.error = Some(e);
                None
            }
        }
    }
}

impl core::Hooks for HostHooks<'_> {
    fn consulted(&self) -> &[core::Consulted] {
        &self.consulted
    }

    fn promotion(
        &mut self,
        requests: &[core::plugin::PromotionRequest],
    ) -> Option<Vec<Vec<core::PromotionReply>>> {
        self.across(requests, |p, r: &mut [PromotionRequest]| p.promotion(r))
    }

    fn pre_slot(
        &mut self,
        slots: &[core::plugin::SlotView],
    ) -> Option<Vec<Vec<core::PreSlotReply>>> {
        self.across(slots, |p, s: &mut [SlotView]| p.pre_slot(s))
    }

    fn post_slot(
        &mut self,
        proposals: &[core::plugin::SlotProposal],
    ) -> Option<Vec<Vec<core::PostSlotReply>>> {
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
    let consulted = transcode(&policy.consulted())?;
    let mut host = HostHooks {
        policy,
        consulted,
        error: None,
    };
    let outcome = core::reconcile_step(input, &mut host);
    let HostHooks { policy, error, .. } = host;
    let done = match outcome {
        Ok(core::Progress::Done(plan)) => plan,
        other => {
            policy.finish(None);
            return match (other, error) {
                (_, Some(e)) => Err(e),
                (Err(core::StepError::Input(e)), None) => Ok(Err(e)),
                (Err(core::StepError::Session(e)), None) => {
                    Err(HostError::Session(Box::new(transcode(&e)?)))
                }
                (_, None) => Err(HostError::Call("a question went unanswered".into())),
            };
        }
    };
    let mut plan: Plan = transcode(&done)?;
    policy.finish(Some(&mut plan));
    Ok(Ok(transcode(&plan)?))
}
