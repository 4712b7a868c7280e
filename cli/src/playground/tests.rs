//! The server under hostile clients: held connections, slow headers, oversized lines and headers.

use super::*;
use std::io::{Read, Write};
use std::net::{SocketAddr, TcpStream};
use std::time::Instant;

const SITE: EmbeddedFiles = EmbeddedFiles {
    files: &[
        ("index.html", b"<!doctype html><p>playground"),
        ("assets/reconciler.core.wasm", b"\0asm\x01\0\0\0"),
    ],
};

/// A server on a free port, running until the tests end.
fn start(limits: ServerLimits) -> SocketAddr {
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let address = listener.local_addr().unwrap();
    std::thread::spawn(move || run(listener, Arc::new(SITE), limits));
    address
}

/// Sends `request` and reads the whole answer (the server closes after it).
fn exchange(address: SocketAddr, request: &[u8]) -> String {
    let mut stream = TcpStream::connect(address).unwrap();
    stream
        .set_read_timeout(Some(Duration::from_secs(5)))
        .unwrap();
    // A server that refuses early may close before the request is all sent.
    let _ = stream.write_all(request);
    let mut answer = Vec::new();
    let _ = stream.read_to_end(&mut answer);
    String::from_utf8_lossy(&answer).into_owned()
}

fn get(address: SocketAddr, method: &str, path: &str) -> String {
    exchange(
        address,
        format!("{method} {path} HTTP/1.1\r\nHost: t\r\nConnection: close\r\n\r\n").as_bytes(),
    )
}

/// Whether the server has closed `stream`, waiting up to `within`.
fn closed_within(stream: &mut TcpStream, within: Duration) -> bool {
    stream.set_read_timeout(Some(within)).unwrap();
    let mut byte = [0u8; 1];
    matches!(stream.read(&mut byte), Ok(0))
        || matches!(stream.read(&mut byte), Err(e) if e.kind() == std::io::ErrorKind::ConnectionReset)
}

#[test]
fn files_are_served_with_their_types_and_nosniff() {
    let address = start(ServerLimits::default());
    let page = get(address, "GET", "/");
    assert!(page.starts_with("HTTP/1.1 200 OK"), "{page}");
    assert!(
        page.contains("content-type: text/html; charset=utf-8"),
        "{page}"
    );
    assert!(page.contains("x-content-type-options: nosniff"), "{page}");
    assert!(page.ends_with("<!doctype html><p>playground"), "{page}");
    let wasm = get(address, "GET", "/assets/reconciler.core.wasm");
    assert!(wasm.contains("content-type: application/wasm"), "{wasm}");
}

#[test]
fn head_answers_the_headers_without_the_body() {
    let address = start(ServerLimits::default());
    let head = get(address, "HEAD", "/");
    assert!(head.starts_with("HTTP/1.1 200 OK"), "{head}");
    assert!(head.contains("content-length: 28"), "{head}");
    assert!(head.ends_with("\r\n\r\n"), "{head}");
}

#[test]
fn other_methods_and_paths_outside_are_refused() {
    let address = start(ServerLimits::default());
    let post = get(address, "POST", "/");
    assert!(post.starts_with("HTTP/1.1 405"), "{post}");
    assert!(post.contains("allow: GET, HEAD"), "{post}");
    for path in ["/../etc/passwd", "/%2e%2e/etc/passwd", "/missing.js"] {
        let answer = get(address, "GET", path);
        assert!(answer.starts_with("HTTP/1.1 404"), "{path}: {answer}");
    }
}

#[test]
fn a_request_line_of_two_megabytes_is_answered_414() {
    let address = start(ServerLimits::default());
    let long = format!("GET /{} HTTP/1.1\r\nHost: t\r\n\r\n", "a".repeat(2 << 20));
    let answer = exchange(address, long.as_bytes());
    assert!(answer.starts_with("HTTP/1.1 414"), "{answer}");
}

#[test]
fn headers_beyond_the_limit_are_answered_431() {
    let address = start(ServerLimits::default());
    let big = format!(
        "GET / HTTP/1.1\r\nHost: t\r\nX-Big: {}\r\n\r\n",
        "b".repeat(1 << 20)
    );
    let answer = exchange(address, big.as_bytes());
    assert!(answer.starts_with("HTTP/1.1 431"), "{answer}");
    let many: String = (0..200).map(|i| format!("X-{i}: v\r\n")).collect();
    let answer = exchange(address, format!("GET / HTTP/1.1\r\n{many}\r\n").as_bytes());
    assert!(answer.starts_with("HTTP/1.1 431"), "{answer}");
}

#[test]
fn held_connections_and_a_slow_client_leave_room_for_a_normal_request() {
    let limits = ServerLimits {
        idle_timeout: Duration::from_secs(1),
        header_timeout: Duration::from_secs(2),
        ..ServerLimits::default()
    };
    let address = start(limits);
    let mut idle: Vec<TcpStream> = (0..1000)
        .map(|_| TcpStream::connect(address).unwrap())
        .collect();
    // Sends a header a byte at a time, never finishing it.
    let slow = std::thread::spawn(move || {
        let mut stream = TcpStream::connect(address).unwrap();
        let _ = stream.write_all(b"GET / HTTP/1.1\r\nX-Slow: ");
        let started = Instant::now();
        while started.elapsed() < Duration::from_secs(6) {
            if stream.write_all(b"s").is_err() {
                return started.elapsed();
            }
            std::thread::sleep(Duration::from_millis(100));
        }
        started.elapsed()
    });
    std::thread::sleep(Duration::from_millis(200));
    let asked = Instant::now();
    let page = get(address, "GET", "/");
    assert!(page.starts_with("HTTP/1.1 200 OK"), "{page}");
    assert!(
        asked.elapsed() < Duration::from_secs(1),
        "a normal request took {:?} beside 1,000 held connections",
        asked.elapsed()
    );
    // Past the timeouts, every held connection has been closed.
    for (i, stream) in idle.iter_mut().enumerate() {
        assert!(
            closed_within(stream, Duration::from_secs(5)),
            "held connection {i} is still open"
        );
    }
    let cut_after = slow.join().unwrap();
    assert!(
        cut_after < Duration::from_secs(5),
        "the slow client was served for {cut_after:?}"
    );
}
