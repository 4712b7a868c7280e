//! `slotwise playground`: serves the browser playground's files on 127.0.0.1 with hyper, within limits a hostile client cannot stretch.

mod connection;
mod files;

pub use files::{DirFiles, EmbeddedFiles, Files};

use anyhow::{bail, Context, Result};
use bytes::Bytes;
use connection::{FirstLine, Guarded, Registry};
use http_body_util::Full;
use hyper::header::{HeaderValue, ALLOW, CACHE_CONTROL, CONTENT_TYPE, X_CONTENT_TYPE_OPTIONS};
use hyper::{Method, Request, Response, StatusCode};
use hyper_util::rt::TokioTimer;
use std::convert::Infallible;
use std::io::Write as _;
use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;
use tokio::io::AsyncWriteExt;

/// The port used unless `--port` gives another.
pub const DEFAULT_PORT: u16 = 4280;

/// What one client may hold of the server.
#[derive(Clone, Copy, Debug)]
pub struct ServerLimits {
    /// A connection on which no byte moves for this long is closed.
    pub idle_timeout: Duration,
    /// A request's line and headers must arrive within this.
    pub header_timeout: Duration,
    /// Connections open at once; one more closes the oldest.
    pub connections: usize,
    /// The longest request line, in bytes; longer is answered 414.
    pub request_line: usize,
    /// The most bytes of request line and headers; more is answered 431.
    pub header_bytes: usize,
    /// The most header fields in a request; more is answered 431.
    pub headers: usize,
}

impl Default for ServerLimits {
    fn default() -> Self {
        Self {
            idle_timeout: Duration::from_secs(30),
            header_timeout: Duration::from_secs(10),
            connections: 512,
            request_line: 8 << 10,
            header_bytes: 64 << 10,
            headers: 64,
        }
    }
}

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

/// Serves `files` on 127.0.0.1:`port` (0 picks a free port) until stopped.
///
/// # Errors
/// When the port cannot be bound or the runtime cannot start.
pub fn serve(files: Arc<dyn Files>, port: u16, limits: ServerLimits) -> Result<()> {
    let listener = std::net::TcpListener::bind(("127.0.0.1", port))
        .with_context(|| format!("cannot listen on 127.0.0.1:{port}"))?;
    let address = listener.local_addr()?;
    println!(
        "slotwise playground: http://{address}/ (serving {}; Ctrl+C stops)",
        files.describe()
    );
    std::io::stdout().flush()?;
    run(listener, files, limits)
}

/// Serves `files` on `listener` until the process ends.
///
/// # Errors
/// When the runtime cannot start or the listener fails.
pub fn run(
    listener: std::net::TcpListener,
    files: Arc<dyn Files>,
    limits: ServerLimits,
) -> Result<()> {
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .context("cannot start the server's runtime")?;
    runtime.block_on(async move {
        listener.set_nonblocking(true)?;
        let listener = tokio::net::TcpListener::from_std(listener)?;
        let registry = Arc::new(Registry::default());
        loop {
            let Ok((stream, _)) = listener.accept().await else {
                // Out of descriptors, or a connection reset before it was
                // taken: the next accept may well succeed.
                tokio::time::sleep(Duration::from_millis(10)).await;
                continue;
            };
            let ticket = registry.enter(limits.connections);
            let files = files.clone();
            tokio::spawn(async move {
                connection(stream, files, limits, &ticket.close).await;
                drop(ticket);
            });
        }
    })
}

/// Serves one connection until it closes, idles, or is told to close.
async fn connection(
    mut stream: tokio::net::TcpStream,
    files: Arc<dyn Files>,
    limits: ServerLimits,
    close: &tokio::sync::Notify,
) {
    let first = tokio::select! {
        line = connection::first_line(&mut stream, &limits) => line,
        () = close.notified() => return,
    };
    let read_first = match first {
        FirstLine::Read(bytes) => bytes,
        FirstLine::Gone => return,
        FirstLine::TooLong => {
            // hyper is not in charge of this connection yet: the answer is
            // written here, and the connection closed.
            let _ = stream
                .write_all(
                    b"HTTP/1.1 414 URI Too Long\r\ncontent-length: 0\r\nconnection: close\r\n\r\n",
                )
                .await;
            let _ = stream.shutdown().await;
            return;
        }
    };
    let io = Guarded::new(stream, read_first, limits.idle_timeout);
    let service = hyper::service::service_fn(move |request| {
        let files = files.clone();
        async move { Ok::<_, Infallible>(answer(&request, files.as_ref(), &limits)) }
    });
    let conn = hyper::server::conn::http1::Builder::new()
        .timer(TokioTimer::new())
        .header_read_timeout(limits.header_timeout)
        .max_buf_size(limits.header_bytes.max(8192))
        .max_headers(limits.headers)
        .serve_connection(io, service);
    tokio::pin!(conn);
    tokio::select! {
        _ = conn.as_mut() => {}
        () = close.notified() => {
            conn.as_mut().graceful_shutdown();
            let _ = tokio::time::timeout(limits.header_timeout, conn).await;
        }
    }
}

/// The answer to one request: GET or HEAD of a file.
fn answer<B>(
    request: &Request<B>,
    files: &dyn Files,
    limits: &ServerLimits,
) -> Response<Full<Bytes>> {
    if request.method() != Method::GET && request.method() != Method::HEAD {
        let mut response = plain(StatusCode::METHOD_NOT_ALLOWED, "GET or HEAD only\n");
        response
            .headers_mut()
            .insert(ALLOW, HeaderValue::from_static("GET, HEAD"));
        return response;
    }
    // A later request of a kept-alive connection is read by hyper alone.
    if request.uri().to_string().len() > limits.request_line {
        return plain(StatusCode::URI_TOO_LONG, "request line too long\n");
    }
    let found = files::relative(request.uri().path())
        .and_then(|relative| files.read(&relative).map(|bytes| (relative, bytes)));
    let Some((relative, bytes)) = found else {
        return plain(StatusCode::NOT_FOUND, "not found\n");
    };
    let mut response = Response::new(Full::new(Bytes::from(bytes.into_owned())));
    response.headers_mut().insert(
        CONTENT_TYPE,
        HeaderValue::from_static(files::content_type(&relative)),
    );
    protect(response)
}

fn plain(status: StatusCode, text: &'static str) -> Response<Full<Bytes>> {
    let mut response = Response::new(Full::new(Bytes::from_static(text.as_bytes())));
    *response.status_mut() = status;
    response.headers_mut().insert(
        CONTENT_TYPE,
        HeaderValue::from_static("text/plain; charset=utf-8"),
    );
    protect(response)
}

/// Headers every answer carries: browsers must not guess other types, and
/// a rebuilt playground must be fetched anew.
fn protect(mut response: Response<Full<Bytes>>) -> Response<Full<Bytes>> {
    let headers = response.headers_mut();
    headers.insert(X_CONTENT_TYPE_OPTIONS, HeaderValue::from_static("nosniff"));
    headers.insert(CACHE_CONTROL, HeaderValue::from_static("no-cache"));
    response
}

#[cfg(test)]
mod tests;
