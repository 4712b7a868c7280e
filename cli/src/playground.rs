//! `slotwise playground`: serves the browser playground's static files on 127.0.0.1, and nothing outside them.

use anyhow::{bail, Context, Result};
use std::io::{BufRead, BufReader, Write};
use std::net::{TcpListener, TcpStream};
use std::path::{Component, Path, PathBuf};

/// The port used unless `--port` gives another.
pub const DEFAULT_PORT: u16 = 4280;

/// The playground's files: `given`, else `playground/` beside the
/// executable, else where `cargo xtask playground` builds them relative to
/// the executable (`target/debug/` → `playground/dist`).
pub fn dist_dir(given: Option<PathBuf>) -> Result<PathBuf> {
    if let Some(dir) = given {
        return Ok(dir);
    }
    let exe = std::env::current_exe()?;
    let dir = exe.parent().map(PathBuf::from).unwrap_or_default();
    let candidates = [dir.join("playground"), dir.join("../../playground/dist")];
    match candidates.iter().find(|p| p.join("index.html").is_file()) {
        Some(found) => Ok(found.clone()),
        None => bail!(
            "no built playground found (looked at {}); build it with `cargo xtask playground`, or pass --dir",
            candidates
                .iter()
                .map(|p| p.display().to_string())
                .collect::<Vec<_>>()
                .join(", ")
        ),
    }
}

/// Serves `dir` on 127.0.0.1:`port` (0 picks a free port) until stopped,
/// each connection on its own thread.
///
/// # Errors
/// When `dir` has no `index.html` or the port cannot be bound.
pub fn serve(dir: &Path, port: u16) -> Result<()> {
    let root = dir
        .canonicalize()
        .with_context(|| format!("cannot open {}", dir.display()))?;
    if !root.join("index.html").is_file() {
        bail!(
            "{} has no index.html: build the playground with `cargo xtask playground`",
            root.display()
        );
    }
    let listener = TcpListener::bind(("127.0.0.1", port))
        .with_context(|| format!("cannot listen on 127.0.0.1:{port}"))?;
    let address = listener.local_addr()?;
    println!(
        "slotwise playground: http://{address}/ (serving {}; Ctrl+C stops)",
        root.display()
    );
    std::io::stdout().flush()?;
    for stream in listener.incoming() {
        let Ok(stream) = stream else { continue };
        let root = root.clone();
        std::thread::spawn(move || {
            // A client that goes away mid-answer is no concern of the server's.
            let _ = answer(stream, &root);
        });
    }
    Ok(())
}

/// Answers one request: GET or HEAD of a file under `root`.
fn answer(mut stream: TcpStream, root: &Path) -> std::io::Result<()> {
    let mut reader = BufReader::new(stream.try_clone()?);
    let mut request_line = String::new();
    reader.read_line(&mut request_line)?;
    // The headers say nothing the answer depends on.
    let mut header = String::new();
    while reader.read_line(&mut header)? > 2 {
        header.clear();
    }
    let mut words = request_line.split_whitespace();
    let (method, target) = (words.next().unwrap_or(""), words.next().unwrap_or(""));
    if method != "GET" && method != "HEAD" {
        return respond(
            &mut stream,
            "405 Method Not Allowed",
            "text/plain",
            b"GET or HEAD only\n",
            true,
        );
    }
    let body_wanted = method == "GET";
    match resolve(root, target) {
        Some(file) => match std::fs::read(&file) {
            Ok(bytes) => respond(
                &mut stream,
                "200 OK",
                content_type(&file),
                &bytes,
                body_wanted,
            ),
            Err(_) => respond(
                &mut stream,
                "404 Not Found",
                "text/plain",
                b"not found\n",
                body_wanted,
            ),
        },
        None => respond(
            &mut stream,
            "404 Not Found",
            "text/plain",
            b"not found\n",
            body_wanted,
        ),
    }
}

fn respond(
    stream: &mut TcpStream,
    status: &str,
    content_type: &str,
    body: &[u8],
    body_wanted: bool,
) -> std::io::Result<()> {
    write!(
        stream,
        "HTTP/1.1 {status}\r\nContent-Type: {content_type}\r\nContent-Length: {}\r\nCache-Control: no-cache\r\nX-Content-Type-Options: nosniff\r\nConnection: close\r\n\r\n",
        body.len()
    )?;
    if body_wanted {
        stream.write_all(body)?;
    }
    stream.flush()
}

/// The file under `root` that the request target names, or `None` when it
/// names nothing there: a path that climbs out (`..`, or a link leading
/// outside) is refused, as is anything but a file.
fn resolve(root: &Path, target: &str) -> Option<PathBuf> {
    let path = target.split(['?', '#']).next()?;
    let decoded = percent_decode(path.strip_prefix('/')?)?;
    let relative = Path::new(&decoded);
    if relative
        .components()
        .any(|c| !matches!(c, Component::Normal(_)))
    {
        return None;
    }
    let mut file = root.join(relative);
    if decoded.is_empty() || decoded.ends_with('/') {
        file = file.join("index.html");
    }
    let file = file.canonicalize().ok()?;
    (file.starts_with(root) && file.is_file()).then_some(file)
}

/// `%20`-style escapes decoded; `None` when one is malformed or the result is not UTF-8.
fn percent_decode(text: &str) -> Option<String> {
    let bytes = text.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i] == b'%' {
            let hex = std::str::from_utf8(bytes.get(i + 1..i + 3)?).ok()?;
            out.push(u8::from_str_radix(hex, 16).ok()?);
            i += 3;
        } else {
            out.push(bytes[i]);
            i += 1;
        }
    }
    String::from_utf8(out).ok()
}

/// What browsers need to know of the files a Vite build writes; WebAssembly
/// must be `application/wasm` to be compiled while it downloads.
fn content_type(file: &Path) -> &'static str {
    match file.extension().and_then(|e| e.to_str()) {
        Some("html") => "text/html; charset=utf-8",
        Some("js" | "mjs") => "text/javascript; charset=utf-8",
        Some("css") => "text/css; charset=utf-8",
        Some("json") => "application/json",
        Some("wasm") => "application/wasm",
        Some("svg") => "image/svg+xml",
        Some("png") => "image/png",
        Some("ico") => "image/x-icon",
        _ => "application/octet-stream",
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A dist directory with an index, a nested asset, and a file beside it
    /// that must stay out of reach.
    fn site() -> (PathBuf, PathBuf) {
        let base = std::env::temp_dir().join(format!("slotwise-playground-{}", std::process::id()));
        let dist = base.join("dist");
        std::fs::create_dir_all(dist.join("assets")).unwrap();
        std::fs::write(dist.join("index.html"), "<!doctype html>").unwrap();
        std::fs::write(dist.join("assets/app.js"), "export {}").unwrap();
        std::fs::write(base.join("secret.txt"), "no").unwrap();
        (dist.canonicalize().unwrap(), base)
    }

    #[test]
    fn the_root_and_assets_resolve_inside_the_directory() {
        let (dist, _) = site();
        assert_eq!(resolve(&dist, "/"), Some(dist.join("index.html")));
        assert_eq!(
            resolve(&dist, "/?scenario=abc"),
            Some(dist.join("index.html"))
        );
        assert_eq!(
            resolve(&dist, "/assets/app.js"),
            Some(dist.join("assets/app.js"))
        );
        assert_eq!(
            resolve(&dist, "/assets/app%2Ejs"),
            Some(dist.join("assets/app.js"))
        );
    }

    #[test]
    fn paths_that_climb_out_of_the_directory_are_refused() {
        let (dist, base) = site();
        assert!(base.join("secret.txt").is_file());
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
            assert_eq!(resolve(&dist, target), None, "{target}");
        }
    }

    #[test]
    fn webassembly_is_served_as_application_wasm() {
        assert_eq!(
            content_type(Path::new("a/reconciler.core.wasm")),
            "application/wasm"
        );
        assert_eq!(
            content_type(Path::new("index.html")),
            "text/html; charset=utf-8"
        );
    }
}
