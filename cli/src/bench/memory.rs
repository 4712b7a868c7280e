//! Peak memory, measured in child processes: the high-water mark of resident memory a path needs beyond what its input holds.

use super::aims::{self, verdict};
use anyhow::{bail, Context, Result};
use std::path::Path;
use std::process::{Command, Stdio};

/// The peak resident memory of `command` run to its end, in bytes.
fn peak_rss(command: &mut Command) -> Result<u64> {
    let child = command
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .context("starting a measuring child")?;
    let pid = child.id() as libc::pid_t;
    let mut status = 0;
    // SAFETY: an all-zero `rusage` is a valid value of the plain C struct.
    let mut usage: libc::rusage = unsafe { std::mem::zeroed() };
    // SAFETY: `pid` is our own child, not yet waited for; `wait4` writes
    // only into the two locals whose addresses it is given.
    let waited = unsafe { libc::wait4(pid, &mut status, 0, &mut usage) };
    if waited != pid {
        bail!(
            "waiting for the measuring child: {}",
            std::io::Error::last_os_error()
        );
    }
    if !libc::WIFEXITED(status) || libc::WEXITSTATUS(status) != 0 {
        let mut stderr = String::new();
        if let Some(mut pipe) = child.stderr {
            use std::io::Read;
            let _ = pipe.read_to_string(&mut stderr);
        }
        bail!("the measuring child failed ({status}): {}", stderr.trim());
    }
    // Linux reports kilobytes.
    Ok(usage.ru_maxrss as u64 * 1024)
}

/// The peak resident memory of `slotwise command`, in bytes, from a small
/// process: Linux starts a child's peak RSS at its parent's high-water mark
/// when the parent spawns it with `vfork`, as Rust's `Command` does, so a
/// child of the benchmark, which has held large inputs, would report the
/// benchmark's peak. The benchmark runs this in a fresh `--probe peak-rss`
/// child of its own.
pub fn peak_rss_of(command: &[String]) -> Result<u64> {
    peak_rss(Command::new(std::env::current_exe()?).args(command))
}

/// The peak memory the `mode` path needs for `n` allocations beyond what
/// its input (and, for the component, loading it) holds, per allocation:
/// measured by a `--probe` child of this executable, which resets its
/// high-water mark once the input is built.
pub fn per_allocation(component: &Path, mode: &str, n: usize) -> Result<f64> {
    let bytes = printed_number(
        Command::new(std::env::current_exe()?)
            .args(["bench", "--probe", mode, "--probe-size", &n.to_string()])
            .arg("--component")
            .arg(component),
    )?;
    Ok(bytes as f64 / n.max(1) as f64)
}

/// The number a measuring child of this executable prints.
fn printed_number(command: &mut Command) -> Result<u64> {
    let output = command
        .stdin(Stdio::null())
        .output()
        .context("starting a measuring child")?;
    if !output.status.success() {
        bail!(
            "the measuring child failed: {}",
            String::from_utf8_lossy(&output.stderr).trim()
        );
    }
    let text = String::from_utf8_lossy(&output.stdout);
    text.trim()
        .parse()
        .with_context(|| format!("the measuring child printed {text:?}"))
}

/// Resets this process's high-water mark of resident memory to what it
/// holds now, and returns that.
pub fn reset_peak() -> Result<u64> {
    std::fs::write("/proc/self/clear_refs", "5").context("resetting the peak RSS")?;
    status_field("VmRSS")
}

/// This process's high-water mark of resident memory since the last reset.
pub fn peak() -> Result<u64> {
    status_field("VmHWM")
}

fn status_field(name: &str) -> Result<u64> {
    let status = std::fs::read_to_string("/proc/self/status")?;
    let kib = status
        .lines()
        .find_map(|l| l.strip_prefix(name)?.strip_prefix(':'))
        .and_then(|v| v.trim().trim_end_matches("kB").trim().parse::<u64>().ok())
        .with_context(|| format!("no {name} in /proc/self/status"))?;
    Ok(kib * 1024)
}

/// Target 4: the peak RSS of `slotwise reconcile --json` on a scenario of
/// 1,000,000 allocations, above the same command on one allocation.
pub fn million(component: &Path) -> Result<String> {
    const N: usize = 1_000_000;
    let dir = std::env::temp_dir().join(format!("slotwise-bench-{}", std::process::id()));
    std::fs::create_dir_all(&dir)?;
    let scenario = |n: usize| -> Result<std::path::PathBuf> {
        let path = dir.join(format!("allocations-{n}.yaml"));
        let text = format!(
            "description: {n} running allocations of the current version on ten nodes\n\
             job: {{groups: [{{name: web, count: {n}, update: rolling}}]}}\n\
             nodes: [{{id: n0}}, {{id: n1}}, {{id: n2}}, {{id: n3}}, {{id: n4}}, \
             {{id: n5}}, {{id: n6}}, {{id: n7}}, {{id: n8}}, {{id: n9}}]\n\
             allocations:\n  web:\n    - {{index: 0-{}, node: n3, client: running}}\n",
            n - 1
        );
        std::fs::write(&path, text)?;
        Ok(path)
    };
    // Precompiled, so that neither run pays for compiling the component.
    let cwasm = dir.join("reconciler.cwasm");
    slotwise_host::component::precompile(component, &cwasm)?;
    let run = |path: &Path| -> Result<u64> {
        printed_number(
            Command::new(std::env::current_exe()?)
                .args(["bench", "--probe", "peak-rss", "--component"])
                .arg(&cwasm)
                .args(["--", "reconcile", "--json"])
                .arg(path)
                .arg("--component")
                .arg(&cwasm),
        )
    };

    let (big, one) = (scenario(N)?, scenario(1)?);
    let baseline = run(&one)?;
    let peak = run(&big)?;
    let _ = std::fs::remove_dir_all(&dir);
    let per = peak.saturating_sub(baseline) as f64 / N as f64;
    println!(
        "\n`slotwise reconcile --json` on {N} allocations: peak RSS {} MiB, {} MiB on one; {per:.0} bytes per allocation",
        peak >> 20,
        baseline >> 20
    );
    Ok(verdict(
        per <= aims::BYTES_PER_ALLOCATION,
        format!(
            "peak RSS of reconcile --json on 1M allocations: {per:.0} B per allocation above the baseline (aim <= {})",
            aims::BYTES_PER_ALLOCATION
        ),
    ))
}
