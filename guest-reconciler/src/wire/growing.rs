//! Postcard's output into a growable buffer, appending slices whole.

use serde::Serialize;

/// Appends `value`, encoded, to `out`.
pub(super) fn append<T: Serialize + ?Sized>(out: Vec<u8>, value: &T) -> Vec<u8> {
    // Serializing the contract's types into a growable buffer cannot fail:
    // they hold no maps with non-string keys and no unsupported types.
    postcard::serialize_with_flavor(value, Growing(out)).unwrap_or_default()
}

/// A growable buffer as postcard's output. Postcard's own `to_extend` adds
/// each byte through an iterator; appending slices whole about halved the
/// component's time encoding a count-10 plan (2.3 to 1.2 µs in a profile).
struct Growing(Vec<u8>);

impl postcard::ser_flavors::Flavor for Growing {
    type Output = Vec<u8>;

    fn try_push(&mut self, byte: u8) -> postcard::Result<()> {
        self.0.push(byte);
        Ok(())
    }

    fn try_extend(&mut self, bytes: &[u8]) -> postcard::Result<()> {
        self.0.extend_from_slice(bytes);
        Ok(())
    }

    fn finalize(self) -> postcard::Result<Vec<u8>> {
        Ok(self.0)
    }
}
