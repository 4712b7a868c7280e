//! Nomad's HTTP API through `ureq` with rustls: the connection settings Nomad's own command reads, the ACL token kept out of every message.

use crate::endpoint::Request;
use crate::source::{FetchError, Source, DEFAULT_RESPONSE_LIMIT};
use std::fmt;
use std::path::PathBuf;
use std::time::Duration;
use ureq::tls::{Certificate, ClientCert, PrivateKey, RootCerts, TlsConfig};

/// Nomad's default address.
pub const DEFAULT_ADDRESS: &str = "http://127.0.0.1:4646";

/// An ACL token. It is sent as `X-Nomad-Token` and shown nowhere: it has no
/// `Display`, and its `Debug` hides it.
#[derive(Clone)]
pub struct Token(String);

impl Token {
    /// A token; an empty one is no token.
    pub fn new(secret: String) -> Option<Self> {
        (!secret.is_empty()).then_some(Token(secret))
    }
}

impl fmt::Debug for Token {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("Token(<hidden>)")
    }
}

/// TLS files and switches, as `NOMAD_CACERT`, `NOMAD_CLIENT_CERT`,
/// `NOMAD_CLIENT_KEY` and `NOMAD_SKIP_VERIFY` give them.
#[derive(Debug, Clone, Default)]
pub struct Tls {
    /// PEM certificates of the authorities to trust, instead of the web's.
    pub ca_cert: Option<PathBuf>,
    /// The client's PEM certificate chain, for mutual TLS.
    pub client_cert: Option<PathBuf>,
    /// The client's PEM private key.
    pub client_key: Option<PathBuf>,
    /// Accept any server certificate.
    pub skip_verify: bool,
}

/// How to reach the cluster.
#[derive(Debug, Clone)]
pub struct Settings {
    /// Like `http://127.0.0.1:4646`.
    pub address: String,
    /// The ACL token, if any.
    pub token: Option<Token>,
    /// The region to ask, when not the agent's own.
    pub region: Option<String>,
    /// TLS settings.
    pub tls: Tls,
    /// How long one call may take, connection included.
    pub timeout: Duration,
    /// The largest response body read.
    pub response_limit: u64,
}

impl Settings {
    /// Settings for `address`, with no token and the default limits.
    pub fn new(address: &str) -> Self {
        Settings {
            address: address.trim_end_matches('/').to_string(),
            token: None,
            region: None,
            tls: Tls::default(),
            timeout: Duration::from_secs(30),
            response_limit: DEFAULT_RESPONSE_LIMIT,
        }
    }
}

/// Settings that cannot be used.
#[derive(Debug, thiserror::Error)]
pub enum SettingsError {
    /// A TLS file cannot be read or holds no usable PEM item.
    #[error("{what} {}: {cause}", path.display())]
    TlsFile {
        what: &'static str,
        path: PathBuf,
        cause: String,
    },
    /// A client certificate without its key, or the reverse.
    #[error(
        "a client certificate needs its key (NOMAD_CLIENT_CERT and NOMAD_CLIENT_KEY together)"
    )]
    HalfClientCert,
    /// Not an http or https URL.
    #[error("address {0:?}: expected http://host:port or https://host:port")]
    Address(String),
}

/// A Nomad cluster over HTTP. One agent, and so one connection pool, is
/// shared by every thread that calls.
pub struct Http {
    agent: ureq::Agent,
    settings: Settings,
}

fn read_pem(what: &'static str, path: &PathBuf) -> Result<Vec<u8>, SettingsError> {
    std::fs::read(path).map_err(|e| SettingsError::TlsFile {
        what,
        path: path.clone(),
        cause: e.to_string(),
    })
}

/// The certificates in a PEM file, other items passed over.
fn certificates(pem: &[u8]) -> Vec<Certificate<'static>> {
    ureq::tls::parse_pem(pem)
        .filter_map(|item| match item {
            Ok(ureq::tls::PemItem::Certificate(c)) => Some(c),
            _ => None,
        })
        .collect()
}

fn tls_config(tls: &Tls) -> Result<TlsConfig, SettingsError> {
    let mut builder = TlsConfig::builder().disable_verification(tls.skip_verify);
    if let Some(path) = &tls.ca_cert {
        let pem = read_pem("CA certificate", path)?;
        let certs = certificates(&pem);
        if certs.is_empty() {
            return Err(SettingsError::TlsFile {
                what: "CA certificate",
                path: path.clone(),
                cause: "no PEM certificate in it".into(),
            });
        }
        builder = builder.root_certs(RootCerts::new_with_certs(&certs));
    }
    match (&tls.client_cert, &tls.client_key) {
        (None, None) => {}
        (Some(cert_path), Some(key_path)) => {
            let pem = read_pem("client certificate", cert_path)?;
            let chain = certificates(&pem);
            let key_pem = read_pem("client key", key_path)?;
            let key = PrivateKey::from_pem(&key_pem).map_err(|e| SettingsError::TlsFile {
                what: "client key",
                path: key_path.clone(),
                cause: e.to_string(),
            })?;
            builder = builder.client_cert(Some(ClientCert::new_with_certs(&chain, key)));
        }
        _ => return Err(SettingsError::HalfClientCert),
    }
    Ok(builder.build())
}

impl Http {
    /// A client for the cluster `settings` describe.
    ///
    /// # Errors
    /// When the address is not an HTTP URL or a TLS file is unusable.
    pub fn new(settings: Settings) -> Result<Self, SettingsError> {
        if !(settings.address.starts_with("http://") || settings.address.starts_with("https://")) {
            return Err(SettingsError::Address(settings.address.clone()));
        }
        let config = ureq::Agent::config_builder()
            .http_status_as_error(false)
            // Nomad's API does not redirect; following one would send the
            // token to wherever it points.
            .max_redirects(0)
            .timeout_global(Some(settings.timeout))
            .tls_config(tls_config(&settings.tls)?)
            .build();
        Ok(Http {
            agent: config.new_agent(),
            settings,
        })
    }

    fn url(&self, request: &Request) -> String {
        let mut query = Vec::new();
        if request.endpoint.namespaced() {
            query.push(format!(
                "namespace={}",
                percent_encoding::utf8_percent_encode(
                    &request.namespace,
                    percent_encoding::NON_ALPHANUMERIC
                )
            ));
        }
        if let Some(region) = &self.settings.region {
            query.push(format!(
                "region={}",
                percent_encoding::utf8_percent_encode(region, percent_encoding::NON_ALPHANUMERIC)
            ));
        }
        let mut url = format!("{}{}", self.settings.address, request.endpoint.path());
        if !query.is_empty() {
            url.push('?');
            url.push_str(&query.join("&"));
        }
        url
    }

    /// A message from the transport, with the token removed should it ever
    /// appear in one.
    fn redact(&self, text: String) -> String {
        match &self.settings.token {
            Some(Token(secret)) => text.replace(secret.as_str(), "<token>"),
            None => text,
        }
    }

    fn transport_error(&self, request: &Request, error: ureq::Error) -> FetchError {
        let name = request.to_string();
        match error {
            ureq::Error::Timeout(_) => FetchError::Timeout {
                request: name,
                seconds: self.settings.timeout.as_secs().max(1),
            },
            ureq::Error::BodyExceedsLimit(_) => FetchError::TooLarge {
                request: name,
                limit: self.settings.response_limit,
            },
            ureq::Error::Io(e) if e.kind() == std::io::ErrorKind::TimedOut => FetchError::Timeout {
                request: name,
                seconds: self.settings.timeout.as_secs().max(1),
            },
            e
            @ (ureq::Error::Io(_) | ureq::Error::ConnectionFailed | ureq::Error::HostNotFound) => {
                FetchError::Connect {
                    request: name,
                    address: self.settings.address.clone(),
                    cause: self.redact(e.to_string()),
                }
            }
            e => FetchError::Transport {
                request: name,
                cause: self.redact(e.to_string()),
            },
        }
    }
}

impl Source for Http {
    fn fetch(&self, request: &Request) -> Result<Vec<u8>, FetchError> {
        let url = self.url(request);
        let token = self.settings.token.as_ref().map(|Token(t)| t.as_str());
        let response = match &request.body {
            Some(body) => {
                let mut call = self
                    .agent
                    .put(&url)
                    .header("Content-Type", "application/json");
                if let Some(token) = token {
                    call = call.header("X-Nomad-Token", token);
                }
                call.send(&body[..])
            }
            None => {
                let mut call = self.agent.get(&url);
                if let Some(token) = token {
                    call = call.header("X-Nomad-Token", token);
                }
                call.call()
            }
        };
        let mut response = response.map_err(|e| self.transport_error(request, e))?;
        let status = response.status().as_u16();
        let body = response
            .body_mut()
            .with_config()
            .limit(self.settings.response_limit)
            .read_to_vec()
            .map_err(|e| self.transport_error(request, e))?;
        let name = request.to_string();
        match status {
            200..=299 => Ok(body),
            401 | 403 => Err(FetchError::Denied {
                request: name,
                status,
            }),
            404 => Err(FetchError::NotFound {
                request: name,
                detail: String::new(),
            }),
            _ => {
                let text = String::from_utf8_lossy(&body);
                let mut text: String = text.trim().chars().take(300).collect();
                if text.is_empty() {
                    text = "(no message)".into();
                }
                Err(FetchError::Status {
                    request: name,
                    status,
                    body: self.redact(text),
                })
            }
        }
    }
}
