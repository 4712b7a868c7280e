//! What the binary carries inside itself when built with the `embedded` feature: the reconciler component and its precompiled form, the shipped plugins, the playground's files.

use anyhow::{Context, Result};
use slotwise_host::ComponentReconciler;
use std::path::{Path, PathBuf};

/// The files `cargo xtask` built, as the build script found them.
pub struct Carried {
    /// The reconciler component.
    pub component: &'static [u8],
    /// The same, precompiled for the host that built the binary.
    pub precompiled: &'static [u8],
    /// The component's SHA-256, in hex.
    pub component_sha256: &'static str,
    /// A SHA-256 over the plugins' names and bytes, in hex.
    pub plugins_sha256: &'static str,
    /// The shipped plugins, by name.
    pub plugins: &'static [(&'static str, &'static [u8])],
    /// The playground's built files, by relative path.
    pub playground: &'static [(&'static str, &'static [u8])],
}

#[cfg(feature = "embedded")]
static BUILT: Carried = include!(concat!(env!("OUT_DIR"), "/carried.rs"));

/// What this binary carries; `None` when it was built without them.
#[cfg(feature = "embedded")]
pub const CARRIED: Option<&Carried> = Some(&BUILT);
#[cfg(not(feature = "embedded"))]
pub const CARRIED: Option<&Carried> = None;

impl Carried {
    /// The component, ready to run: precompiled when this host can run the
    /// precompiled form (same wasmtime, same settings, the CPU features it
    /// was compiled for), else compiled here from the component itself.
    pub fn reconciler(&self) -> Result<ComponentReconciler> {
        // SAFETY: the bytes were written by `slotwise precompile` when the
        // binary was built and are part of it; wasmtime refuses them when
        // they do not suit this engine or CPU.
        if let Ok(reconciler) = unsafe { ComponentReconciler::from_precompiled(self.precompiled) } {
            return Ok(reconciler);
        }
        ComponentReconciler::from_bytes(self.component)
            .context("cannot load the reconciler component this binary carries")
    }

    /// The component as a file, for what needs a path (child processes):
    /// unpacked into the user's cache once.
    pub fn component_file(&self) -> Result<PathBuf> {
        let dir = unpacked_dir("component", self.component_sha256)?;
        unpack(&dir, "reconciler.wasm", self.component)
    }

    /// A directory holding the shipped plugins as `NAME.wasm`, as the host
    /// loads them: unpacked into the user's cache once, where the host also
    /// caches their compiled form.
    pub fn plugin_dir(&self) -> Result<PathBuf> {
        let dir = unpacked_dir("plugins", self.plugins_sha256)?;
        for (name, bytes) in self.plugins {
            unpack(&dir, &format!("{name}.wasm"), bytes)?;
        }
        Ok(dir)
    }
}

/// `<cache>/slotwise/<what>-<digest>`: one directory per content, so that
/// binaries of different builds never share one.
fn unpacked_dir(what: &str, sha256: &str) -> Result<PathBuf> {
    let cache = dirs::cache_dir().context(
        "no cache directory to unpack into (set HOME or XDG_CACHE_HOME, or pass --plugin-dir or --component)",
    )?;
    let short = sha256.get(..16).unwrap_or(sha256);
    Ok(cache.join("slotwise").join(format!("{what}-{short}")))
}

/// Writes `bytes` to `dir/name` unless the file already holds them; through
/// a file of this process renamed into place, so that concurrent runs never
/// read a half-written file.
fn unpack(dir: &Path, name: &str, bytes: &[u8]) -> Result<PathBuf> {
    let path = dir.join(name);
    if std::fs::read(&path).is_ok_and(|found| found == bytes) {
        return Ok(path);
    }
    std::fs::create_dir_all(dir).with_context(|| format!("creating {}", dir.display()))?;
    let partial = dir.join(format!(".{name}.{}", std::process::id()));
    std::fs::write(&partial, bytes).with_context(|| format!("writing {}", partial.display()))?;
    std::fs::rename(&partial, &path).with_context(|| format!("writing {}", path.display()))?;
    Ok(path)
}

#[cfg(all(test, feature = "embedded"))]
mod tests {
    use super::*;

    #[test]
    fn the_precompiled_form_runs_on_the_host_that_built_it() {
        // SAFETY: the bytes `slotwise precompile` wrote for this binary.
        let reconciler = unsafe { ComponentReconciler::from_precompiled(BUILT.precompiled) };
        reconciler.unwrap().instantiate_only().unwrap();
    }

    #[test]
    fn a_precompiled_form_this_host_cannot_run_falls_back_to_the_component() {
        let elsewhere = Carried {
            precompiled: b"precompiled by another wasmtime, or for another CPU",
            ..BUILT
        };
        // SAFETY: wasmtime checks the header before it runs anything.
        assert!(unsafe { ComponentReconciler::from_precompiled(elsewhere.precompiled) }.is_err());
        elsewhere.reconciler().unwrap().instantiate_only().unwrap();
    }
}
