//! The plugins shipped in `plugins/`: Rust crates built for `wasm32-unknown-unknown` and wrapped like the reconciler, and JavaScript packages componentized with jco, into `target/slotwise/plugins/`.

use crate::component::{build_package_importing, check_imports};

/// The one interface a plugin may import.
pub const PLUGIN_IMPORTS: &[&str] = &["slotwise:plugin/log@0.2.0"];
use crate::run::Workspace;
use anyhow::{Context, Result};
use std::path::{Path, PathBuf};

/// A plugin crate: a package whose library is a `cdylib`.
struct PluginCrate {
    package: String,
    /// Whether it says it is a test plugin (`[package.metadata.slotwise]
    /// test-plugin = true`), which no user is offered.
    test: bool,
}

/// Builds every plugin under `plugins/`, Rust crates first, and writes
/// `target/slotwise/plugins/<name>.wasm`.
pub fn build(ws: &Workspace) -> Result<Vec<PathBuf>> {
    let out_dir = ws.root.join("target/slotwise/plugins");
    std::fs::create_dir_all(&out_dir)?;
    let plugins = ws.root.join("plugins");
    let mut built = Vec::new();
    let found = crates(&plugins)?;
    let tests: Vec<&str> = found
        .iter()
        .filter(|p| p.test)
        .map(|p| p.package.as_str())
        .collect();
    // Which of the built plugins are test plugins, for the playground's bundle.
    let list = format!(
        "[{}]\n",
        tests
            .iter()
            .map(|t| format!("\"{t}\""))
            .collect::<Vec<_>>()
            .join(", ")
    );
    let listed = out_dir.join("test-plugins.json");
    std::fs::write(&listed, list).with_context(|| format!("writing {}", listed.display()))?;
    for plugin in &found {
        built.push(build_crate(ws, plugin, &out_dir)?);
    }
    let js = js_packages(&plugins)?;
    if !js.is_empty() && !npm_available() {
        // `build` and `demo` need only rustup; a missing plugin is then
        // reported by name when a scenario asks for it.
        println!(
            "plugins: skipping {} JavaScript plugin(s): npm is not installed (Node 20 with npm builds them)",
            js.len()
        );
        return Ok(built);
    }
    for package in js {
        built.push(build_js(ws, &package, &out_dir)?);
    }
    Ok(built)
}

fn npm_available() -> bool {
    std::process::Command::new("npm")
        .arg("--version")
        .output()
        .is_ok_and(|o| o.status.success())
}

/// Builds one crate on its own, so that one plugin's hook features do not
/// leak into another's world.
fn build_crate(ws: &Workspace, plugin: &PluginCrate, out_dir: &Path) -> Result<PathBuf> {
    let out = out_dir.join(format!("{}.wasm", plugin.package));
    build_package_importing(ws, &plugin.package, &out, PLUGIN_IMPORTS)?;
    Ok(out)
}

/// Installs the locked packages of the JavaScript plugin in `dir`, runs its
/// tests, then its `componentize` script, which names the world and the
/// engine; the component takes the directory's name. A plugin whose own
/// tests fail is not shipped.
fn build_js(ws: &Workspace, dir: &Path, out_dir: &Path) -> Result<PathBuf> {
    let name = dir
        .file_name()
        .and_then(|n| n.to_str())
        .with_context(|| format!("{} has no usable name", dir.display()))?;
    let out = out_dir.join(format!("{name}.wasm"));
    let (prefix, out_arg) = (dir.display().to_string(), out.display().to_string());
    let npm = Path::new("npm");
    ws.run(npm, &["ci", "--prefix", &prefix, "--no-audit", "--no-fund"])?;
    ws.run(npm, &["test", "--prefix", &prefix])?;
    ws.run(
        npm,
        &[
            "run",
            "--prefix",
            &prefix,
            "componentize",
            "--",
            "-o",
            &out_arg,
        ],
    )?;
    let component = std::fs::read(&out).with_context(|| format!("reading {}", out.display()))?;
    // The host refuses a plugin that imports anything but the log; say so at build time.
    check_imports(&component, PLUGIN_IMPORTS).with_context(|| out.display().to_string())?;
    println!(
        "{name}: {} ({} KiB, no imports but the log)",
        out.display(),
        component.len() / 1024
    );
    Ok(out)
}

/// The plugin crates under `dir`, two levels deep, in path order.
fn crates(dir: &Path) -> Result<Vec<PluginCrate>> {
    let mut manifests = Vec::new();
    for entry in read_sorted(dir)? {
        let manifest = entry.join("Cargo.toml");
        if manifest.exists() {
            manifests.push(manifest);
        } else if entry.is_dir() {
            manifests.extend(
                read_sorted(&entry)?
                    .into_iter()
                    .map(|e| e.join("Cargo.toml"))
                    .filter(|m| m.exists()),
            );
        }
    }
    let mut found = Vec::new();
    for manifest in manifests {
        let text = std::fs::read_to_string(&manifest)
            .with_context(|| format!("reading {}", manifest.display()))?;
        if !text.contains("\"cdylib\"") {
            continue;
        }
        let package = text
            .lines()
            .find_map(|l| l.trim().strip_prefix("name = \""))
            .and_then(|rest| rest.strip_suffix('"'))
            .with_context(|| format!("{} names no package", manifest.display()))?;
        found.push(PluginCrate {
            package: package.to_string(),
            test: text.lines().any(|l| l.trim() == "test-plugin = true"),
        });
    }
    Ok(found)
}

/// The JavaScript plugins directly under `dir`: directories with a
/// `package.json` that has a `componentize` script, in path order.
fn js_packages(dir: &Path) -> Result<Vec<PathBuf>> {
    let mut found = Vec::new();
    for entry in read_sorted(dir)? {
        let manifest = entry.join("package.json");
        if !manifest.exists() {
            continue;
        }
        let text = std::fs::read_to_string(&manifest)
            .with_context(|| format!("reading {}", manifest.display()))?;
        if text.contains("\"componentize\":") {
            found.push(entry);
        }
    }
    Ok(found)
}

fn read_sorted(dir: &Path) -> Result<Vec<PathBuf>> {
    let mut entries: Vec<PathBuf> = std::fs::read_dir(dir)
        .with_context(|| format!("reading {}", dir.display()))?
        .map(|e| e.map(|e| e.path()))
        .collect::<std::io::Result<_>>()?;
    entries.sort();
    Ok(entries)
}
