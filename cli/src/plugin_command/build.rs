//! `slotwise plugin build`: a plugin project's component, written beside it as `NAME.wasm`. A Rust crate is built for `wasm32-unknown-unknown` and wrapped into a component with wit-component; a JavaScript package is tested and componentized by its own npm scripts. Either way the component is then checked as the host checks a plugin it loads.

use anyhow::{bail, Context, Result};
use slotwise_host::plugins::loading;
use slotwise_host::plugins::sandbox::Sandbox;
use slotwise_host::plugins::PluginConfig;
use std::path::{Path, PathBuf};
use std::process::Command;

/// Builds the project in `dir`; returns the component's path.
///
/// # Errors
/// When `dir` holds neither a `Cargo.toml` nor a `package.json`, a build
/// step fails, or the component is not one the host would load.
pub fn run(dir: &Path) -> Result<PathBuf> {
    let out = if dir.join("Cargo.toml").is_file() {
        rust(dir)?
    } else if dir.join("package.json").is_file() {
        js(dir)?
    } else {
        bail!(
            "{} holds neither a Cargo.toml nor a package.json; `slotwise plugin new` writes a project that does",
            dir.display()
        );
    };
    let sandbox = Sandbox::new()?;
    let config = PluginConfig {
        path: Some(out.clone()),
        ..PluginConfig::default()
    };
    // Its metadata and exports are read; its settings are the scenario's business.
    let plugin = loading::prepare(&sandbox, &config, &out).map_err(anyhow::Error::new)?;
    println!(
        "{}: plugin {} {} ({} KiB; hooks {}; interface {})",
        out.display(),
        plugin.name,
        plugin.metadata.version,
        plugin.inspection.size / 1024,
        loading::hook_list(&plugin.metadata.hooks),
        plugin.interface_version()
    );
    Ok(out)
}

/// Builds the crate in `dir` and wraps its module into `dir/NAME.wasm`.
fn rust(dir: &Path) -> Result<PathBuf> {
    let manifest = dir.join("Cargo.toml");
    let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".into());
    let output = Command::new(&cargo)
        .args([
            "metadata",
            "--no-deps",
            "--format-version",
            "1",
            "--manifest-path",
        ])
        .arg(&manifest)
        .output()
        .with_context(|| format!("cannot run {cargo}"))?;
    if !output.status.success() {
        bail!(
            "cargo metadata failed: {}",
            String::from_utf8_lossy(&output.stderr)
        );
    }
    let metadata: serde_json::Value =
        serde_json::from_slice(&output.stdout).context("cargo metadata's output")?;
    let package = &metadata["packages"][0];
    let name = package["name"].as_str().context("the crate has no name")?;
    let lib = package["targets"]
        .as_array()
        .into_iter()
        .flatten()
        .find(|t| {
            t["kind"]
                .as_array()
                .is_some_and(|k| k.iter().any(|k| k == "cdylib"))
        })
        .and_then(|t| t["name"].as_str())
        .context(
            "the crate has no cdylib library; a plugin's is `crate-type = [\"cdylib\", \"rlib\"]`",
        )?;
    let target = metadata["target_directory"]
        .as_str()
        .context("cargo metadata names no target directory")?;
    // The library alone, as a `cdylib`: cargo runs no link-time
    // optimisation for a unit that is also an `rlib`, so a crate's
    // `[profile.release] lto` would otherwise go unheeded.
    run_in(
        dir,
        &cargo,
        &[
            "rustc",
            "--release",
            "--lib",
            "--crate-type",
            "cdylib",
            "--target",
            "wasm32-unknown-unknown",
        ],
    )?;
    let module_path = Path::new(target).join(format!(
        "wasm32-unknown-unknown/release/{}.wasm",
        lib.replace('-', "_")
    ));
    let module = std::fs::read(&module_path)
        .with_context(|| format!("cannot read {}", module_path.display()))?;
    let component = wit_component::ComponentEncoder::default()
        .module(&module)
        .with_context(|| {
            format!(
                "{} carries no component type: does it export a plugin with the SDK's `export!`?",
                module_path.display()
            )
        })?
        .validate(true)
        .encode()
        .with_context(|| format!("wrapping {} into a component", module_path.display()))?;
    let out = dir.join(format!("{name}.wasm"));
    std::fs::write(&out, component).with_context(|| format!("cannot write {}", out.display()))?;
    Ok(out)
}

/// Installs the package's locked dependencies, runs its tests, then its
/// `componentize` script into `dir/NAME.wasm`.
fn js(dir: &Path) -> Result<PathBuf> {
    let manifest = dir.join("package.json");
    let text = std::fs::read_to_string(&manifest)
        .with_context(|| format!("cannot read {}", manifest.display()))?;
    let package: serde_json::Value = serde_json::from_str(&text)
        .with_context(|| format!("{} is not JSON", manifest.display()))?;
    let name = package["name"]
        .as_str()
        .context("package.json has no name")?;
    if package["scripts"]["componentize"].as_str().is_none() {
        bail!(
            "package.json has no `componentize` script; `slotwise plugin new --lang js` writes one"
        );
    }
    let install = if dir.join("package-lock.json").is_file() {
        "ci"
    } else {
        "install"
    };
    run_in(dir, "npm", &[install, "--no-audit", "--no-fund"])?;
    run_in(dir, "npm", &["test"])?;
    let out = dir
        .canonicalize()
        .with_context(|| format!("cannot find {}", dir.display()))?
        .join(format!("{name}.wasm"));
    let out_arg = out.display().to_string();
    run_in(dir, "npm", &["run", "componentize", "--", "-o", &out_arg])?;
    Ok(out)
}

/// Runs `program` in `dir`; its output goes to the user as it comes.
fn run_in(dir: &Path, program: &str, args: &[&str]) -> Result<()> {
    let line = format!("{program} {}", args.join(" "));
    match Command::new(program).args(args).current_dir(dir).status() {
        Ok(status) if status.success() => Ok(()),
        Ok(status) => bail!("`{line}` in {} failed ({status})", dir.display()),
        Err(e) => bail!("cannot run `{line}`: {e}"),
    }
}
