//! The Python package `slotwise`: `packages/python` staged with the components, the contract's description and its TypedDicts, built into a wheel by pip, and tested from a fresh venv.

use super::readme;
use super::staging::{artifact, built, declarations, out_dir, stage, write, Bundle};
use crate::declarations::Language;
use crate::run::Workspace;
use anyhow::{Context, Result};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

/// The interpreter the build and the venvs start from.
const PYTHON: &str = "python3";

/// Installs Debian's Python with venv and pip when they are missing.
fn ensure_python(ws: &Workspace) -> Result<()> {
    let works = |args: &[&str]| {
        Command::new(PYTHON)
            .args(args)
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .status()
            .is_ok_and(|s| s.success())
    };
    if works(&["-m", "venv", "--help"]) && works(&["-m", "pip", "--version"]) {
        return Ok(());
    }
    ws.run_in(&ws.root, "apt-get", &["update"])?;
    ws.run_in(
        &ws.root,
        "apt-get",
        &["install", "-y", "python3", "python3-venv", "python3-pip"],
    )
}

/// Stages the package and builds its wheel into `target/packages/dist/`.
pub fn build(ws: &Workspace, bundle: &Bundle) -> Result<PathBuf> {
    ensure_python(ws)?;
    let staged = stage(ws, "python", &["tests", "examples", "bench.py"])?;
    let package = staged.join("src/slotwise");
    let assets = package.join("assets");
    for (from, name) in [
        (&bundle.reconciler, "reconciler.wasm"),
        (&bundle.reader, "scenario-reader.wasm"),
        (&bundle.wit_types, "wit-types.json"),
    ] {
        write(&assets.join(name), std::fs::read(from)?)?;
    }
    declarations(ws, Language::Python, &package.join("contract.py"))?;

    let wheel = artifact(ws, "slotwise-0.1.0-py3-none-any.whl")?;
    let dist = wheel.parent().context("the wheel has a folder")?;
    ws.run_in(
        &ws.root,
        PYTHON,
        &[
            "-m",
            "pip",
            "wheel",
            "--quiet",
            "--no-deps",
            "--wheel-dir",
            &dist.display().to_string(),
            &staged.display().to_string(),
        ],
    )?;
    built(&wheel, "pip")?;
    Ok(wheel)
}

/// A fresh venv with `wheel` and `extra` packages installed, at
/// `target/packages/venv-<name>`.
pub fn python_venv(ws: &Workspace, name: &str, wheel: &Path, extra: &[&str]) -> Result<PathBuf> {
    let venv = out_dir(ws).join(format!("venv-{name}"));
    ws.run_in(
        &ws.root,
        PYTHON,
        &["-m", "venv", "--clear", &venv.display().to_string()],
    )?;
    let pip = venv.join("bin/pip");
    let wheel = wheel.display().to_string();
    let mut args = vec!["install", "--quiet", "--disable-pip-version-check", &wheel];
    args.extend_from_slice(extra);
    ws.run_in(&ws.root, &pip.display().to_string(), &args)?;
    Ok(venv)
}

/// Removes a venv `python_venv` made: each holds wasmtime's 30 MB library.
pub fn remove_python_venv(venv: &Path) -> Result<()> {
    std::fs::remove_dir_all(venv).with_context(|| format!("removing {}", venv.display()))
}

/// Installs the wheel into a fresh venv with pytest and mypy, checks the
/// package's type hints and the README's snippet with `mypy --strict`, runs
/// `packages/python/tests` there against `target/debug/slotwise`, then the
/// snippet, which must print `output`.
pub fn test(ws: &Workspace, wheel: &Path, output: &str) -> Result<()> {
    let venv = python_venv(ws, "test", wheel, &["pytest", "mypy"])?;
    let outcome = run_tests(ws, &venv, output);
    remove_python_venv(&venv)?;
    outcome
}

fn run_tests(ws: &Workspace, venv: &Path, output: &str) -> Result<()> {
    let python = venv.join("bin/python");
    let cache = venv.join("mypy-cache").display().to_string();
    for what in [
        &["-p", "slotwise"][..],
        &["packages/python/examples/embedding.py"],
        // The tests too, so that their typing does not drift from the package's.
        &["packages/python/tests"],
    ] {
        let mut args = vec!["-m", "mypy", "--strict", "--cache-dir", &cache];
        args.extend_from_slice(what);
        ws.run_in(&ws.root, &python.display().to_string(), &args)?;
    }
    let slotwise = ws.slotwise();
    ws.run_with(
        &ws.root.join("packages/python"),
        &python.display().to_string(),
        // The tests import the installed package: `src/` is not on the path.
        &["-m", "pytest", "-p", "no:cacheprovider", "-q", "tests"],
        &[("SLOTWISE", &slotwise), ("SLOTWISE_ROOT", &ws.root)],
    )?;
    readme::prints(
        ws,
        &python,
        &["packages/python/examples/embedding.py"],
        output,
    )
}
