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
        println!("$ {program} {}", args.join(" "));
        let status = Command::new(program)
            .args(args)
            .envs(env.iter().map(|(k, v)| (*k, v.as_os_str())))
            .current_dir(dir)
            .status()
            .with_context(|| format!("cannot run {program}"))?;
        if !status.success() {
            bail!("`{program} {}` failed ({status})", args.join(" "));
        }
        Ok(())
    }

    pub fn cargo(&self, args: &[&str]) -> Result<()> {
        let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".into());
        self.run_in(&self.root, &cargo, args)
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
