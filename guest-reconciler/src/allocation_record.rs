//! An allocation as the wire's fixed-size record, read where it lies in the input buffer: the layout, and a field read as a load.
//!
//! Decoding an allocation into its typed form wrote some two hundred bytes
//! for the fifty it read, and was about a third of the component's call at
//! 10,000 allocations (`docs/performance.md`). A record is checked once
//! (`wire::record_reader`) and then read in place. Its layout is the
//! contract's `allocation` flattened into fixed places, little-endian, with
//! its strings and its rarely set parts after the group's records; offsets
//! count from the first byte of the record that names them, so that a
//! record is found from one pointer. `docs/wire.md` describes it for
//! writers in other languages.

use crate::cases::{client_status, desired_status, update_kind};
use crate::wire::rest_reader::{self, Rest};
use crate::{
    Allocation, AllocationSpec, ClientStateChange, ClientStatus, DeploymentHealth, DesiredStatus,
    DesiredTransition, Fingerprint, ObservedState, Timestamp, UpdateKind,
};
use std::marker::PhantomData;
use std::ptr::NonNull;

/// The bytes of one record.
pub const LEN: usize = 120;

/// Where each field of a record lies, from its first byte.
pub mod at {
    /// `spec.id`: a string (see [`STRING`](super::STRING)).
    pub const ID: usize = 0;
    /// `spec.name-index`, u32.
    pub const NAME_INDEX: usize = 8;
    /// `spec.node`, u32.
    pub const NODE: usize = 12;
    /// `spec.job-version`, u64.
    pub const JOB_VERSION: usize = 16;
    /// `spec.job-create-index`, u64.
    pub const JOB_CREATE_INDEX: usize = 24;
    /// `spec.create-index`, u64.
    pub const CREATE_INDEX: usize = 32;
    /// `spec.fingerprint.destructive`, u64.
    pub const DESTRUCTIVE: usize = 40;
    /// `spec.fingerprint.in-place`, u64.
    pub const IN_PLACE: usize = 48;
    /// `spec.placement-score`, f64; zero when absent.
    pub const PLACEMENT_SCORE: usize = 56;
    /// `observed.modify-time`, s64.
    pub const MODIFY_TIME: usize = 64;
    /// `observed.health.changed-at`, s64; zero when absent.
    pub const CHANGED_AT: usize = 72;
    /// `spec.deployment`: a string, zeros when absent.
    pub const DEPLOYMENT: usize = 80;
    /// `spec.previous-allocation`: a string, zeros when absent.
    pub const PREVIOUS: usize = 88;
    /// `spec.next-allocation`: a string, zeros when absent.
    pub const NEXT: usize = 96;
    /// The rest of `observed` (see [`REST`](super::REST)): offset and length.
    pub const REST: usize = 104;
    /// `observed.desired-status`: its case.
    pub const DESIRED_STATUS: usize = 112;
    /// `observed.client-status`: its case.
    pub const CLIENT_STATUS: usize = 113;
    /// `observed.desired-transition`: [`TRANSITION`](super::TRANSITION) bits.
    pub const TRANSITION: usize = 114;
    /// `observed.health`: [`HEALTH`](super::HEALTH) bits.
    pub const HEALTH: usize = 115;
    /// `update`: zero when absent, else one more than its case.
    pub const UPDATE: usize = 116;
    /// Which options of `spec` are present: [`PRESENT`](super::PRESENT) bits.
    pub const PRESENT: usize = 117;
    /// Two bytes, zero.
    pub const RESERVED: usize = 118;
}

/// How a string is placed: a u32 offset from the record's first byte, then
/// its u32 length in bytes of UTF-8. Strings lie in the group's tail, after
/// its records; records may share one.
pub const STRING: usize = 8;

/// The rest of `observed`, placed as a string is: its fields `reschedule`,
/// `followup-eval`, `client-states`, `tasks` and `meta`, in that order, as
/// the format encodes them elsewhere; when all five are absent, zeros.
pub const REST: usize = 8;

/// The bits of [`at::TRANSITION`].
pub mod transition {
    /// A transition is present; without it every other bit is zero.
    pub const PRESENT: u8 = 1;
    pub const MIGRATE: u8 = 1 << 1;
    pub const RESCHEDULE: u8 = 1 << 2;
    pub const FORCE_RESCHEDULE: u8 = 1 << 3;
    pub const MIGRATE_DISABLE_PLACEMENT: u8 = 1 << 4;
    /// Every bit the byte may have.
    pub const ALL: u8 = 0x1f;
}

/// The bits of [`at::HEALTH`].
pub mod health {
    /// Health is present; without it every other bit is zero.
    pub const PRESENT: u8 = 1;
    /// `healthy` is present.
    pub const HEALTHY_KNOWN: u8 = 1 << 1;
    /// `healthy`'s value; zero when it is absent.
    pub const HEALTHY: u8 = 1 << 2;
    pub const CANARY: u8 = 1 << 3;
    /// `changed-at` is present.
    pub const CHANGED_AT: u8 = 1 << 4;
    /// Every bit the byte may have.
    pub const ALL: u8 = 0x1f;
}

/// The bits of [`at::PRESENT`].
pub mod present {
    pub const DEPLOYMENT: u8 = 1;
    pub const PREVIOUS: u8 = 1 << 1;
    pub const NEXT: u8 = 1 << 2;
    pub const PLACEMENT_SCORE: u8 = 1 << 3;
    /// Every bit the byte may have.
    pub const ALL: u8 = 0x0f;
}

/// One record, checked: every field it places lies in the buffer it was
/// read from, its strings are UTF-8 and its rest decodes. A pointer and no
/// length, so that a candidate holding one stays as narrow as one holding a
/// typed allocation.
#[derive(Clone, Copy)]
pub(crate) struct Record<'a> {
    first: NonNull<u8>,
    buffer: PhantomData<&'a [u8]>,
}

/// The records of one group, checked.
#[derive(Clone, Copy)]
pub(crate) struct Records<'a> {
    first: NonNull<u8>,
    len: usize,
    buffer: PhantomData<&'a [u8]>,
}

impl<'a> Records<'a> {
    /// The `len` records that start at byte `start` of `buffer`.
    ///
    /// # Safety
    /// The records lie within `buffer`, and each passed the checks of
    /// `wire::record_reader`: every string and rest it places lies within
    /// `buffer`, its strings are UTF-8 and its rest decodes.
    pub(crate) unsafe fn checked(buffer: &'a [u8], start: usize, len: usize) -> Self {
        Self {
            // SAFETY: the caller vouches that `start` lies within `buffer`.
            first: unsafe { NonNull::new_unchecked(buffer.as_ptr().add(start).cast_mut()) },
            len,
            buffer: PhantomData,
        }
    }

    pub(crate) fn len(&self) -> usize {
        self.len
    }

    /// Record `i`, if the group has that many.
    pub(crate) fn get(&self, i: usize) -> Option<Record<'a>> {
        (i < self.len).then(|| self.nth(i))
    }

    pub(crate) fn iter(self) -> impl ExactSizeIterator<Item = Record<'a>> + Clone {
        (0..self.len).map(move |i| self.nth(i))
    }

    /// Record `i`, which must be below `len`.
    fn nth(&self, i: usize) -> Record<'a> {
        debug_assert!(i < self.len);
        Record {
            // SAFETY: record `i` lies within the buffer (see `checked`).
            first: unsafe { self.first.add(i * LEN) },
            buffer: PhantomData,
        }
    }
}

impl<'a> Record<'a> {
    /// Where the record starts.
    pub(crate) fn first(self) -> NonNull<u8> {
        self.first
    }

    /// The record that starts at `first`.
    ///
    /// # Safety
    /// `first` is what [`first`](Self::first) gave of a record of lifetime `'a`.
    pub(crate) unsafe fn from_first(first: NonNull<u8>) -> Self {
        let buffer = PhantomData;
        Self { first, buffer }
    }

    fn bytes<const N: usize>(self, at: usize) -> [u8; N] {
        debug_assert!(at + N <= LEN);
        // SAFETY: the record's `LEN` bytes lie within the buffer, which
        // outlives `'a`; `[u8; N]` needs no alignment.
        unsafe { self.first.as_ptr().add(at).cast::<[u8; N]>().read() }
    }

    fn byte(self, at: usize) -> u8 {
        self.bytes::<1>(at)[0]
    }

    fn u32(self, at: usize) -> u32 {
        u32::from_le_bytes(self.bytes(at))
    }

    fn u64(self, at: usize) -> u64 {
        u64::from_le_bytes(self.bytes(at))
    }

    fn s64(self, at: usize) -> i64 {
        i64::from_le_bytes(self.bytes(at))
    }

    /// The bytes placed at `at` (a string or the rest).
    fn placed(self, at: usize) -> &'a [u8] {
        let (offset, len) = (self.u32(at) as usize, self.u32(at + 4) as usize);
        // SAFETY: the checks placed these bytes within the buffer.
        unsafe { std::slice::from_raw_parts(self.first.as_ptr().add(offset), len) }
    }

    fn string(self, at: usize) -> &'a str {
        // SAFETY: the checks found every string of the record UTF-8.
        unsafe { std::str::from_utf8_unchecked(self.placed(at)) }
    }

    fn has(self, bit: u8) -> bool {
        self.byte(at::PRESENT) & bit != 0
    }

    fn optional(self, bit: u8, at: usize) -> Option<&'a str> {
        self.has(bit).then(|| self.string(at))
    }

    pub(crate) fn id(self) -> &'a str {
        self.string(at::ID)
    }

    pub(crate) fn name_index(self) -> u32 {
        self.u32(at::NAME_INDEX)
    }

    pub(crate) fn node(self) -> u32 {
        self.u32(at::NODE)
    }

    pub(crate) fn job_version(self) -> u64 {
        self.u64(at::JOB_VERSION)
    }

    pub(crate) fn job_create_index(self) -> u64 {
        self.u64(at::JOB_CREATE_INDEX)
    }

    pub(crate) fn create_index(self) -> u64 {
        self.u64(at::CREATE_INDEX)
    }

    pub(crate) fn fingerprint(self) -> Fingerprint {
        Fingerprint {
            destructive: self.u64(at::DESTRUCTIVE),
            in_place: self.u64(at::IN_PLACE),
        }
    }

    pub(crate) fn placement_score(self) -> Option<f64> {
        let score = f64::from_bits(self.u64(at::PLACEMENT_SCORE));
        self.has(present::PLACEMENT_SCORE).then_some(score)
    }

    pub(crate) fn deployment(self) -> Option<&'a str> {
        self.optional(present::DEPLOYMENT, at::DEPLOYMENT)
    }

    pub(crate) fn previous_allocation(self) -> Option<&'a str> {
        self.optional(present::PREVIOUS, at::PREVIOUS)
    }

    pub(crate) fn next_allocation(self) -> Option<&'a str> {
        self.optional(present::NEXT, at::NEXT)
    }

    pub(crate) fn update(self) -> Option<UpdateKind> {
        update_kind(self.byte(at::UPDATE))
    }

    pub(crate) fn desired_status(self) -> DesiredStatus {
        desired_status(self.byte(at::DESIRED_STATUS))
    }

    pub(crate) fn client_status(self) -> ClientStatus {
        client_status(self.byte(at::CLIENT_STATUS))
    }

    pub(crate) fn desired_transition(self) -> Option<DesiredTransition> {
        let bits = self.byte(at::TRANSITION);
        (bits & transition::PRESENT != 0).then_some(DesiredTransition {
            migrate: bits & transition::MIGRATE != 0,
            reschedule: bits & transition::RESCHEDULE != 0,
            force_reschedule: bits & transition::FORCE_RESCHEDULE != 0,
            migrate_disable_placement: bits & transition::MIGRATE_DISABLE_PLACEMENT != 0,
        })
    }

    pub(crate) fn health(self) -> Option<DeploymentHealth> {
        let bits = self.byte(at::HEALTH);
        (bits & health::PRESENT != 0).then(|| DeploymentHealth {
            healthy: (bits & health::HEALTHY_KNOWN != 0).then_some(bits & health::HEALTHY != 0),
            canary: bits & health::CANARY != 0,
            changed_at: (bits & health::CHANGED_AT != 0).then(|| self.s64(at::CHANGED_AT)),
        })
    }

    pub(crate) fn modify_time(self) -> Timestamp {
        self.s64(at::MODIFY_TIME)
    }

    /// Whether any field of the rest of `observed` is set.
    pub(crate) fn has_rest(self) -> bool {
        self.u32(at::REST + 4) != 0
    }

    /// The rest of `observed`, decoded; all absent when the record has none.
    pub(crate) fn rest(self) -> Rest {
        let bytes = self.placed(at::REST);
        if bytes.is_empty() {
            return Rest::default();
        }
        // The checks read the same bytes; were they to fail now, the
        // fields would read as absent rather than stop the reconcile.
        rest_reader::rest(bytes).unwrap_or_default()
    }

    /// The client history in the rest of `observed`, decoded alone.
    pub(crate) fn client_history(self) -> Vec<ClientStateChange> {
        rest_reader::client_history(self.placed(at::REST))
    }

    /// Its observed state, as the typed record holds it.
    pub(crate) fn observed(self) -> ObservedState {
        let (reschedule, followup_eval, client_states, tasks, meta) = self.rest();
        ObservedState {
            desired_status: self.desired_status(),
            client_status: self.client_status(),
            desired_transition: self.desired_transition(),
            health: self.health(),
            reschedule,
            followup_eval,
            client_states,
            tasks,
            modify_time: self.modify_time(),
            meta,
        }
    }

    /// The typed allocation the record stands for.
    pub(crate) fn to_allocation(self) -> Allocation {
        Allocation {
            spec: AllocationSpec {
                id: self.id().into(),
                name_index: self.name_index(),
                job_version: self.job_version(),
                job_create_index: self.job_create_index(),
                node: self.node(),
                deployment: self.deployment().map(Into::into),
                previous_allocation: self.previous_allocation().map(Into::into),
                next_allocation: self.next_allocation().map(Into::into),
                create_index: self.create_index(),
                fingerprint: self.fingerprint(),
                placement_score: self.placement_score(),
            },
            observed: self.observed(),
            update: self.update(),
        }
    }
}

/// Whether the rest of `observed` has nothing set, so that it is placed as
/// no bytes at all.
pub(crate) fn rest_is_empty(o: &ObservedState) -> bool {
    o.reschedule.is_none()
        && o.followup_eval.is_none()
        && o.client_states.is_none()
        && o.tasks.is_none()
        && o.meta.is_none()
}
