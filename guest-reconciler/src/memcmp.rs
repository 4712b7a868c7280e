//! `memcmp` for WebAssembly, eight bytes at a time: ids are compared in every sorted map of the reconcile.
//!
//! The `memcmp` that Rust's runtime ships for `wasm32` compares one byte per
//! loop turn; it was a tenth of an encoded reconcile of 10k allocations,
//! spent on ids and names that share long prefixes. This one reads eight
//! bytes of each side at once and looks at single bytes only where they
//! differ. The runtime's symbol is weak, so this definition replaces it.
//! Natively the platform's C library provides a vectorised one already.

/// Compares `n` bytes at `a` and `b` as unsigned bytes, as C's `memcmp`:
/// negative, zero or positive as `a` orders before, with or after `b`.
///
/// # Safety
/// `a` and `b` must be valid for reads of `n` bytes, as for C's `memcmp`.
#[cfg(all(target_arch = "wasm32", not(test)))]
#[no_mangle]
pub unsafe extern "C" fn memcmp(a: *const u8, b: *const u8, n: usize) -> i32 {
    // SAFETY: the caller's contract is the one `compare` needs.
    unsafe { compare(a, b, n) }
}

/// The comparison itself, outside the `cfg` so that native tests run it.
///
/// # Safety
/// `a` and `b` must be valid for reads of `n` bytes.
#[cfg(any(target_arch = "wasm32", test))]
#[inline(always)]
pub(crate) unsafe fn compare(a: *const u8, b: *const u8, n: usize) -> i32 {
    const WORD: usize = 8;
    let mut i = 0;
    while i + WORD <= n {
        // SAFETY: `i + WORD <= n` keeps both reads inside the `n` bytes.
        // Read big-endian, the first differing byte is the most significant
        // one, so the words order as their bytes do.
        let (x, y) = unsafe {
            (
                u64::from_be_bytes(a.add(i).cast::<[u8; WORD]>().read_unaligned()),
                u64::from_be_bytes(b.add(i).cast::<[u8; WORD]>().read_unaligned()),
            )
        };
        if x != y {
            return if x < y { -1 } else { 1 };
        }
        i += WORD;
    }
    while i < n {
        // SAFETY: `i < n`.
        let (x, y) = unsafe { (*a.add(i), *b.add(i)) };
        if x != y {
            return i32::from(x) - i32::from(y);
        }
        i += 1;
    }
    0
}

#[cfg(test)]
mod tests {
    use super::compare;
    use std::cmp::Ordering;

    fn sign(a: &[u8], b: &[u8]) -> Ordering {
        assert_eq!(a.len(), b.len());
        // SAFETY: both slices hold `a.len()` bytes.
        unsafe { compare(a.as_ptr(), b.as_ptr(), a.len()) }.cmp(&0)
    }

    #[test]
    fn byte_strings_order_as_slices_do_whatever_their_length_and_where_they_differ() {
        let base: Vec<u8> = (0..40u8).map(|i| i.wrapping_mul(37)).collect();
        for len in 0..base.len() {
            for at in 0..len {
                for delta in [1u8, 0x80, 0xff] {
                    let mut other = base[..len].to_vec();
                    other[at] = other[at].wrapping_add(delta);
                    assert_eq!(
                        sign(&base[..len], &other),
                        base[..len].cmp(&other),
                        "len {len}, differing at {at} by {delta}"
                    );
                    assert_eq!(
                        sign(&other, &base[..len]),
                        other.as_slice().cmp(&base[..len])
                    );
                }
            }
            assert_eq!(sign(&base[..len], &base[..len]), Ordering::Equal);
        }
    }
}
