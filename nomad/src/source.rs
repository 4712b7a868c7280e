//! Where responses come from: a Nomad cluster over HTTP, or a directory of saved responses; and how a call can fail.

use crate::endpoint::Request;
use serde::de::DeserializeOwned;
use std::path::PathBuf;

/// The largest response read unless told otherwise: 256 MiB, several times
/// what a job of 100,000 allocations lists.
pub const DEFAULT_RESPONSE_LIMIT: u64 = 256 << 20;

/// Why a call gave no usable answer. Every case names the call.
#[derive(Debug, thiserror::Error)]
pub enum FetchError {
    /// 401 or 403.
    #[error("{request}: permission denied (HTTP {status}): the ACL token is missing, invalid, or lacks a capability this needs")]
    Denied { request: String, status: u16 },
    /// 404.
    #[error("{request}: not found (HTTP 404){detail}")]
    NotFound { request: String, detail: String },
    /// Any other status that is not a success.
    #[error("{request}: HTTP {status}: {body}")]
    Status {
        request: String,
        status: u16,
        body: String,
    },
    /// Nothing listens, or the connection broke.
    #[error("{request}: cannot reach {address}: {cause}")]
    Connect {
        request: String,
        address: String,
        cause: String,
    },
    /// No complete answer in time.
    #[error("{request}: no answer within {seconds} s")]
    Timeout { request: String, seconds: u64 },
    /// The answer is larger than the limit.
    #[error("{request}: the response is larger than the limit of {limit} bytes")]
    TooLarge { request: String, limit: u64 },
    /// The answer is not the JSON expected.
    #[error("{request}: malformed response: {cause}")]
    Malformed { request: String, cause: String },
    /// A saved response cannot be read.
    #[error("{request}: cannot read {}: {cause}", path.display())]
    File {
        request: String,
        path: PathBuf,
        cause: String,
    },
    /// Anything else the transport reports (TLS, protocol).
    #[error("{request}: {cause}")]
    Transport { request: String, cause: String },
}

/// Answers calls to Nomad's API.
pub trait Source: Sync {
    /// The body of the answer to `request`.
    ///
    /// # Errors
    /// When there is no successful answer within the limits.
    fn fetch(&self, request: &Request) -> Result<Vec<u8>, FetchError>;
}

/// Calls `request` and reads its answer as `T`.
///
/// # Errors
/// As [`Source::fetch`], and when the body is not the JSON expected.
pub fn fetch_json<T: DeserializeOwned>(
    source: &dyn Source,
    request: &Request,
) -> Result<T, FetchError> {
    let body = source.fetch(request)?;
    let mut deserializer = serde_json::Deserializer::from_slice(&body);
    serde_path_to_error::deserialize(&mut deserializer).map_err(|e| FetchError::Malformed {
        request: request.to_string(),
        cause: if e.path().to_string() == "." {
            e.inner().to_string()
        } else {
            format!("at {}: {}", e.path(), e.inner())
        },
    })
}

/// Saved responses in a directory, laid out as [`Request::fixture_path`]
/// says: the same files the stand-in server serves.
pub struct Directory {
    root: PathBuf,
    limit: u64,
}

impl Directory {
    /// Responses saved under `root`.
    pub fn new(root: PathBuf) -> Self {
        Directory {
            root,
            limit: DEFAULT_RESPONSE_LIMIT,
        }
    }
}

impl Source for Directory {
    fn fetch(&self, request: &Request) -> Result<Vec<u8>, FetchError> {
        let path = self.root.join(request.fixture_path());
        let file_error = |cause: String| FetchError::File {
            request: request.to_string(),
            path: path.clone(),
            cause,
        };
        match std::fs::metadata(&path) {
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
                return Err(FetchError::NotFound {
                    request: request.to_string(),
                    detail: format!(": no saved response {}", path.display()),
                })
            }
            Err(e) => return Err(file_error(e.to_string())),
            Ok(meta) if meta.len() > self.limit => {
                return Err(FetchError::TooLarge {
                    request: request.to_string(),
                    limit: self.limit,
                })
            }
            Ok(_) => {}
        }
        std::fs::read(&path).map_err(|e| file_error(e.to_string()))
    }
}
