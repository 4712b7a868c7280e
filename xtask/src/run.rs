//! Running the tools the build needs: cargo, rustup, npm and node, each command echoed before it runs.

use anyhow::{bail, Context, Result};
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Instant;

/// The workspace the commands run in.
pub struct Workspace {
    pub root: PathBuf,
}

impl Workspace {
    pub fn locate() -> Result<Self> {
        let root = Path::new(env!("CARGO_MANIFEST_DIR"))
            .parent()
            .context("xtask lives inside the workspace")?
            .to_path_buf();
        Ok(Self { root })
    }

    /// The `slotwise` command as `build` leaves it.
    pub fn slotwise(&self) -> PathBuf {
        self.root.join("target/debug/slotwise")
    }

    /// Runs `program` with `args` in the workspace root; fails unless it succeeds.
    pub fn run(&self, program: &Path, args: &[&str]) -> Result<()> {
        self.run_in(
            &self.root,
            program.as_os_str().to_str().unwrap_or_default(),
            args,
        )
    }

    pub fn run_in(&self, dir: &Path, program: &str, args: &[&str]) -> Result<()> {
        self.run_with(dir, program, args, &[])
    }

    /// Runs `program` with `args` in `dir`, with the environment variables
    /// `env` set; fails unless it succeeds.
    pub fn run_with(
        &self,
        dir: &Path,
        program: &str,
        args: &[&str],
        env: &[(&str, &Path)],
    ) -> Result<()> {
        let mut command = Command::new(program);
        command
            .args(args)
            .envs(env.iter().map(|(k, v)| (*k, v.as_os_str())))
            .current_dir(dir);
        execute(&mut command, program, args)
    }

    pub fn cargo(&self, args: &[&str]) -> Result<()> {
        let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".into());
        self.run_in(&self.root, &cargo, args)
    }

    /// As [`Workspace::cargo`], compiling with rustc itself even where
    /// [`crate::lints::while_building`] has the other builds linted.
    pub fn cargo_unlinted(&self, args: &[&str]) -> Result<()> {
        let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".into());
        let mut command = Command::new(&cargo);
        crate::lints::without(&mut command)
            .args(args)
            .current_dir(&self.root);
        execute(&mut command, &cargo, args)
    }

    /// Installs a rustup target unless it is there already.
    pub fn rustup_target(&self, target: &str) -> Result<()> {
        let installed = Command::new("rustup")
            .args(["target", "list", "--installed"])
            .output()
            .context("rustup is needed to add the wasm target")?;
        if String::from_utf8_lossy(&installed.stdout)
            .lines()
            .any(|l| l.trim() == target)
        {
            return Ok(());
        }
        self.run_in(&self.root, "rustup", &["target", "add", target])
    }

    /// The Node embedding test: installs its packages, transpiles the
    /// component with jco, and runs it.
    pub fn node_test(&self) -> Result<()> {
        self.node_packages()?;
        self.run_in(&self.root.join("tests/node"), "npm", &["test"])
    }

    /// Installs the Node embedding's packages (jco).
    pub fn node_packages(&self) -> Result<()> {
        let dir = self.root.join("tests/node");
        self.run_in(&dir, "npm", &["ci", "--no-audit", "--no-fund"])
    }

    /// Runs one named step of a longer job, reporting its time.
    pub fn step(&self, name: &str, f: impl FnOnce() -> Result<()>) -> Result<()> {
        println!("\n== {name}");
        let started = Instant::now();
        f().with_context(|| format!("step `{name}` failed"))?;
        println!("== {name}: ok in {:.1}s", started.elapsed().as_secs_f64());
        Ok(())
    }
}

/// Runs `command`, echoed as `program` with `args`, and says how long it
/// took when that was long enough to matter to CI's time; fails unless it
/// succeeds.
fn execute(command: &mut Command, program: &str, args: &[&str]) -> Result<()> {
    let shown = format!("{program} {}", args.join(" "));
    println!("$ {shown}");
    let started = Instant::now();
    let status = command
        .status()
        .with_context(|| format!("cannot run {program}"))?;
    let took = started.elapsed().as_secs_f64();
    if took >= 5.0 {
        let name = Path::new(program).file_name().unwrap_or_default();
        let first = args.first().copied().unwrap_or_default();
        println!("  ({took:.0}s: {} {first})", name.to_string_lossy());
    }
    if !status.success() {
        bail!("`{shown}` failed ({status})");
    }
    Ok(())
}
