//! The first name of a list that repeats an earlier one, found by sorting: no hash an input could make collide.

/// Where the earliest repeat of `names` is, as (position of the name's first
/// occurrence, position of its repeat): the same pair a scan in order with a
/// set of the names seen would stop at. None when every name is distinct.
///
/// Sorting keeps the worst case at n log n comparisons whatever the names
/// are; a hash set keyed by an unkeyed hash is quadratic on names crafted to
/// collide, and the core has no randomness to key one.
pub(super) fn first_repeat<'a>(names: impl Iterator<Item = &'a str>) -> Option<(usize, usize)> {
    let mut sorted: Vec<(&str, usize)> = names.enumerate().map(|(i, n)| (n, i)).collect();
    // Equal names end up side by side, each run in input order.
    sorted.sort_unstable();
    sorted
        .windows(2)
        .filter(|pair| pair[0].0 == pair[1].0)
        .map(|pair| (pair[0].1, pair[1].1))
        // Within a run only the first pair has the run's first occurrence on
        // its left; later pairs have a larger repeat and never win the min.
        .min_by_key(|&(_, repeat)| repeat)
}

#[cfg(test)]
mod tests {
    use super::first_repeat;
    use std::collections::BTreeMap;

    /// The pair a scan in input order with a map of names seen stops at.
    fn scanned(names: &[&str]) -> Option<(usize, usize)> {
        let mut seen = BTreeMap::new();
        names
            .iter()
            .enumerate()
            .find_map(|(i, n)| seen.insert(*n, i).map(|first| (first, i)))
    }

    #[test]
    fn distinct_names_have_no_repeat() {
        assert_eq!(first_repeat(["a", "b", "c"].into_iter()), None);
        assert_eq!(first_repeat(std::iter::empty()), None);
    }

    #[test]
    fn the_earliest_repeat_is_found_with_the_first_occurrence_it_repeats() {
        let cases: [&[&str]; 5] = [
            &["x", "y", "x"],
            &["b", "a", "a", "b"],
            &["z", "a", "z", "a", "z"],
            &["n", "m", "m", "m", "n"],
            &["", "q", ""],
        ];
        for names in cases {
            assert_eq!(
                first_repeat(names.iter().copied()),
                scanned(names),
                "{names:?}"
            );
        }
    }

    #[test]
    fn every_small_list_over_three_names_agrees_with_a_scan_in_order() {
        let alphabet = ["a", "b", "c"];
        for len in 0..=6u32 {
            for code in 0..3usize.pow(len) {
                let names: Vec<&str> = (0..len)
                    .map(|k| alphabet[code / 3usize.pow(k) % 3])
                    .collect();
                assert_eq!(
                    first_repeat(names.iter().copied()),
                    scanned(&names),
                    "{names:?}"
                );
            }
        }
    }
}
