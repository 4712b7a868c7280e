//! Moving values between the library's types and the host's: both are generated from the same WIT.

use serde::{de::DeserializeOwned, Serialize};

/// Why a value could not be moved between the two renderings of a type.
#[derive(Debug, thiserror::Error)]
#[error("the library's and the host's types disagree: {0}")]
pub struct TranscodeError(#[from] postcard::Error);

/// Converts a value of one rendering of a WIT type into the other.
///
/// Both renderings are generated from the same WIT, so their fields and
/// cases come in the same order; postcard's encoding depends only on that
/// order, not on names, which is what makes it a faithful bridge.
///
/// # Errors
/// Only if the two renderings were generated from different WIT.
pub fn transcode<From: Serialize + ?Sized, To: DeserializeOwned>(
    value: &From,
) -> Result<To, TranscodeError> {
    Ok(postcard::from_bytes(&postcard::to_allocvec(value)?)?)
}
