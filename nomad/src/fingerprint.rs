//! Fingerprints of group definitions: which changes force a new allocation, after Nomad's rules, hashed stably.
//!
//! Nomad decides per allocation: an unchanged job (same `JobModifyIndex`) is
//! left alone; a change to one of the fields listed here replaces the
//! allocation; any other change is applied in place. slotwise takes the same
//! decision as data: the destructive fingerprint hashes a canonical form of
//! exactly these fields, the in-place fingerprint is the job version's
//! `JobModifyIndex`. `docs/nomad.md` lists the rules.

use serde_json::{Map, Value};
use sha2::{Digest, Sha256};
use std::collections::BTreeMap;

/// Group fields whose change replaces every allocation of the group.
const GROUP_FIELDS: &[&str] = &["EphemeralDisk", "Volumes"];

/// Task fields whose change replaces the allocation.
const TASK_FIELDS: &[&str] = &[
    "Driver",
    "User",
    "Config",
    "Env",
    "Artifacts",
    "Vault",
    "Secrets",
    "Templates",
    "CSIPluginConfig",
    "VolumeMounts",
    "Identity",
    "Identities",
];

/// Resource fields of a task whose change replaces the allocation; its
/// networks are compared apart.
const RESOURCE_FIELDS: &[&str] = &[
    "CPU",
    "Cores",
    "MemoryMB",
    "MemoryMaxMB",
    "Devices",
    "NUMA",
    "SecretsMB",
];

/// The destructive fingerprint of `group`, a task group as the API gives
/// it, in a job whose `Meta` is `job_meta`.
pub fn destructive(job_meta: &BTreeMap<String, String>, group: &Value) -> u64 {
    let mut form = Map::new();
    for field in GROUP_FIELDS {
        form.insert((*field).into(), pick(group, &[field]));
    }
    form.insert("Networks".into(), networks(&group["Networks"]));
    form.insert("Consul".into(), consul(&group["Consul"]));
    form.insert(
        "ConnectServices".into(),
        connect_services(&group["Services"]),
    );
    form.insert(
        "RenderTemplates".into(),
        pick(group, &["RestartPolicy", "RenderTemplates"]),
    );
    let group_meta = strings(&group["Meta"]);
    let mut tasks = Map::new();
    for task in group["Tasks"].as_array().map(Vec::as_slice).unwrap_or(&[]) {
        let name = task["Name"].as_str().unwrap_or_default().to_string();
        tasks.insert(name, task_form(job_meta, &group_meta, task));
    }
    // The count of tasks and their names are part of the form through the
    // map's keys; a deleted or renamed task changes it.
    form.insert("Tasks".into(), Value::Object(tasks));
    hash(&Value::Object(form))
}

fn task_form(
    job_meta: &BTreeMap<String, String>,
    group_meta: &BTreeMap<String, String>,
    task: &Value,
) -> Value {
    let mut form = Map::new();
    for field in TASK_FIELDS {
        form.insert((*field).into(), pick(task, &[field]));
    }
    form.insert("Consul".into(), consul(&task["Consul"]));
    // What the task sees as its meta: the job's, the group's over it, the
    // task's over both.
    let mut meta = job_meta.clone();
    meta.extend(group_meta.clone());
    meta.extend(strings(&task["Meta"]));
    form.insert(
        "Meta".into(),
        Value::Object(
            meta.into_iter()
                .map(|(k, v)| (k, Value::String(v)))
                .collect(),
        ),
    );
    let resources = &task["Resources"];
    for field in RESOURCE_FIELDS {
        form.insert(format!("Resources.{field}"), pick(resources, &[field]));
    }
    form.insert(
        "Resources.Networks".into(),
        networks(&resources["Networks"]),
    );
    form.insert(
        "LogConfig.Disabled".into(),
        pick(task, &["LogConfig", "Disabled"]),
    );
    form.insert(
        "RenderTemplates".into(),
        pick(task, &["RestartPolicy", "RenderTemplates"]),
    );
    Value::Object(form)
}

/// The value at `path`, or null.
fn pick(value: &Value, path: &[&str]) -> Value {
    path.iter()
        .try_fold(value, |v, key| v.get(key))
        .cloned()
        .unwrap_or(Value::Null)
}

fn strings(value: &Value) -> BTreeMap<String, String> {
    value
        .as_object()
        .map(|m| {
            m.iter()
                .map(|(k, v)| (k.clone(), v.as_str().unwrap_or_default().to_string()))
                .collect()
        })
        .unwrap_or_default()
}

/// The parts of networks Nomad compares: mode, bandwidth, hostname, DNS,
/// CNI, and the ports, dynamic ones without the value they were given.
fn networks(value: &Value) -> Value {
    let port = |p: &Value, with_value: bool| {
        let mut form = Map::new();
        for field in ["Label", "To", "HostNetwork"] {
            form.insert(field.into(), pick(p, &[field]));
        }
        if with_value {
            form.insert("Value".into(), pick(p, &["Value"]));
        }
        Value::Object(form)
    };
    let ports = |v: &Value, with_value: bool| {
        Value::Array(
            v.as_array()
                .map(Vec::as_slice)
                .unwrap_or(&[])
                .iter()
                .map(|p| port(p, with_value))
                .collect(),
        )
    };
    Value::Array(
        value
            .as_array()
            .map(Vec::as_slice)
            .unwrap_or(&[])
            .iter()
            .map(|n| {
                let mut form = Map::new();
                for field in ["Mode", "MBits", "Hostname", "DNS", "CNI"] {
                    form.insert(field.into(), pick(n, &[field]));
                }
                form.insert("ReservedPorts".into(), ports(&n["ReservedPorts"], true));
                form.insert("DynamicPorts".into(), ports(&n["DynamicPorts"], false));
                Value::Object(form)
            })
            .collect(),
    )
}

/// A Consul block's namespace, cluster and partition.
fn consul(value: &Value) -> Value {
    if value.is_null() {
        return Value::Null;
    }
    let mut form = Map::new();
    for field in ["Namespace", "Cluster", "Partition"] {
        form.insert(field.into(), pick(value, &[field]));
    }
    Value::Object(form)
}

/// Of the services with a Connect block: the parts that need the task
/// recreated (native, gateway, sidecar task, sidecar port), the port label
/// and the cluster.
fn connect_services(value: &Value) -> Value {
    let mut services = Map::new();
    for service in value.as_array().map(Vec::as_slice).unwrap_or(&[]) {
        let connect = &service["Connect"];
        if connect.is_null() {
            continue;
        }
        let mut form = Map::new();
        form.insert("Native".into(), pick(connect, &["Native"]));
        form.insert("Gateway".into(), pick(connect, &["Gateway"]));
        form.insert("SidecarTask".into(), pick(connect, &["SidecarTask"]));
        let sidecar = &connect["SidecarService"];
        form.insert(
            "SidecarService".into(),
            if sidecar.is_null() {
                Value::Null
            } else {
                pick(sidecar, &["Port"])
            },
        );
        form.insert("PortLabel".into(), pick(service, &["PortLabel"]));
        form.insert("Cluster".into(), pick(service, &["Cluster"]));
        let name = service["Name"].as_str().unwrap_or_default().to_string();
        services.insert(name, Value::Object(form));
    }
    Value::Object(services)
}

/// A stable 64-bit hash of the canonical text of `value` (keys sorted, empty
/// collections written as null, since Go compares a missing map or list
/// equal to an empty one): the first 8 bytes of its SHA-256, big-endian.
pub fn hash(value: &Value) -> u64 {
    let mut text = String::new();
    canonical(value, &mut text);
    let digest = Sha256::digest(text.as_bytes());
    let mut first = [0u8; 8];
    first.copy_from_slice(&digest[..8]);
    u64::from_be_bytes(first)
}

fn canonical(value: &Value, out: &mut String) {
    match value {
        Value::Array(items) if items.is_empty() => out.push_str("null"),
        Value::Object(map) if map.is_empty() => out.push_str("null"),
        Value::Array(items) => {
            out.push('[');
            for (i, item) in items.iter().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                canonical(item, out);
            }
            out.push(']');
        }
        Value::Object(map) => {
            let sorted: BTreeMap<&String, &Value> = map.iter().collect();
            out.push('{');
            for (i, (key, item)) in sorted.into_iter().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                out.push_str(&Value::String(key.clone()).to_string());
                out.push(':');
                canonical(item, out);
            }
            out.push('}');
        }
        other => out.push_str(&other.to_string()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn group(change: impl FnOnce(&mut Value)) -> u64 {
        let mut g = json!({
            "Name": "web",
            "Count": 3,
            "Networks": [{"Mode": "bridge", "DynamicPorts": [{"Label": "http", "Value": 23456, "To": 8080}]}],
            "Services": [{"Name": "web", "PortLabel": "http", "Tags": ["a"]}],
            "Tasks": [{
                "Name": "server",
                "Driver": "docker",
                "Config": {"image": "web:1", "ports": ["http"]},
                "Env": {"MODE": "prod"},
                "Resources": {"CPU": 500, "MemoryMB": 256},
                "KillTimeout": 5000000000u64,
                "Meta": null
            }]
        });
        change(&mut g);
        destructive(&BTreeMap::new(), &g)
    }

    #[test]
    fn a_change_of_image_env_or_resources_is_destructive() {
        let base = group(|_| {});
        assert_ne!(
            base,
            group(|g| g["Tasks"][0]["Config"]["image"] = json!("web:2"))
        );
        assert_ne!(base, group(|g| g["Tasks"][0]["Env"]["MODE"] = json!("dev")));
        assert_ne!(
            base,
            group(|g| g["Tasks"][0]["Resources"]["CPU"] = json!(600))
        );
        assert_ne!(base, group(|g| g["Tasks"][0]["Driver"] = json!("exec")));
    }

    #[test]
    fn count_kill_timeout_service_tags_and_dynamic_port_values_are_not() {
        let base = group(|_| {});
        assert_eq!(base, group(|g| g["Count"] = json!(5)));
        assert_eq!(base, group(|g| g["Tasks"][0]["KillTimeout"] = json!(1)));
        assert_eq!(base, group(|g| g["Services"][0]["Tags"] = json!(["b"])));
        assert_eq!(
            base,
            group(|g| g["Networks"][0]["DynamicPorts"][0]["Value"] = json!(31000))
        );
    }

    #[test]
    fn missing_and_empty_collections_hash_alike() {
        assert_eq!(
            group(|g| g["Tasks"][0]["Env"] = json!({})),
            group(|g| g["Tasks"][0]["Env"] = Value::Null)
        );
    }

    #[test]
    fn job_meta_reaches_the_tasks() {
        let g = json!({"Name": "web", "Tasks": [{"Name": "t"}]});
        let a = destructive(&BTreeMap::from([("v".into(), "1".into())]), &g);
        let b = destructive(&BTreeMap::from([("v".into(), "2".into())]), &g);
        assert_ne!(a, b);
    }

    #[test]
    fn the_hash_is_stable_across_runs_and_hosts() {
        // SHA-256 of `{"a":null,"b":[1,2]}`, first 8 bytes, big-endian, as
        // any other implementation computes it: saved fingerprints never move.
        assert_eq!(
            hash(&json!({"b": [1, 2], "a": null})),
            0xee74_3f2f_a257_0a1b
        );
    }
}
