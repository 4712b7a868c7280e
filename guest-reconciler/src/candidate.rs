//! A candidate: an existing allocation as its slot sees it, with what the steps have decided about it.

use crate::allocation::{Glance, History};
use crate::allocation_ref::{AllocationRef, Kind, Untagged};
use crate::classification::{classify, Facts, Rule, RuleId, Taint};
use crate::deployment::Asked;
use crate::named_groups::NamedGroup;
use crate::policy::Policy;
use crate::sentence::say;
use crate::{
    AllocationUpdate, Classification, ClientStatus, DesiredTransition, Fingerprint, Node,
    ObservedState, Reason, ReconcileInput, Stop, Timestamp, UpdateKind,
};
use std::borrow::Cow;
use std::rc::Rc;

/// Which working set a candidate is in. The steps move candidates between
/// sets; a decision such as a stop is recorded beside the standing, because
/// Nomad keeps, for example, a stopped lost allocation in the lost set so that
/// it is still replaced.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Standing {
    /// Not looked at yet.
    Unclassified,
    /// Counts toward the group's count.
    Untainted,
    /// To be moved off its node.
    Migrating,
    /// Its node is gone.
    Lost,
    /// Its client just disconnected.
    Disconnecting,
    /// Its client came back.
    Reconnecting,
    /// Unknown past its group's `lost-after`.
    Expiring,
    /// Left the untainted set to be replaced now.
    Rescheduled,
    /// Held by a policy: kept as it is and holding its slot, this round.
    Held,
    /// Counted as ignored and left alone.
    Ignored,
    /// In no working set any more: filtered out, or settled by a decision.
    Out,
}

bitflags::bitflags! {
    /// What the steps mark a candidate with, and two facts fixed when it is
    /// made, as bits of one byte, where eight `bool`s took eight bytes.
    #[derive(Clone, Copy, PartialEq, Eq)]
    pub(crate) struct Marks: u8 {
        /// Part of the set replaced now; may also be migrating.
        const RESCHEDULE_NOW = 1;
        /// A canary of the current deployment that is still in good standing.
        const CANARY = 1 << 1;
        /// Marked unknown because its client disconnected.
        const DISCONNECTED = 1 << 2;
        /// Resumed because its client reconnected.
        const RESUMED = 1 << 3;
        /// A stop has been decided.
        const STOPPED = 1 << 4;
        /// Still among the allocations later steps look at (Nomad's `all`):
        /// not screened out, and not a canary stopped before classification.
        const TRACKED = 1 << 5;
        /// The plan explains its slots, so that outcomes are worth wording.
        const EXPLAINED = 1 << 6;
        /// A later allocation has replaced it.
        const REPLACED = 1 << 7;
    }
}

/// An allocation claiming a slot.
pub(crate) struct Candidate<'a> {
    /// Its allocation, as [`alloc`](Self::alloc) puts it together: the
    /// pointer here, its kind in a byte the candidate had spare.
    alloc_at: Untagged<'a>,
    alloc_kind: Kind,
    pub(crate) node: &'a Node,
    pub(crate) policy: Policy<'a>,
    pub(crate) standing: Standing,
    rule: Option<RuleId>,
    /// The rule the table gives it, found when it was made, while its
    /// allocation's record is at hand: classifying a large group later
    /// went back to every record.
    ruled: RuleId,
    /// Which of the steps' marks it bears, in one byte.
    marks: Marks,
    /// When a follow-up evaluation should replace it: boxed, as few
    /// candidates have one and an unboxed time would widen every candidate
    /// by sixteen bytes.
    pub(crate) reschedule_later: Option<Box<Timestamp>>,
    /// The follow-up evaluation this run attaches to it.
    /// Shared by every member of a follow-up batch, so that attaching an
    /// evaluation to thousands of candidates copies no string; a thin
    /// pointer, to keep the candidate narrow.
    pub(crate) followup: Option<Rc<String>>,
    pub(crate) update: Option<UpdateKind>,
    /// The update kind asked for, overriding the fingerprints: by a policy,
    /// else by the caller in the allocation's `update`.
    pub(crate) forced_update: Option<UpdateKind>,
    /// What happens to it, in a sentence; the latest decision wins.
    /// Behind a thin pointer: only explained reconciles set it, and a
    /// narrower candidate keeps the passes over a large group's candidates
    /// in cache.
    #[allow(
        clippy::box_collection,
        reason = "a thin pointer keeps the candidate narrow"
    )]
    pub(crate) outcome: Option<Box<String>>,
    /// What the passes over a group read of the allocation, copied when the
    /// candidate is made: its slot, its statuses and flags, its deployment
    /// and how its fingerprint stands (whether it was replaced is a mark). The
    /// allocation's record lies far from its neighbours' and spans several
    /// cache lines, while candidates lie side by side: in a group larger
    /// than the cache, every pass that went back to the record missed.
    index: u32,
    glance: Glance,
    drift: Drift,
    /// Whether the allocation belongs to the input's deployment, to another
    /// or to none: asking about the input's then reads nothing far away.
    membership: Membership,
}

/// Which deployment an allocation belongs to, as far as the passes ask:
/// one byte, where the id of another is read from the record when needed.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Membership {
    None,
    Input,
    Other,
}

/// How an allocation's fingerprint stands against its group's definition.
#[derive(Clone, Copy, PartialEq, Eq)]
pub(crate) enum Drift {
    /// The same.
    None,
    /// Differs in what can change in place.
    InPlace,
    /// Differs in what needs a new allocation.
    Destructive,
}

impl Drift {
    fn between(have: &Fingerprint, want: Option<&Fingerprint>) -> Self {
        match want {
            Some(want) if have.destructive != want.destructive => Drift::Destructive,
            Some(want) if have != want => Drift::InPlace,
            _ => Drift::None,
        }
    }
}

/// What the candidates of one group are made against: the group's
/// definition, the input deployment, whether the plan is explained.
#[derive(Clone, Copy)]
pub(crate) struct Setting<'a> {
    pub(crate) fingerprint: Option<&'a Fingerprint>,
    pub(crate) deployment: Option<&'a str>,
    pub(crate) explained: bool,
    /// The time the reconcile runs at, which classification reads.
    pub(crate) now: Timestamp,
}

// Every pass over a large group streams its candidates, so they stay narrow.
// Beyond the cache a pass costs about its bytes: at 200,000 allocations,
// widening the candidate from 96 to 128 bytes took the reconcile from 190 to
// 235 ns per allocation, while at 10,000 it cost 2 ns. (Past 32 MiB of
// candidates, glibc also maps them afresh, and the kernel faults in and
// zeroes each page again on every reconcile.)
#[cfg(target_pointer_width = "64")]
const _: () = assert!(std::mem::size_of::<Candidate>() <= 72);

impl<'a> Candidate<'a> {
    pub(crate) fn new(
        alloc: AllocationRef<'a>,
        node: &'a Node,
        policy: Policy<'a>,
        setting: Setting<'a>,
    ) -> Self {
        let membership = match (alloc.deployment(), setting.deployment) {
            (None, _) => Membership::None,
            (Some(own), Some(input)) if own == input => Membership::Input,
            (Some(_), _) => Membership::Other,
        };
        let glance = alloc.glance();
        let history = alloc.client_states();
        let mut marks = Marks::TRACKED;
        marks.set(Marks::EXPLAINED, setting.explained);
        marks.set(Marks::REPLACED, alloc.next_allocation().is_some());
        let (alloc_kind, alloc_at) = alloc.split();
        Self {
            alloc_at,
            alloc_kind,
            node,
            policy,
            standing: Standing::Unclassified,
            rule: None,
            ruled: RuleId::of(classify(&Facts::new(
                History(&history),
                glance,
                policy,
                Taint::of(node),
                setting.now,
            ))),
            marks,
            reschedule_later: None,
            followup: None,
            update: None,
            forced_update: alloc.update(),
            outcome: None,
            index: alloc.name_index(),
            glance,
            drift: Drift::between(&alloc.fingerprint(), setting.fingerprint),
            membership,
        }
    }

    /// Its allocation.
    pub(crate) fn alloc(&self) -> AllocationRef<'a> {
        // SAFETY: both parts come from one split, in `new`, and neither is
        // changed after.
        unsafe { AllocationRef::join(self.alloc_kind, self.alloc_at) }
    }

    pub(crate) fn id(&self) -> &'a str {
        self.alloc().id()
    }

    pub(crate) fn index(&self) -> u32 {
        self.index
    }

    /// What its client reports of it.
    pub(crate) fn client_status(&self) -> ClientStatus {
        self.glance.client_status
    }

    /// Its statuses, requested transitions and health.
    pub(crate) fn glance(&self) -> &Glance {
        &self.glance
    }

    /// The requested transitions, all false when none was requested.
    pub(crate) fn transition(&self) -> &DesiredTransition {
        &self.glance.transition
    }

    /// The server has stopped or evicted it.
    pub(crate) fn is_server_terminal(&self) -> bool {
        self.glance.is_server_terminal()
    }

    /// The server or its client has finished with it.
    pub(crate) fn is_terminal(&self) -> bool {
        self.glance.is_terminal()
    }

    /// A later allocation has replaced it.
    pub(crate) fn is_replaced(&self) -> bool {
        self.has(Marks::REPLACED)
    }

    /// Bears every mark of `marks`.
    pub(crate) fn has(&self, marks: Marks) -> bool {
        self.marks.contains(marks)
    }

    pub(crate) fn mark(&mut self, marks: Marks) {
        self.marks.insert(marks);
    }

    pub(crate) fn unmark(&mut self, marks: Marks) {
        self.marks.remove(marks);
    }

    /// Clears `mark`, saying whether the candidate bore it.
    pub(crate) fn take(&mut self, mark: Marks) -> bool {
        let had = self.has(mark);
        self.unmark(mark);
        had
    }

    /// How its fingerprint stands against its group's definition.
    pub(crate) fn drift(&self) -> Drift {
        self.drift
    }

    /// Its observed state: borrowed from a typed allocation, built from a
    /// wire record.
    pub(crate) fn observed(&self) -> Cow<'a, ObservedState> {
        self.alloc().observed()
    }

    pub(crate) fn is(&self, standing: Standing) -> bool {
        self.standing == standing
    }

    /// The first rule of the classification table that applies to it.
    pub(crate) fn rule_for(&self) -> &'static Rule {
        self.ruled.rule()
    }

    /// The rule that classified it, once one has.
    pub(crate) fn rule(&self) -> Option<&'static Rule> {
        self.rule.map(RuleId::rule)
    }

    /// The classification the candidate's standing stands for, if any.
    pub(crate) fn class(&self) -> Option<Classification> {
        match self.standing {
            Standing::Untainted => Some(Classification::Untainted),
            Standing::Migrating => Some(Classification::Migrate),
            Standing::Lost => Some(Classification::Lost),
            Standing::Disconnecting => Some(Classification::Disconnecting),
            Standing::Reconnecting => Some(Classification::Reconnecting),
            Standing::Expiring => Some(Classification::Expiring),
            Standing::Ignored => Some(Classification::Ignore),
            Standing::Unclassified | Standing::Rescheduled | Standing::Held | Standing::Out => None,
        }
    }

    /// Classifies the candidate by the rule the table gives it, moving it to
    /// the matching set, and returns that rule.
    pub(crate) fn classify(&mut self) -> &'static Rule {
        self.rule = Some(self.ruled);
        let rule = self.ruled.rule();
        self.standing = match rule.class {
            Classification::Untainted => Standing::Untainted,
            Classification::Migrate => Standing::Migrating,
            Classification::Lost => Standing::Lost,
            Classification::Disconnecting => Standing::Disconnecting,
            Classification::Reconnecting => Standing::Reconnecting,
            Classification::Ignore => Standing::Ignored,
            Classification::Expiring => Standing::Expiring,
        };
        rule
    }

    /// Records what happens to the candidate, in a sentence built only when
    /// the plan explains its slots.
    pub(crate) fn settle<O: Into<String>>(&mut self, outcome: impl FnOnce() -> O) {
        if self.has(Marks::EXPLAINED) {
            self.outcome = Some(Box::new(outcome().into()));
        }
    }

    /// What happens to it, in the sentence an explained plan shows.
    pub(crate) fn outcome_sentence(&self) -> &str {
        self.outcome
            .as_deref()
            .map_or("left as it is", String::as_str)
    }

    /// Takes the candidate out of every working set, saying why.
    pub(crate) fn drop_out<O: Into<String>>(&mut self, outcome: impl FnOnce() -> O) {
        self.standing = Standing::Out;
        self.settle(outcome);
    }

    /// Takes the candidate out of every working set and out of view of the
    /// later steps, saying why.
    pub(crate) fn untrack<O: Into<String>>(&mut self, outcome: impl FnOnce() -> O) {
        self.unmark(Marks::TRACKED);
        self.drop_out(outcome);
    }

    /// Decides to stop the candidate, returning the plan's entry for it.
    pub(crate) fn stop(
        &mut self,
        reason: Reason,
        client_status: Option<ClientStatus>,
        message: String,
    ) -> Stop {
        self.mark(Marks::STOPPED);
        self.settle(|| say!("stopped: ", message));
        Stop {
            allocation: self.id().to_string(),
            name_index: self.index(),
            client_status,
            followup_eval: self.followup_eval(),
            reason,
            message,
        }
    }

    /// The plan's entry for a change that keeps the candidate: an update in
    /// place, a mark as unknown, a resume.
    pub(crate) fn update_entry(&self, reason: Reason, message: String) -> AllocationUpdate {
        AllocationUpdate {
            allocation: self.id().to_string(),
            name_index: self.index(),
            followup_eval: None,
            reason,
            message,
        }
    }

    /// Resumes the candidate, whose client came back: its plan entry.
    pub(crate) fn resume(&mut self) -> AllocationUpdate {
        self.mark(Marks::RESUMED);
        let message = say!(
            "client on node ",
            self.node.id,
            " reconnected; resume the allocation"
        );
        self.settle(|| message.clone());
        self.update_entry(Reason::Reconnect, message)
    }

    /// The follow-up evaluation this candidate is attached to, as a plan
    /// entry names it.
    pub(crate) fn followup_eval(&self) -> Option<String> {
        self.followup.as_deref().cloned()
    }

    /// Belongs to the deployment with `id`.
    pub(crate) fn in_deployment(&self, deployment: Asked) -> bool {
        match self.membership {
            Membership::None => false,
            Membership::Input => deployment.is_input,
            Membership::Other => {
                !deployment.is_input && self.alloc().deployment() == Some(deployment.id)
            }
        }
    }

    /// Created from an older job version or instance than (`version`, `create_index`).
    pub(crate) fn is_older_than(&self, version: u64, create_index: u64) -> bool {
        self.alloc().job_version() < version || self.alloc().job_create_index() < create_index
    }
}

/// The candidates of `group`, sorted by slot, then by creation, then by
/// identifier: the order every later tie is broken in.
pub(crate) fn gather<'a>(input: &'a ReconcileInput, group: &NamedGroup<'a>) -> Vec<Candidate<'a>> {
    let versions = &group.versions;
    let setting = Setting {
        fingerprint: group.spec.map(|g| &g.fingerprint),
        deployment: input.deployment.as_ref().map(|d| d.id.as_str()),
        explained: input.explain,
        now: input.now,
    };
    let allocations = group.allocations;
    let candidate = |a: AllocationRef<'a>| {
        // Validation guarantees the node exists.
        let node = &input.nodes[a.node() as usize];
        let policy = Policy::new(versions.for_allocation(a.job_version(), a.job_create_index()));
        Candidate::new(a, node, policy, setting)
    };
    let key = |a: AllocationRef| (a.name_index(), a.create_index());
    let before = |x: usize, y: usize| match (allocations.get(x), allocations.get(y)) {
        (Some(a), Some(b)) => (key(a).cmp(&key(b)))
            .then_with(|| a.id().cmp(b.id()))
            .then(x.cmp(&y)),
        _ => x.cmp(&y),
    };
    // Lists arrive sorted as a rule, and are then taken as they are, in one
    // pass that builds the candidates while it checks the order.
    let mut candidates = Vec::with_capacity(allocations.len());
    let sorted = allocations.iter().enumerate().all(|(at, a)| {
        let in_order = at == 0 || before(at - 1, at).is_le();
        if in_order {
            candidates.push(candidate(a));
        }
        in_order
    });
    if sorted {
        return candidates;
    }
    candidates.clear();
    // Otherwise the order is settled on small keys rather than on whole
    // candidates: sorting a large group's candidates moved a hundred bytes
    // per swap and read each allocation again at every comparison. The
    // position breaks the remaining ties as a stable sort would.
    let mut order: Vec<(u32, u64, usize)> = allocations
        .iter()
        .enumerate()
        .map(|(at, a)| (a.name_index(), a.create_index(), at))
        .collect();
    order.sort_unstable_by(|x, y| (x.0, x.1).cmp(&(y.0, y.1)).then_with(|| before(x.2, y.2)));
    candidates.extend(
        order
            .into_iter()
            .filter_map(|(_, _, at)| allocations.get(at).map(candidate)),
    );
    candidates
}
