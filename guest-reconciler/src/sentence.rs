//! The plan's sentences, joined from their pieces with [`say!`] rather than formatted with `core::fmt`.
//!
//! Every step and many decisions word a sentence, so a reconcile makes
//! thousands of them. `format!` goes through `core::fmt`: each argument is
//! written through a function pointer and the output through a `dyn Write`,
//! and in the component the first call through each pointer makes the host
//! initialise a table entry, again in every fresh instance. Formatting was
//! about a quarter of the component's own time in a count-10 reconcile.
//! `say!` measures its pieces, allocates the sentence once at its length and
//! appends them, with calls the compiler sees through.

/// A piece of a sentence: text, or a number written in decimal.
pub(crate) enum Text<'a> {
    Str(&'a str),
    Unsigned(u64),
    Signed(i64),
}

impl Text<'_> {
    /// Its length in bytes, written out.
    pub(crate) fn len(&self) -> usize {
        match *self {
            Text::Str(s) => s.len(),
            Text::Unsigned(n) => digits(n),
            Text::Signed(n) => usize::from(n < 0) + digits(n.unsigned_abs()),
        }
    }

    /// Appends it to `out`.
    pub(crate) fn put(&self, out: &mut String) {
        match *self {
            Text::Str(s) => out.push_str(s),
            Text::Unsigned(n) => out.push_str(itoa::Buffer::new().format(n)),
            Text::Signed(n) => out.push_str(itoa::Buffer::new().format(n)),
        }
    }
}

/// The number of decimal digits of `n`.
fn digits(n: u64) -> usize {
    n.checked_ilog10().map_or(1, |d| d as usize + 1)
}

/// What can be a piece of a sentence.
pub(crate) trait Piece {
    fn text(&self) -> Text<'_>;
}

impl Piece for str {
    fn text(&self) -> Text<'_> {
        Text::Str(self)
    }
}

impl Piece for String {
    fn text(&self) -> Text<'_> {
        Text::Str(self)
    }
}

impl Piece for std::rc::Rc<str> {
    fn text(&self) -> Text<'_> {
        Text::Str(self)
    }
}

impl<T: Piece + ?Sized> Piece for &T {
    fn text(&self) -> Text<'_> {
        (**self).text()
    }
}

macro_rules! unsigned {
    ($($t:ty),+) => {$(
        impl Piece for $t {
            fn text(&self) -> Text<'_> {
                Text::Unsigned(u64::from(*self))
            }
        }
    )+};
}

macro_rules! signed {
    ($($t:ty),+) => {$(
        impl Piece for $t {
            fn text(&self) -> Text<'_> {
                Text::Signed(i64::from(*self))
            }
        }
    )+};
}

unsigned!(u8, u16, u32, u64);
signed!(i8, i16, i32, i64);

impl Piece for usize {
    fn text(&self) -> Text<'_> {
        // usize is at most 64 bits on every target slotwise builds for.
        Text::Unsigned(*self as u64)
    }
}

/// The sentence its pieces make, in order: `say!(n, " of ", total, " replaced")`.
/// Each piece is a string (`&str`, `String`, `Rc<str>`) or an integer.
macro_rules! say {
    // A `match` keeps the pieces' temporaries, such as a `String` a call
    // returns, alive until the sentence is written.
    ($($piece:expr),+ $(,)?) => {
        match [$($crate::sentence::Piece::text(&$piece)),+] {
            pieces => {
                let mut out = String::with_capacity(pieces.iter().map(|p| p.len()).sum());
                for piece in &pieces {
                    piece.put(&mut out);
                }
                out
            }
        }
    };
}

pub(crate) use say;

#[cfg(test)]
mod tests {
    #[test]
    fn a_sentence_reads_as_format_would_write_it_and_fills_its_capacity_exactly() {
        let (n, total, id) = (7usize, 10_000u32, String::from("web-3"));
        for (said, formatted) in [
            (
                say!(n, " of ", total, " replaced"),
                format!("{n} of {total} replaced"),
            ),
            (say!("node ", id, " is gone"), format!("node {id} is gone")),
            (
                say!(0u64, "", -42i64, u64::MAX),
                format!("0-42{}", u64::MAX),
            ),
            (say!(i64::MIN, " ", 9u8), format!("{} 9", i64::MIN)),
        ] {
            assert_eq!(said, formatted);
            assert_eq!(said.capacity(), said.len(), "{said}");
        }
    }
}
