//! Standard output for the commands: written whole, with a reader that stops early (`| head`) told apart from a real failure.

use anyhow::Result;
use std::io::Write;

/// Writes `text` as it is.
///
/// # Errors
/// When standard output cannot be written, a closed pipe included (see
/// [`is_broken_pipe`]).
pub fn text(text: &str) -> Result<()> {
    let mut out = std::io::stdout().lock();
    out.write_all(text.as_bytes())?;
    out.flush()?;
    Ok(())
}

/// Writes `bytes` as they are.
///
/// # Errors
/// As [`text`].
pub fn bytes(bytes: &[u8]) -> Result<()> {
    let mut out = std::io::stdout().lock();
    out.write_all(bytes)?;
    out.flush()?;
    Ok(())
}

/// Writes `line` and a newline.
///
/// # Errors
/// As [`text`].
pub fn line(line: &str) -> Result<()> {
    let mut out = std::io::stdout().lock();
    out.write_all(line.as_bytes())?;
    out.write_all(b"\n")?;
    out.flush()?;
    Ok(())
}

/// Writes `value` as pretty JSON and a newline, as it is serialized: a large
/// plan is not held a second time as text.
///
/// # Errors
/// As [`text`].
pub fn json<T: serde::Serialize>(value: &T) -> Result<()> {
    let mut out = std::io::BufWriter::new(std::io::stdout().lock());
    serde_json::to_writer_pretty(&mut out, value)?;
    out.write_all(b"\n")?;
    out.flush()?;
    Ok(())
}

/// Whether `error` is a write to a pipe whose reader has gone.
pub fn is_broken_pipe(error: &anyhow::Error) -> bool {
    error.chain().any(|cause| {
        cause
            .downcast_ref::<std::io::Error>()
            .is_some_and(|e| e.kind() == std::io::ErrorKind::BrokenPipe)
    })
}
