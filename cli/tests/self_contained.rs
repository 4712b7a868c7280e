//! The `slotwise` binary built with the `embedded` feature, copied alone into an empty directory with nothing of the workspace reachable: what it carries must be enough.

use std::io::{BufRead, BufReader, Read, Write};
use std::net::TcpStream;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Output, Stdio};
use std::time::Duration;

const NODE_DOWN: &str = include_str!("../../docs/examples/node-down.yaml");
const TWO_PLUGINS: &str = include_str!(
    "../../tests/plugins/zone-drain/with-a-maintenance-window-the-drain-waits-for-the-window.yaml"
);

/// The binary alone in `bin/`, scenario files in `work/`, and a cache and a
/// home of its own, all under one temporary directory.
struct Alone {
    root: tempfile::TempDir,
}

impl Alone {
    fn new() -> Self {
        let root = tempfile::tempdir().unwrap();
        let bin = root.path().join("bin");
        let work = root.path().join("work");
        for dir in [&bin, &work, &root.path().join("home")] {
            std::fs::create_dir(dir).unwrap();
        }
        std::fs::copy(env!("CARGO_BIN_EXE_slotwise"), bin.join("slotwise")).unwrap();
        std::fs::write(work.join("node-down.yaml"), NODE_DOWN).unwrap();
        std::fs::write(work.join("two-plugins.yaml"), TWO_PLUGINS).unwrap();
        let alone = Self { root };
        // Nothing the binary would look for on disk is reachable.
        let listed: Vec<_> = std::fs::read_dir(&bin).unwrap().collect();
        assert_eq!(listed.len(), 1, "the binary is alone in {}", bin.display());
        assert!(!root_of(&alone).join("slotwise").exists());
        assert!(!root_of(&alone).join("playground").exists());
        alone
    }

    fn path(&self, relative: &str) -> PathBuf {
        self.root.path().join(relative)
    }

    fn command(&self, args: &[&str]) -> Command {
        let mut command = Command::new(self.path("bin/slotwise"));
        command
            .args(args)
            .current_dir(self.path("work"))
            .env_remove("SLOTWISE_COMPONENT")
            .env_remove("SLOTWISE_PLUGIN_DIR")
            .env("HOME", self.path("home"))
            .env("XDG_CACHE_HOME", self.path("cache"));
        command
    }

    fn run(&self, args: &[&str]) -> Output {
        let mut command = self.command(args);
        started(|| command.output())
    }
}

/// What `start` returns, once the copied binary can be executed: a test
/// that forks while another copies its binary holds the file open for
/// writing in the child for a moment (`ETXTBSY`).
fn started<T>(mut start: impl FnMut() -> std::io::Result<T>) -> T {
    let mut tries = 0;
    loop {
        match start() {
            Err(e) if e.kind() == std::io::ErrorKind::ExecutableFileBusy && tries < 50 => {
                tries += 1;
                std::thread::sleep(Duration::from_millis(20));
            }
            result => return result.unwrap(),
        }
    }
}

fn root_of(alone: &Alone) -> &Path {
    alone.root.path()
}

fn stdout(output: &Output) -> String {
    String::from_utf8_lossy(&output.stdout).into_owned()
}

fn stderr(output: &Output) -> String {
    String::from_utf8_lossy(&output.stderr).into_owned()
}

fn succeeded(output: &Output) -> String {
    assert!(
        output.status.success(),
        "stdout: {}\nstderr: {}",
        stdout(output),
        stderr(output)
    );
    stdout(output)
}

#[test]
fn reconcile_plans_a_scenario_with_the_carried_component() {
    let alone = Alone::new();
    let plan: serde_json::Value = serde_json::from_str(&succeeded(&alone.run(&[
        "reconcile",
        "node-down.yaml",
        "--json",
    ])))
    .unwrap();
    let text = plan.to_string();
    assert!(
        text.contains("\"api-1\"") && text.contains("\"api-2\""),
        "{text}"
    );
    let shown = succeeded(&alone.run(&["reconcile", "node-down.yaml"]));
    assert!(shown.contains("lost"), "{shown}");
}

#[test]
fn check_passes_scenarios_that_use_the_carried_plugins() {
    let alone = Alone::new();
    let out = succeeded(&alone.run(&["check", "node-down.yaml", "two-plugins.yaml"]));
    assert!(out.contains("pass  node-down.yaml"), "{out}");
    assert!(out.contains("pass  two-plugins.yaml"), "{out}");
    assert!(out.contains("2 passed, 0 failed"), "{out}");
}

#[test]
fn plugin_inspect_reads_a_carried_plugin_by_name() {
    let alone = Alone::new();
    let out = succeeded(&alone.run(&["plugin", "inspect", "canary-gate", "--json"]));
    let inspected: serde_json::Value = serde_json::from_str(&out).unwrap();
    assert_eq!(inspected["loadable"], true, "{out}");
    assert_eq!(inspected["metadata"]["name"], "canary-gate", "{out}");
    assert_eq!(inspected["kind"], "component", "{out}");
}

#[test]
fn the_version_names_the_interfaces_and_the_carried_component() {
    let alone = Alone::new();
    let out = succeeded(&alone.run(&["--version"]));
    assert!(out.starts_with("slotwise "), "{out}");
    assert!(out.contains("slotwise:reconciler/reconcile@"), "{out}");
    assert!(out.contains("slotwise:plugin@"), "{out}");
    let hash = out
        .split("sha256 ")
        .nth(1)
        .and_then(|rest| rest.split_whitespace().next())
        .unwrap_or_default();
    assert_eq!(hash.len(), 64, "{out}");
    assert!(hash.bytes().all(|b| b.is_ascii_hexdigit()), "{out}");
}

#[test]
fn completions_are_written_for_bash_zsh_and_fish() {
    let alone = Alone::new();
    for shell in ["bash", "zsh", "fish"] {
        let out = succeeded(&alone.run(&["completions", shell]));
        assert!(out.contains("slotwise"), "{shell}: {out}");
        assert!(out.contains("reconcile"), "{shell}: {out}");
    }
}

/// Runs `command` with `--component` at `component`: it must fail, naming
/// the file, without a panic.
fn refused(alone: &Alone, component: &Path, command: &str) {
    let shown = component.to_str().unwrap();
    let out = alone.run(&["--component", shown, command, "node-down.yaml"]);
    assert!(!out.status.success());
    let err = stderr(&out);
    assert!(err.contains(shown), "{err}");
    assert!(!err.contains("panicked"), "{err}");
}

#[test]
fn a_missing_component_is_named() {
    let alone = Alone::new();
    refused(&alone, &alone.path("nowhere/reconciler.wasm"), "reconcile");
}

#[test]
fn a_corrupt_component_is_named() {
    let alone = Alone::new();
    for name in ["corrupt.wasm", "corrupt.cwasm"] {
        let corrupt = alone.path(&format!("work/{name}"));
        std::fs::write(&corrupt, b"\0asm not really").unwrap();
        refused(&alone, &corrupt, "check");
    }
}

/// The server, stopped when dropped.
struct Server(Child);

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

/// One GET, read to its end: the status line and headers, and the body.
fn get(address: &str, path: &str) -> (String, Vec<u8>) {
    let mut stream = TcpStream::connect(address).unwrap();
    stream
        .set_read_timeout(Some(Duration::from_secs(10)))
        .unwrap();
    write!(
        stream,
        "GET {path} HTTP/1.1\r\nHost: {address}\r\nConnection: close\r\n\r\n"
    )
    .unwrap();
    let mut answer = Vec::new();
    stream.read_to_end(&mut answer).unwrap();
    let split = answer
        .windows(4)
        .position(|w| w == b"\r\n\r\n")
        .expect("an answer with headers");
    let head = String::from_utf8_lossy(&answer[..split]).into_owned();
    (head, answer[split + 4..].to_vec())
}

#[test]
fn the_playground_serves_its_page_and_assets() {
    let alone = Alone::new();
    let mut command = alone.command(&["playground", "--port", "0"]);
    command.stdout(Stdio::piped()).stderr(Stdio::null());
    let child = started(|| command.spawn());
    let mut server = Server(child);
    let mut first = String::new();
    BufReader::new(server.0.stdout.take().unwrap())
        .read_line(&mut first)
        .unwrap();
    // "slotwise playground: http://127.0.0.1:PORT/ (serving …)"
    let address = first
        .split("http://")
        .nth(1)
        .and_then(|rest| rest.split('/').next())
        .unwrap_or_else(|| panic!("no address in {first:?}"))
        .to_string();
    assert!(address.starts_with("127.0.0.1:"), "{first}");

    let (head, page) = get(&address, "/");
    assert!(head.starts_with("HTTP/1.1 200"), "{head}");
    assert!(head.contains("content-type: text/html"), "{head}");
    let page = String::from_utf8(page).unwrap();
    let asset = page
        .split("src=\"")
        .skip(1)
        .filter_map(|rest| rest.split('"').next())
        .find(|src| src.ends_with(".js"))
        .unwrap_or_else(|| panic!("no script in the page: {page}"));
    let asset = format!("/{}", asset.trim_start_matches("./"));
    let (head, script) = get(&address, &asset);
    assert!(head.starts_with("HTTP/1.1 200"), "{asset}: {head}");
    assert!(head.contains("content-type: text/javascript"), "{head}");
    assert!(!script.is_empty(), "{asset} is empty");
}
