//! Build orchestration for slotwise: `cargo xtask <command>`, with no tool to install beyond rustup and npm.
//!
//! - `build`: the reconciler component (guest built for `wasm32-unknown-unknown`,
//!   wrapped with `wit-component`, checked to import nothing), the shipped
//!   plugins (Rust ones built the same way, JavaScript ones with `jco
//!   componentize`), the host, and the component precompiled for it.
//! - `plugins`: only the shipped plugins.
//! - `demo`: `build`, then the reconciler on a bundled example.
//! - `test [--long]`: every check CI runs; `--long` adds the tests ignored by
//!   default (release build) and a million fuzz cases per target.
//! - `fuzz [--long]`: every fuzz target, 20,000 cases each (a million with
//!   `--long`): libFuzzer with a nightly toolchain, else the stable engine.
//! - `bench`: the benchmark, in release mode.
//! - `playground`: the browser playground's static files, with the components it bundles.
//! - `install`: everything above, then one self-contained `slotwise` (the
//!   component, the shipped plugins and the playground inside it), built with
//!   the `dist` profile and installed into `~/.cargo/bin`.
//! - `packages [--test]`: the Python wheel and the npm tarball, into
//!   `target/packages/`; with `--test`, each installed and tested afresh.
//! - `circles`: the check that no files import each other around a circle,
//!   and that crates import only the layers below them.

mod circles;
mod component;
mod declarations;
mod fuzz;
mod lints;
mod packages;
mod playground;
mod plugin_projects;
mod plugins;
mod run;
mod wit_types;

use anyhow::{bail, Result};
use run::Workspace;

fn main() -> Result<()> {
    let ws = Workspace::locate()?;
    let args: Vec<String> = std::env::args().skip(1).collect();
    match args.first().map(String::as_str) {
        Some("build") => build(&ws),
        Some("plugins") => {
            ws.rustup_target("wasm32-unknown-unknown")?;
            plugins::build(&ws).map(drop)
        }
        Some("demo") => demo(&ws),
        Some("test") => test(&ws, args.iter().any(|a| a == "--long")),
        Some("fuzz") => fuzz::run(
            &ws,
            if args.iter().any(|a| a == "--long") {
                fuzz::LONG_RUNS
            } else {
                fuzz::RUNS
            },
        ),
        Some("bench") => bench(&ws, &args[1..]),
        Some("playground") => playground::build(&ws),
        Some("install") => install(&ws),
        Some("packages") if args.get(1).is_some_and(|a| a == "--test") => packages::test(&ws),
        Some("packages") => packages::build(&ws),
        Some("circles") => {
            circles::check_showing(&ws, args.get(1).is_some_and(|a| a == "--imports"))
        }
        _ => {
            bail!(
                "usage: cargo xtask <build | plugins | demo | test [--long] | fuzz [--long] | bench [args] | playground | packages [--test] | install | circles [--imports]>"
            )
        }
    }
}

/// The component, the host, and the component precompiled for the host.
fn build(ws: &Workspace) -> Result<()> {
    build_with(ws, &["build", "--package", "slotwise-cli"])
}

/// As `build`, compiling the host with `cargo_args`.
fn build_with(ws: &Workspace, cargo_args: &[&str]) -> Result<()> {
    ws.rustup_target("wasm32-unknown-unknown")?;
    let component = component::build(ws)?;
    plugins::build(ws)?;
    wit_types::write(ws)?;
    ws.cargo(cargo_args)?;
    let precompiled = precompile(ws, &component)?;
    println!(
        "built {} and {}",
        component.display(),
        precompiled.display()
    );
    Ok(())
}

/// Compiles `component` ahead of time for this host, beside it (`.cwasm`),
/// with the `slotwise` command `build` left.
fn precompile(ws: &Workspace, component: &std::path::Path) -> Result<std::path::PathBuf> {
    let precompiled = component.with_extension("cwasm");
    ws.run(
        &ws.slotwise(),
        &[
            "precompile",
            &component.display().to_string(),
            "-o",
            &precompiled.display().to_string(),
        ],
    )?;
    Ok(precompiled)
}

/// Builds everything `slotwise` carries, then installs it into
/// `~/.cargo/bin` with the `dist` profile.
fn install(ws: &Workspace) -> Result<()> {
    build(ws)?;
    playground::static_files(ws)?;
    // The playground's build does not touch the component: the precompiled
    // form written by `build` is still its own.
    ws.cargo(&[
        "install",
        "--locked",
        "--force",
        "--profile",
        "dist",
        "--path",
        "cli",
        "--features",
        "embedded",
    ])?;
    println!("installed `slotwise` into ~/.cargo/bin: `slotwise --version` tells what it carries");
    Ok(())
}

fn demo(ws: &Workspace) -> Result<()> {
    build(ws)?;
    let example = ws.root.join("docs/examples/rolling-update.yaml");
    ws.run(
        &ws.slotwise(),
        &["reconcile", &example.display().to_string(), "--explain"],
    )
}

fn test(ws: &Workspace, long: bool) -> Result<()> {
    let linting = lints::while_building();
    ws.step("formatting", || ws.cargo(&["fmt", "--all", "--check"]))?;
    ws.step("circles and layers", || circles::check(ws))?;
    if !linting {
        println!("so the lints run as a check of their own");
        ws.step("lints", || {
            ws.cargo(&[
                "clippy",
                "--workspace",
                "--all-targets",
                "--",
                "-D",
                "warnings",
            ])
        })?;
    }
    // The host and every test target in one invocation: dependencies are then
    // compiled with one set of features, not once for the host and again for
    // the tests' dev-dependencies.
    let build = if linting {
        "build, clippy linting every crate and target of the workspace (-D warnings)"
    } else {
        "build"
    };
    ws.step(build, || {
        build_with(ws, &["build", "--workspace", "--all-targets"])
    })?;
    ws.step("unit, property and conformance tests", || {
        ws.cargo(&["test", "--workspace"])
    })?;
    ws.step("hostile input, under a watchdog", || {
        ws.cargo(&[
            "test",
            "--package",
            "slotwise-cli",
            "--test",
            "hostile_input",
        ])
    })?;
    ws.step("fuzzing", || fuzz::run(ws, fuzz::RUNS))?;
    ws.step("documented examples", || {
        ws.run(
            &ws.slotwise(),
            &[
                "check",
                &ws.root.join("docs/examples").display().to_string(),
            ],
        )
    })?;
    ws.step("new plugin projects", || plugin_projects::test(ws))?;
    ws.step("embedding in Node", || ws.node_test())?;
    ws.step("packages, installed as a user would", || packages::test(ws))?;
    ws.step("playground", || playground::test(ws))?;
    // The components, the plugins and the playground are built: the binary
    // that carries them, alone in an empty directory. Only slotwise-cli is
    // compiled again, with the feature; its dependencies are the build's.
    ws.step("one self-contained binary", || {
        precompile(ws, &ws.root.join("target/slotwise/reconciler.wasm"))?;
        ws.cargo(&[
            "test",
            "--package",
            "slotwise-cli",
            "--features",
            "embedded",
            "--test",
            "self_contained",
            "--bin",
            "slotwise",
        ])
    })?;
    if long {
        // Not through clippy-driver, which compiles without MIR
        // optimizations: the lints ran on the debug build already.
        ws.step("long tests (ignored by default), release build", || {
            ws.cargo_unlinted(&["test", "--workspace", "--release", "--", "--ignored"])
        })?;
        ws.step("long fuzzing", || fuzz::run(ws, fuzz::LONG_RUNS))?;
    }
    Ok(())
}

fn bench(ws: &Workspace, args: &[String]) -> Result<()> {
    ws.rustup_target("wasm32-unknown-unknown")?;
    let component = component::build(ws)?;
    // The hook figures are measured with the shipped plugins.
    plugins::build(ws)?;
    // Node's figures need the contract's description and jco.
    wit_types::write(ws)?;
    ws.node_packages()?;
    ws.cargo(&["build", "--release", "--package", "slotwise-cli"])?;
    let slotwise = ws.root.join("target/release/slotwise");
    let mut full = vec![
        "bench".to_string(),
        "--component".into(),
        component.display().to_string(),
    ];
    full.extend(args.iter().cloned());
    let full: Vec<&str> = full.iter().map(String::as_str).collect();
    // Python's figure needs the package installed.
    let venv = packages::python_for_bench(ws)?;
    let outcome = ws.run_with(
        &ws.root,
        &slotwise.display().to_string(),
        &full,
        &[("SLOTWISE_PYTHON", &venv.join("bin/python"))],
    );
    packages::remove_venv(&venv)?;
    outcome
}
