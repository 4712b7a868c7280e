//! Where a scenario or plugins file comes from: a path, or standard input for `-`; read within the size limit, as UTF-8.

use anyhow::{bail, Context, Result};
use slotwise_scenario::limits::MAX_FILE_BYTES;
use slotwise_scenario::Syntax;
use std::io::Read;
use std::path::Path;

/// The syntax of the text read from `path`: by its extension, and for
/// standard input JSON when it opens with `{`.
pub fn syntax(path: &Path, text: &str) -> Syntax {
    if is_stdin(path) && text.trim_start().starts_with('{') {
        Syntax::Json
    } else {
        Syntax::of(path)
    }
}

/// Whether `path` means standard input.
pub fn is_stdin(path: &Path) -> bool {
    path.as_os_str() == "-"
}

/// The text of the file at `path`, or of standard input for `-`.
///
/// # Errors
/// When it cannot be read, is larger than [`MAX_FILE_BYTES`] (a regular
/// file's size is checked before it is read; anything else is cut off at the
/// limit), or is not UTF-8 (naming the line and column).
pub fn read_text(path: &Path) -> Result<String> {
    let shown = path.display();
    let bytes = if is_stdin(path) {
        read_capped(std::io::stdin().lock()).context("cannot read standard input")?
    } else {
        let file = std::fs::File::open(path).with_context(|| format!("cannot read {shown}"))?;
        let meta = file
            .metadata()
            .with_context(|| format!("cannot read {shown}"))?;
        if meta.is_dir() {
            bail!("cannot read {shown}: it is a directory");
        }
        if meta.is_file() && meta.len() > MAX_FILE_BYTES {
            bail!(
                "{shown}: the file is {} bytes; the limit is {} MiB",
                meta.len(),
                MAX_FILE_BYTES >> 20
            );
        }
        read_capped(file).with_context(|| format!("cannot read {shown}"))?
    };
    let Some(bytes) = bytes else {
        bail!(
            "{}: larger than the limit of {} MiB",
            if is_stdin(path) {
                "standard input".to_string()
            } else {
                shown.to_string()
            },
            MAX_FILE_BYTES >> 20
        );
    };
    String::from_utf8(bytes).map_err(|e| {
        let (line, column) = position(e.as_bytes(), e.utf8_error().valid_up_to());
        anyhow::anyhow!("{shown}: line {line} column {column}: not UTF-8 text")
    })
}

/// All of `reader`, or `None` once it gives more than the limit.
fn read_capped(reader: impl Read) -> std::io::Result<Option<Vec<u8>>> {
    let mut bytes = Vec::new();
    reader.take(MAX_FILE_BYTES + 1).read_to_end(&mut bytes)?;
    Ok((bytes.len() as u64 <= MAX_FILE_BYTES).then_some(bytes))
}

/// The 1-based line and column (in characters) of byte `at`.
fn position(bytes: &[u8], at: usize) -> (usize, usize) {
    let before = &bytes[..at.min(bytes.len())];
    let line = before.iter().filter(|b| **b == b'\n').count() + 1;
    let start = before
        .iter()
        .rposition(|b| *b == b'\n')
        .map_or(0, |i| i + 1);
    let column = String::from_utf8_lossy(&before[start..]).chars().count() + 1;
    (line, column)
}

#[cfg(test)]
mod tests {
    use super::position;

    #[test]
    fn positions_count_lines_and_characters() {
        assert_eq!(position(b"ab\ncd\xff", 5), (2, 3));
        assert_eq!(position(b"\xc3\xa9\xff", 2), (1, 2));
    }
}
