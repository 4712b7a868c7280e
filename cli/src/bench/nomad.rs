//! The cluster-wide plan against the stand-in Nomad server: 10,000 jobs and 1,000,000 allocations, jobs per second and peak memory.

use crate::nomad_command::cluster::{plan_all, Totals};
use anyhow::{anyhow, Result};
use slotwise_host::ComponentReconciler;
use slotwise_nomad::endpoint::{Endpoint, Request};
use slotwise_nomad::http::{Http, Settings};
use slotwise_nomad::stand_in::{Options, Responses, StandIn};
use slotwise_reconciler::{Plan, ReconcileInput};
use std::sync::Arc;
use std::time::Instant;

const JOBS: usize = 10_000;
const ALLOCS_PER_JOB: usize = 100;
const NODES: usize = 1_000;
const SECOND: i64 = 1_000_000_000;
const NOW: i64 = 1_767_225_600 * SECOND;

/// A generated cluster: every job a service of one group of 100 in a
/// rolling update from version 0 to 1, its allocations spread over 1,000
/// nodes of which a few are down or draining; responses are made on
/// request, in the API's shape, so the server holds nothing.
struct Generated;

fn job_number(id: &str) -> Option<usize> {
    id.strip_prefix("job-")?.parse().ok()
}

fn job_json(j: usize, version: u64) -> String {
    let image = if version == 0 { "web:1.0" } else { "web:1.1" };
    format!(
        r#"{{"ID":"job-{j:05}","Name":"job-{j:05}","Namespace":"default","Type":"service","Priority":50,"Region":"global","Datacenters":["dc1"],"Status":"running","Stop":false,"Version":{version},"CreateIndex":10,"ModifyIndex":{m},"JobModifyIndex":{jm},"Meta":null,"Multiregion":null,"Constraints":null,"Update":{{"MaxParallel":10,"Stagger":30000000000}},"TaskGroups":[{{"Name":"web","Count":{ALLOCS_PER_JOB},"Update":{{"MaxParallel":10,"Canary":0,"AutoPromote":false,"AutoRevert":false,"ProgressDeadline":600000000000,"MinHealthyTime":10000000000,"HealthyDeadline":300000000000}},"ReschedulePolicy":{{"Attempts":0,"Interval":0,"Delay":30000000000,"DelayFunction":"exponential","MaxDelay":3600000000000,"Unlimited":true}},"EphemeralDisk":{{"SizeMB":300,"Sticky":false,"Migrate":false}},"Networks":[{{"Mode":"bridge","DynamicPorts":[{{"Label":"http","Value":0,"To":8080,"HostNetwork":"default"}}]}}],"Services":[{{"Name":"web","PortLabel":"http","Tags":["v{version}"],"Connect":null}}],"Tasks":[{{"Name":"server","Driver":"docker","Config":{{"image":"{image}","ports":["http"]}},"Env":{{"LOG_LEVEL":"info"}},"Resources":{{"CPU":500,"MemoryMB":256,"Networks":null}},"KillTimeout":5000000000,"LogConfig":{{"MaxFiles":10,"MaxFileSizeMB":10,"Disabled":false}},"Meta":null,"Templates":null,"Artifacts":null}}]}}]}}"#,
        m = 20 + version * 10,
        jm = 20 + version * 10,
    )
}

/// Allocation `i` of job `j`: 60% of version 0, 30% of version 1 placed by
/// the deployment, 5% failed, the rest pending; every fiftieth node is down
/// and every hundredth drains.
fn alloc_json(j: usize, i: usize) -> String {
    let mix = (i * 37 + j) % 100;
    let (version, client) = match mix {
        0..60 => (0, "running"),
        60..90 => (1, "running"),
        90..95 => (0, "failed"),
        _ => (1, "pending"),
    };
    let node = (j * 7 + i * 13) % NODES;
    let task_state = if client == "failed" {
        "dead"
    } else {
        "running"
    };
    let failed = client == "failed";
    let health = if version == 1 && client == "running" {
        r#"{"Healthy":true,"Timestamp":"2025-12-31T23:55:00Z","Canary":false,"ModifyIndex":40}"#
    } else {
        "null"
    };
    format!(
        r#"{{"ID":"{j:05}-{i:04}-4c2a-9b3d-000000000000","EvalID":"e-{j}","Name":"job-{j:05}.web[{i}]","Namespace":"default","NodeID":"node-{node:04}","NodeName":"client-{node}","JobID":"job-{j:05}","JobType":"service","JobVersion":{version},"TaskGroup":"web","AllocatedResources":{{"Tasks":{{"server":{{"Cpu":{{"CpuShares":500}},"Memory":{{"MemoryMB":256}}}}}},"Shared":{{"DiskMB":300}}}},"DesiredStatus":"run","DesiredDescription":"","ClientStatus":"{client}","ClientDescription":"","DesiredTransition":{{"Migrate":null,"Reschedule":null,"ForceReschedule":null}},"TaskStates":{{"server":{{"State":"{task_state}","Failed":{failed},"Restarts":0,"LastRestart":"0001-01-01T00:00:00Z","StartedAt":"2025-12-31T23:00:00Z","FinishedAt":"2025-12-31T23:58:00Z","Events":[{{"Type":"Started","Time":1767222000000000000}}]}}}},"DeploymentStatus":{health},"FollowupEvalID":"","NextAllocation":"","RescheduleTracker":null,"PreemptedAllocations":null,"PreemptedByAllocation":"","CreateIndex":{ci},"ModifyIndex":{ci},"CreateTime":1767222000000000000,"ModifyTime":1767225480000000000}}"#,
        ci = if version == 1 { 40 + i } else { 15 + i },
    )
}

fn node_json(n: usize) -> String {
    let status = if n % 50 == 7 { "down" } else { "ready" };
    let drain = if n % 100 == 3 {
        r#"{"Deadline":3600000000000,"IgnoreSystemJobs":false}"#
    } else {
        "null"
    };
    format!(
        r#"{{"ID":"node-{n:04}","Name":"client-{n}","Datacenter":"dc1","Status":"{status}","DrainStrategy":{drain},"SchedulingEligibility":"eligible","Meta":{{"zone":"z{z}"}},"Attributes":{{"kernel.name":"linux"}}}}"#,
        z = n % 3
    )
}

impl Responses for Generated {
    fn respond(&self, request: &Request) -> Option<Vec<u8>> {
        let text = match &request.endpoint {
            Endpoint::Jobs => {
                let stubs: Vec<String> = (0..JOBS)
                    .map(|j| format!(r#"{{"ID":"job-{j:05}","Namespace":"default","Type":"service","Status":"running"}}"#))
                    .collect();
                format!("[{}]", stubs.join(","))
            }
            Endpoint::Job(id) => job_json(job_number(id)?, 1),
            Endpoint::Versions(id) => {
                let j = job_number(id)?;
                format!(
                    r#"{{"Versions":[{},{}],"Diffs":null}}"#,
                    job_json(j, 1),
                    job_json(j, 0)
                )
            }
            Endpoint::Allocations(id) => {
                let j = job_number(id)?;
                let stubs: Vec<String> = (0..ALLOCS_PER_JOB).map(|i| alloc_json(j, i)).collect();
                format!("[{}]", stubs.join(","))
            }
            Endpoint::Deployment(id) => {
                let j = job_number(id)?;
                format!(
                    r#"{{"ID":"d-{j:05}","JobID":"job-{j:05}","JobVersion":1,"JobCreateIndex":10,"Status":"running","StatusDescription":"Deployment is running","CreateIndex":40,"TaskGroups":{{"web":{{"AutoRevert":false,"AutoPromote":false,"ProgressDeadline":600000000000,"Promoted":false,"PlacedCanaries":null,"DesiredCanaries":0,"DesiredTotal":{ALLOCS_PER_JOB},"PlacedAllocs":35,"HealthyAllocs":30,"UnhealthyAllocs":0}}}}}}"#
                )
            }
            Endpoint::Node(id) => node_json(id.strip_prefix("node-")?.parse().ok()?),
            Endpoint::Allocation(_) | Endpoint::Plan(_) => return None,
        };
        Some(text.into_bytes())
    }
}

/// Peak resident memory of this process so far, from Linux's
/// `/proc/self/status`; none elsewhere.
fn peak_memory() -> Option<u64> {
    let status = std::fs::read_to_string("/proc/self/status").ok()?;
    let line = status.lines().find(|l| l.starts_with("VmHWM:"))?;
    let kib: u64 = line.split_whitespace().nth(1)?.parse().ok()?;
    Some(kib * 1024)
}

/// Forgets the peak so far, so that the figure is this run's alone (Linux).
fn reset_peak_memory() {
    let _ = std::fs::write("/proc/self/clear_refs", "5");
}

/// Plans every job of the generated cluster through the stand-in server,
/// reconciling through `component`, and prints the figures.
pub fn run(component: &ComponentReconciler) -> Result<()> {
    println!("\nslotwise nomad plan --all: {JOBS} jobs, {} allocations on {NODES} nodes, against the stand-in server", JOBS * ALLOCS_PER_JOB);
    let server = StandIn::start(Arc::new(Generated), Options::default())?;
    let http = Http::new(Settings::new(&server.address()))?;
    let reconcile = |input: &ReconcileInput| -> std::result::Result<Plan, String> {
        match component.reconcile_core(input) {
            Ok(Ok(plan)) => Ok(plan),
            Ok(Err(e)) => Err(format!("{}: {}", e.field, e.message)),
            Err(e) => Err(e.to_string()),
        }
    };
    let jobs = slotwise_nomad::snapshot::list_jobs(&http, "default")?;
    reset_peak_memory();
    let started = Instant::now();
    let totals: Totals = plan_all(&http, &jobs, NOW, 8, &reconcile);
    let elapsed = started.elapsed();
    if let Some(e) = totals.errors.first() {
        return Err(anyhow!(
            "{} jobs failed; the first, {}: {}",
            totals.errors.len(),
            e.job,
            e.error
        ));
    }
    println!(
        "{} jobs, {} allocations in {:.1} s: {:.0} jobs/s, {:.0} allocations/s",
        totals.jobs,
        totals.allocations,
        elapsed.as_secs_f64(),
        totals.jobs as f64 / elapsed.as_secs_f64(),
        totals.allocations as f64 / elapsed.as_secs_f64()
    );
    let changes: Vec<String> = totals
        .changes
        .iter()
        .filter(|(_, n)| **n > 0)
        .map(|(kind, n)| format!("{kind} {n}"))
        .collect();
    println!("changes: {}", changes.join(" · "));
    match peak_memory() {
        Some(bytes) => println!(
            "peak memory (this process, the stand-in server included): {:.0} MiB",
            bytes as f64 / (1024.0 * 1024.0)
        ),
        None => println!("peak memory: not measured on this system"),
    }
    Ok(())
}
