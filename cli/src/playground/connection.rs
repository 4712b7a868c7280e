//! One client connection's limits: its request line read first (414 past the limit), bytes that must keep moving (idle timeout), and a cap on connections that closes the oldest.

use super::ServerLimits;
use hyper::rt::{Read, ReadBufCursor, Write};
use hyper_util::rt::TokioIo;
use std::collections::VecDeque;
use std::future::Future;
use std::io;
use std::pin::Pin;
use std::sync::{Arc, Mutex};
use std::task::{Context, Poll};
use std::time::Duration;
use tokio::io::AsyncReadExt;
use tokio::net::TcpStream;
use tokio::sync::Notify;
use tokio::time::{sleep, Instant, Sleep};

/// How reading the request line ended.
pub enum FirstLine {
    /// The bytes read so far, holding the whole line.
    Read(Vec<u8>),
    /// The line is longer than the limit.
    TooLong,
    /// The client closed, sent nothing in time, or failed.
    Gone,
}

/// Reads the first request line of a connection, up to `limits.request_line`
/// bytes, within the header timeout.
///
/// hyper reads the request line and the headers into one buffer and answers
/// 431 when it fills, whatever filled it; the line is read here first so that
/// a line too long is answered 414.
pub async fn first_line(stream: &mut TcpStream, limits: &ServerLimits) -> FirstLine {
    let mut buf = Vec::with_capacity(1024);
    let deadline = Instant::now() + limits.header_timeout;
    let mut chunk = [0u8; 4096];
    loop {
        if buf.contains(&b'\n') {
            return FirstLine::Read(buf);
        }
        if buf.len() > limits.request_line {
            return FirstLine::TooLong;
        }
        let read = tokio::time::timeout_at(deadline, stream.read(&mut chunk)).await;
        match read {
            Ok(Ok(n)) if n > 0 => buf.extend_from_slice(&chunk[..n]),
            _ => return FirstLine::Gone,
        }
    }
}

/// A connection's stream as hyper reads it: the bytes already read first,
/// then the socket; failing with `TimedOut` once no byte has moved either way
/// for the idle timeout.
pub struct Guarded {
    read_first: Vec<u8>,
    offset: usize,
    io: TokioIo<TcpStream>,
    idle: Duration,
    timer: Pin<Box<Sleep>>,
}

impl Guarded {
    pub fn new(stream: TcpStream, read_first: Vec<u8>, idle: Duration) -> Self {
        Self {
            read_first,
            offset: 0,
            io: TokioIo::new(stream),
            idle,
            timer: Box::pin(sleep(idle)),
        }
    }

    fn moved(&mut self) {
        let idle = self.idle;
        self.timer.as_mut().reset(Instant::now() + idle);
    }

    fn expired(&mut self, cx: &mut Context<'_>) -> bool {
        self.timer.as_mut().poll(cx).is_ready()
    }
}

fn timed_out() -> io::Error {
    io::Error::new(io::ErrorKind::TimedOut, "idle connection closed")
}

impl Read for Guarded {
    fn poll_read(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        mut buf: ReadBufCursor<'_>,
    ) -> Poll<io::Result<()>> {
        if self.offset < self.read_first.len() {
            let rest = &self.read_first[self.offset..];
            let n = rest.len().min(buf.remaining());
            buf.put_slice(&rest[..n]);
            self.offset += n;
            if self.offset == self.read_first.len() {
                self.read_first = Vec::new();
                self.offset = 0;
            }
            self.moved();
            return Poll::Ready(Ok(()));
        }
        match Pin::new(&mut self.io).poll_read(cx, buf) {
            Poll::Ready(result) => {
                self.moved();
                Poll::Ready(result)
            }
            Poll::Pending if self.expired(cx) => Poll::Ready(Err(timed_out())),
            Poll::Pending => Poll::Pending,
        }
    }
}

impl Write for Guarded {
    fn poll_write(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &[u8],
    ) -> Poll<io::Result<usize>> {
        match Pin::new(&mut self.io).poll_write(cx, buf) {
            Poll::Ready(result) => {
                self.moved();
                Poll::Ready(result)
            }
            Poll::Pending if self.expired(cx) => Poll::Ready(Err(timed_out())),
            Poll::Pending => Poll::Pending,
        }
    }

    fn poll_flush(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        Pin::new(&mut self.io).poll_flush(cx)
    }

    fn poll_shutdown(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        Pin::new(&mut self.io).poll_shutdown(cx)
    }
}

/// The open connections, oldest first: at the cap, a new one closes the
/// oldest, so that held connections cannot lock clients out.
#[derive(Default)]
pub struct Registry {
    open: Mutex<VecDeque<(u64, Arc<Notify>)>>,
    next: Mutex<u64>,
}

/// A connection's place in the registry; leaves it when dropped.
pub struct Ticket {
    id: u64,
    registry: Arc<Registry>,
    /// Told when the connection must close.
    pub close: Arc<Notify>,
}

impl Registry {
    /// Registers a new connection, closing the oldest when `cap` are open.
    pub fn enter(self: &Arc<Self>, cap: usize) -> Ticket {
        let id = {
            let mut next = self.next.lock().unwrap_or_else(|p| p.into_inner());
            *next += 1;
            *next
        };
        let close = Arc::new(Notify::new());
        let mut open = self.open.lock().unwrap_or_else(|p| p.into_inner());
        while open.len() >= cap.max(1) {
            if let Some((_, oldest)) = open.pop_front() {
                oldest.notify_one();
            }
        }
        open.push_back((id, close.clone()));
        Ticket {
            id,
            registry: self.clone(),
            close,
        }
    }
}

impl Drop for Ticket {
    fn drop(&mut self) {
        let mut open = self.registry.open.lock().unwrap_or_else(|p| p.into_inner());
        open.retain(|(id, _)| *id != self.id);
    }
}
