//! Composing the replies of several plugins on one item: each answer is checked, a monitoring plugin's answer is only reported, a failed plugin is skipped or ends the reconcile as it chose, and of the applied answers the most cautious wins.

use crate::plugin::{
    Adjustment, CandidateAdjustment, Hook, PostSlotDecision, PreSlotDecision, PromotionDecision,
    SlotProposal, SlotView,
};
use crate::{
    answers, Consulted, PluginExt, PluginFailure, PolicyAction, PolicyVerdict, PostSlotReply,
    PreSlotReply, PromotionReply, SessionError,
};

/// The item replies are about.
pub(crate) struct Item<'a> {
    pub(crate) hook: Hook,
    pub(crate) group: &'a str,
    pub(crate) slot: Option<u32>,
}

/// What the replies on items come to, besides the decisions applied.
#[derive(Default)]
pub(crate) struct Tally {
    /// What monitoring plugins would have done.
    pub(crate) monitored: Vec<PolicyAction>,
    /// Answers skipped because their plugin failed open.
    pub(crate) failures: Vec<PluginFailure>,
    /// Bytes plugins attached to the item.
    pub(crate) ext: Vec<PluginExt>,
}

impl Tally {
    /// Keeps the bytes `plugin` attached to the item, if any.
    fn keep_ext(&mut self, plugin: &str, data: Option<Vec<u8>>) {
        if let Some(data) = data {
            self.ext.push(PluginExt {
                plugin: plugin.to_string(),
                data,
            });
        }
    }
}

/// A checked answer and who gave it.
struct Answer<A> {
    plugin: String,
    monitor: bool,
    answer: A,
}

impl Item<'_> {
    /// Checks each reply; returns the answers to weigh, in order. A failure
    /// or an invalid answer is recorded in `tally` when its plugin fails
    /// open, and ends the reconcile otherwise.
    fn sort<A>(
        &self,
        consulted: &[Consulted],
        replies: Vec<(String, Result<A, String>)>,
        check: impl Fn(&A) -> Result<(), String>,
        tally: &mut Tally,
    ) -> Result<Vec<Answer<A>>, SessionError> {
        let mut answers = Vec::with_capacity(replies.len());
        for (plugin, answer) in replies {
            let Some(c) = consulted.iter().find(|c| c.name == plugin) else {
                return Err(self.error(&plugin, format!("`{plugin}` is not a consulted plugin")));
            };
            if !c.hooks.contains(&self.hook) {
                let message = format!("`{plugin}` replied at a hook it does not implement");
                return Err(self.error(&plugin, message));
            }
            let checked = answer.and_then(|a| match check(&a) {
                Ok(()) => Ok(a),
                Err(why) => Err(format!("answered something invalid: {why}")),
            });
            match checked {
                Ok(answer) => answers.push(Answer {
                    plugin,
                    monitor: c.monitor,
                    answer,
                }),
                // What a monitoring plugin does never changes the outcome,
                // so its failures are reported as a failing-open one's are.
                Err(cause) if c.fail_open || c.monitor => tally.failures.push(PluginFailure {
                    plugin,
                    hook: crate::session::hook_name(self.hook).to_string(),
                    group: Some(self.group.to_string()),
                    slot: self.slot,
                    cause,
                }),
                Err(cause) => {
                    let who = match c.version.as_str() {
                        "" => c.name.clone(),
                        version => format!("{} {version}", c.name),
                    };
                    let message = format!(
                        "plugin {who} failed at {}{}: {cause}",
                        crate::session::hook_name(self.hook),
                        self.place()
                    );
                    return Err(self.error(&plugin, message));
                }
            }
        }
        Ok(answers)
    }

    fn place(&self) -> String {
        match self.slot {
            Some(slot) => format!(" (group {}, slot {slot})", self.group),
            None => format!(" (group {})", self.group),
        }
    }

    fn error(&self, plugin: &str, message: String) -> SessionError {
        SessionError {
            plugin: plugin.to_string(),
            group: self.group.to_string(),
            slot: self.slot,
            message,
        }
    }

    /// Records what a monitoring plugin would have done.
    fn monitored(&self, tally: &mut Tally, plugin: String, verdict: PolicyVerdict, reason: String) {
        tally.monitored.push(PolicyAction {
            plugin,
            group: self.group.to_string(),
            slot: self.slot,
            verdict,
            reason,
            applied: false,
        });
    }
}

/// The composed pre-slot decision on `slot`, and who it is by: a hold wins;
/// adjustments merge, the earlier plugin's choice winning for a candidate
/// two adjust.
pub(crate) fn pre_slot(
    consulted: &[Consulted],
    slot: &SlotView,
    replies: Vec<PreSlotReply>,
    tally: &mut Tally,
) -> Result<(PreSlotDecision, String), SessionError> {
    let item = Item {
        hook: Hook::PreSlot,
        group: &slot.group,
        slot: Some(slot.index),
    };
    let replies = replies.into_iter().map(|r| (r.plugin, r.answer)).collect();
    let answers = item.sort(
        consulted,
        replies,
        |a| answers::check_pre_slot(slot, &a.decision),
        tally,
    )?;
    let mut hold: Option<(String, String)> = None;
    let mut adjust: Vec<(String, Adjustment)> = Vec::new();
    for Answer {
        plugin,
        monitor,
        answer,
    } in answers
    {
        tally.keep_ext(&plugin, answer.ext);
        match (answer.decision, monitor) {
            (PreSlotDecision::Proceed, _) => {}
            (PreSlotDecision::Hold(why), true) => {
                item.monitored(tally, plugin, PolicyVerdict::Held, why)
            }
            (PreSlotDecision::Adjust(a), true) => {
                item.monitored(tally, plugin, PolicyVerdict::Adjusted, a.reason)
            }
            (PreSlotDecision::Hold(why), false) => {
                hold.get_or_insert((plugin, why));
            }
            (PreSlotDecision::Adjust(a), false) => adjust.push((plugin, a)),
        }
    }
    Ok(if let Some((by, why)) = hold {
        (PreSlotDecision::Hold(why), by)
    } else if adjust.is_empty() {
        (PreSlotDecision::Proceed, String::new())
    } else {
        let (by, adjustment) = merge(adjust);
        (PreSlotDecision::Adjust(adjustment), by)
    })
}

fn merge(adjustments: Vec<(String, Adjustment)>) -> (String, Adjustment) {
    let by: Vec<&str> = adjustments.iter().map(|(b, _)| b.as_str()).collect();
    let by = by.join(", ");
    let reason = if let [(_, only)] = adjustments.as_slice() {
        only.reason.clone()
    } else {
        let reasons: Vec<String> = adjustments
            .iter()
            .map(|(b, a)| format!("{b}: {}", a.reason))
            .collect();
        reasons.join("; ")
    };
    let mut candidates: Vec<CandidateAdjustment> = Vec::new();
    for (_, a) in adjustments {
        for c in a.candidates {
            match candidates.iter_mut().find(|m| m.allocation == c.allocation) {
                Some(m) => {
                    m.reclassify = m.reclassify.or(c.reclassify);
                    m.update = m.update.or(c.update);
                }
                None => candidates.push(c),
            }
        }
    }
    (by, Adjustment { candidates, reason })
}

/// The composed post-slot decision on `proposal`, and who it is by: a veto
/// wins, then the latest deferral.
pub(crate) fn post_slot(
    consulted: &[Consulted],
    proposal: &SlotProposal,
    replies: Vec<PostSlotReply>,
    tally: &mut Tally,
) -> Result<(PostSlotDecision, String), SessionError> {
    let item = Item {
        hook: Hook::PostSlot,
        group: &proposal.slot.group,
        slot: Some(proposal.slot.index),
    };
    let replies = replies.into_iter().map(|r| (r.plugin, r.answer)).collect();
    let answers = item.sort(
        consulted,
        replies,
        |a| answers::check_post_slot(proposal, &a.decision),
        tally,
    )?;
    let mut chosen: Option<(String, PostSlotDecision)> = None;
    for Answer {
        plugin,
        monitor,
        answer,
    } in answers
    {
        tally.keep_ext(&plugin, answer.ext);
        let decision = answer.decision;
        if monitor {
            match decision {
                PostSlotDecision::Accept => {}
                PostSlotDecision::Veto(why) => {
                    item.monitored(tally, plugin, PolicyVerdict::Vetoed, why)
                }
                PostSlotDecision::Defer(d) => {
                    item.monitored(tally, plugin, PolicyVerdict::Deferred, d.reason)
                }
            }
            continue;
        }
        let replaces = match (&chosen, &decision) {
            (_, PostSlotDecision::Accept) => false,
            (None, _) => true,
            (Some((_, PostSlotDecision::Veto(_))), _) => false,
            (Some(_), PostSlotDecision::Veto(_)) => true,
            (Some((_, PostSlotDecision::Defer(old))), PostSlotDecision::Defer(new)) => {
                new.until > old.until
            }
            (Some(_), PostSlotDecision::Defer(_)) => true,
        };
        if replaces {
            chosen = Some((plugin, decision));
        }
    }
    Ok(match chosen {
        Some((by, decision)) => (decision, by),
        None => (PostSlotDecision::Accept, String::new()),
    })
}

/// The composed promotion decision on the canaries of `group`, and who it is
/// by: a failure wins, then waiting, then promotion; none when no plugin
/// applied an answer.
pub(crate) fn promotion(
    consulted: &[Consulted],
    group: &str,
    replies: Vec<PromotionReply>,
    tally: &mut Tally,
) -> Result<Option<(PromotionDecision, String)>, SessionError> {
    let item = Item {
        hook: Hook::Promotion,
        group,
        slot: None,
    };
    let replies = replies.into_iter().map(|r| (r.plugin, r.answer)).collect();
    let answers = item.sort(consulted, replies, |_| Ok(()), tally)?;
    let rank = |d: &PromotionDecision| match d {
        PromotionDecision::Fail(_) => 2,
        PromotionDecision::Wait(_) => 1,
        PromotionDecision::Promote(_) => 0,
    };
    let mut chosen: Option<(PromotionDecision, String)> = None;
    for Answer {
        plugin,
        monitor,
        answer,
    } in answers
    {
        if monitor {
            let (verdict, why) = match answer {
                PromotionDecision::Promote(w) => (PolicyVerdict::Promoted, w),
                PromotionDecision::Wait(w) => (PolicyVerdict::Waited, w),
                PromotionDecision::Fail(w) => (PolicyVerdict::Failed, w),
            };
            item.monitored(tally, plugin, verdict, why);
        } else if chosen
            .as_ref()
            .is_none_or(|(old, _)| rank(&answer) > rank(old))
        {
            chosen = Some((answer, plugin));
        }
    }
    Ok(chosen)
}
