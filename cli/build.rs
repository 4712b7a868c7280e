//! With the `embedded` feature, writes what the binary carries (the files `cargo xtask` built) as a Rust expression of `include_bytes!`; without it, nothing.

fn main() {
    println!("cargo:rerun-if-changed=build.rs");
    #[cfg(feature = "embedded")]
    if let Err(message) = carried::write() {
        // A build script's panic is how cargo shows a reason and stops.
        panic!("{message}");
    }
}

#[cfg(feature = "embedded")]
mod carried {
    use sha2::{Digest, Sha256};
    use std::fmt::Write as _;
    use std::path::{Path, PathBuf};

    /// Writes `$OUT_DIR/carried.rs`, the `Carried` value of `src/embedded.rs`.
    pub fn write() -> Result<(), String> {
        let manifest = PathBuf::from(env("CARGO_MANIFEST_DIR")?);
        let root = manifest
            .parent()
            .ok_or("the cli crate lives inside the workspace")?;
        let built = root.join("target/slotwise");
        let wasm = needed(&built.join("reconciler.wasm"), "cargo xtask build")?;
        let cwasm = needed(&built.join("reconciler.cwasm"), "cargo xtask build")?;
        if modified(&cwasm)? < modified(&wasm)? {
            return Err(format!(
                "{} is older than {}: run `cargo xtask build` to precompile the component again",
                cwasm.display(),
                wasm.display()
            ));
        }
        let plugins = shipped_plugins(&built.join("plugins"))?;
        let dist = needed(&root.join("playground/dist"), "cargo xtask playground")?;
        needed(&dist.join("index.html"), "cargo xtask playground")?;
        let mut pages = Vec::new();
        files_under(&dist, &dist, &mut pages)?;
        pages.sort();

        let component = read(&wasm)?;
        let mut plugin_digest = Sha256::new();
        for (name, path) in &plugins {
            plugin_digest.update(name.as_bytes());
            plugin_digest.update(read(path)?);
        }
        let mut out = String::from("Carried {\n");
        let _ = writeln!(out, "    component: include_bytes!({}),", quoted(&wasm)?);
        let _ = writeln!(out, "    precompiled: include_bytes!({}),", quoted(&cwasm)?);
        let _ = writeln!(
            out,
            "    component_sha256: {:?},",
            hex(&Sha256::digest(&component))
        );
        let _ = writeln!(
            out,
            "    plugins_sha256: {:?},",
            hex(&plugin_digest.finalize())
        );
        list(&mut out, "plugins", &plugins)?;
        list(&mut out, "playground", &pages)?;
        out.push_str("}\n");

        // Cargo then rebuilds the binary whenever xtask rebuilds one of them.
        for path in [&wasm, &cwasm, &built.join("plugins"), &dist] {
            println!("cargo:rerun-if-changed={}", path.display());
        }
        let target = PathBuf::from(env("OUT_DIR")?).join("carried.rs");
        std::fs::write(&target, out).map_err(|e| format!("writing {}: {e}", target.display()))
    }

    /// Writes `field: &[(name, include_bytes!(path)), ...],` into `out`.
    fn list(out: &mut String, field: &str, files: &[(String, PathBuf)]) -> Result<(), String> {
        let _ = writeln!(out, "    {field}: &[");
        for (name, path) in files {
            let _ = writeln!(
                out,
                "        ({name:?}, include_bytes!({})),",
                quoted(path)?
            );
        }
        out.push_str("    ],\n");
        Ok(())
    }

    fn env(name: &str) -> Result<String, String> {
        std::env::var(name).map_err(|_| format!("cargo did not set {name}"))
    }

    /// `path`, when it exists; else why the feature cannot be built.
    fn needed(path: &Path, built_by: &str) -> Result<PathBuf, String> {
        if path.exists() {
            Ok(path.to_path_buf())
        } else {
            Err(format!(
                "the `embedded` feature carries files that `cargo xtask` builds, and {} is \
                 missing: run `{built_by}` first (`cargo xtask install` builds everything), \
                 or build without `--features embedded`",
                path.display()
            ))
        }
    }

    fn modified(path: &Path) -> Result<std::time::SystemTime, String> {
        std::fs::metadata(path)
            .and_then(|m| m.modified())
            .map_err(|e| format!("{}: {e}", path.display()))
    }

    fn read(path: &Path) -> Result<Vec<u8>, String> {
        std::fs::read(path).map_err(|e| format!("reading {}: {e}", path.display()))
    }

    /// The shipped plugins in `dir`, by name: its `.wasm` files, less the
    /// test plugins `test-plugins.json` lists.
    fn shipped_plugins(dir: &Path) -> Result<Vec<(String, PathBuf)>, String> {
        let listed = needed(&dir.join("test-plugins.json"), "cargo xtask build")?;
        let tests: Vec<String> = serde_json::from_slice(&read(&listed)?)
            .map_err(|e| format!("{}: {e}", listed.display()))?;
        let entries = std::fs::read_dir(dir).map_err(|e| format!("{}: {e}", dir.display()))?;
        let mut plugins = Vec::new();
        for entry in entries {
            let path = entry.map_err(|e| format!("{}: {e}", dir.display()))?.path();
            let name = path
                .file_name()
                .and_then(|n| n.to_str())
                .and_then(|n| n.strip_suffix(".wasm"));
            if let Some(name) = name.filter(|n| !tests.iter().any(|t| t == n)) {
                plugins.push((name.to_string(), path.clone()));
            }
        }
        plugins.sort();
        Ok(plugins)
    }

    /// Every file under `dir`, by its path relative to `root` with `/`.
    fn files_under(
        root: &Path,
        dir: &Path,
        out: &mut Vec<(String, PathBuf)>,
    ) -> Result<(), String> {
        let entries = std::fs::read_dir(dir).map_err(|e| format!("{}: {e}", dir.display()))?;
        for entry in entries {
            let path = entry.map_err(|e| format!("{}: {e}", dir.display()))?.path();
            if path.is_dir() {
                files_under(root, &path, out)?;
                continue;
            }
            let relative = path
                .strip_prefix(root)
                .map_err(|e| e.to_string())?
                .components()
                .map(|c| c.as_os_str().to_str().map(str::to_string))
                .collect::<Option<Vec<_>>>()
                .ok_or_else(|| format!("{} is not UTF-8", path.display()))?
                .join("/");
            out.push((relative, path));
        }
        Ok(())
    }

    fn quoted(path: &Path) -> Result<String, String> {
        path.to_str()
            .map(|p| format!("{p:?}"))
            .ok_or_else(|| format!("{} is not UTF-8", path.display()))
    }

    fn hex(bytes: &[u8]) -> String {
        bytes.iter().map(|b| format!("{b:02x}")).collect()
    }
}
