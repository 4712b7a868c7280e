//! Loading a plugin: refusing what is not a plugin this host can run safely, compiling it once, and learning who it is.

use super::config::PluginConfig;
use super::sandbox::{Deadline, Limits, PluginState, Sandbox};
use crate::plugin_wit::since_v0_1_0 as v1;
use crate::plugin_wit::types::{Hook, PluginMetadata, ViewParts};
use crate::plugin_wit::{plugin, PACKAGE, VERSION, VERSIONS};
use sha2::{Digest, Sha256};
use std::path::{Path, PathBuf};
use wasmtime::component::{types::ComponentItem, Component, HasSelf, InstancePre, Linker};
use wasmtime::Store;

/// A plugin that could not be loaded, and why.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error(
    "cannot load plugin {plugin}{}: {cause}",
    .version.as_ref().map(|v| format!(" {v}")).unwrap_or_default()
)]
pub struct LoadError {
    /// The plugin's file, or its name once known.
    pub plugin: String,
    /// Its version, once its metadata is read.
    pub version: Option<String>,
    /// What is wrong.
    pub cause: String,
}

/// What a file holds, as far as can be seen without running it.
#[derive(Debug, Clone)]
pub struct Inspection {
    /// Its size in bytes.
    pub size: u64,
    /// Its SHA-256, in hex.
    pub sha256: String,
    /// Component, core module, or neither.
    pub kind: WasmKind,
    /// What it imports, by name.
    pub imports: Vec<String>,
    /// What it exports, by name.
    pub exports: Vec<String>,
    /// The versions of the plugin package its exports belong to.
    pub versions: Vec<String>,
    /// The version of the package this host would load it as: the newest
    /// it speaks among `versions`.
    pub version: Option<&'static str>,
    /// The hooks a 0.1 plugin exports (a 0.2 plugin names them in its metadata).
    pub hooks: Vec<Hook>,
}

/// The kind of a file.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum WasmKind {
    /// A WebAssembly component.
    Component,
    /// A core WebAssembly module.
    CoreModule,
    /// Not WebAssembly.
    Other,
}

/// How a plugin took settings it was given.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Configured {
    /// It took them.
    Taken,
    /// It refused them, saying why.
    Refused(String),
    /// It failed (trapped, ran out of fuel or time) while reading them.
    Failed(String),
}

/// A plugin ready to instantiate.
pub struct LoadedPlugin {
    /// The name it goes by in this host.
    pub name: String,
    /// Who it says it is, in this host's version of the package.
    pub metadata: PluginMetadata,
    /// Where it was loaded from.
    pub path: PathBuf,
    /// What the file holds.
    pub inspection: Inspection,
    /// Its settings, as JSON text.
    pub settings: String,
    /// Whether a failure of it is reported rather than ending the reconcile.
    pub fail_open: bool,
    /// Whether its answers are only reported.
    pub monitor: bool,
    /// What a call may use.
    pub limits: Limits,
    pre: InstancePre<PluginState>,
    exports: Exports,
}

/// Where a plugin's interfaces are among its exports, by package version.
enum Exports {
    Current(plugin::GuestIndices),
    V1 {
        plugin: v1::plugin::GuestIndices,
        pre_slot: Option<v1::pre_slot::GuestIndices>,
        post_slot: Option<v1::post_slot::GuestIndices>,
        promotion: Option<v1::promotion::GuestIndices>,
    },
}

/// A plugin's instance for one reconcile, with its bound exports.
pub struct Live {
    pub store: Store<PluginState>,
    pub bound: Bound,
}

/// A plugin's exports, bound to its instance.
pub enum Bound {
    /// `slotwise:plugin@0.2.0`.
    Current(plugin::Guest),
    /// `slotwise:plugin@0.1.0`, answered per slot by the 0.1 adapter.
    V1(super::since_v0_1_0::Hooks),
}

/// The interface name of `iface` in version `version` of the package.
fn interface(iface: &str, version: &str) -> String {
    format!("{PACKAGE}/{iface}@{version}")
}

/// What a 0.2 plugin may import: the log, and nothing else.
fn allowed_import(name: &str) -> bool {
    name == interface("log", VERSION)
}

/// The kind of the bytes, from the WebAssembly header.
fn kind_of(bytes: &[u8]) -> WasmKind {
    match bytes.get(..8) {
        Some([0, b'a', b's', b'm', 1, 0, 0, 0]) => WasmKind::CoreModule,
        Some([0, b'a', b's', b'm', _, _, 1, 0]) => WasmKind::Component,
        _ => WasmKind::Other,
    }
}

/// The hex SHA-256 of `bytes`.
pub fn sha256(bytes: &[u8]) -> String {
    Sha256::digest(bytes)
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect()
}

/// Looks at `bytes` without running them; compiles them when they are a
/// component. Returns the compiled component too, when there is one.
///
/// # Errors
/// When the bytes are a component that does not compile.
pub fn inspect(
    sandbox: &Sandbox,
    path: &Path,
    bytes: &[u8],
) -> Result<(Inspection, Option<Component>), String> {
    let mut inspection = Inspection {
        size: bytes.len() as u64,
        sha256: sha256(bytes),
        kind: kind_of(bytes),
        imports: Vec::new(),
        exports: Vec::new(),
        versions: Vec::new(),
        version: None,
        hooks: Vec::new(),
    };
    if inspection.kind != WasmKind::Component {
        return Ok((inspection, None));
    }
    let engine = sandbox.engine();
    let component = crate::component::cached_compile(engine, path, bytes)
        .map_err(|e| format!("does not compile: {e}"))?;
    let ty = component.component_type();
    inspection.imports = ty
        .imports(engine)
        .map(|(name, _)| name.to_string())
        .collect();
    for (name, item) in ty.exports(engine) {
        inspection.exports.push(name.to_string());
        if !matches!(item.ty, ComponentItem::ComponentInstance(_)) {
            continue;
        }
        let Some(rest) = name.strip_prefix(&format!("{PACKAGE}/")) else {
            continue;
        };
        let (iface, version) = rest.split_once('@').unwrap_or((rest, ""));
        if !inspection.versions.iter().any(|v| v == version) {
            inspection.versions.push(version.to_string());
        }
        if version == v1::VERSION {
            match iface {
                "pre-slot" => inspection.hooks.push(Hook::PreSlot),
                "post-slot" => inspection.hooks.push(Hook::PostSlot),
                "promotion" => inspection.hooks.push(Hook::Promotion),
                _ => {}
            }
        }
    }
    inspection.version = VERSIONS
        .into_iter()
        .find(|v| inspection.versions.iter().any(|w| w == v));
    Ok((inspection, Some(component)))
}

/// The file an entry names: its path, from `base`, or a shipped plugin by
/// name, from `shipped`.
pub fn file_of(entry: &PluginConfig, base: &Path, shipped: &Path) -> Result<PathBuf, LoadError> {
    match (&entry.path, &entry.plugin) {
        (Some(path), None) => Ok(base.join(path)),
        (None, Some(name)) => Ok(shipped.join(format!("{name}.wasm"))),
        _ => Err(LoadError {
            plugin: "(unnamed)".into(),
            version: None,
            cause: "a plugin entry gives either `path` or `plugin`, and only one".into(),
        }),
    }
}

/// Loads the plugin `entry` names, from `path`: checks the file, compiles it,
/// and instantiates it once to read its metadata and check its settings.
///
/// # Errors
/// When the file cannot be read, does not match its pin, is not a component,
/// imports anything, is built for another version of the plugin package,
/// exports no hook, or refuses its settings.
pub fn load(
    sandbox: &Sandbox,
    entry: &PluginConfig,
    path: &Path,
) -> Result<LoadedPlugin, LoadError> {
    let plugin = prepare(sandbox, entry, path)?;
    let refuse = |cause| LoadError {
        plugin: plugin.name.clone(),
        version: Some(plugin.metadata.version.clone()),
        cause,
    };
    let mut live = plugin.instantiate_bare(sandbox).map_err(refuse)?;
    plugin.configure(&mut live).map_err(refuse)?;
    Ok(plugin)
}

/// Checks and compiles the plugin at `path` and reads its metadata, without
/// giving it its settings.
///
/// # Errors
/// As [`load`], except for settings.
pub fn prepare(
    sandbox: &Sandbox,
    entry: &PluginConfig,
    path: &Path,
) -> Result<LoadedPlugin, LoadError> {
    let shown = path.display().to_string();
    let refuse = |cause: String| LoadError {
        plugin: shown.clone(),
        version: None,
        cause,
    };
    let bytes = super::plugin_file::read(path).map_err(refuse)?;
    let (inspection, component) = inspect(sandbox, path, &bytes).map_err(refuse)?;
    if let Some(pin) = &entry.sha256 {
        if !pin.eq_ignore_ascii_case(&inspection.sha256) {
            return Err(refuse(format!(
                "its SHA-256 is {}, not {pin} as pinned",
                inspection.sha256
            )));
        }
    }
    let component =
        match (inspection.kind, component) {
            (WasmKind::Component, Some(c)) => c,
            (WasmKind::CoreModule, _) => return Err(refuse(
                "is a core WebAssembly module, not a component; build it as a component of the \
                 slotwise:plugin world"
                    .into(),
            )),
            _ => return Err(refuse("is not WebAssembly".into())),
        };
    let Some(version) = inspection.version else {
        let found = if inspection.versions.is_empty() {
            format!(
                "exports no {PACKAGE} interface (it exports {})",
                quoted(&inspection.exports)
            )
        } else {
            let built: Vec<String> = inspection
                .versions
                .iter()
                .map(|v| format!("{PACKAGE}@{v}"))
                .collect();
            format!("is built for {}", built.join(", "))
        };
        let spoken: Vec<String> = VERSIONS.iter().map(|v| format!("{PACKAGE}@{v}")).collect();
        return Err(refuse(format!(
            "{found}; this host speaks {}",
            spoken.join(" and ")
        )));
    };
    let foreign: Vec<String> = inspection
        .imports
        .iter()
        .filter(|i| version != VERSION || !allowed_import(i))
        .cloned()
        .collect();
    if !foreign.is_empty() {
        return Err(refuse(format!(
            "imports {}; a plugin may import nothing but `{}` (no WASI, no other host functions)",
            quoted(&foreign),
            interface("log", VERSION)
        )));
    }
    let mut linker: Linker<PluginState> = Linker::new(sandbox.engine());
    crate::plugin_wit::log::add_to_linker::<PluginState, HasSelf<PluginState>>(&mut linker, |s| s)
        .map_err(|e| refuse(format!("{e:#}")))?;
    let pre = linker
        .instantiate_pre(&component)
        .map_err(|e| refuse(format!("{e:#}")))?;
    let bad_export = |e: wasmtime::Error| refuse(format!("{e:#}"));
    let exports = if version == VERSION {
        Exports::Current(plugin::GuestIndices::new(&pre).map_err(|_| {
            refuse(format!(
                "does not export `{}` as this host reads it",
                interface("plugin", VERSION)
            ))
        })?)
    } else {
        Exports::V1 {
            plugin: v1::plugin::GuestIndices::new(&pre).map_err(|_| {
                refuse(format!(
                    "does not export `{}`",
                    interface("plugin", v1::VERSION)
                ))
            })?,
            pre_slot: has(&inspection, Hook::PreSlot)
                .then(|| v1::pre_slot::GuestIndices::new(&pre))
                .transpose()
                .map_err(bad_export)?,
            post_slot: has(&inspection, Hook::PostSlot)
                .then(|| v1::post_slot::GuestIndices::new(&pre))
                .transpose()
                .map_err(bad_export)?,
            promotion: has(&inspection, Hook::Promotion)
                .then(|| v1::promotion::GuestIndices::new(&pre))
                .transpose()
                .map_err(bad_export)?,
        }
    };
    let limits = entry.limits;
    let mut loaded = LoadedPlugin {
        name: String::new(),
        metadata: PluginMetadata {
            name: String::new(),
            version: String::new(),
            description: String::new(),
            hooks: Vec::new(),
            reads: super::since_v0_1_0::every_part(),
            settings_example: String::new(),
        },
        path: path.to_path_buf(),
        inspection,
        settings: entry.settings.clone(),
        fail_open: entry.fail_open,
        monitor: entry.monitor,
        limits,
        pre,
        exports,
    };
    let mut live = loaded.instantiate_bare(sandbox).map_err(refuse)?;
    Sandbox::arm(&mut live.store, limits.fuel, Deadline::alone(limits));
    let metadata = match &live.bound {
        Bound::Current(guest) => guest.call_metadata(&mut live.store),
        Bound::V1(hooks) => hooks.metadata(&mut live.store),
    }
    .map_err(|e| {
        refuse(format!(
            "`metadata` failed: {}",
            super::sandbox::failure(&e, limits, Deadline::alone(limits)).message
        ))
    })?;
    let mut claimed = metadata.hooks.clone();
    claimed.sort_by_key(|h| *h as u8);
    claimed.dedup();
    if version != VERSION {
        let mut exported = loaded.inspection.hooks.clone();
        exported.sort_by_key(|h| *h as u8);
        if claimed != exported {
            return Err(refuse(format!(
                "its metadata claims the hooks {} but it exports {}",
                hook_list(&claimed),
                hook_list(&exported)
            )));
        }
    }
    if claimed.is_empty() {
        return Err(refuse("implements no hook".into()));
    }
    loaded.name = entry.name.clone().unwrap_or_else(|| metadata.name.clone());
    if loaded.name.trim().is_empty() {
        return Err(refuse("its metadata gives no name".into()));
    }
    loaded.metadata = PluginMetadata {
        hooks: claimed,
        ..metadata
    };
    Ok(loaded)
}

impl LoadedPlugin {
    /// Whether a failure of it is reported rather than ending the reconcile.
    pub fn fails_open(&self) -> bool {
        self.fail_open || self.monitor
    }

    /// The version of the plugin package it was loaded as.
    pub fn interface_version(&self) -> &'static str {
        self.inspection.version.unwrap_or(VERSION)
    }

    /// A fresh instance, configured with the plugin's settings.
    ///
    /// # Errors
    /// The cause, when the instance cannot be created or refuses its settings.
    pub fn instantiate(&self, sandbox: &Sandbox) -> Result<Live, String> {
        let mut live = self.instantiate_bare(sandbox)?;
        self.configure(&mut live)?;
        Ok(live)
    }

    /// A fresh instance, without settings.
    ///
    /// # Errors
    /// The cause, when the instance cannot be created.
    pub fn instantiate_bare(&self, sandbox: &Sandbox) -> Result<Live, String> {
        let mut store = sandbox.store(self.limits);
        Sandbox::arm(&mut store, self.limits.fuel, Deadline::alone(self.limits));
        let limits = self.limits;
        let fail = |e: wasmtime::Error| {
            super::sandbox::failure(&e, limits, Deadline::alone(limits)).message
        };
        let instance = self.pre.instantiate(&mut store).map_err(fail)?;
        let bound = match &self.exports {
            Exports::Current(plugin) => {
                Bound::Current(plugin.load(&mut store, &instance).map_err(fail)?)
            }
            Exports::V1 {
                plugin,
                pre_slot,
                post_slot,
                promotion,
            } => Bound::V1(super::since_v0_1_0::Hooks {
                plugin: plugin.load(&mut store, &instance).map_err(fail)?,
                pre_slot: pre_slot
                    .as_ref()
                    .map(|i| i.load(&mut store, &instance))
                    .transpose()
                    .map_err(fail)?,
                post_slot: post_slot
                    .as_ref()
                    .map(|i| i.load(&mut store, &instance))
                    .transpose()
                    .map_err(fail)?,
                promotion: promotion
                    .as_ref()
                    .map(|i| i.load(&mut store, &instance))
                    .transpose()
                    .map_err(fail)?,
            }),
        };
        Ok(Live { store, bound })
    }

    /// Gives `live` the plugin's settings.
    ///
    /// # Errors
    /// The cause, when the plugin refuses them or fails.
    pub fn configure(&self, live: &mut Live) -> Result<(), String> {
        match self.configure_with(live, &self.settings) {
            Configured::Taken => Ok(()),
            Configured::Refused(message) => Err(format!("refused its settings: {message}")),
            Configured::Failed(message) => Err(format!("`configure` failed: {message}")),
        }
    }

    /// Gives `live` the settings `settings` (JSON text) rather than its own.
    pub fn configure_with(&self, live: &mut Live, settings: &str) -> Configured {
        let limits = self.limits;
        Sandbox::arm(&mut live.store, limits.fuel, Deadline::alone(limits));
        let outcome = match &live.bound {
            Bound::Current(guest) => guest.call_configure(&mut live.store, settings),
            Bound::V1(hooks) => hooks.plugin.call_configure(&mut live.store, settings),
        };
        match outcome {
            Ok(Ok(())) => Configured::Taken,
            Ok(Err(message)) => Configured::Refused(message),
            Err(e) => Configured::Failed(
                super::sandbox::failure(&e, limits, Deadline::alone(limits)).message,
            ),
        }
    }

    /// Whether the plugin implements `hook`.
    pub fn implements(&self, hook: Hook) -> bool {
        self.metadata.hooks.contains(&hook)
    }

    /// The parts of a batch it reads.
    pub fn reads(&self) -> ViewParts {
        self.metadata.reads
    }
}

fn has(inspection: &Inspection, hook: Hook) -> bool {
    inspection.hooks.contains(&hook)
}

fn quoted(names: &[String]) -> String {
    let list: Vec<String> = names.iter().map(|n| format!("`{n}`")).collect();
    if list.is_empty() {
        "nothing".into()
    } else {
        list.join(", ")
    }
}

/// Hooks by their WIT names, or `none`.
pub fn hook_list(hooks: &[Hook]) -> String {
    if hooks.is_empty() {
        return "none".into();
    }
    let names: Vec<String> = hooks
        .iter()
        .map(|h| crate::plugin_wit::hook_name(*h))
        .collect();
    names.join(", ")
}
