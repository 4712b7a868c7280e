//! The sizes a scenario may declare, checked before anything of that size is allocated; docs/limits.md lists them.

use serde::de::{Deserialize, Deserializer, SeqAccess, Visitor};
use std::fmt;
use std::marker::PhantomData;

/// The largest scenario or plugins file read, in bytes.
pub const MAX_FILE_BYTES: u64 = 64 << 20;

/// The most values YAML aliases may stand for in one file, in all: enough
/// to reuse a block, too few for an alias bomb.
pub const MAX_ALIAS_VALUES: usize = 100_000;

/// The deepest nesting of lists and maps a YAML file may have (the JSON
/// reader's own limit is 128).
pub const MAX_DEPTH: usize = 64;

/// The most allocations a scenario describes, over all groups, ranges
/// expanded: the reconciler's own limit on a group's count.
pub const MAX_ALLOCATIONS: u64 = slotwise_reconciler::MAX_COUNT as u64;

/// The largest sum of the groups' counts of a job (or of one past version).
pub const MAX_TOTAL_COUNT: u64 = slotwise_reconciler::MAX_COUNT as u64;

/// The most nodes a scenario lists. Nomad's largest published clusters run
/// about 10,000 client nodes; ten times that leaves room and keeps a
/// scenario's nodes under a few tens of megabytes.
pub const MAX_NODES: usize = 100_000;

/// The most bytes of text the allocations of a scenario copy, in all: ids,
/// node names, deployment and neighbour ids, metadata and task names, once
/// per allocation a range expands to.
pub const MAX_COPIED_TEXT: u64 = 128 << 20;

/// Deserializes a list, refusing it once it holds more than `MAX` items:
/// a list is never grown past its limit, whatever the file declares.
pub fn bounded<'de, D, T, const MAX: usize>(d: D) -> Result<Vec<T>, D::Error>
where
    D: Deserializer<'de>,
    T: Deserialize<'de>,
{
    struct Bounded<T, const MAX: usize>(PhantomData<T>);

    impl<'de, T: Deserialize<'de>, const MAX: usize> Visitor<'de> for Bounded<T, MAX> {
        type Value = Vec<T>;

        fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
            write!(f, "a list of at most {MAX} items")
        }

        fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Vec<T>, A::Error> {
            let mut out = Vec::with_capacity(seq.size_hint().unwrap_or(0).min(1024));
            while let Some(item) = seq.next_element()? {
                if out.len() == MAX {
                    return Err(serde::de::Error::custom(format!(
                        "more than {MAX} items; the limit is {MAX}"
                    )));
                }
                out.push(item);
            }
            Ok(out)
        }
    }

    d.deserialize_seq(Bounded::<T, MAX>(PhantomData))
}

/// [`bounded`] at [`MAX_NODES`].
pub fn nodes<'de, D, T>(d: D) -> Result<Vec<T>, D::Error>
where
    D: Deserializer<'de>,
    T: Deserialize<'de>,
{
    bounded::<D, T, MAX_NODES>(d)
}
