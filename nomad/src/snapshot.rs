//! Everything the reconciler needs of one job, gathered from the API: the job, its versions, its allocations (in full where the list lacks a field that matters), their nodes and the latest deployment.

use crate::api;
use crate::endpoint::{Endpoint, Request};
use crate::source::{fetch_json, FetchError, Source};
use std::collections::{BTreeMap, BTreeSet, HashMap};
use std::sync::Mutex;

/// The API's answers about one job.
#[derive(Debug, Clone)]
pub struct JobSnapshot {
    /// The job's namespace.
    pub namespace: String,
    /// The job as registered now.
    pub job: api::Job,
    /// The same, as the API gave it: what Nomad's plan endpoint is sent.
    pub job_json: serde_json::Value,
    /// Its versions, newest first, as Nomad lists them.
    pub versions: Vec<api::Job>,
    /// Its allocations: list stubs, replaced by the full allocation where
    /// [`needs_full`] says so.
    pub allocations: Vec<api::Allocation>,
    /// The nodes the allocations name; none for a node Nomad no longer knows.
    pub nodes: BTreeMap<String, Option<api::Node>>,
    /// The latest deployment, if any.
    pub deployment: Option<api::Deployment>,
}

/// Nodes already read, shared by the jobs of one run: many jobs share nodes.
#[derive(Default)]
pub struct NodeCache(Mutex<HashMap<String, Option<api::Node>>>);

impl NodeCache {
    fn get(&self, source: &dyn Source, id: &str) -> Result<Option<api::Node>, FetchError> {
        if let Some(node) = self.lock().get(id) {
            return Ok(node.clone());
        }
        let request = Request::new(Endpoint::Node(id.to_string()), "default");
        let node = match fetch_json::<api::Node>(source, &request) {
            Ok(node) => Some(node),
            // A node garbage-collected since: its status is unknown.
            Err(FetchError::NotFound { .. }) => None,
            Err(e) => return Err(e),
        };
        self.lock().insert(id.to_string(), node.clone());
        Ok(node)
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, HashMap<String, Option<api::Node>>> {
        // A panic elsewhere cannot leave the map half-written: inserts are
        // single calls.
        self.0
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    }
}

/// Whether the list stub of `alloc` lacks something the reconciler reads,
/// so that the full allocation must be fetched: its history of client
/// statuses (unknown or lost allocations, and any with a follow-up
/// evaluation, which a disconnect leaves), its placement score and the
/// allocation it replaced (allocations in a replacement chain, for the
/// reconnect picker), the job it was made from (a version no longer listed),
/// or its deployment (a canary not of the latest deployment).
pub fn needs_full(
    alloc: &api::Allocation,
    versions: &BTreeSet<u64>,
    deployment: Option<&api::Deployment>,
) -> bool {
    let canary_elsewhere = alloc.deployment_status.as_ref().is_some_and(|s| s.canary)
        && deployment.is_none_or(|d| !placed_by(alloc, d));
    matches!(alloc.client_status.as_str(), "unknown" | "lost")
        || !alloc.followup_eval_id.is_empty()
        || !alloc.next_allocation.is_empty()
        || alloc.job_version.is_none_or(|v| !versions.contains(&v))
        || canary_elsewhere
}

/// Whether `deployment` placed `alloc`, as far as a list stub tells: a
/// canary it lists, or an allocation of its job version created with it or
/// after (Nomad writes a deployment and its first placements in one plan).
pub fn placed_by(alloc: &api::Allocation, deployment: &api::Deployment) -> bool {
    if let Some(id) = &alloc.deployment_id {
        return *id == deployment.id;
    }
    let canary = deployment
        .task_groups
        .get(&alloc.task_group)
        .is_some_and(|g| g.placed_canaries.contains(&alloc.id));
    canary
        || (alloc.job_version == Some(deployment.job_version)
            && alloc.create_index >= deployment.create_index)
}

/// The jobs of `namespace` (`*` for every namespace), sorted.
///
/// # Errors
/// When the list cannot be read.
pub fn list_jobs(
    source: &dyn Source,
    namespace: &str,
) -> Result<Vec<(String, String)>, FetchError> {
    let request = Request::new(Endpoint::Jobs, namespace);
    let stubs: Vec<api::JobListStub> = fetch_json(source, &request)?;
    let mut jobs: Vec<(String, String)> = stubs
        .into_iter()
        .map(|s| {
            let ns = if s.namespace.is_empty() {
                "default".to_string()
            } else {
                s.namespace
            };
            (ns, s.id)
        })
        .filter(|(ns, _)| namespace == "*" || ns == namespace)
        .collect();
    jobs.sort();
    jobs.dedup();
    Ok(jobs)
}

impl JobSnapshot {
    /// Reads what the reconciler needs of job `job_id` in `namespace`.
    ///
    /// # Errors
    /// The first call that fails; nothing is returned in part.
    pub fn fetch(
        source: &dyn Source,
        namespace: &str,
        job_id: &str,
        nodes: &NodeCache,
    ) -> Result<Self, FetchError> {
        let call = |endpoint: Endpoint| Request::new(endpoint, namespace);
        let id = job_id.to_string();
        let job_request = call(Endpoint::Job(id.clone()));
        let job_json: serde_json::Value = fetch_json(source, &job_request)?;
        let job: api::Job =
            serde_json::from_value(job_json.clone()).map_err(|e| FetchError::Malformed {
                request: job_request.to_string(),
                cause: e.to_string(),
            })?;
        let versions: api::JobVersions = fetch_json(source, &call(Endpoint::Versions(id.clone())))?;
        let mut allocations: Vec<api::Allocation> =
            fetch_json(source, &call(Endpoint::Allocations(id.clone())))?;
        let deployment: Option<api::Deployment> =
            fetch_json(source, &call(Endpoint::Deployment(id)))?;

        let mut known: BTreeSet<u64> = versions.versions.iter().map(|v| v.version).collect();
        known.insert(job.version);
        let mut full: BTreeSet<String> = BTreeSet::new();
        for alloc in &allocations {
            if needs_full(alloc, &known, deployment.as_ref()) {
                full.insert(alloc.id.clone());
                // The replacement is weighed against the original when the
                // original's client comes back.
                if !alloc.next_allocation.is_empty() {
                    full.insert(alloc.next_allocation.clone());
                }
            }
        }
        for alloc in &mut allocations {
            if full.contains(&alloc.id) {
                let request = call(Endpoint::Allocation(alloc.id.clone()));
                *alloc = fetch_json(source, &request)?;
            }
        }
        let mut node_map = BTreeMap::new();
        for alloc in &allocations {
            if !node_map.contains_key(&alloc.node_id) {
                let node = if alloc.node_id.is_empty() {
                    None
                } else {
                    nodes.get(source, &alloc.node_id)?
                };
                node_map.insert(alloc.node_id.clone(), node);
            }
        }
        Ok(JobSnapshot {
            namespace: namespace.to_string(),
            job,
            job_json,
            versions: versions.versions,
            allocations,
            nodes: node_map,
            deployment,
        })
    }
}
