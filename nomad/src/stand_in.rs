//! A stand-in Nomad API server on 127.0.0.1, for tests and the benchmark: it serves saved or generated responses, checks the ACL token, and can be told to fail.

use crate::endpoint::{Endpoint, Request};
use axum::body::{Body, Bytes};
use axum::extract::{Query, State};
use axum::http::{HeaderMap, Method, StatusCode, Uri};
use axum::response::{IntoResponse, Response};
use std::collections::HashMap;
use std::net::SocketAddr;
use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;

/// What the stand-in answers: the body for a call, or none for a 404.
pub trait Responses: Send + Sync + 'static {
    /// The JSON answer to `request`, or none when Nomad would not find it.
    fn respond(&self, request: &Request) -> Option<Vec<u8>>;
}

/// Responses saved as files, laid out as [`Request::fixture_path`] says.
pub struct Fixtures(pub PathBuf);

impl Responses for Fixtures {
    fn respond(&self, request: &Request) -> Option<Vec<u8>> {
        std::fs::read(self.0.join(request.fixture_path())).ok()
    }
}

/// A way to misbehave, for calls whose path contains a given text.
#[derive(Clone, Debug)]
pub enum Fault {
    /// Answer with this status and a short message.
    Status(u16),
    /// Wait this long before answering.
    Delay(Duration),
    /// Answer 200 with this body.
    Body(Vec<u8>),
}

/// How the stand-in behaves.
#[derive(Clone, Debug, Default)]
pub struct Options {
    /// The ACL token every call must carry; none lets any call through.
    pub token: Option<String>,
    /// Faults, by a text the call's path must contain; the first match wins.
    pub faults: Vec<(String, Fault)>,
    /// A PEM certificate chain and key: serve HTTPS instead of HTTP.
    pub tls: Option<(Vec<u8>, Vec<u8>)>,
}

/// A running stand-in; it stops when dropped.
pub struct StandIn {
    address: SocketAddr,
    tls: bool,
    handle: axum_server::Handle,
    thread: Option<std::thread::JoinHandle<()>>,
}

/// Why the stand-in could not start.
#[derive(Debug, thiserror::Error)]
#[error("the stand-in Nomad server could not start: {0}")]
pub struct StartError(String);

struct Shared {
    responses: Arc<dyn Responses>,
    options: Options,
}

impl StandIn {
    /// Starts serving `responses` on a free port of 127.0.0.1.
    ///
    /// # Errors
    /// When no runtime, port or TLS configuration can be had.
    pub fn start(responses: Arc<dyn Responses>, options: Options) -> Result<Self, StartError> {
        let runtime = tokio::runtime::Builder::new_multi_thread()
            .worker_threads(2)
            .enable_all()
            .build()
            .map_err(|e| StartError(e.to_string()))?;
        let handle = axum_server::Handle::new();
        let tls = options.tls.clone();
        let shared = Arc::new(Shared { responses, options });
        let app = axum::Router::new().fallback(answer).with_state(shared);
        let address: SocketAddr = ([127, 0, 0, 1], 0).into();
        let tls_config = match &tls {
            Some((cert, key)) => {
                // Several tests may start servers; only the first install counts.
                let _ = rustls::crypto::ring::default_provider().install_default();
                Some(
                    runtime
                        .block_on(axum_server::tls_rustls::RustlsConfig::from_pem(
                            cert.clone(),
                            key.clone(),
                        ))
                        .map_err(|e| StartError(e.to_string()))?,
                )
            }
            None => None,
        };
        let serving = handle.clone();
        let thread = std::thread::spawn(move || {
            runtime.block_on(async move {
                let service = app.into_make_service();
                let outcome = match tls_config {
                    Some(config) => {
                        axum_server::bind_rustls(address, config)
                            .handle(serving)
                            .serve(service)
                            .await
                    }
                    None => {
                        axum_server::bind(address)
                            .handle(serving)
                            .serve(service)
                            .await
                    }
                };
                if let Err(e) = outcome {
                    eprintln!("stand-in Nomad server stopped: {e}");
                }
            });
        });
        let waiting = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .map_err(|e| StartError(e.to_string()))?;
        let bound = waiting
            .block_on(handle.listening())
            .ok_or_else(|| StartError("the server did not bind 127.0.0.1".into()))?;
        Ok(StandIn {
            address: bound,
            tls: tls.is_some(),
            handle,
            thread: Some(thread),
        })
    }

    /// The address to give `--address`, like `http://127.0.0.1:41234`.
    pub fn address(&self) -> String {
        let scheme = if self.tls { "https" } else { "http" };
        format!("{scheme}://{}", self.address)
    }
}

impl Drop for StandIn {
    fn drop(&mut self) {
        self.handle.shutdown();
        if let Some(thread) = self.thread.take() {
            let _ = thread.join();
        }
    }
}

fn message(status: StatusCode, text: &str) -> Response {
    (status, text.to_string()).into_response()
}

async fn answer(
    State(shared): State<Arc<Shared>>,
    method: Method,
    uri: Uri,
    Query(query): Query<HashMap<String, String>>,
    headers: HeaderMap,
    body: Bytes,
) -> Response {
    let options = &shared.options;
    if let Some(token) = &options.token {
        let given = headers.get("X-Nomad-Token").and_then(|v| v.to_str().ok());
        if given != Some(token.as_str()) {
            return message(StatusCode::FORBIDDEN, "Permission denied");
        }
    }
    let path = uri.path();
    for (pattern, fault) in &options.faults {
        if path.contains(pattern.as_str()) {
            match fault {
                Fault::Status(code) => {
                    let status =
                        StatusCode::from_u16(*code).unwrap_or(StatusCode::INTERNAL_SERVER_ERROR);
                    return message(status, "rpc error: stand-in failure");
                }
                Fault::Delay(wait) => tokio::time::sleep(*wait).await,
                Fault::Body(bytes) => return Response::new(Body::from(bytes.clone())),
            }
        }
    }
    let Some(endpoint) = Endpoint::from_path(path) else {
        return message(StatusCode::NOT_FOUND, "Invalid URL");
    };
    let expected = if matches!(endpoint, Endpoint::Plan(_)) {
        Method::PUT
    } else {
        Method::GET
    };
    if method != expected && !(expected == Method::PUT && method == Method::POST) {
        return message(StatusCode::METHOD_NOT_ALLOWED, "Invalid method");
    }
    let namespace = query
        .get("namespace")
        .cloned()
        .unwrap_or_else(|| "default".into());
    let mut request = Request::new(endpoint.clone(), &namespace);
    if !body.is_empty() {
        request.body = Some(body.to_vec());
    }
    let responses = Arc::clone(&shared.responses);
    match tokio::task::spawn_blocking(move || responses.respond(&request)).await {
        Ok(Some(bytes)) => {
            let mut response = Response::new(Body::from(bytes));
            response.headers_mut().insert(
                "Content-Type",
                axum::http::HeaderValue::from_static("application/json"),
            );
            response
        }
        Ok(None) => {
            let what = match endpoint {
                Endpoint::Node(_) => "node not found",
                Endpoint::Allocation(_) => "alloc not found",
                _ => "job not found",
            };
            message(StatusCode::NOT_FOUND, what)
        }
        Err(_) => message(StatusCode::INTERNAL_SERVER_ERROR, "stand-in failure"),
    }
}
