//! Build orchestration: `cargo xtask <command>`.

use anyhow::{bail, Context, Result};
use std::path::{Path, PathBuf};
use std::process::Command;

fn main() -> Result<()> {
    let root = workspace_root();
    let cmd = std::env::args().nth(1).unwrap_or_default();
    match cmd.as_str() {
        "component" => {
            build_component(&root)?;
            Ok(())
        }
        other => bail!("unknown command `{other}`"),
    }
}

fn workspace_root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .expect("xtask lives in the workspace")
        .to_path_buf()
}

fn build_component(root: &Path) -> Result<PathBuf> {
    let status = Command::new("cargo")
        .current_dir(root)
        .args([
            "build",
            "--release",
            "--package",
            "slotwise-reconciler",
            "--target",
            "wasm32-unknown-unknown",
        ])
        .status()?;
    if !status.success() {
        bail!("guest build failed");
    }
    let module =
        std::fs::read(root.join("target/wasm32-unknown-unknown/release/slotwise_reconciler.wasm"))?;
    let component = wit_component::ComponentEncoder::default()
        .module(&module)?
        .validate(true)
        .encode()?;
    let out = root.join("target/slotwise/reconciler.wasm");
    std::fs::create_dir_all(out.parent().unwrap())?;
    std::fs::write(&out, component).context("write component")?;
    println!("{}", out.display());
    Ok(out)
}
