//! The settings a plugin command tries a plugin with: JSON text, or `@path` of a file holding it.

use anyhow::{Context, Result};
use slotwise_host::plugins::PluginConfig;
use std::path::Path;

/// The configuration of the plugin at `file` with `settings`: JSON text,
/// or `@path` of a file holding it.
///
/// # Errors
/// When the file cannot be read or the text is not JSON.
pub fn entry(file: &Path, settings: &str) -> Result<PluginConfig> {
    let text = match settings.strip_prefix('@') {
        Some(path) => std::fs::read_to_string(path)
            .with_context(|| format!("cannot read the settings file {path}"))?,
        None => settings.to_string(),
    };
    let value: serde_json::Value = serde_json::from_str(&text).context("--settings is not JSON")?;
    Ok(PluginConfig {
        path: Some(file.to_path_buf()),
        settings: value.to_string(),
        ..PluginConfig::default()
    })
}
