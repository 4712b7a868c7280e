//! The plugins file: which policy plugins a host runs, in order, with their settings, error handling, mode and limits.

use crate::time::Duration;
use schemars::JsonSchema;
use serde::Deserialize;
use std::path::PathBuf;

/// A plugins file.
#[derive(Deserialize, JsonSchema)]
#[serde(deny_unknown_fields, rename_all = "kebab-case")]
pub struct PluginsFile {
    /// The plugins, in the order they are asked.
    pub plugins: Vec<PluginEntry>,
}

/// One plugin.
#[derive(Deserialize, JsonSchema, Clone, Debug, Default)]
#[serde(deny_unknown_fields, rename_all = "kebab-case")]
pub struct PluginEntry {
    /// The component file; a relative path starts from the directory of the
    /// file that names it. Not together with `plugin`.
    pub path: Option<PathBuf>,
    /// A plugin shipped with slotwise, by name (`maintenance-window`). Not
    /// together with `path`.
    pub plugin: Option<String>,
    /// The name the plugin goes by in this host: in reports, and as the owner
    /// of the data it keeps. Default: the name its metadata gives. Lets one
    /// plugin be loaded twice with different settings.
    pub name: Option<String>,
    /// Refuse the file unless its SHA-256, in hex, is this.
    pub sha256: Option<String>,
    /// The settings, given to the plugin's `configure` as JSON.
    #[serde(default)]
    pub settings: serde_json::Value,
    /// What a failure of the plugin does. Default `fail-closed`.
    #[serde(default)]
    pub on_error: OnError,
    /// Whether the plugin's answers are applied. Default `enforce`.
    #[serde(default)]
    pub mode: Mode,
    /// What the plugin may use per call.
    #[serde(default)]
    pub limits: LimitsFile,
}

impl PluginEntry {
    /// Whether a failure of the plugin is reported rather than ending the reconcile.
    pub fn fails_open(&self) -> bool {
        fails_open(self.on_error, self.mode)
    }
}

/// Whether a failure of a plugin is reported rather than ending the
/// reconcile: it fails open, or it only monitors, and what a monitoring
/// plugin does, failing included, never changes the outcome.
pub fn fails_open(on_error: OnError, mode: Mode) -> bool {
    on_error == OnError::FailOpen || mode == Mode::Monitor
}

/// What a failure of a plugin does.
#[derive(Deserialize, JsonSchema, Clone, Copy, Debug, Default, PartialEq, Eq)]
#[serde(rename_all = "kebab-case")]
pub enum OnError {
    /// The reconcile fails, with an error naming the plugin, hook, slot and cause.
    #[default]
    FailClosed,
    /// The plugin's answer is skipped, and the failure reported.
    FailOpen,
}

/// Whether a plugin's answers are applied.
#[derive(Deserialize, JsonSchema, Clone, Copy, Debug, Default, PartialEq, Eq)]
#[serde(rename_all = "kebab-case")]
pub enum Mode {
    /// Applied.
    #[default]
    Enforce,
    /// Run and reported, never applied.
    Monitor,
}

/// Limits; unset ones take the host's defaults.
#[derive(Deserialize, JsonSchema, Clone, Debug, Default)]
#[serde(deny_unknown_fields, rename_all = "kebab-case")]
pub struct LimitsFile {
    /// Fuel (about one unit per WebAssembly instruction) per hook call.
    pub fuel: Option<u64>,
    /// Linear memory, in bytes or like `64MiB`.
    pub memory: Option<ByteSize>,
    /// Wall-clock time per hook call, like `100ms`.
    pub deadline: Option<Duration>,
    /// Wall-clock time in all of the plugin's calls of one reconcile, like
    /// `5s`: however quick each call, a plugin cannot hold a reconcile of
    /// many slots for longer.
    pub reconcile_deadline: Option<Duration>,
}

/// A size in bytes: a number, or text like `64MiB`, `512KiB`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, JsonSchema)]
#[schemars(with = "SizeText")]
pub struct ByteSize(pub u64);

/// Bytes or text.
#[derive(Deserialize, JsonSchema)]
#[serde(untagged)]
enum SizeText {
    Bytes(u64),
    Text(String),
}

impl<'de> Deserialize<'de> for ByteSize {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        match SizeText::deserialize(d)? {
            SizeText::Bytes(n) => Ok(ByteSize(n)),
            SizeText::Text(t) => parse_size(&t)
                .map(ByteSize)
                .map_err(serde::de::Error::custom),
        }
    }
}

/// Parses `64MiB`, `512KiB`, `1GiB` or a plain number of bytes.
pub fn parse_size(text: &str) -> Result<u64, String> {
    let t = text.trim();
    let digits = t.find(|c: char| !c.is_ascii_digit()).unwrap_or(t.len());
    let (number, unit) = t.split_at(digits);
    let scale: u64 = match unit.trim() {
        "" | "B" => 1,
        "KiB" => 1 << 10,
        "MiB" => 1 << 20,
        "GiB" => 1 << 30,
        other => {
            return Err(format!(
                "`{other}` in `{text}` is not a unit (B, KiB, MiB, GiB)"
            ))
        }
    };
    number
        .parse::<u64>()
        .ok()
        .and_then(|n| n.checked_mul(scale))
        .ok_or_else(|| format!("`{text}` is not a size (like 64MiB)"))
}

#[cfg(test)]
mod tests {
    use super::parse_size;

    #[test]
    fn sizes_read_in_binary_units() {
        assert_eq!(parse_size("64MiB"), Ok(64 << 20));
        assert_eq!(parse_size("4096"), Ok(4096));
        assert!(parse_size("12 parsecs").is_err());
    }
}
