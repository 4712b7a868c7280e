//! The reconciler component: the guest built for `wasm32-unknown-unknown`, wrapped with `wit-component`, checked to import nothing.

use crate::run::Workspace;
use anyhow::{bail, Context, Result};
use std::path::PathBuf;
use wit_component::{ComponentEncoder, DecodedWasm};

/// Builds the component into `target/slotwise/reconciler.wasm`.
pub fn build(ws: &Workspace) -> Result<PathBuf> {
    ws.cargo(&[
        "build",
        "--release",
        "--package",
        "slotwise-reconciler",
        "--target",
        "wasm32-unknown-unknown",
    ])?;
    let module_path = ws
        .root
        .join("target/wasm32-unknown-unknown/release/slotwise_reconciler.wasm");
    let module = std::fs::read(&module_path)
        .with_context(|| format!("reading {}", module_path.display()))?;
    let component = ComponentEncoder::default()
        .module(&module)
        .context("the guest module carries no component type")?
        .validate(true)
        .encode()
        .context("wrapping the guest module into a component")?;
    check_no_imports(&component)?;
    let out = ws.root.join("target/slotwise/reconciler.wasm");
    std::fs::create_dir_all(ws.root.join("target/slotwise"))?;
    std::fs::write(&out, &component).with_context(|| format!("writing {}", out.display()))?;
    println!(
        "component: {} ({} KiB, no imports)",
        out.display(),
        component.len() / 1024
    );
    Ok(out)
}

/// Other hosts embed the component as it is: it must need nothing from them.
fn check_no_imports(component: &[u8]) -> Result<()> {
    let decoded = wit_component::decode(component).context("decoding the component")?;
    let DecodedWasm::Component(resolve, world) = decoded else {
        bail!("the encoded component decodes as a WIT package, not a component");
    };
    let imports: Vec<String> = resolve.worlds[world]
        .imports
        .keys()
        .map(|key| resolve.name_world_key(key))
        .collect();
    if !imports.is_empty() {
        bail!(
            "the reconciler component must import nothing, but imports {}",
            imports.join(", ")
        );
    }
    Ok(())
}
