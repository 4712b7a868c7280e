//! The circle check: no two files import each other, directly or around a circle, in any crate of the workspace or in its TypeScript and JavaScript; and the layers import only downwards.
//!
//! Rust crates are read with `syn` and followed through re-exports (see
//! `circles/rust.rs`); scripts by their relative import specifiers. The
//! layers between crates are read from `cargo metadata`: each crate may
//! depend only on the slotwise crates below it.

mod graph;
mod rust;
mod typescript;

use crate::run::Workspace;
use anyhow::{bail, Context, Result};
use graph::Graph;
use std::path::{Path, PathBuf};

/// Folders of scripts, checked as one graph so that imports between them count.
const SCRIPT_FOLDERS: &[&str] = &["playground", "tests/node", "plugins"];

/// Which slotwise crates each may depend on: the layers, bottom up. A
/// crate not listed (a plugin, the tests, xtask) may depend on any.
const LAYERS: &[(&str, &[&str])] = &[
    ("slotwise-reconciler", &[]),
    ("slotwise-host", &["slotwise-reconciler"]),
    ("slotwise-scenario", &["slotwise-reconciler"]),
    (
        "slotwise-cli",
        &["slotwise-reconciler", "slotwise-host", "slotwise-scenario"],
    ),
];

/// Script folders that must not import from the other folders named.
const SCRIPT_LAYERS: &[(&str, &str)] = &[("playground/", "tests/")];

/// Runs every check on the workspace; fails listing each circle and each
/// import against the layers.
///
/// # Errors
/// When there is a circle or an import against the layers, or the
/// workspace cannot be read.
pub fn check(ws: &Workspace) -> Result<()> {
    check_showing(ws, false)
}

/// As [`check`]; with `show`, first prints every import found, with what
/// it names, to see why files import each other.
///
/// # Errors
/// As [`check`].
pub fn check_showing(ws: &Workspace, show: bool) -> Result<()> {
    let root = ws
        .root
        .canonicalize()
        .context("cannot find the workspace")?;
    let metadata = metadata(&root)?;
    let mut problems = Vec::new();
    let mut crates = 0;
    for (package, dependencies, targets) in &metadata {
        problems.extend(layer_problems(package, dependencies));
        let mut graph = Graph::default();
        for target in targets {
            rust::add_crate(&mut graph, target, &root)?;
        }
        if show {
            print_imports(&graph);
        }
        problems.extend(circle_problems(&graph));
        crates += 1;
    }
    let mut scripts = Graph::default();
    for folder in SCRIPT_FOLDERS {
        let dir = root.join(folder);
        if dir.is_dir() {
            typescript::add_folder(&mut scripts, &dir, &root)?;
        }
    }
    if show {
        print_imports(&scripts);
    }
    problems.extend(circle_problems(&scripts));
    for (from, to) in scripts.imports_by_name() {
        for (layer, forbidden) in SCRIPT_LAYERS {
            if from.starts_with(layer) && to.starts_with(forbidden) {
                problems.push(format!(
                    "{from} imports {to}: {layer} never imports from {forbidden}"
                ));
            }
        }
    }
    if !problems.is_empty() {
        bail!(
            "{} problem(s) with imports:\n  {}",
            problems.len(),
            problems.join("\n  ")
        );
    }
    println!(
        "no circles: {crates} crates and {} script files; every crate imports only the layers below it",
        scripts.names().len()
    );
    Ok(())
}

fn print_imports(graph: &Graph) {
    for (from, to) in graph.imports_by_name() {
        println!("{from} -> {to} ({})", graph.why(from, to).unwrap_or("?"));
    }
}

fn circle_problems(graph: &Graph) -> Vec<String> {
    graph
        .tangles()
        .into_iter()
        .map(|(circle, files)| {
            let more = match files + 1 - circle.len() {
                0 => String::new(),
                n => format!(" ({n} more files import each other with these)"),
            };
            let mut steps = vec![circle[0].clone()];
            for pair in circle.windows(2) {
                let why = graph.why(&pair[0], &pair[1]).unwrap_or("?");
                steps.push(format!("{} (names {why})", pair[1]));
            }
            format!("circle: {}{more}", steps.join(" -> "))
        })
        .collect()
}

fn layer_problems(package: &str, dependencies: &[String]) -> Vec<String> {
    let Some((_, allowed)) = LAYERS.iter().find(|(p, _)| *p == package) else {
        return Vec::new();
    };
    let layered: Vec<&str> = LAYERS.iter().map(|(p, _)| *p).collect();
    dependencies
        .iter()
        .filter(|d| layered.contains(&d.as_str()) && !allowed.contains(&d.as_str()))
        .map(|d| format!("{package} depends on {d}, a layer above it or beside it"))
        .collect()
}

/// Per workspace package: its name, the names of its normal dependencies,
/// and the main files of its Rust targets.
type Package = (String, Vec<String>, Vec<PathBuf>);

fn metadata(root: &Path) -> Result<Vec<Package>> {
    let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".into());
    let output = std::process::Command::new(cargo)
        .args([
            "metadata",
            "--no-deps",
            "--format-version",
            "1",
            "--offline",
        ])
        .current_dir(root)
        .output()
        .context("cannot run cargo metadata")?;
    if !output.status.success() {
        bail!(
            "cargo metadata failed: {}",
            String::from_utf8_lossy(&output.stderr)
        );
    }
    let json: serde_json::Value =
        serde_json::from_slice(&output.stdout).context("cargo metadata's output")?;
    let mut packages = Vec::new();
    for p in json["packages"].as_array().into_iter().flatten() {
        let name = p["name"].as_str().unwrap_or_default().to_string();
        let dependencies = p["dependencies"]
            .as_array()
            .into_iter()
            .flatten()
            .filter(|d| d["kind"].is_null())
            .filter_map(|d| d["name"].as_str().map(String::from))
            .collect();
        let mut targets: Vec<PathBuf> = p["targets"]
            .as_array()
            .into_iter()
            .flatten()
            .filter(|t| {
                t["kind"]
                    .as_array()
                    .is_some_and(|k| !k.iter().any(|k| k == "custom-build"))
            })
            .filter_map(|t| t["src_path"].as_str().map(PathBuf::from))
            .collect();
        targets.sort();
        targets.dedup();
        packages.push((name, dependencies, targets));
    }
    packages.sort();
    Ok(packages)
}

#[cfg(test)]
mod tests {
    use super::graph::Graph;
    use super::{rust, typescript};
    use std::path::{Path, PathBuf};

    fn fixtures() -> PathBuf {
        Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures/circles")
    }

    #[test]
    fn a_circle_planted_in_a_crate_is_found_around_its_three_files() {
        let base = fixtures();
        let mut graph = Graph::default();
        rust::add_crate(&mut graph, &base.join("planted/src/planted.rs"), &base).unwrap();
        assert_eq!(
            graph.circles(),
            vec![vec![
                "planted/src/pipeline.rs",
                "planted/src/pipeline/step.rs",
                "planted/src/session.rs",
                "planted/src/pipeline.rs",
            ]]
        );
    }

    #[test]
    fn a_crate_whose_files_import_downwards_through_a_facade_has_no_circle() {
        let base = fixtures();
        let mut graph = Graph::default();
        rust::add_crate(&mut graph, &base.join("layered/src/layered.rs"), &base).unwrap();
        assert!(graph.circles().is_empty(), "{:?}", graph.circles());
        // The re-export through the main file is followed to the file that
        // holds the item, and a path inside a macro counts.
        assert!(graph.imports("layered/src/session.rs", "layered/src/pipeline/step.rs"));
        assert!(graph.imports("layered/src/session.rs", "layered/src/pipeline.rs"));
        assert!(!graph.imports("layered/src/session.rs", "layered/src/layered.rs"));
    }

    #[test]
    fn a_circle_planted_in_typescript_is_found() {
        let base = fixtures();
        let mut graph = Graph::default();
        typescript::add_folder(&mut graph, &base.join("scripts"), &base).unwrap();
        assert_eq!(
            graph.circles(),
            vec![vec![
                "scripts/relay.ts",
                "scripts/worker-pool.ts",
                "scripts/relay.ts"
            ]]
        );
        assert!(graph.imports("scripts/main.ts", "scripts/relay.ts"));
    }
}
