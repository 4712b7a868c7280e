//! How a host is told to run a plugin: where it is, what it goes by, its settings, what its failures do, and its limits.

use super::sandbox::Limits;
use std::path::PathBuf;

/// One plugin to load, as the host library takes it. A command reads it from
/// its own file format (slotwise's plugins files) and converts.
#[derive(Clone, Debug)]
pub struct PluginConfig {
    /// The component file; a relative path starts from the base directory
    /// the loader is given. Not together with `plugin`.
    pub path: Option<PathBuf>,
    /// A plugin shipped with the host, by name. Not together with `path`.
    pub plugin: Option<String>,
    /// The name it goes by; default: the name its metadata gives.
    pub name: Option<String>,
    /// Refuse the file unless its SHA-256, in hex, is this.
    pub sha256: Option<String>,
    /// Its settings, as JSON text.
    pub settings: String,
    /// Whether a failure of it is skipped and reported rather than ending
    /// the reconcile.
    pub fail_open: bool,
    /// Whether its answers are only reported.
    pub monitor: bool,
    /// What it may use.
    pub limits: Limits,
}

impl PluginConfig {
    /// Whether a failure of the plugin is reported rather than ending the
    /// reconcile: it fails open, or it only monitors.
    pub fn fails_open(&self) -> bool {
        self.fail_open || self.monitor
    }
}

impl Default for PluginConfig {
    /// A plugin with no settings (`null`), failing closed, enforcing, with
    /// the host's default limits.
    fn default() -> Self {
        Self {
            path: None,
            plugin: None,
            name: None,
            sha256: None,
            settings: "null".into(),
            fail_open: false,
            monitor: false,
            limits: Limits::default(),
        }
    }
}
