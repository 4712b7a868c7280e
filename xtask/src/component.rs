//! Components built from crates of the workspace: built for `wasm32-unknown-unknown`, wrapped with `wit-component`, checked to import nothing; the reconciler first of them.

use crate::run::Workspace;
use anyhow::{bail, Context, Result};
use std::path::{Path, PathBuf};
use wit_component::{ComponentEncoder, DecodedWasm};

/// Builds the component into `target/slotwise/reconciler.wasm`.
pub fn build(ws: &Workspace) -> Result<PathBuf> {
    let out = ws.root.join("target/slotwise/reconciler.wasm");
    build_package(ws, "slotwise-reconciler", &out)?;
    Ok(out)
}

/// Builds the scenario-reader component into `target/slotwise/scenario-reader.wasm`.
pub fn reader(ws: &Workspace) -> Result<PathBuf> {
    // The `scenario` crate needs the reconciler's types, and a `cdylib`
    // exports what its dependencies export: the reader carries the
    // reconciler's interfaces too, unused by the package.
    // The reader turns the reconciler's `schema` feature on. Built in the
    // workspace's target folder, where cargo keeps one build of a `cdylib`
    // crate whatever its features, the reconciler's two builds would take
    // turns replacing each other, and each build of one component would
    // start the other's over: some two and a half minutes of every CI run.
    let out = ws.root.join("target/slotwise/scenario-reader.wasm");
    build_in(
        ws,
        "slotwise-scenario-reader",
        &out,
        &[],
        "target/scenario-reader",
    )?;
    Ok(out)
}

/// Builds crate `package` for `wasm32-unknown-unknown` on its own (so that
/// its features do not leak into other crates' builds), wraps it into a
/// component that imports nothing, and writes it to `out`.
pub fn build_package(ws: &Workspace, package: &str, out: &Path) -> Result<()> {
    build_package_importing(ws, package, out, &[])
}

/// As [`build_package`], letting the component import the interfaces in
/// `allowed` and nothing else.
pub fn build_package_importing(
    ws: &Workspace,
    package: &str,
    out: &Path,
    allowed: &[&str],
) -> Result<()> {
    build_in(ws, package, out, allowed, "target")
}

/// As [`build_package_importing`], building in `target_dir`, a folder of
/// the workspace.
fn build_in(
    ws: &Workspace,
    package: &str,
    out: &Path,
    allowed: &[&str],
    target_dir: &str,
) -> Result<()> {
    ws.cargo_unlinted(&[
        "build",
        "--profile",
        "component",
        "--package",
        package,
        "--target",
        "wasm32-unknown-unknown",
        "--target-dir",
        target_dir,
    ])?;
    let module = ws.root.join(target_dir).join(format!(
        "wasm32-unknown-unknown/component/{}.wasm",
        package.replace('-', "_")
    ));
    let component = wrap(&module, allowed)?;
    if let Some(dir) = out.parent() {
        std::fs::create_dir_all(dir).with_context(|| format!("creating {}", dir.display()))?;
    }
    std::fs::write(out, &component).with_context(|| format!("writing {}", out.display()))?;
    println!(
        "{package}: {} ({} KiB, no imports)",
        out.display(),
        component.len() / 1024
    );
    Ok(())
}

/// Wraps the core module at `path`, built with wit-bindgen, into a
/// component, and checks that it imports nothing beyond `allowed`.
pub fn wrap(path: &Path, allowed: &[&str]) -> Result<Vec<u8>> {
    let module = std::fs::read(path).with_context(|| format!("reading {}", path.display()))?;
    let component = ComponentEncoder::default()
        .module(&module)
        .with_context(|| format!("{} carries no component type", path.display()))?
        .validate(true)
        .encode()
        .with_context(|| format!("wrapping {} into a component", path.display()))?;
    check_imports(&component, allowed).with_context(|| path.display().to_string())?;
    Ok(component)
}

/// The component may import the interfaces in `allowed`, and nothing else:
/// other hosts embed it as it is, so it must need nothing else from them.
pub fn check_imports(component: &[u8], allowed: &[&str]) -> Result<()> {
    let decoded = wit_component::decode(component).context("decoding the component")?;
    let DecodedWasm::Component(resolve, world) = decoded else {
        bail!("the encoded component decodes as a WIT package, not a component");
    };
    let imports: Vec<String> = resolve.worlds[world]
        .imports
        .keys()
        .map(|key| resolve.name_world_key(key))
        .filter(|name| !allowed.contains(&name.as_str()))
        .collect();
    if !imports.is_empty() {
        bail!(
            "this slotwise component may import nothing else, but it imports {}",
            imports.join(", ")
        );
    }
    Ok(())
}
