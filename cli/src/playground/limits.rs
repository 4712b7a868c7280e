//! What one client may hold of the playground server: time, connections and request sizes.

use std::time::Duration;

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
