//! A quick proof that a large input's allocation ids are distinct: their hashes, spread into buckets that fit in cache, with no two equal.

/// Hashes per bucket aimed at: a bucket's set fits in the first-level cache.
const PER_BUCKET: usize = 1024;

/// True when no two ids can be equal, because no two of their `hashes` (by
/// [`hash`]) are. False proves nothing: two hashes meet, and the caller
/// compares the ids themselves. A set of every id probed each allocation at
/// random in a table far larger than the cache; hashes spread by their top
/// bits are read and written in order, and each bucket's set fits in the
/// cache.
pub(super) fn surely_distinct(hashes: &[u64]) -> bool {
    let bits = (hashes.len() / PER_BUCKET)
        .max(1)
        .next_power_of_two()
        .trailing_zeros();
    let bucket = |h: u64| {
        if bits == 0 {
            0
        } else {
            (h >> (64 - bits)) as usize
        }
    };
    let mut starts = vec![0usize; (1 << bits) + 1];
    for &h in hashes {
        starts[bucket(h) + 1] += 1;
    }
    for b in 1..starts.len() {
        starts[b] += starts[b - 1];
    }
    let mut next = starts.clone();
    let mut spread = vec![0u64; hashes.len()];
    for &h in hashes {
        let at = &mut next[bucket(h)];
        spread[*at] = h;
        *at += 1;
    }
    let mut table = Table::default();
    starts
        .windows(2)
        .all(|range| table.all_new(&spread[range[0]..range[1]]))
}

/// An open-addressed set of one bucket's hashes, at most half full, reused
/// bucket after bucket. Sorting each bucket to find two equal hashes was
/// 7% of a native reconcile of 10,000 allocations; a set that fits in the
/// first-level cache takes one or two probes a hash.
#[derive(Default)]
struct Table {
    slots: Vec<u64>,
}

impl Table {
    /// Whether no two of `hashes` are equal. Zero marks an empty slot, so a
    /// hash of zero counts as one: that can only make two hashes look
    /// equal, which proves nothing either way (see [`surely_distinct`]).
    fn all_new(&mut self, hashes: &[u64]) -> bool {
        let size = (2 * hashes.len()).next_power_of_two().max(16);
        self.slots.clear();
        self.slots.resize(size, 0);
        let mask = size - 1;
        hashes.iter().all(|&h| {
            let h = h.max(1);
            // The top bits chose the bucket; the low ones spread within it.
            let mut at = h as usize & mask;
            loop {
                match self.slots[at] {
                    0 => {
                        self.slots[at] = h;
                        return true;
                    }
                    seen if seen == h => return false,
                    _ => at = (at + 1) & mask,
                }
            }
        })
    }
}

/// The id's hash: 64 bits on every target. A `usize`-wide hash (as
/// rustc-hash's) has 32 in the component, where 100,000 ids meet about once
/// and 300,000 about ten times, and any meeting sends the whole input to the
/// exact check: at 300,000 allocations an encoded reconcile took 329–348 ns
/// per allocation with it and 287–303 with a 64-bit one (at 100,000, the
/// same within noise).
///
/// Eight bytes at a time, each mixed in by a 64-bit multiply and a shift,
/// then a final mix so that the top bits (which choose the bucket) and the
/// low ones (the slot in it) both depend on every byte. foldhash, used
/// before, folds 128-bit products, which a 32-bit wasm target has to build
/// from four multiplies and a call: the component took about 12 ns to hash
/// a 36-byte id; XXH3 and rapidhash fold such products too. Of the crates
/// that need only 64-bit multiplies, XXH64 took 8.2 ns per id natively
/// against this hash's 4.8 (docs/performance-earlier.md, thirteenth round). Two ids
/// meeting costs only the exact check, never a wrong answer.
pub(super) fn hash(id: &str) -> u64 {
    const MIX: u64 = 0x9e37_79b9_7f4a_7c15;
    let bytes = id.as_bytes();
    let mut h = (bytes.len() as u64 ^ 0x5157_4157_5e1f_0001).wrapping_mul(MIX);
    let mut step = |word: u64| {
        h = (h ^ word).wrapping_mul(MIX);
        h ^= h >> 32;
    };
    let mut words = bytes.chunks_exact(8);
    for word in &mut words {
        step(u64::from_le_bytes(word.try_into().unwrap_or_default()));
    }
    let rest = words.remainder();
    if !rest.is_empty() {
        // The last eight bytes again, overlapping words already mixed in,
        // where the id has them: a load rather than a loop.
        let last = match bytes.len().checked_sub(8) {
            Some(start) => u64::from_le_bytes(bytes[start..].try_into().unwrap_or_default()),
            None => rest
                .iter()
                .rev()
                .fold(0, |word, &b| word << 8 | u64::from(b)),
        };
        step(last);
    }
    // Murmur3's finaliser.
    h ^= h >> 33;
    h = h.wrapping_mul(0xff51_afd7_ed55_8ccd);
    h ^= h >> 33;
    h = h.wrapping_mul(0xc4ce_b9fe_1a85_ec53);
    h ^ h >> 33
}

#[cfg(test)]
mod tests {
    use super::{hash, surely_distinct, Table};

    fn ids(n: usize) -> Vec<String> {
        (0..n).map(|i| format!("alloc-{i:08}")).collect()
    }

    fn hashes(ids: &[String]) -> Vec<u64> {
        ids.iter().map(|id| hash(id)).collect()
    }

    #[test]
    fn distinct_ids_are_proved_distinct_at_every_size() {
        for n in [0, 1, 2, 1023, 1025, 5000, 70_000] {
            let ids = ids(n);
            assert!(surely_distinct(&hashes(&ids)), "{n} ids");
        }
    }

    #[test]
    fn a_repeated_id_is_never_proved_distinct() {
        for (n, first, second) in [(2, 0, 1), (5000, 17, 4999), (70_000, 69_998, 3)] {
            let mut ids = ids(n);
            ids[second] = ids[first].clone();
            assert!(!surely_distinct(&hashes(&ids)), "{n} ids");
        }
    }

    #[test]
    fn ids_that_differ_in_one_byte_anywhere_hash_apart() {
        let base = "00000001-5e1f-4c2a-9b3d-000000001eef";
        let mut seen = std::collections::BTreeSet::new();
        seen.insert(hash(base));
        for at in 0..base.len() {
            for b in b"0123456789abcdef-" {
                let mut id = base.as_bytes().to_vec();
                if id[at] == *b {
                    continue;
                }
                id[at] = *b;
                let id = String::from_utf8(id).unwrap_or_default();
                assert!(seen.insert(hash(&id)), "{id} meets another id");
            }
        }
        for len in 0..base.len() {
            assert!(seen.insert(hash(&base[..len])), "the first {len} bytes");
        }
    }

    #[test]
    fn hashes_that_share_a_slot_are_told_apart_and_equal_ones_are_not() {
        let mut table = Table::default();
        assert!(table.all_new(&[5, 5 + 16, 5 + 32, 6, 4]));
        assert!(!table.all_new(&[5, 5 + 16, 7, 5 + 16]));
        // The table is emptied between buckets.
        assert!(table.all_new(&[5 + 16]));
        // Zero stands for an empty slot and counts as one.
        assert!(!table.all_new(&[0, 1]));
        assert!(table.all_new(&[0, 2]));
    }
}
