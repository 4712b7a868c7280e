//! Where the playground's files come from: a directory, or files embedded in the binary; request paths decoded and kept inside.

use std::borrow::Cow;
use std::path::{Component, Path, PathBuf};

/// A source of the playground's files, by relative path (`index.html`,
/// `assets/app.js`): the path is already decoded and free of `..`.
pub trait Files: Send + Sync {
    /// The file's bytes, or `None` when there is no such file.
    fn read(&self, relative: &str) -> Option<Cow<'static, [u8]>>;

    /// Where the files are, for the start-up line.
    fn describe(&self) -> String;
}

/// Files under a directory. A path that a link leads outside of it is not
/// served, nor is anything but a regular file.
pub struct DirFiles {
    root: PathBuf,
}

impl DirFiles {
    /// The files under `dir`.
    ///
    /// # Errors
    /// When `dir` cannot be opened or has no `index.html`.
    pub fn new(dir: &Path) -> anyhow::Result<Self> {
        let root = dir
            .canonicalize()
            .map_err(|e| anyhow::anyhow!("cannot open {}: {e}", dir.display()))?;
        if !root.join("index.html").is_file() {
            anyhow::bail!(
                "{} has no index.html: build the playground with `cargo xtask playground`",
                root.display()
            );
        }
        Ok(Self { root })
    }
}

impl Files for DirFiles {
    fn read(&self, relative: &str) -> Option<Cow<'static, [u8]>> {
        let file = self.root.join(relative).canonicalize().ok()?;
        if !file.starts_with(&self.root) || !file.is_file() {
            return None;
        }
        std::fs::read(file).ok().map(Cow::Owned)
    }

    fn describe(&self) -> String {
        self.root.display().to_string()
    }
}

/// Files compiled into the binary, by relative path.
pub struct EmbeddedFiles {
    pub files: &'static [(&'static str, &'static [u8])],
}

impl Files for EmbeddedFiles {
    fn read(&self, relative: &str) -> Option<Cow<'static, [u8]>> {
        self.files
            .iter()
            .find(|(name, _)| *name == relative)
            .map(|(_, bytes)| Cow::Borrowed(*bytes))
    }

    fn describe(&self) -> String {
        format!("{} embedded files", self.files.len())
    }
}

/// The relative path a request path names (`/` is `index.html`), or `None`
/// when it is malformed or climbs out (`..`, a root, a drive).
pub fn relative(target_path: &str) -> Option<String> {
    let decoded = percent_decode(target_path.strip_prefix('/')?)?;
    if Path::new(&decoded)
        .components()
        .any(|c| !matches!(c, Component::Normal(_)))
    {
        return None;
    }
    if decoded.is_empty() || decoded.ends_with('/') {
        return Some(format!("{decoded}index.html"));
    }
    Some(decoded)
}

/// `%20`-style escapes decoded; `None` when one is malformed or the result is not UTF-8.
fn percent_decode(text: &str) -> Option<String> {
    percent_encoding::percent_decode_str(text)
        .decode_utf8()
        .ok()
        .filter(|_| malformed_escape(text).is_none())
        .map(|s| s.into_owned())
}

/// The first `%` not followed by two hex digits, if any.
fn malformed_escape(text: &str) -> Option<usize> {
    let bytes = text.as_bytes();
    bytes.iter().enumerate().find_map(|(i, b)| {
        let escape = *b == b'%';
        let good = bytes
            .get(i + 1..i + 3)
            .is_some_and(|h| h.iter().all(u8::is_ascii_hexdigit));
        (escape && !good).then_some(i)
    })
}

/// What browsers need to know of the files a Vite build writes; WebAssembly
/// must be `application/wasm` to be compiled while it downloads.
pub fn content_type(relative: &str) -> &'static str {
    match Path::new(relative).extension().and_then(|e| e.to_str()) {
        Some("html") => "text/html; charset=utf-8",
        Some("js" | "mjs") => "text/javascript; charset=utf-8",
        Some("css") => "text/css; charset=utf-8",
        Some("json" | "map") => "application/json",
        Some("wasm") => "application/wasm",
        Some("svg") => "image/svg+xml",
        Some("png") => "image/png",
        Some("ico") => "image/x-icon",
        Some("txt" | "md") => "text/plain; charset=utf-8",
        Some("yaml" | "yml") => "text/yaml; charset=utf-8",
        _ => "application/octet-stream",
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A dist directory with an index, a nested asset, and a file beside it
    /// that must stay out of reach; each test has its own, as tests run side
    /// by side and one writing the files while another read them failed.
    fn site() -> (DirFiles, tempfile::TempDir) {
        let base = tempfile::tempdir().unwrap();
        let dist = base.path().join("dist");
        std::fs::create_dir_all(dist.join("assets")).unwrap();
        std::fs::write(dist.join("index.html"), "<!doctype html>").unwrap();
        std::fs::write(dist.join("assets/app.js"), "export {}").unwrap();
        std::fs::write(base.path().join("secret.txt"), "no").unwrap();
        (DirFiles::new(&dist).unwrap(), base)
    }

    fn get(files: &DirFiles, target: &str) -> Option<Vec<u8>> {
        let path = target.split(['?', '#']).next()?;
        files.read(&relative(path)?).map(|b| b.into_owned())
    }

    #[test]
    fn the_root_and_assets_resolve_inside_the_directory() {
        let (dist, _base) = site();
        assert_eq!(get(&dist, "/").as_deref(), Some(&b"<!doctype html>"[..]));
        assert!(get(&dist, "/?scenario=abc").is_some());
        assert_eq!(
            get(&dist, "/assets/app.js").as_deref(),
            Some(&b"export {}"[..])
        );
        assert!(get(&dist, "/assets/app%2Ejs").is_some());
    }

    #[test]
    fn paths_that_climb_out_of_the_directory_are_refused() {
        let (dist, base) = site();
        assert!(base.path().join("secret.txt").is_file());
        for target in [
            "/../secret.txt",
            "/assets/../../secret.txt",
            "/%2e%2e/secret.txt",
            "/%2E%2E%2Fsecret.txt",
            "//etc/passwd",
            "secret.txt",
            "/assets",
            "/missing.js",
            "/%zz",
        ] {
            assert_eq!(get(&dist, target), None, "{target}");
        }
    }

    #[test]
    fn embedded_files_are_served_by_name() {
        let files = EmbeddedFiles {
            files: &[("index.html", b"<p>"), ("a.wasm", b"\0asm")],
        };
        assert_eq!(files.read("index.html").as_deref(), Some(&b"<p>"[..]));
        assert_eq!(files.read("b.wasm"), None);
    }

    #[test]
    fn webassembly_is_served_as_application_wasm() {
        assert_eq!(content_type("a/reconciler.core.wasm"), "application/wasm");
        assert_eq!(content_type("index.html"), "text/html; charset=utf-8");
    }
}
