//! Tells a field left out from one set to null.

use serde::{Deserialize, Deserializer};

/// Tells a field that is absent (`None`) from one set to null (`Some(None)`).
pub(crate) fn present<'de, T: Deserialize<'de>, D: Deserializer<'de>>(
    d: D,
) -> Result<Option<Option<T>>, D::Error> {
    Option::<T>::deserialize(d).map(Some)
}
