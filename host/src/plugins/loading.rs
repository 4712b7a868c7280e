//! Loading a plugin: refusing what is not a plugin this host can run safely, compiling it once, and learning who it is.

use super::sandbox::{Deadline, Limits, PluginState, Sandbox};
use crate::plugin_wit::types::{Hook, PluginMetadata};
use crate::plugin_wit::{plugin, post_slot, pre_slot, promotion, PACKAGE, VERSION};
use sha2::{Digest, Sha256};
use slotwise_scenario::{Mode, OnError, PluginEntry};
use std::path::{Path, PathBuf};
use std::time::Duration;
use wasmtime::component::{types::ComponentItem, Component, InstancePre, Linker};
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
    /// The hooks it exports, in this host's version of the package.
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

/// A plugin ready to instantiate.
pub struct LoadedPlugin {
    /// The name it goes by in this host.
    pub name: String,
    /// Who it says it is.
    pub metadata: PluginMetadata,
    /// Where it was loaded from.
    pub path: PathBuf,
    /// What the file holds.
    pub inspection: Inspection,
    /// Its settings, as JSON text.
    pub settings: String,
    /// What its failures do.
    pub on_error: OnError,
    /// Whether its answers apply.
    pub mode: Mode,
    /// What a call may use.
    pub limits: Limits,
    pre: InstancePre<PluginState>,
    exports: Exports,
}

/// Where a plugin's interfaces are among its exports.
struct Exports {
    plugin: plugin::GuestIndices,
    pre_slot: Option<pre_slot::GuestIndices>,
    post_slot: Option<post_slot::GuestIndices>,
    promotion: Option<promotion::GuestIndices>,
}

/// A plugin's instance for one reconcile, with its bound exports.
pub struct Live {
    pub store: Store<PluginState>,
    pub plugin: plugin::Guest,
    pub pre_slot: Option<pre_slot::Guest>,
    pub post_slot: Option<post_slot::Guest>,
    pub promotion: Option<promotion::Guest>,
}

/// The interface name of `iface` in this host's version of the package.
fn interface(iface: &str) -> String {
    format!("{PACKAGE}/{iface}@{VERSION}")
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
        if version == VERSION {
            match iface {
                "pre-slot" => inspection.hooks.push(Hook::PreSlot),
                "post-slot" => inspection.hooks.push(Hook::PostSlot),
                "promotion" => inspection.hooks.push(Hook::Promotion),
                _ => {}
            }
        }
    }
    Ok((inspection, Some(component)))
}

/// The file an entry names: its path, from `base`, or a shipped plugin by
/// name, from `shipped`.
pub fn file_of(entry: &PluginEntry, base: &Path, shipped: &Path) -> Result<PathBuf, LoadError> {
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
    entry: &PluginEntry,
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
    entry: &PluginEntry,
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
    let component = match (inspection.kind, component) {
        (WasmKind::Component, Some(c)) => c,
        (WasmKind::CoreModule, _) => {
            return Err(refuse(
                "is a core WebAssembly module, not a component; build it as a component of a \
                 slotwise:plugin world"
                    .into(),
            ))
        }
        _ => return Err(refuse("is not WebAssembly".into())),
    };
    if !inspection.imports.is_empty() {
        return Err(refuse(format!(
            "imports {}; a plugin may import nothing (no WASI, no host functions)",
            quoted(&inspection.imports)
        )));
    }
    if !inspection.versions.iter().any(|v| v == VERSION) {
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
        return Err(refuse(format!(
            "{found}; this host speaks {PACKAGE}@{VERSION}"
        )));
    }
    let linker: Linker<PluginState> = Linker::new(sandbox.engine());
    let pre = linker
        .instantiate_pre(&component)
        .map_err(|e| refuse(format!("{e:#}")))?;
    let bad_export = |e: wasmtime::Error| refuse(format!("{e:#}"));
    let exports = Exports {
        plugin: plugin::GuestIndices::new(&pre)
            .map_err(|_| refuse(format!("does not export `{}`", interface("plugin"))))?,
        pre_slot: has(&inspection, Hook::PreSlot)
            .then(|| pre_slot::GuestIndices::new(&pre))
            .transpose()
            .map_err(bad_export)?,
        post_slot: has(&inspection, Hook::PostSlot)
            .then(|| post_slot::GuestIndices::new(&pre))
            .transpose()
            .map_err(bad_export)?,
        promotion: has(&inspection, Hook::Promotion)
            .then(|| promotion::GuestIndices::new(&pre))
            .transpose()
            .map_err(bad_export)?,
    };
    let limits = Limits {
        fuel: entry.limits.fuel.unwrap_or(super::sandbox::DEFAULT_FUEL),
        memory: entry
            .limits
            .memory
            .map_or(super::sandbox::DEFAULT_MEMORY, |m| m.0),
        deadline: entry
            .limits
            .deadline
            .map_or(super::sandbox::DEFAULT_DEADLINE, |d| {
                Duration::from_nanos(d.0.max(0) as u64)
            }),
        reconcile_deadline: entry
            .limits
            .reconcile_deadline
            .map_or(super::sandbox::DEFAULT_RECONCILE_DEADLINE, |d| {
                Duration::from_nanos(d.0.max(0) as u64)
            }),
    };
    let settings = serde_json::to_string(&entry.settings).unwrap_or_else(|_| "null".into());
    let mut loaded = LoadedPlugin {
        name: String::new(),
        metadata: PluginMetadata {
            name: String::new(),
            version: String::new(),
            description: String::new(),
            hooks: Vec::new(),
        },
        path: path.to_path_buf(),
        inspection,
        settings,
        on_error: entry.on_error,
        mode: entry.mode,
        limits,
        pre,
        exports,
    };
    let mut live = loaded.instantiate_bare(sandbox).map_err(refuse)?;
    Sandbox::arm(&mut live.store, limits.fuel, Deadline::alone(limits));
    let metadata = live.plugin.call_metadata(&mut live.store).map_err(|e| {
        refuse(format!(
            "`metadata` failed: {}",
            super::sandbox::failure(&e, limits, Deadline::alone(limits))
        ))
    })?;
    let mut claimed = metadata.hooks.clone();
    claimed.sort_by_key(|h| *h as u8);
    claimed.dedup();
    let mut exported = loaded.inspection.hooks.clone();
    exported.sort_by_key(|h| *h as u8);
    if claimed != exported {
        return Err(refuse(format!(
            "its metadata claims the hooks {} but it exports {}",
            hook_list(&claimed),
            hook_list(&exported)
        )));
    }
    if exported.is_empty() {
        return Err(refuse("exports no hook".into()));
    }
    loaded.name = entry.name.clone().unwrap_or_else(|| metadata.name.clone());
    if loaded.name.trim().is_empty() {
        return Err(refuse("its metadata gives no name".into()));
    }
    loaded.metadata = metadata;
    Ok(loaded)
}

impl LoadedPlugin {
    /// Whether a failure of it is reported rather than ending the reconcile.
    pub fn fails_open(&self) -> bool {
        slotwise_scenario::fails_open(self.on_error, self.mode)
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
        let fail =
            |e: wasmtime::Error| super::sandbox::failure(&e, limits, Deadline::alone(limits));
        let instance = self.pre.instantiate(&mut store).map_err(fail)?;
        let e = &self.exports;
        Ok(Live {
            plugin: e.plugin.load(&mut store, &instance).map_err(fail)?,
            pre_slot: e
                .pre_slot
                .as_ref()
                .map(|i| i.load(&mut store, &instance))
                .transpose()
                .map_err(fail)?,
            post_slot: e
                .post_slot
                .as_ref()
                .map(|i| i.load(&mut store, &instance))
                .transpose()
                .map_err(fail)?,
            promotion: e
                .promotion
                .as_ref()
                .map(|i| i.load(&mut store, &instance))
                .transpose()
                .map_err(fail)?,
            store,
        })
    }

    /// Gives `live` the plugin's settings.
    ///
    /// # Errors
    /// The cause, when the plugin refuses them or fails.
    pub fn configure(&self, live: &mut Live) -> Result<(), String> {
        Sandbox::arm(
            &mut live.store,
            self.limits.fuel,
            Deadline::alone(self.limits),
        );
        match live.plugin.call_configure(&mut live.store, &self.settings) {
            Ok(Ok(())) => Ok(()),
            Ok(Err(message)) => Err(format!("refused its settings: {message}")),
            Err(e) => Err(format!(
                "`configure` failed: {}",
                super::sandbox::failure(&e, self.limits, Deadline::alone(self.limits))
            )),
        }
    }

    /// Whether the plugin implements `hook`.
    pub fn implements(&self, hook: Hook) -> bool {
        has(&self.inspection, hook)
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
    let names: Vec<&str> = hooks.iter().map(|h| crate::policy::hook_name(*h)).collect();
    names.join(", ")
}
