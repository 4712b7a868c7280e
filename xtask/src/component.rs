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
    // reconciler's interfaces too, unused by the package. It turns the
    // reconciler's `schema` feature on; the reconciler's library declares
    // no `cdylib` of its own, so that this build and the reconciler
    // component's share one target folder (and the compiler plugins and
    // libraries both use) without replacing each other's output.
    let out = ws.root.join("target/slotwise/scenario-reader.wasm");
    build_package(ws, "slotwise-scenario-reader", &out)?;
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
    // The library built as a `cdylib` whatever its manifest declares: the
    // reconciler's declares none (see `reader`).
    ws.cargo_unlinted(&[
        "rustc",
        "--profile",
        "component",
        "--package",
        package,
        "--lib",
        "--crate-type",
        "cdylib",
        "--target",
        "wasm32-unknown-unknown",
    ])?;
    let module = ws.root.join(format!(
        "target/wasm32-unknown-unknown/component/{}.wasm",
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
