//! Which slots are taken: picks free slots for placements and the highest ones for scale-down.
//!
//! This is Nomad's allocation name index re-expressed: a slot is taken once by
//! its first claimant, and every further claimant is counted as a duplicate.
//! Releasing a slot drops a duplicate before it frees the slot.

use std::collections::BTreeMap;

/// The taken slots of one group.
#[derive(Clone, Debug)]
pub(crate) struct Occupancy {
    count: u32,
    taken: Vec<bool>,
    duplicates: BTreeMap<u32, u32>,
}

impl Occupancy {
    /// The occupancy of a group of `count` whose slots are claimed by
    /// `claims`, one name index per claimant.
    pub(crate) fn new(count: u32, claims: impl IntoIterator<Item = u32>) -> Self {
        let mut occupancy = Self {
            count,
            taken: vec![false; count as usize],
            duplicates: BTreeMap::new(),
        };
        for index in claims {
            occupancy.claim(index);
        }
        occupancy
    }

    fn is_taken(&self, index: u32) -> bool {
        self.taken.get(index as usize).copied().unwrap_or(false)
    }

    fn set(&mut self, index: u32, taken: bool) {
        let i = index as usize;
        if i >= self.taken.len() {
            self.taken.resize(i + 1, false);
        }
        self.taken[i] = taken;
    }

    fn claim(&mut self, index: u32) {
        if self.is_taken(index) {
            *self.duplicates.entry(index).or_insert(0) += 1;
        } else {
            self.set(index, true);
        }
    }

    /// Whether more than one claimant holds `index`.
    #[cfg(test)]
    pub(crate) fn is_duplicate(&self, index: u32) -> bool {
        self.duplicates.contains_key(&index)
    }

    /// Gives up one claim on `index`: a duplicate first, then the slot itself.
    pub(crate) fn release(&mut self, index: u32) {
        match self.duplicates.get_mut(&index) {
            Some(n) if *n > 1 => *n -= 1,
            Some(_) => {
                self.duplicates.remove(&index);
            }
            None => self.set(index, false),
        }
    }

    /// Free slots below the count, lowest first.
    fn free_below_count(&self) -> impl Iterator<Item = u32> + '_ {
        (0..self.count).filter(|&i| !self.is_taken(i))
    }

    /// Takes `n` slots for new allocations: free slots below the count, lowest
    /// first; when there are not enough, slots from 0 upward are doubled up.
    pub(crate) fn next(&mut self, n: u32) -> Vec<u32> {
        let mut picked: Vec<u32> = self.free_below_count().take(n as usize).collect();
        let short = n - picked.len() as u32;
        picked.extend(0..short);
        for &index in &picked {
            self.set(index, true);
        }
        picked
    }

    /// Takes `n` slots for canaries. Canaries go first to the slots of
    /// allocations being replaced (so that promotion retires them), then to
    /// free slots, then to slots beyond the count; never to a slot a canary
    /// already holds.
    pub(crate) fn next_canaries(
        &mut self,
        n: u32,
        canary_slots: &[u32],
        replaced_slots: &[u32],
    ) -> Vec<u32> {
        let wanted = n as usize;
        let usable = |i: &u32| *i < self.count && !canary_slots.contains(i);
        let mut replaced: Vec<u32> = replaced_slots.iter().copied().filter(usable).collect();
        replaced.sort_unstable();
        replaced.dedup();
        let mut picked: Vec<u32> = replaced.into_iter().take(wanted).collect();
        if picked.len() < wanted {
            let free: Vec<u32> = self
                .free_below_count()
                .filter(|i| !canary_slots.contains(i) && !picked.contains(i))
                .take(wanted - picked.len())
                .collect();
            picked.extend(free);
        }
        for &index in &picked {
            self.set(index, true);
        }
        let beyond = (wanted - picked.len()) as u32;
        picked.extend(self.count..self.count.saturating_add(beyond));
        picked
    }

    /// Frees and returns up to `n` taken slots, highest first.
    pub(crate) fn highest(&mut self, n: u32) -> Vec<u32> {
        let mut picked = Vec::new();
        let mut i = self.taken.len();
        while i > 0 && picked.len() < n as usize {
            i -= 1;
            if self.taken[i] {
                self.taken[i] = false;
                picked.push(i as u32);
            }
        }
        picked
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde::Deserialize;

    #[test]
    fn next_fills_the_lowest_free_slots_first() {
        assert_eq!(Occupancy::new(5, [1, 3]).next(4), vec![0, 2, 4, 0]);
    }

    #[test]
    fn next_canaries_avoid_canary_slots_and_go_beyond_the_count_last() {
        let mut o = Occupancy::new(3, [0, 1, 2]);
        assert_eq!(o.next_canaries(5, &[], &[0, 1, 2]), vec![0, 1, 2, 3, 4]);
        let mut o = Occupancy::new(10, [0, 1, 3]);
        assert_eq!(o.next_canaries(2, &[0, 3], &[0, 3]), vec![2, 4]);
    }

    #[derive(Deserialize)]
    #[serde(deny_unknown_fields)]
    struct Case {
        name: String,
        count: u32,
        claims: Vec<u32>,
        ops: Vec<Op>,
    }

    #[derive(Deserialize)]
    #[serde(deny_unknown_fields, rename_all = "kebab-case")]
    struct Op {
        highest: Option<u32>,
        next: Option<u32>,
        next_canaries: Option<u32>,
        #[serde(default)]
        canaries: Vec<u32>,
        #[serde(default)]
        replaced: Vec<u32>,
        release: Option<u32>,
        is_duplicate: Option<u32>,
        expect: Option<serde_norway::Value>,
    }

    impl Op {
        /// Applies the operation; returns what it returned, as YAML.
        fn apply(&self, o: &mut Occupancy) -> serde_norway::Value {
            let list = |v: Vec<u32>| serde_norway::to_value(v).unwrap_or_default();
            if let Some(n) = self.highest {
                list(o.highest(n))
            } else if let Some(n) = self.next {
                list(o.next(n))
            } else if let Some(n) = self.next_canaries {
                list(o.next_canaries(n, &self.canaries, &self.replaced))
            } else if let Some(i) = self.is_duplicate {
                serde_norway::Value::Bool(o.is_duplicate(i))
            } else if let Some(i) = self.release {
                o.release(i);
                serde_norway::Value::Null
            } else {
                panic!("an operation names no method")
            }
        }
    }

    #[test]
    fn nomad_name_index_cases_hold() {
        let files = crate::unit_cases::load::<Case>("name-index");
        assert!(files.len() >= 5, "expected Nomad's five name-index tests");
        for (_, cases) in files {
            for case in &cases.cases {
                let mut o = Occupancy::new(case.count, case.claims.iter().copied());
                for (n, op) in case.ops.iter().enumerate() {
                    let got = op.apply(&mut o);
                    if let Some(want) = &op.expect {
                        assert_eq!(&got, want, "{} / {}: operation {n}", cases.nomad, case.name);
                    }
                }
            }
        }
    }
}
