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
    #[serde(default, deserialize_with = "sha256_pin")]
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
    #[serde(default, deserialize_with = "positive")]
    pub deadline: Option<Duration>,
    /// Wall-clock time in all of the plugin's calls of one reconcile, like
    /// `5s`: however quick each call, a plugin cannot hold a reconcile of
    /// many slots for longer.
    #[serde(default, deserialize_with = "positive")]
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

/// Parses `64MiB`, `512KiB`, `1GiB`, `64 MB` or a plain number of bytes.
///
/// # Errors
/// A sentence naming the text, when it is not a size.
pub fn parse_size(text: &str) -> Result<u64, String> {
    text.trim()
        .parse::<bytesize::ByteSize>()
        .map(|size| size.as_u64())
        .map_err(|_| format!("`{text}` is not a size (like 64MiB, 512KiB or 4096)"))
}

/// A SHA-256 pin: 64 hexadecimal digits.
fn sha256_pin<'de, D: serde::Deserializer<'de>>(d: D) -> Result<Option<String>, D::Error> {
    let pin = Option::<String>::deserialize(d)?;
    if let Some(pin) = &pin {
        if pin.len() != 64 || !pin.bytes().all(|b| b.is_ascii_hexdigit()) {
            return Err(serde::de::Error::custom(format!(
                "`{pin}` is not a SHA-256: 64 hexadecimal digits ({} given)",
                pin.chars().count()
            )));
        }
    }
    Ok(pin)
}

/// A time limit: above zero.
fn positive<'de, D: serde::Deserializer<'de>>(d: D) -> Result<Option<Duration>, D::Error> {
    let limit = Option::<Duration>::deserialize(d)?;
    match limit {
        Some(Duration(n)) if n <= 0 => Err(serde::de::Error::custom(format!(
            "{} is not a time limit: it must be above zero",
            slotwise_reconciler::phrasing::duration(n)
        ))),
        _ => Ok(limit),
    }
}

#[cfg(test)]
mod tests {
    use super::{parse_size, PluginsFile};

    #[test]
    fn sizes_read_in_binary_units() {
        assert_eq!(parse_size("64MiB"), Ok(64 << 20));
        assert_eq!(parse_size("512 KiB"), Ok(512 << 10));
        assert_eq!(parse_size("4096"), Ok(4096));
        assert!(parse_size("12 parsecs").is_err());
    }

    #[test]
    fn a_negative_deadline_and_a_malformed_pin_are_refused_naming_the_field() {
        let read = |text: &str| {
            crate::reading::read::<PluginsFile>(text, crate::reading::Syntax::Yaml)
                .err()
                .map(|e| e.to_string())
        };
        let e = read("plugins: [{plugin: p, limits: {deadline: -1s}}]\n").unwrap_or_default();
        assert!(
            e.starts_with("plugins[0].limits.deadline: -1s is not a time limit"),
            "{e}"
        );
        let e =
            read("plugins: [{plugin: p, limits: {reconcile-deadline: 0}}]\n").unwrap_or_default();
        assert!(
            e.starts_with("plugins[0].limits.reconcile-deadline:"),
            "{e}"
        );
        let e = read("plugins: [{plugin: p, sha256: abc}]\n").unwrap_or_default();
        assert!(
            e.starts_with("plugins[0].sha256: `abc` is not a SHA-256"),
            "{e}"
        );
        let pin = "z".repeat(64);
        let e = read(&format!("plugins: [{{plugin: p, sha256: {pin}}}]\n")).unwrap_or_default();
        assert!(e.contains("is not a SHA-256"), "{e}");
        assert!(read(&format!(
            "plugins: [{{plugin: p, sha256: {}}}]\n",
            "aB".repeat(32)
        ))
        .is_none());
    }
}
