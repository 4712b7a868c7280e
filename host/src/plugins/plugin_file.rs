//! Reading a plugin's file: only a regular file, no larger than the limit, checked before the read and held to during it.

use std::fs::{File, OpenOptions};
use std::io::Read;
use std::path::Path;

/// The largest plugin file read, in bytes. A JavaScript plugin with its
/// engine is about 2 MB; a Rust one, a few hundred KB.
pub const MAX_PLUGIN_BYTES: u64 = 64 << 20;

/// The bytes of the plugin file at `path`.
///
/// The file is opened without blocking, so that a FIFO cannot hold the host,
/// and what was opened is checked to be a regular file: a device such as
/// `/dev/zero`, a FIFO or a directory is refused. A file that grows past the
/// limit while it is read is refused too.
///
/// # Errors
/// The cause, naming what the path is when it is not a regular file.
pub fn read(path: &Path) -> Result<Vec<u8>, String> {
    let file = open(path).map_err(|e| format!("cannot read the file: {e}"))?;
    let meta = file
        .metadata()
        .map_err(|e| format!("cannot read the file: {e}"))?;
    if !meta.is_file() {
        return Err(format!(
            "is {}, not a regular file; only plugin files are read",
            kind(&meta.file_type())
        ));
    }
    if meta.len() > MAX_PLUGIN_BYTES {
        return Err(too_large(meta.len()));
    }
    let mut bytes = Vec::with_capacity(meta.len() as usize);
    file.take(MAX_PLUGIN_BYTES + 1)
        .read_to_end(&mut bytes)
        .map_err(|e| format!("cannot read the file: {e}"))?;
    if bytes.len() as u64 > MAX_PLUGIN_BYTES {
        return Err(too_large(bytes.len() as u64));
    }
    Ok(bytes)
}

fn too_large(size: u64) -> String {
    format!(
        "is larger than the limit of {} MiB for a plugin file ({size} bytes or more)",
        MAX_PLUGIN_BYTES >> 20
    )
}

#[cfg(unix)]
fn open(path: &Path) -> std::io::Result<File> {
    use std::os::unix::fs::OpenOptionsExt;
    // O_NONBLOCK: opening a FIFO for reading waits for a writer otherwise.
    OpenOptions::new()
        .read(true)
        .custom_flags(libc::O_NONBLOCK)
        .open(path)
}

#[cfg(not(unix))]
fn open(path: &Path) -> std::io::Result<File> {
    OpenOptions::new().read(true).open(path)
}

#[cfg(unix)]
fn kind(t: &std::fs::FileType) -> &'static str {
    use std::os::unix::fs::FileTypeExt;
    if t.is_dir() {
        "a directory"
    } else if t.is_fifo() {
        "a FIFO"
    } else if t.is_char_device() {
        "a character device"
    } else if t.is_block_device() {
        "a block device"
    } else if t.is_socket() {
        "a socket"
    } else {
        "not a file"
    }
}

#[cfg(not(unix))]
fn kind(t: &std::fs::FileType) -> &'static str {
    if t.is_dir() {
        "a directory"
    } else {
        "not a file"
    }
}

#[cfg(all(test, unix))]
mod tests {
    use super::*;

    #[test]
    fn a_device_is_refused_without_reading_it() {
        let e = read(Path::new("/dev/zero")).unwrap_err();
        assert!(e.contains("a character device, not a regular file"), "{e}");
    }

    #[test]
    fn a_directory_is_refused() {
        let e = read(Path::new("/")).unwrap_err();
        assert!(e.contains("a directory"), "{e}");
    }

    #[test]
    fn a_fifo_is_refused_without_waiting_for_a_writer() {
        let dir = std::env::temp_dir().join(format!("slotwise-fifo-{}", std::process::id()));
        let _ = std::fs::create_dir_all(&dir);
        let fifo = dir.join("plugin.wasm");
        let _ = std::fs::remove_file(&fifo);
        let made = std::process::Command::new("mkfifo").arg(&fifo).status();
        assert!(made.is_ok_and(|s| s.success()), "mkfifo {}", fifo.display());
        let e = read(&fifo).unwrap_err();
        assert!(e.contains("a FIFO"), "{e}");
        let _ = std::fs::remove_dir_all(&dir);
    }
}
