//! What plugins see: the items a paused run shows at its hook point, rendered as the plugin package's batches, with nodes, rule names and reasons sent once in tables.
//!
//! A batch is built for the optional parts one plugin reads, typed or
//! packed; the items and their order do not depend on them, so one
//! [`Shown`] serves to read every plugin's answers.

mod packed;
mod tables;

use crate::candidate::{Candidate, Standing};
use crate::plugin::{self, Batch, Hook, SlotBatch, SlotKey, Span, ViewParts};
use crate::post_slot::{changes_by_slot, post_slot_items, ChangeKind, Proposals, Proposed};
use crate::ruling::Point;
use crate::run::{Awaiting, Decided, JobRun};
use crate::slot_hooks::HookedGroup;
use crate::{Classification, ClientStatus, Timestamp, UpdateKind};
use foldhash::fast::FixedState;
use packed::Packer;
use std::collections::HashMap;
use tables::Tables;

/// No optional part: what a plugin that reads none of them gets, the
/// cheapest batches.
pub const READS_NOTHING: ViewParts = ViewParts {
    node_ids: false,
    node_meta: false,
    allocation_ids: false,
    candidate_meta: false,
    change_messages: false,
    packed: false,
};

/// Every optional part, as typed lists.
pub const READS_EVERY_PART: ViewParts = ViewParts {
    node_ids: true,
    node_meta: true,
    allocation_ids: true,
    candidate_meta: true,
    change_messages: true,
    packed: false,
};

/// What a batch shows, in the run's terms, to read answers against.
pub(crate) struct Shown {
    pub(crate) hook: Hook,
    pub(crate) now: Timestamp,
    /// The groups, by name: one at pre-slot and post-slot, the awaiting
    /// deployment groups at promotion, the groups with changes at review.
    pub(crate) groups: Vec<String>,
    /// Per slot of the batch: its group's position in `groups`, its name
    /// index, and its candidates' positions in the batch.
    pub(crate) slots: Vec<ShownSlot>,
    /// Per change of the batch, the position of its slot.
    pub(crate) change_slots: Vec<u32>,
}

/// One slot of a batch.
pub(crate) struct ShownSlot {
    pub(crate) group: usize,
    /// The slot, as its group names it (see `slot_hooks`).
    pub(crate) slot: u32,
    /// Its name index.
    pub(crate) index: u32,
    /// Its node, for a system group: a position in the input's nodes, and
    /// the node's id, which keys the bytes plugins attach to the slot.
    pub(crate) node: Option<(u32, String)>,
    pub(crate) candidates: Span,
    /// The position of its first candidate among its group's candidates.
    pub(crate) group_first: usize,
}

/// The items of the hook point `run` paused at, and the batch showing them
/// with the optional parts `reads` asks for; none when the run is not
/// paused at a hook point.
pub(crate) fn batch(run: &JobRun, reads: ViewParts) -> Option<(Shown, Batch)> {
    match run.paused_at()? {
        Point::Promotion => Some(promotion(run, reads)),
        point @ (Point::PreSlot | Point::PostSlot) => {
            let g = run.current.as_deref()?;
            let post = point == Point::PostSlot;
            let items = match (post, &g.hooks().post_slot_items) {
                (true, Some(shown)) => shown.clone(),
                (true, None) => post_slot_items(g),
                (false, _) => g.pre_slot_items(),
            };
            let mut builder = Builder::new(run, reads);
            builder.group(g, &items, post);
            let (shown, batch) = builder.finish(if post { Hook::PostSlot } else { Hook::PreSlot });
            Some((
                shown,
                if post {
                    Batch::PostSlot(batch)
                } else {
                    Batch::PreSlot(batch)
                },
            ))
        }
        Point::Review => {
            let mut builder = Builder::new(run, reads);
            for (at, slots) in run.review_items() {
                if let Some(Decided::Run(g)) = run.decided.get(at) {
                    builder.group(g.as_ref(), &slots, true);
                }
            }
            let (shown, batch) = builder.finish(Hook::Review);
            Some((shown, Batch::Review(batch)))
        }
    }
}

/// Builds a slot batch, group after group.
struct Builder<'r> {
    reads: ViewParts,
    now: Timestamp,
    input_nodes: &'r [crate::Node],
    tables: Tables,
    batch: SlotBatch,
    /// The slots, candidates, changes and nodes, when the plugin reads them
    /// packed.
    packer: Option<Packer>,
    /// How many slots, candidates and changes the batch holds so far.
    slot_count: u32,
    candidate_count: u32,
    change_count: u32,
    shown_groups: Vec<String>,
    shown_slots: Vec<ShownSlot>,
    change_slots: Vec<u32>,
}

impl<'r> Builder<'r> {
    fn new(run: &'r JobRun, reads: ViewParts) -> Self {
        let now = run.input.now;
        Self {
            reads,
            now,
            input_nodes: &run.input.nodes,
            tables: Tables::new(),
            batch: SlotBatch {
                now,
                groups: Vec::new(),
                slots: Vec::new(),
                candidates: Vec::new(),
                changes: Vec::new(),
                nodes: Vec::new(),
                rules: Vec::new(),
                reasons: Vec::new(),
                packed: Vec::new(),
            },
            packer: reads.packed.then(Packer::default),
            slot_count: 0,
            candidate_count: 0,
            change_count: 0,
            shown_groups: Vec::new(),
            shown_slots: Vec::new(),
            change_slots: Vec::new(),
        }
    }

    /// Adds the slots `slots` of `g`, with their proposed changes when
    /// `with_changes`.
    fn group<'a>(&mut self, g: &dyn HookedGroup<'a>, slots: &[u32], with_changes: bool) {
        let group = self.shown_groups.len();
        let first_slot = self.slot_count;
        // A group shows about as many candidates and nodes as slots: room
        // for them at once, rather than tables and lists grown by doubling
        // group after group.
        self.tables.reserve(slots.len());
        self.shown_slots.reserve(slots.len());
        match &mut self.packer {
            Some(packer) => packer.reserve(slots.len()),
            None => {
                self.batch.slots.reserve(slots.len());
                self.batch.candidates.reserve(slots.len());
            }
        }
        let changes = if with_changes {
            changes_by_slot(g.plan(), &g.slot_of())
        } else {
            Proposals {
                changes: Vec::new(),
            }
        };
        for &at in slots {
            let range = g.claimants(at);
            let group_first = range.start;
            let claimants = &g.candidates()[range];
            let first = self.candidate_count;
            for c in claimants {
                // Packed, the id goes from the candidate into the string
                // area, with no `String` between.
                let packed = self.packer.is_some();
                let view = self.candidate(c, self.reads.allocation_ids && !packed);
                match &mut self.packer {
                    Some(packer) => {
                        packer.candidate(&view, self.reads.allocation_ids.then(|| c.id()));
                    }
                    None => self.batch.candidates.push(view),
                }
                self.candidate_count += 1;
            }
            let candidates = Span {
                first,
                count: claimants.len() as u32,
            };
            let slot = self.slot_count;
            let first_change = self.change_count;
            let mut by_id = ClaimantIds::new(claimants);
            for change in changes.of(at) {
                let view = self.change(change, &mut by_id, first);
                match &mut self.packer {
                    Some(packer) => packer.change(&view),
                    None => self.batch.changes.push(view),
                }
                self.change_count += 1;
                self.change_slots.push(slot);
            }
            let place = g.place(at);
            let (key, node) = match place.node {
                Some(node) => {
                    let shown = self.tables.node(node, self.input_nodes, self.reads);
                    let id = self.input_nodes[node as usize].id.clone();
                    (SlotKey::Node(shown), Some((node, id)))
                }
                None => (SlotKey::Index(place.index), None),
            };
            let view = plugin::Slot {
                key,
                candidates,
                changes: Span {
                    first: first_change,
                    count: self.change_count - first_change,
                },
            };
            match &mut self.packer {
                Some(packer) => packer.slot(&view),
                None => self.batch.slots.push(view),
            }
            self.slot_count += 1;
            self.shown_slots.push(ShownSlot {
                group,
                slot: at,
                index: place.index,
                node,
                candidates,
                group_first,
            });
        }
        let spec = g.spec();
        self.batch.groups.push(plugin::Group {
            name: spec.name.clone(),
            count: spec.count,
            slots: Span {
                first: first_slot,
                count: self.slot_count - first_slot,
            },
        });
        self.shown_groups.push(spec.name.clone());
    }

    /// `c` as plugins see it, with its allocation id when `with_id`.
    fn candidate(&mut self, c: &Candidate, with_id: bool) -> plugin::Candidate {
        let node = self
            .tables
            .node(c.alloc().node(), self.input_nodes, self.reads);
        let reads = ViewParts {
            allocation_ids: with_id,
            ..self.reads
        };
        let (view, rule) = candidate(c, node, reads);
        plugin::Candidate {
            rule: self.tables.rule(rule),
            ..view
        }
    }

    fn change(&mut self, p: &Proposed, claimants: &mut ClaimantIds, first: u32) -> plugin::Change {
        let candidate = p
            .allocation
            .and_then(|id| claimants.position(id))
            .map(|at| first + at);
        plugin::Change {
            kind: change_kind(p.kind),
            candidate,
            reason: self.tables.reason(p.reason.name()),
            message: self.reads.change_messages.then(|| p.message.to_string()),
        }
    }

    fn finish(mut self, hook: Hook) -> (Shown, SlotBatch) {
        let (nodes, rules, reasons) = self.tables.take();
        self.batch.rules = rules;
        self.batch.reasons = reasons;
        match self.packer.take() {
            // Packed, the nodes go with the slots: a batch has as many as
            // slots, and as records they cost as much to cross.
            Some(mut packer) => {
                for node in &nodes {
                    packer.node(node);
                }
                self.batch.packed = packer.finish();
            }
            None => self.batch.nodes = nodes,
        }
        let shown = Shown {
            hook,
            now: self.now,
            groups: self.shown_groups,
            slots: self.shown_slots,
            change_slots: self.change_slots,
        };
        (shown, self.batch)
    }
}

/// The promotion batch: every awaiting deployment group with its canaries.
fn promotion(run: &JobRun, reads: ViewParts) -> (Shown, Batch) {
    let now = run.input.now;
    let mut tables = Tables::new();
    let mut candidates = Vec::new();
    let mut groups = Vec::new();
    for Awaiting {
        deployment,
        group,
        desired_canaries,
        canaries,
    } in &run.awaiting
    {
        let first = candidates.len() as u32;
        for c in canaries {
            let node = tables.node(c.alloc().node(), &run.input.nodes, reads);
            let (view, rule) = candidate(c, node, reads);
            candidates.push(plugin::Candidate {
                rule: tables.rule(rule),
                ..view
            });
        }
        groups.push(plugin::PromotionGroup {
            deployment: deployment.to_string(),
            group: group.to_string(),
            desired_canaries: *desired_canaries,
            canaries: Span {
                first,
                count: canaries.len() as u32,
            },
        });
    }
    let (nodes, rules, _) = tables.take();
    let shown = Shown {
        hook: Hook::Promotion,
        now,
        groups: run.awaiting.iter().map(|a| a.group.to_string()).collect(),
        slots: Vec::new(),
        change_slots: Vec::new(),
    };
    let batch = plugin::PromotionBatch {
        now,
        groups,
        candidates,
        nodes,
        rules,
    };
    (shown, Batch::Promotion(batch))
}

/// Where a slot's claimants are, by allocation id, for the changes that
/// name them. A slot may have any number of claimants (every allocation of
/// a group may claim one name index) and as many changes: a scan per change
/// made a batch quadratic, 40,000 allocations of one index taking 14 s. A
/// few claimants are scanned; more are indexed on the first change.
struct ClaimantIds<'c, 'a> {
    claimants: &'c [Candidate<'a>],
    index: Option<HashMap<&'c str, u32, FixedState>>,
}

impl<'c, 'a> ClaimantIds<'c, 'a> {
    /// Claimants up to this many are scanned.
    const SCANNED: usize = 16;

    fn new(claimants: &'c [Candidate<'a>]) -> Self {
        Self {
            claimants,
            index: None,
        }
    }

    /// The position of allocation `id` among the claimants; the first, as
    /// a scan finds it, should two share an id.
    fn position(&mut self, id: &str) -> Option<u32> {
        let claimants = self.claimants;
        if claimants.len() <= Self::SCANNED {
            return claimants
                .iter()
                .position(|c| c.id() == id)
                .map(|at| at as u32);
        }
        let index = self.index.get_or_insert_with(|| {
            let mut index =
                HashMap::with_capacity_and_hasher(claimants.len(), FixedState::default());
            for (at, c) in claimants.iter().enumerate().rev() {
                index.insert(c.id(), at as u32);
            }
            index
        });
        index.get(id).copied()
    }
}

/// A candidate as plugins see it, on batch node `node`, and the name of its
/// classification rule.
fn candidate(c: &Candidate, node: u32, reads: ViewParts) -> (plugin::Candidate, &'static str) {
    // The candidate's glance holds the statuses and health it shows; only the
    // health's time is read from the allocation, and its whole observed
    // state, which a wire record builds afresh, only for the meta.
    let glance = c.glance();
    let alloc = c.alloc();
    let rule = c.rule().unwrap_or_else(|| c.rule_for());
    let class = c.class().unwrap_or(rule.class);
    let view = plugin::Candidate {
        allocation: reads.allocation_ids.then(|| c.id().to_string()),
        job_version: alloc.job_version(),
        node,
        client_status: client_status(glance.client_status),
        healthy: glance.healthy,
        healthy_since: alloc.health().and_then(|h| h.changed_at),
        canary: glance.canary,
        classification: classification(class),
        rule: 0,
        update: c.update.map(update_kind),
        meta: if reads.candidate_meta {
            c.observed().meta.clone().filter(|m| !m.is_empty())
        } else {
            None
        },
    };
    (view, rule.name)
}

fn change_kind(kind: ChangeKind) -> plugin::ChangeKind {
    match kind {
        ChangeKind::Place => plugin::ChangeKind::Place,
        ChangeKind::Stop => plugin::ChangeKind::Stop,
        ChangeKind::Migrate => plugin::ChangeKind::Migrate,
        ChangeKind::InPlaceUpdate => plugin::ChangeKind::InPlaceUpdate,
        ChangeKind::DestructiveUpdate => plugin::ChangeKind::DestructiveUpdate,
        ChangeKind::Disconnect => plugin::ChangeKind::Disconnect,
        ChangeKind::Reconnect => plugin::ChangeKind::Reconnect,
        ChangeKind::AttachFollowup => plugin::ChangeKind::AttachFollowup,
    }
}

fn classification(class: Classification) -> plugin::Classification {
    match class {
        Classification::Untainted => plugin::Classification::Untainted,
        Classification::Migrate => plugin::Classification::Migrate,
        Classification::Lost => plugin::Classification::Lost,
        Classification::Disconnecting => plugin::Classification::Disconnecting,
        Classification::Reconnecting => plugin::Classification::Reconnecting,
        Classification::Ignore => plugin::Classification::Ignore,
        Classification::Expiring => plugin::Classification::Expiring,
    }
}

/// The standing a plugin's reclassification puts a candidate in, for the
/// classes a plugin may choose.
pub(crate) fn standing(class: plugin::Classification) -> Option<Standing> {
    match class {
        plugin::Classification::Untainted => Some(Standing::Untainted),
        plugin::Classification::Migrate => Some(Standing::Migrating),
        plugin::Classification::Lost => Some(Standing::Lost),
        plugin::Classification::Ignore
        | plugin::Classification::Disconnecting
        | plugin::Classification::Reconnecting
        | plugin::Classification::Expiring => None,
    }
}

/// A plugin classification's name, as the WIT spells it.
pub(crate) fn class_name(class: plugin::Classification) -> &'static str {
    match class {
        plugin::Classification::Untainted => "untainted",
        plugin::Classification::Migrate => "migrate",
        plugin::Classification::Lost => "lost",
        plugin::Classification::Disconnecting => "disconnecting",
        plugin::Classification::Reconnecting => "reconnecting",
        plugin::Classification::Ignore => "ignore",
        plugin::Classification::Expiring => "expiring",
    }
}

fn client_status(status: ClientStatus) -> plugin::ClientStatus {
    match status {
        ClientStatus::Pending => plugin::ClientStatus::Pending,
        ClientStatus::Running => plugin::ClientStatus::Running,
        ClientStatus::Complete => plugin::ClientStatus::Complete,
        ClientStatus::Failed => plugin::ClientStatus::Failed,
        ClientStatus::Lost => plugin::ClientStatus::Lost,
        ClientStatus::Unknown => plugin::ClientStatus::Unknown,
    }
}

fn update_kind(kind: UpdateKind) -> plugin::UpdateKind {
    match kind {
        UpdateKind::Ignore => plugin::UpdateKind::Ignore,
        UpdateKind::InPlace => plugin::UpdateKind::InPlace,
        UpdateKind::Destructive => plugin::UpdateKind::Destructive,
    }
}

/// The update kind a plugin asks for, in the reconciler's terms.
pub(crate) fn reconciler_update(kind: plugin::UpdateKind) -> UpdateKind {
    match kind {
        plugin::UpdateKind::Ignore => UpdateKind::Ignore,
        plugin::UpdateKind::InPlace => UpdateKind::InPlace,
        plugin::UpdateKind::Destructive => UpdateKind::Destructive,
    }
}
