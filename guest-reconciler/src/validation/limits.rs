//! The largest counts and indexes an input may ask for.

/// The largest group count accepted. Larger counts are almost certainly
/// mistakes, and would make plans of millions of placements.
pub const MAX_COUNT: u32 = 1_000_000;

/// The largest name index accepted, for the same reason.
pub const MAX_NAME_INDEX: u32 = MAX_COUNT;
