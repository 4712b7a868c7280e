//! Runs the hostile-input cases: each case runs `slotwise` under a watchdog that kills it past 5 seconds or 512 MiB of resident memory, and must end refused, with its error named and no plan on standard output.
//!
//! A case is a YAML file beside this one; `README.md` describes its fields.
//! Memory is read from `/proc/<pid>/status` (`VmRSS`): a limit on address
//! space would not do, as wasmtime reserves large virtual ranges.

use serde::Deserialize;
use std::io::{Read, Write};
use std::path::{Path, PathBuf};
use std::process::{Command, ExitCode, Stdio};
use std::time::{Duration, Instant};

const TIME_LIMIT: Duration = Duration::from_secs(5);
const MEMORY_LIMIT_KIB: u64 = 512 << 10;

#[derive(Deserialize)]
#[serde(deny_unknown_fields, rename_all = "kebab-case")]
struct Case {
    /// What the case tries.
    description: String,
    /// The item of the issue it holds to.
    #[allow(dead_code)]
    item: String,
    /// The command's arguments; paths start from this folder.
    args: Vec<String>,
    /// Text given on standard input.
    stdin: Option<String>,
    /// As many bytes of `#` given on standard input (a comment, were it to end).
    stdin_bytes: Option<usize>,
    /// Files to make before the run (too large, or not files, to keep in the tree).
    #[serde(default)]
    setup: Vec<Setup>,
    /// Close the command's standard output at once, as `| head -0` would.
    #[serde(default)]
    close_stdout: bool,
    /// Text the command must fail with (on standard error, or in `check`'s
    /// report); absent: the command must succeed.
    error: Option<String>,
    /// Text standard error must hold besides, on success.
    warning: Option<String>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields, rename_all = "kebab-case")]
enum Setup {
    /// A FIFO at this path.
    Fifo(String),
    /// A file of this text.
    Text { path: String, text: String },
    /// A file of this many zero bytes, sparse.
    Sparse { path: String, bytes: u64 },
    /// A file of `head`, then `line` with `{i}` numbered from 0, `count`
    /// times; with `append`, added to the file an earlier setup made, so
    /// that a file can have several such parts.
    Lines {
        path: String,
        head: String,
        line: String,
        count: usize,
        #[serde(default)]
        append: bool,
    },
}

/// How a run ended.
struct Run {
    success: bool,
    killed: Option<String>,
    stdout: String,
    stderr: String,
    seconds: f64,
    peak_kib: u64,
}

fn main() -> ExitCode {
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../tests/hostile-input");
    let scratch = std::env::temp_dir().join(format!("slotwise-hostile-{}", std::process::id()));
    let mut names: Vec<PathBuf> = std::fs::read_dir(&dir)
        .expect("the hostile-input folder")
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|x| x == "yaml"))
        .collect();
    names.sort();
    let (mut passed, mut failed) = (0, 0);
    for path in &names {
        let name = path.file_stem().unwrap_or_default().to_string_lossy();
        match check(path, &dir, &scratch) {
            Ok(run) => {
                println!(
                    "ok    {name} ({:.2} s, {} MiB)",
                    run.seconds,
                    run.peak_kib >> 10
                );
                passed += 1;
            }
            Err(why) => {
                println!("FAIL  {name}\n      {why}");
                failed += 1;
            }
        }
    }
    let _ = std::fs::remove_dir_all(&scratch);
    println!("\n{passed} passed, {failed} failed");
    if failed == 0 && passed > 0 {
        ExitCode::SUCCESS
    } else {
        ExitCode::FAILURE
    }
}

/// Runs the case at `path`; what is wrong, if anything.
fn check(path: &Path, dir: &Path, scratch: &Path) -> Result<Run, String> {
    let text = std::fs::read_to_string(path).map_err(|e| e.to_string())?;
    let case: Case = serde_saphyr::from_str(&text).map_err(|e| format!("the case: {e}"))?;
    std::fs::create_dir_all(scratch).map_err(|e| e.to_string())?;
    for setup in &case.setup {
        make(setup, scratch)?;
    }
    // Paths under `scratch/` name what the setup made; others start here.
    let args: Vec<String> = case
        .args
        .iter()
        .map(|a| a.replace("{scratch}", &scratch.display().to_string()))
        .collect();
    let stdin = match (&case.stdin, case.stdin_bytes) {
        (Some(text), _) => text.clone().into_bytes(),
        (None, Some(n)) => vec![b'#'; n],
        (None, None) => Vec::new(),
    };
    let run = watch(dir, &args, stdin, case.close_stdout)?;
    if let Some(why) = &run.killed {
        return Err(format!("{}: killed: {why}", case.description));
    }
    let looks_like_a_plan = ["counters:", "\"groups\"", "SLOT  CHANGE", "deployment:"]
        .iter()
        .any(|mark| run.stdout.contains(mark));
    match &case.error {
        Some(error) => {
            if run.success {
                return Err(format!("succeeded; expected the error `{error}`"));
            }
            // `check` reports a failing file on stdout, with the others.
            if !run.stderr.contains(error.as_str()) && !run.stdout.contains(error.as_str()) {
                return Err(format!("expected `{error}`, got: {}", run.stderr.trim()));
            }
            if looks_like_a_plan {
                return Err(format!("printed a plan: {}", run.stdout.trim()));
            }
        }
        None => {
            if !run.success {
                return Err(format!("failed: {}", run.stderr.trim()));
            }
            if run.stderr.contains("panicked") {
                return Err(format!("panicked: {}", run.stderr.trim()));
            }
        }
    }
    if let Some(warning) = &case.warning {
        if !run.stderr.contains(warning.as_str()) {
            return Err(format!(
                "expected `{warning}` on stderr, got: {}",
                run.stderr.trim()
            ));
        }
    }
    Ok(run)
}

fn make(setup: &Setup, scratch: &Path) -> Result<(), String> {
    match setup {
        Setup::Fifo(name) => {
            let path = scratch.join(name);
            let _ = std::fs::remove_file(&path);
            let status = Command::new("mkfifo").arg(&path).status();
            if !status.is_ok_and(|s| s.success()) {
                return Err(format!("cannot make the FIFO {}", path.display()));
            }
        }
        Setup::Text { path, text } => {
            std::fs::write(scratch.join(path), text).map_err(|e| e.to_string())?;
        }
        Setup::Sparse { path, bytes } => {
            let file = std::fs::File::create(scratch.join(path)).map_err(|e| e.to_string())?;
            file.set_len(*bytes).map_err(|e| e.to_string())?;
        }
        Setup::Lines {
            path,
            head,
            line,
            count,
            append,
        } => {
            let mut text = head.clone();
            for i in 0..*count {
                text.push_str(&line.replace("{i}", &i.to_string()));
            }
            let file = std::fs::OpenOptions::new()
                .create(true)
                .write(true)
                .append(*append)
                .truncate(!*append)
                .open(scratch.join(path));
            file.and_then(|mut f| std::io::Write::write_all(&mut f, text.as_bytes()))
                .map_err(|e| e.to_string())?;
        }
    }
    Ok(())
}

/// Runs `slotwise` with `args` in `dir`, killing it past the limits.
fn watch(dir: &Path, args: &[String], stdin: Vec<u8>, close_stdout: bool) -> Result<Run, String> {
    let started = Instant::now();
    let mut child = Command::new(env!("CARGO_BIN_EXE_slotwise"))
        .args(args)
        .current_dir(dir)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .map_err(|e| format!("cannot run slotwise: {e}"))?;
    let mut pipe_in = child.stdin.take();
    let feeder = std::thread::spawn(move || {
        // The command may stop reading at its limit: a closed pipe is expected.
        if let Some(pipe) = pipe_in.as_mut() {
            let _ = pipe.write_all(&stdin);
        }
    });
    let mut pipe_out = child.stdout.take();
    if close_stdout {
        pipe_out = None;
    }
    let reader = std::thread::spawn(move || {
        let mut text = String::new();
        if let Some(mut pipe) = pipe_out {
            let _ = pipe.read_to_string(&mut text);
        }
        text
    });
    let mut pipe_err = child.stderr.take();
    let err_reader = std::thread::spawn(move || {
        let mut text = String::new();
        if let Some(pipe) = pipe_err.as_mut() {
            let _ = pipe.read_to_string(&mut text);
        }
        text
    });
    let mut peak_kib = 0;
    let mut killed = None;
    let status = loop {
        if let Ok(Some(status)) = child.try_wait() {
            break status;
        }
        peak_kib = peak_kib.max(resident_kib(child.id()).unwrap_or(0));
        if peak_kib > MEMORY_LIMIT_KIB {
            killed = Some(format!("{} MiB resident", peak_kib >> 10));
        } else if started.elapsed() > TIME_LIMIT {
            killed = Some(format!("still running after {:?}", TIME_LIMIT));
        }
        if killed.is_some() {
            let _ = child.kill();
            break child.wait().map_err(|e| e.to_string())?;
        }
        std::thread::sleep(Duration::from_millis(5));
    };
    let _ = feeder.join();
    Ok(Run {
        success: status.success(),
        killed,
        stdout: reader.join().unwrap_or_default(),
        stderr: err_reader.join().unwrap_or_default(),
        seconds: started.elapsed().as_secs_f64(),
        peak_kib,
    })
}

/// The resident memory of process `pid`, from `/proc/<pid>/status`.
fn resident_kib(pid: u32) -> Option<u64> {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).ok()?;
    let line = status.lines().find(|l| l.starts_with("VmRSS:"))?;
    line.split_whitespace().nth(1)?.parse().ok()
}
