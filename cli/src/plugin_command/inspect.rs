//! `slotwise plugin inspect`: what a plugin file holds, whether this host would load it, and what settings it needs.

use super::settings::entry;
use anyhow::Result;
use slotwise_host::plugin_wit::{hook_name, PACKAGE, VERSIONS};
use slotwise_host::plugins::loading::{self, hook_list, Configured, LoadedPlugin, WasmKind};
use slotwise_host::plugins::sandbox::{bytes, group_digits, Sandbox};
use std::path::Path;

/// What a plugin makes of settings: the ones given, or, when none are, no
/// settings at all and the example its metadata gives.
enum Settings {
    /// Settings were given, and this is how it took them.
    Given(Configured),
    /// None were given and it needs none.
    NoneNeeded,
    /// None were given and it needs some: what it says to none, and how it
    /// takes the example its metadata gives, when it gives one.
    Required {
        without: String,
        example: Option<(String, Configured)>,
    },
}

/// Prints what `file` holds; `settings` are tried when given. Returns
/// whether the file is a plugin this host loads (a plugin that only waits
/// for its settings is).
///
/// # Errors
/// When the file cannot be read, or the settings are not JSON.
pub fn run(file: &Path, settings: Option<&str>, json: bool) -> Result<bool> {
    let sandbox = Sandbox::new()?;
    // Read as the host reads plugin files: a FIFO or a device is refused, not waited on.
    let bytes_of = slotwise_host::plugins::plugin_file::read(file)
        .map_err(|e| anyhow::anyhow!("{}: {e}", file.display()))?;
    let (inspection, _) = loading::inspect(&sandbox, file, &bytes_of)
        .map_err(|e| anyhow::anyhow!("{}: {e}", file.display()))?;
    let entry = entry(file, settings.unwrap_or("null"))?;
    let prepared = loading::prepare(&sandbox, &entry, file);
    let verdict: Result<Settings, String> = match &prepared {
        Err(e) => Err(e.cause.clone()),
        Ok(plugin) => try_settings(&sandbox, plugin, settings.map(|_| entry.settings.as_str())),
    };
    let metadata = prepared.as_ref().ok().map(|p| &p.metadata);
    let loadable = match &verdict {
        Ok(Settings::Given(taken)) => *taken == Configured::Taken,
        Ok(_) => true,
        Err(_) => false,
    };
    let kind = match inspection.kind {
        WasmKind::Component => "component",
        WasmKind::CoreModule => "core module",
        WasmKind::Other => "not WebAssembly",
    };
    if json {
        let value = serde_json::json!({
            "file": file.display().to_string(),
            "size": inspection.size,
            "sha256": inspection.sha256,
            "kind": kind,
            "versions": inspection.versions,
            "interface-version": inspection.version,
            "host-versions": VERSIONS,
            "imports": inspection.imports,
            "exports": inspection.exports,
            "metadata": metadata.map(|m| serde_json::json!({
                "name": m.name,
                "version": m.version,
                "description": m.description,
                "hooks": m.hooks.iter().map(|h| hook_name(*h)).collect::<Vec<_>>(),
                "settings-example": m.settings_example,
            })),
            "settings": verdict.as_ref().ok().map(settings_json),
            "loadable": loadable,
            "refusal": verdict.as_ref().err(),
        });
        crate::output::line(&serde_json::to_string_pretty(&value)?)?;
        return Ok(loadable);
    }
    let versions: Vec<String> = inspection
        .versions
        .iter()
        .map(|v| format!("{PACKAGE}@{v}"))
        .collect();
    let spoken: Vec<String> = VERSIONS.iter().map(|v| format!("{PACKAGE}@{v}")).collect();
    let mut rows = vec![
        ("file", file.display().to_string()),
        (
            "size",
            format!(
                "{} ({} bytes)",
                bytes(inspection.size),
                group_digits(inspection.size)
            ),
        ),
        ("sha256", inspection.sha256.clone()),
        ("kind", kind.to_string()),
        (
            "interface",
            format!(
                "{} (this host loads {})",
                list(&versions),
                spoken.join(" and ")
            ),
        ),
        (
            "hooks",
            metadata.map_or_else(|| hook_list(&inspection.hooks), |m| hook_list(&m.hooks)),
        ),
        ("imports", list(&inspection.imports)),
        ("exports", list(&inspection.exports)),
        ("name", metadata.map(|m| m.name.clone()).unwrap_or_default()),
        (
            "version",
            metadata.map(|m| m.version.clone()).unwrap_or_default(),
        ),
        (
            "description",
            metadata.map(|m| m.description.clone()).unwrap_or_default(),
        ),
    ];
    match &verdict {
        Err(cause) => rows.push(("verdict", format!("refused: {cause}"))),
        Ok(Settings::Given(Configured::Taken)) => {
            rows.push(("settings", "taken".into()));
            rows.push(("verdict", "loadable".into()));
        }
        Ok(Settings::Given(other)) => {
            rows.push(("settings", describe(other)));
            rows.push((
                "verdict",
                "refused: with these settings it cannot run".into(),
            ));
        }
        Ok(Settings::NoneNeeded) => {
            rows.push(("settings", "none needed".into()));
            rows.push(("verdict", "loadable".into()));
        }
        Ok(Settings::Required { without, example }) => {
            rows.push((
                "settings",
                format!("required: given none, it says \"{without}\""),
            ));
            rows.push((
                "example",
                match example {
                    Some((text, taken)) => format!("{text} ({})", describe(taken)),
                    None => "none in its metadata".into(),
                },
            ));
            rows.push((
                "verdict",
                "loadable once given settings; try some with --settings JSON or --settings @FILE"
                    .into(),
            ));
        }
    }
    let text: String = rows
        .iter()
        .map(|(label, value)| format!("{label:<12}{value}\n"))
        .collect();
    crate::output::text(&text)?;
    Ok(loadable)
}

/// How `plugin` takes `settings`, or, when none are given, none at all and
/// the example of its metadata.
fn try_settings(
    sandbox: &Sandbox,
    plugin: &LoadedPlugin,
    settings: Option<&str>,
) -> Result<Settings, String> {
    let attempt = |text: &str| -> Result<Configured, String> {
        let mut live = plugin.instantiate_bare(sandbox)?;
        Ok(plugin.configure_with(&mut live, text))
    };
    if let Some(text) = settings {
        return attempt(text).map(Settings::Given);
    }
    match attempt("null")? {
        Configured::Taken => Ok(Settings::NoneNeeded),
        Configured::Refused(without) => {
            let text = plugin.metadata.settings_example.trim();
            let example = match text {
                "" => None,
                text => Some((text.to_string(), attempt(text)?)),
            };
            Ok(Settings::Required { without, example })
        }
        Configured::Failed(cause) => Err(format!("`configure` failed: {cause}")),
    }
}

fn describe(configured: &Configured) -> String {
    match configured {
        Configured::Taken => "taken".into(),
        Configured::Refused(why) => format!("refused: {why}"),
        Configured::Failed(why) => format!("`configure` failed: {why}"),
    }
}

fn settings_json(settings: &Settings) -> serde_json::Value {
    let outcome = |c: &Configured| match c {
        Configured::Taken => serde_json::json!({"taken": true}),
        Configured::Refused(why) => serde_json::json!({"taken": false, "refusal": why}),
        Configured::Failed(why) => serde_json::json!({"taken": false, "failure": why}),
    };
    match settings {
        Settings::Given(c) => serde_json::json!({"given": outcome(c)}),
        Settings::NoneNeeded => serde_json::json!({"required": false}),
        Settings::Required { without, example } => serde_json::json!({
            "required": true,
            "without": without,
            "example": example.as_ref().map(|(text, c)| serde_json::json!({"text": text, "outcome": outcome(c)})),
        }),
    }
}

fn list(names: &[String]) -> String {
    if names.is_empty() {
        "none".into()
    } else {
        names.join(", ")
    }
}
