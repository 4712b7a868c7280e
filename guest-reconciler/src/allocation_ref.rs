//! An allocation as the core reads it: a typed record of the caller's, or a wire record read in place.

use crate::allocation::Glance;
use crate::allocation_record::{Record, Records};
use crate::{
    Allocation, ClientStateChange, DeploymentHealth, Fingerprint, ObservedState, ReconcileInput,
    UpdateKind,
};
use std::borrow::Cow;
use std::marker::PhantomData;
use std::ptr::NonNull;

/// One allocation of the input. Copied freely: a tag and a pointer.
#[derive(Clone, Copy)]
pub(crate) enum AllocationRef<'a> {
    Typed(&'a Allocation),
    Record(Record<'a>),
}

/// An [`AllocationRef`] without its tag: the pointer alone, so that a
/// struct can keep the tag ([`Kind`]) in a byte it has spare. A candidate
/// holding the whole reference grew from 72 to 80 bytes, and a pass over a
/// large group's candidates costs about their bytes (`candidate.rs`).
#[derive(Clone, Copy)]
pub(crate) struct Untagged<'a> {
    at: NonNull<u8>,
    life: PhantomData<&'a Allocation>,
}

/// Which kind of allocation an [`Untagged`] points at.
#[derive(Clone, Copy, PartialEq, Eq)]
pub(crate) enum Kind {
    Typed,
    Record,
}

impl<'a> AllocationRef<'a> {
    /// The reference as its tag and its pointer, to be kept apart.
    pub(crate) fn split(self) -> (Kind, Untagged<'a>) {
        let (kind, at) = match self {
            Self::Typed(a) => (Kind::Typed, NonNull::from(a).cast()),
            Self::Record(r) => (Kind::Record, r.first()),
        };
        let life = PhantomData;
        (kind, Untagged { at, life })
    }

    /// The reference `split` took apart.
    ///
    /// # Safety
    /// `kind` and `untagged` come from one call of [`split`](Self::split).
    pub(crate) unsafe fn join(kind: Kind, untagged: Untagged<'a>) -> Self {
        match kind {
            // SAFETY: split took this pointer from an `&'a Allocation`.
            Kind::Typed => Self::Typed(unsafe { untagged.at.cast::<Allocation>().as_ref() }),
            // SAFETY: split took this pointer from a checked record.
            Kind::Record => Self::Record(unsafe { Record::from_first(untagged.at) }),
        }
    }

    pub(crate) fn id(self) -> &'a str {
        match self {
            Self::Typed(a) => &a.spec.id,
            Self::Record(r) => r.id(),
        }
    }

    /// Its slot: the index in its group's name.
    pub(crate) fn name_index(self) -> u32 {
        match self {
            Self::Typed(a) => a.spec.name_index,
            Self::Record(r) => r.name_index(),
        }
    }

    /// Its node: a position in the input's nodes.
    pub(crate) fn node(self) -> u32 {
        match self {
            Self::Typed(a) => a.spec.node,
            Self::Record(r) => r.node(),
        }
    }

    pub(crate) fn job_version(self) -> u64 {
        match self {
            Self::Typed(a) => a.spec.job_version,
            Self::Record(r) => r.job_version(),
        }
    }

    pub(crate) fn job_create_index(self) -> u64 {
        match self {
            Self::Typed(a) => a.spec.job_create_index,
            Self::Record(r) => r.job_create_index(),
        }
    }

    pub(crate) fn create_index(self) -> u64 {
        match self {
            Self::Typed(a) => a.spec.create_index,
            Self::Record(r) => r.create_index(),
        }
    }

    pub(crate) fn fingerprint(self) -> Fingerprint {
        match self {
            Self::Typed(a) => a.spec.fingerprint,
            Self::Record(r) => r.fingerprint(),
        }
    }

    pub(crate) fn placement_score(self) -> Option<f64> {
        match self {
            Self::Typed(a) => a.spec.placement_score,
            Self::Record(r) => r.placement_score(),
        }
    }

    /// The deployment that placed it, if any.
    pub(crate) fn deployment(self) -> Option<&'a str> {
        match self {
            Self::Typed(a) => a.spec.deployment.as_deref(),
            Self::Record(r) => r.deployment(),
        }
    }

    /// The allocation that replaced it, if any.
    pub(crate) fn next_allocation(self) -> Option<&'a str> {
        match self {
            Self::Typed(a) => a.spec.next_allocation.as_deref(),
            Self::Record(r) => r.next_allocation(),
        }
    }

    /// The update kind its caller forces, if any.
    pub(crate) fn update(self) -> Option<UpdateKind> {
        match self {
            Self::Typed(a) => a.update,
            Self::Record(r) => r.update(),
        }
    }

    /// What most passes read of its observed state.
    pub(crate) fn glance(self) -> Glance {
        match self {
            Self::Typed(a) => a.observed.glance(),
            Self::Record(r) => Glance::from_parts(
                r.desired_status(),
                r.client_status(),
                r.desired_transition(),
                r.health().as_ref(),
            ),
        }
    }

    /// The deployment's verdict on its health, if any: copied from a typed
    /// record, read from a wire record's fixed fields.
    pub(crate) fn health(self) -> Option<DeploymentHealth> {
        match self {
            Self::Typed(a) => a.observed.health,
            Self::Record(r) => r.health(),
        }
    }

    /// Its client history, oldest first: borrowed from a typed record,
    /// decoded from a wire record that has one.
    pub(crate) fn client_states(self) -> Cow<'a, [ClientStateChange]> {
        match self {
            Self::Typed(a) => {
                Cow::Borrowed(a.observed.client_states.as_deref().unwrap_or_default())
            }
            Self::Record(r) => match r.has_rest() {
                true => Cow::Owned(r.client_history()),
                false => Cow::Borrowed(&[]),
            },
        }
    }

    /// Its whole observed state: borrowed from a typed record, built from a
    /// wire record (its rarely set parts decoded, when it has any).
    pub(crate) fn observed(self) -> Cow<'a, ObservedState> {
        match self {
            Self::Typed(a) => Cow::Borrowed(&a.observed),
            Self::Record(r) => Cow::Owned(r.observed()),
        }
    }
}

/// The allocations of one group, in input order.
#[derive(Clone, Copy)]
pub(crate) enum AllocationList<'a> {
    Typed(&'a [Allocation]),
    Records(Records<'a>),
}

impl<'a> AllocationList<'a> {
    pub(crate) const EMPTY: Self = Self::Typed(&[]);

    /// The typed lists of `input`'s groups, in input order.
    pub(crate) fn of_input(input: &'a ReconcileInput) -> Vec<Self> {
        (input.allocations.iter())
            .map(|g| Self::Typed(&g.allocations))
            .collect()
    }

    pub(crate) fn len(self) -> usize {
        match self {
            Self::Typed(list) => list.len(),
            Self::Records(records) => records.len(),
        }
    }

    /// Allocation `i`, if the group has that many.
    pub(crate) fn get(self, i: usize) -> Option<AllocationRef<'a>> {
        match self {
            Self::Typed(list) => list.get(i).map(AllocationRef::Typed),
            Self::Records(records) => records.get(i).map(AllocationRef::Record),
        }
    }

    pub(crate) fn iter(self) -> Iter<'a> {
        Iter {
            list: self,
            next: 0,
            end: self.len(),
        }
    }
}

/// The allocations of a list, in order.
#[derive(Clone)]
pub(crate) struct Iter<'a> {
    list: AllocationList<'a>,
    next: usize,
    end: usize,
}

impl<'a> Iterator for Iter<'a> {
    type Item = AllocationRef<'a>;

    fn next(&mut self) -> Option<AllocationRef<'a>> {
        let item = self.list.get(self.next).filter(|_| self.next < self.end)?;
        self.next += 1;
        Some(item)
    }

    fn size_hint(&self) -> (usize, Option<usize>) {
        let left = self.end - self.next;
        (left, Some(left))
    }
}

impl ExactSizeIterator for Iter<'_> {}
