//! The Nomad API endpoints slotwise calls: their URLs, and where a saved response of each lives in a fixture directory.

use std::fmt;

/// One endpoint, with the identifier it names.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub enum Endpoint {
    /// `GET /v1/jobs`: the jobs of the namespace (`*` for all).
    Jobs,
    /// `GET /v1/job/:id`.
    Job(String),
    /// `GET /v1/job/:id/versions`.
    Versions(String),
    /// `GET /v1/job/:id/allocations`: the list stubs.
    Allocations(String),
    /// `GET /v1/job/:id/deployment`: the latest deployment.
    Deployment(String),
    /// `PUT /v1/job/:id/plan`: Nomad's dry run of the job.
    Plan(String),
    /// `GET /v1/allocation/:id`: one allocation in full.
    Allocation(String),
    /// `GET /v1/node/:id`.
    Node(String),
}

/// A call: an endpoint in a namespace, with a body for the plan.
#[derive(Debug, Clone)]
pub struct Request {
    /// What is asked.
    pub endpoint: Endpoint,
    /// The namespace; nodes have none.
    pub namespace: String,
    /// The JSON body, for the plan.
    pub body: Option<Vec<u8>>,
}

/// Characters kept as they are in a path segment (RFC 3986 unreserved).
const SEGMENT: &percent_encoding::AsciiSet = &percent_encoding::NON_ALPHANUMERIC
    .remove(b'-')
    .remove(b'.')
    .remove(b'_')
    .remove(b'~');

fn segment(id: &str) -> String {
    percent_encoding::utf8_percent_encode(id, SEGMENT).to_string()
}

impl Endpoint {
    /// The HTTP method.
    pub fn method(&self) -> &'static str {
        match self {
            Endpoint::Plan(_) => "PUT",
            _ => "GET",
        }
    }

    /// The URL path, identifiers percent-encoded.
    pub fn path(&self) -> String {
        match self {
            Endpoint::Jobs => "/v1/jobs".to_string(),
            Endpoint::Job(id) => format!("/v1/job/{}", segment(id)),
            Endpoint::Versions(id) => format!("/v1/job/{}/versions", segment(id)),
            Endpoint::Allocations(id) => format!("/v1/job/{}/allocations", segment(id)),
            Endpoint::Deployment(id) => format!("/v1/job/{}/deployment", segment(id)),
            Endpoint::Plan(id) => format!("/v1/job/{}/plan", segment(id)),
            Endpoint::Allocation(id) => format!("/v1/allocation/{}", segment(id)),
            Endpoint::Node(id) => format!("/v1/node/{}", segment(id)),
        }
    }

    /// Whether the endpoint reads a namespace (nodes belong to none).
    pub fn namespaced(&self) -> bool {
        !matches!(self, Endpoint::Node(_))
    }

    /// The endpoint a URL path names, if it is one slotwise calls.
    pub fn from_path(path: &str) -> Option<Endpoint> {
        let decode = |s: &str| {
            percent_encoding::percent_decode_str(s)
                .decode_utf8()
                .ok()
                .map(|c| c.into_owned())
        };
        let parts: Vec<&str> = path.trim_start_matches('/').split('/').collect();
        match parts.as_slice() {
            ["v1", "jobs"] => Some(Endpoint::Jobs),
            ["v1", "job", id] => decode(id).map(Endpoint::Job),
            ["v1", "job", id, "versions"] => decode(id).map(Endpoint::Versions),
            ["v1", "job", id, "allocations"] => decode(id).map(Endpoint::Allocations),
            ["v1", "job", id, "deployment"] => decode(id).map(Endpoint::Deployment),
            ["v1", "job", id, "plan"] => decode(id).map(Endpoint::Plan),
            ["v1", "allocation", id] => decode(id).map(Endpoint::Allocation),
            ["v1", "node", id] => decode(id).map(Endpoint::Node),
            _ => None,
        }
    }
}

impl Request {
    /// A call of `endpoint` in `namespace`.
    pub fn new(endpoint: Endpoint, namespace: &str) -> Self {
        Request {
            endpoint,
            namespace: namespace.to_string(),
            body: None,
        }
    }

    /// Where a saved response to this call lives in a fixture directory: the
    /// URL path plus `.json`, under `namespace/<ns>/` outside the `default`
    /// namespace. `/v1/jobs` of all namespaces (`*`) is `v1/jobs.json`.
    pub fn fixture_path(&self) -> String {
        let file = format!("{}.json", self.endpoint.path().trim_start_matches('/'));
        let namespaced = self.endpoint.namespaced() && self.endpoint != Endpoint::Jobs;
        if namespaced && self.namespace != "default" && !self.namespace.is_empty() {
            format!("namespace/{}/{file}", segment(&self.namespace))
        } else {
            file
        }
    }
}

impl fmt::Display for Request {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} {}", self.endpoint.method(), self.endpoint.path())?;
        if self.endpoint.namespaced() && self.namespace != "default" {
            write!(f, "?namespace={}", self.namespace)?;
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn identifiers_are_encoded_in_paths_and_decoded_back() {
        let endpoint = Endpoint::Versions("web/api v2".into());
        assert_eq!(endpoint.path(), "/v1/job/web%2Fapi%20v2/versions");
        assert_eq!(Endpoint::from_path(&endpoint.path()), Some(endpoint));
    }

    #[test]
    fn fixtures_outside_the_default_namespace_sit_under_it() {
        let request = Request::new(Endpoint::Job("web".into()), "prod");
        assert_eq!(request.fixture_path(), "namespace/prod/v1/job/web.json");
        let node = Request::new(Endpoint::Node("n1".into()), "prod");
        assert_eq!(node.fixture_path(), "v1/node/n1.json");
    }
}
