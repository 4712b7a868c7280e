//! Running the reconciler component: loading it once, then an instance per reconcile, fresh or kept warm from the last.

mod session;

use crate::transcode::{transcode, TranscodeError};
use crate::warm::{Budget, Warm, WarmInstances};
use crate::wit;
use sha2::{Digest, Sha256};
use slotwise_reconciler as core;
use std::path::{Path, PathBuf};
use wasmtime::component::{Component, ComponentExportIndex, InstancePre, Linker, TypedFunc};
use wasmtime::{
    Config, Engine, InstanceAllocationStrategy, PoolingAllocationConfig, Store, StoreLimitsBuilder,
    Trap,
};

/// What can go wrong running the component.
#[derive(Debug, thiserror::Error)]
pub enum HostError {
    /// The component could not be read or compiled.
    #[error("cannot load the reconciler component {path}: {message}")]
    Load { path: PathBuf, message: String },
    /// The engine could not be configured.
    #[error("cannot set up the engine: {0}")]
    Engine(String),
    /// The component trapped; its instance was discarded.
    #[error("the reconciler component trapped: {0}")]
    Trap(String),
    /// The component failed for another reason.
    #[error("the reconciler component failed: {0}")]
    Call(String),
    /// Values could not cross between the library's and the host's types.
    #[error(transparent)]
    Transcode(#[from] TranscodeError),
    /// The component answered with a buffer the host cannot read.
    #[error("the reconciler component answered an unreadable buffer: {0}")]
    Wire(#[from] core::wire::WireError),
    /// The reconciler ended the session: a plugin that does not fail open
    /// failed or answered something invalid, or the host erred.
    #[error("{}", session_message(.0))]
    Session(Box<wit::SessionError>),
    /// A plugin went wrong outside any reconcile.
    #[error("{0}")]
    Plugin(String),
}

fn session_message(e: &wit::SessionError) -> String {
    if e.plugin.is_empty() {
        format!("the reconciler refused the host's replies: {}", e.message)
    } else {
        e.message.clone()
    }
}

/// Keep this much of a pooled instance's memory mapped between reconciles,
/// zeroed rather than returned to the kernel: a fresh instance then finds
/// its pages resident instead of faulting them in one by one. A reconcile
/// of 10,000 allocations touches about 20 MiB; with 1 MiB kept it took
/// 1,470 page faults instead of 110 here, and 6.5 ms instead of 5.4 ms.
const KEEP_RESIDENT: usize = 64 << 20;

/// Keep this much of a pooled instance's tables resident between reconciles,
/// for the same reason: without it each reconcile paid an `madvise` and
/// faulted the table back in, which cost a count-10 reconcile about 8 µs of
/// its 40 (a tenth of that is the table's actual size).
const TABLE_KEEP_RESIDENT: usize = 1 << 20;

/// How many instances may exist at once in one engine.
const POOLED_INSTANCES: u32 = 64;

/// How many idle instances a reconciler keeps warm unless told otherwise:
/// one per thread that reconciles at once, up to this.
pub const DEFAULT_WARM_INSTANCES: usize = 4;

/// How much memory a reconciler's idle instances may hold in all unless
/// told otherwise: what four instances of the size the pool keeps resident
/// held when that size was each one's limit, now spent as the instances
/// need it, so that one instance that reconciled a large group stays warm.
pub const DEFAULT_WARM_MEMORY: usize = DEFAULT_WARM_INSTANCES * KEEP_RESIDENT;

/// The memory one reconcile may use unless told otherwise: the most a 32-bit
/// guest can address. A reconcile of the benchmark's 100,000 allocations
/// needs about 42 MiB, one of 300,000 at most 128 MiB.
pub const DEFAULT_MEMORY_LIMIT: usize = 4 << 30;

/// The interface whose exports the host calls: `reconcile` and its encoded
/// twin.
pub const INTERFACE: &str = "slotwise:reconciler/reconcile@0.1.0";
const FUNCTION: &str = "reconcile";
const ENCODED_FUNCTION: &str = "reconcile-encoded";

/// The reconciler component, compiled and ready to instantiate.
pub struct ComponentReconciler {
    engine: Engine,
    pre: InstancePre<Budget>,
    /// Where each export of the reconciler world is, for sessions, which
    /// call more of them than `reconcile`.
    sessions: wit::ReconcilerIndices,
    reconcile: ComponentExportIndex,
    reconcile_encoded: ComponentExportIndex,
    memory_limit: usize,
    warm: WarmInstances,
}

impl ComponentReconciler {
    /// Loads a component from a `.wasm` file, or a precompiled `.cwasm` one.
    /// A `.wasm` file is compiled once and the result cached beside it,
    /// keyed by its content and the engine's settings.
    ///
    /// # Errors
    /// When the file cannot be read, is not the reconciler component, or
    /// cannot be compiled.
    pub fn load(path: &Path) -> Result<Self, HostError> {
        let engine = engine()?;
        let load_error = |message: String| HostError::Load {
            path: path.to_path_buf(),
            message,
        };
        let component = if path.extension().is_some_and(|e| e == "cwasm") {
            // SAFETY: precompiled artifacts are trusted; slotwise writes them
            // itself and wasmtime checks they match this engine.
            unsafe { Component::deserialize_file(&engine, path) }
                .map_err(|e| load_error(e.to_string()))?
        } else {
            let bytes = std::fs::read(path).map_err(|e| load_error(e.to_string()))?;
            cached_compile(&engine, path, &bytes).map_err(load_error)?
        };
        Self::from_component(engine, &component).map_err(load_error)
    }

    /// Compiles a component from its bytes, without caching.
    ///
    /// # Errors
    /// When the bytes are not the reconciler component.
    pub fn from_bytes(bytes: &[u8]) -> Result<Self, HostError> {
        let engine = engine()?;
        let component = Component::new(&engine, bytes).map_err(|e| HostError::Load {
            path: PathBuf::from("<bytes>"),
            message: e.to_string(),
        })?;
        Self::from_component(engine, &component).map_err(|message| HostError::Load {
            path: PathBuf::from("<bytes>"),
            message,
        })
    }

    /// Loads a component precompiled by [`precompile`], from its bytes.
    ///
    /// # Errors
    /// When the bytes were precompiled by another version of wasmtime, with
    /// other settings, or for CPU features this host lacks: the caller may
    /// then compile the component itself with [`Self::from_bytes`].
    ///
    /// # Safety
    /// wasmtime runs the machine code in `bytes` as it is: they must come
    /// from [`precompile`] (or `Component::serialize`), never from a source
    /// that is not trusted.
    pub unsafe fn from_precompiled(bytes: &[u8]) -> Result<Self, HostError> {
        let engine = engine()?;
        let load_error = |message: String| HostError::Load {
            path: PathBuf::from("<precompiled bytes>"),
            message,
        };
        // SAFETY: the caller vouches for the bytes, as this function requires.
        let component = unsafe { Component::deserialize(&engine, bytes) }
            .map_err(|e| load_error(e.to_string()))?;
        Self::from_component(engine, &component).map_err(load_error)
    }

    fn from_component(engine: Engine, component: &Component) -> Result<Self, String> {
        let linker: Linker<Budget> = Linker::new(&engine);
        let pre = linker
            .instantiate_pre(component)
            .map_err(|e| e.to_string())?;
        // Checks, once, that the component exports the reconciler world with
        // exactly the signature the host calls.
        let sessions = wit::ReconcilerIndices::new(&pre).map_err(|e| format!("{e:#}"))?;
        let missing = |f: &str| format!("the component does not export `{INTERFACE}#{f}`");
        let (_, interface) = component
            .get_export(None, INTERFACE)
            .ok_or_else(|| missing(FUNCTION))?;
        let export = |f: &str| {
            component
                .get_export(Some(&interface), f)
                .map(|(_, index)| index)
                .ok_or_else(|| missing(f))
        };
        Ok(Self {
            engine,
            pre,
            sessions,
            reconcile: export(FUNCTION)?,
            reconcile_encoded: export(ENCODED_FUNCTION)?,
            memory_limit: DEFAULT_MEMORY_LIMIT,
            warm: WarmInstances::new(DEFAULT_WARM_INSTANCES, DEFAULT_WARM_MEMORY),
        })
    }

    /// Caps the memory of each reconcile at `bytes`; a reconcile that needs
    /// more traps, and the next one starts afresh.
    pub fn set_memory_limit(&mut self, bytes: usize) {
        self.memory_limit = bytes;
        self.warm.clear();
    }

    /// Keeps at most `count` idle instances warm for later reconciles
    /// (default [`DEFAULT_WARM_INSTANCES`]); with 0, every reconcile runs in
    /// a fresh instance. An instance is kept only after a reconcile that
    /// succeeded in it, and only while the idle instances' memory, its own
    /// included, fits in the budget [`Self::set_warm_memory`] sets. Sessions
    /// use the same instances.
    pub fn set_warm_instances(&mut self, count: usize) {
        self.warm.set_keep(count);
    }

    /// Lets the idle warm instances hold at most `bytes` of memory in all
    /// (default [`DEFAULT_WARM_MEMORY`], 256 MiB). An instance keeps the
    /// memory its largest reconcile grew it to: a reconcile of 300,000
    /// allocations leaves about 120 MiB. Kept, the next reconcile of that
    /// size runs about a fifth faster than in a fresh instance, which
    /// faults in every page beyond the 64 MiB the pool keeps resident.
    pub fn set_warm_memory(&mut self, bytes: usize) {
        self.warm.set_memory(bytes);
    }

    /// How many idle instances are kept warm now.
    pub fn warm_instances(&self) -> usize {
        self.warm.idle()
    }

    /// How many reconciles have failed in a warm instance and run again in
    /// a fresh one, whose outcome was the answer. A host may log it: each
    /// retry cost a second reconcile. A retry follows a trap (which then
    /// fails in the fresh instance too) or a memory limit reached only
    /// because earlier reconciles left blocks in the instance's free lists.
    pub fn warm_retries(&self) -> u64 {
        self.warm.retries()
    }

    fn store(&self) -> Store<Budget> {
        let limits = StoreLimitsBuilder::new()
            .memory_size(self.memory_limit)
            .build();
        let mut store = Store::new(&self.engine, Budget::new(limits));
        store.limiter(|budget| budget);
        // A plan may be as large as the reconcile's memory allows: the
        // default cap on what the guest hands back (128 MiB) would refuse
        // the plan of an input the limits admit.
        store.set_hostcall_fuel(self.memory_limit);
        store
    }

    fn fresh(&self) -> Result<Warm, HostError> {
        let mut store = self.store();
        let instance = self.pre.instantiate(&mut store).map_err(call_error)?;
        let export = |store: &mut Store<Budget>, index, name: &str| {
            instance
                .get_func(store, index)
                .ok_or_else(|| HostError::Call(format!("no `{INTERFACE}#{name}` export")))
        };
        let reconcile = export(&mut store, self.reconcile, FUNCTION)?;
        let reconcile_encoded = export(&mut store, self.reconcile_encoded, ENCODED_FUNCTION)?;
        Ok(Warm {
            store,
            instance,
            reconcile,
            reconcile_encoded,
        })
    }

    /// Runs `call` in a warm instance if one waits, else in a fresh one,
    /// and keeps the instance warm if it succeeded. A warm instance that
    /// fails is dropped and the call runs again in a fresh one: the
    /// reconcile has no effect but its answer, and what it answers must
    /// never depend on the reconciles before (a memory limit reached only
    /// because of blocks an earlier reconcile left in its free lists, say).
    fn in_instance<R>(
        &self,
        call: impl Fn(&mut Warm) -> wasmtime::Result<R>,
    ) -> Result<R, HostError> {
        if let Some(mut warm) = self.warm.take() {
            if let Ok(outcome) = call(&mut warm) {
                self.warm.give_back(warm);
                return Ok(outcome);
            }
            self.warm.note_retry();
        }
        let mut fresh = self.fresh()?;
        let outcome = call(&mut fresh).map_err(call_error)?;
        self.warm.give_back(fresh);
        Ok(outcome)
    }

    /// Creates a fresh instance and drops it: what every reconcile pays
    /// before its call.
    ///
    /// # Errors
    /// When the instance cannot be created.
    pub fn instantiate_only(&self) -> Result<(), HostError> {
        let mut store = self.store();
        self.pre.instantiate(&mut store).map_err(call_error)?;
        Ok(())
    }

    /// Runs one reconcile, in a warm instance if one waits, else in a
    /// fresh one.
    ///
    /// # Errors
    /// When the component traps or fails; the next reconcile is unaffected.
    pub fn reconcile(
        &self,
        input: &wit::ReconcileInput,
    ) -> Result<Result<wit::Plan, wit::InputError>, HostError> {
        self.in_instance(|warm| {
            // SAFETY: `from_component` checked this export's signature
            // against this one when the component was loaded; every
            // instance of the same component has the same types. Checking
            // again per call would cost more than the reconcile of a small
            // group.
            let reconcile: TypedFunc<
                (&wit::ReconcileInput,),
                (Result<wit::Plan, wit::InputError>,),
            > = unsafe { TypedFunc::new_unchecked(warm.reconcile) };
            Ok(reconcile.call(&mut warm.store, (input,))?.0)
        })
    }

    /// Runs one reconcile on an encoded input (see [`core::wire`]), in a
    /// warm instance if one waits, else in a fresh one, returning the
    /// encoded outcome: the input and the plan each cross the boundary as
    /// one copy.
    ///
    /// # Errors
    /// When the component traps or fails; an unreadable input is an encoded
    /// input error, not an `Err`.
    pub fn reconcile_encoded(&self, input: &[u8]) -> Result<Vec<u8>, HostError> {
        self.in_instance(|warm| {
            // SAFETY: as in `reconcile`: the export was found when the
            // component was loaded, and `ReconcilerPre::new` checked every
            // export's type.
            let reconcile: TypedFunc<(&[u8],), (Vec<u8>,)> =
                unsafe { TypedFunc::new_unchecked(warm.reconcile_encoded) };
            Ok(reconcile.call(&mut warm.store, (input,))?.0)
        })
    }

    /// Runs one reconcile on the library's types, through the encoded path:
    /// what hosts use by default.
    ///
    /// # Errors
    /// As [`ComponentReconciler::reconcile_encoded`], and when the component
    /// answers a buffer that cannot be read.
    pub fn reconcile_core(
        &self,
        input: &core::ReconcileInput,
    ) -> Result<Result<core::Plan, core::InputError>, HostError> {
        let outcome = self.reconcile_encoded(&core::wire::encode_input_records(input))?;
        Ok(core::wire::decode_outcome(&outcome)?)
    }

    /// Runs one reconcile on the library's types, through the typed
    /// `reconcile` export, moving each value across field by field.
    ///
    /// # Errors
    /// As [`ComponentReconciler::reconcile`].
    pub fn reconcile_core_typed(
        &self,
        input: &core::ReconcileInput,
    ) -> Result<Result<core::Plan, core::InputError>, HostError> {
        let input: wit::ReconcileInput = transcode(input)?;
        Ok(match self.reconcile(&input)? {
            Ok(plan) => Ok(transcode(&plan)?),
            Err(error) => Err(transcode(&error)?),
        })
    }
}

fn call_error(e: wasmtime::Error) -> HostError {
    match e.downcast_ref::<Trap>() {
        Some(trap) => HostError::Trap(format!("{trap}: {e:?}")),
        None => HostError::Call(format!("{e:?}")),
    }
}

/// The engine: no async or concurrency support (a synchronous call is then
/// about three times cheaper), and pooled instances so that a fresh instance
/// per reconcile costs microseconds. The initial memory is mapped
/// copy-on-write from the component's image, so that instantiating costs
/// the same whatever the size of its data.
fn engine() -> Result<Engine, HostError> {
    let mut pool = PoolingAllocationConfig::default();
    pool.total_component_instances(POOLED_INSTANCES)
        .total_core_instances(POOLED_INSTANCES)
        .total_memories(POOLED_INSTANCES)
        .total_tables(POOLED_INSTANCES)
        .linear_memory_keep_resident(KEEP_RESIDENT)
        .table_keep_resident(TABLE_KEEP_RESIDENT)
        // Where the kernel can say which pages a reconcile dirtied (Linux
        // 6.7 and later), only those are reset; otherwise the whole kept
        // region is. A count-10 reconcile took about 2 µs less with it.
        .pagemap_scan(wasmtime::Enabled::Auto);
    let mut config = Config::new();
    config
        .concurrency_support(false)
        .memory_init_cow(true)
        .allocation_strategy(InstanceAllocationStrategy::Pooling(pool));
    Engine::new(&config).map_err(|e| HostError::Engine(e.to_string()))
}

/// Compiles `bytes`, reusing a precompiled copy cached beside `path` when one
/// exists for the same bytes and engine settings.
pub(crate) fn cached_compile(
    engine: &Engine,
    path: &Path,
    bytes: &[u8],
) -> Result<Component, String> {
    let cache = cache_path(engine, path, bytes);
    if cache.exists() {
        // SAFETY: the cache file was written by `serialize` below for these
        // exact bytes and engine settings (both are in its name).
        if let Ok(component) = unsafe { Component::deserialize_file(engine, &cache) } {
            return Ok(component);
        }
    }
    let component = Component::new(engine, bytes).map_err(|e| e.to_string())?;
    // A cache that cannot be written only costs a compile next time.
    if let Ok(serialized) = component.serialize() {
        replace_file(&cache, &serialized);
    }
    Ok(component)
}

/// Writes `bytes` to `path` by renaming a finished file over it. Another
/// loader, in this process or another, may have `path` mapped: truncating
/// and rewriting it in place would pull the pages from under that mapping
/// (SIGBUS, seen when parallel tests compiled a fresh plugin at once), and
/// a half-written file could be read. Best effort: a failure leaves no
/// cache and costs a compile next time.
fn replace_file(path: &Path, bytes: &[u8]) {
    static WRITES: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(0);
    let n = WRITES.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
    let partial = path.with_extension(format!("{}-{n}.partial", std::process::id()));
    if std::fs::write(&partial, bytes).is_err() || std::fs::rename(&partial, path).is_err() {
        let _ = std::fs::remove_file(&partial);
    }
}

/// Where the precompiled form of `path`'s `bytes` is cached.
pub fn cache_path(engine: &Engine, path: &Path, bytes: &[u8]) -> PathBuf {
    let mut hasher = Sha256::new();
    hasher.update(bytes);
    let mut settings = std::collections::hash_map::DefaultHasher::new();
    std::hash::Hash::hash(&engine.precompile_compatibility_hash(), &mut settings);
    hasher.update(std::hash::Hasher::finish(&settings).to_le_bytes());
    let digest = hasher.finalize();
    let key: String = digest[..8].iter().map(|b| format!("{b:02x}")).collect();
    let stem = path
        .file_stem()
        .and_then(|s| s.to_str())
        .unwrap_or("component");
    path.with_file_name(format!("{stem}-{key}.cwasm"))
}

/// Compiles the component at `wasm` and writes its precompiled form to `out`.
///
/// # Errors
/// When the file cannot be read, compiled or written.
pub fn precompile(wasm: &Path, out: &Path) -> Result<(), HostError> {
    let engine = engine()?;
    let load_error = |message: String| HostError::Load {
        path: wasm.to_path_buf(),
        message,
    };
    let bytes = std::fs::read(wasm).map_err(|e| load_error(e.to_string()))?;
    let serialized = engine
        .precompile_component(&bytes)
        .map_err(|e| load_error(e.to_string()))?;
    std::fs::write(out, serialized)
        .map_err(|e| load_error(format!("writing {}: {e}", out.display())))
}

#[cfg(test)]
mod tests {
    use super::replace_file;

    #[test]
    fn a_cache_file_is_replaced_whole_and_leaves_no_partial_file_behind() {
        let dir = std::env::temp_dir().join(format!("slotwise-replace-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join("component-0011.cwasm");
        std::fs::write(&path, b"an older, longer compiled component").unwrap();
        // A reader holding the old file keeps reading the old bytes.
        let held = std::fs::File::open(&path).unwrap();
        replace_file(&path, b"fresh");
        assert_eq!(std::fs::read(&path).unwrap(), b"fresh");
        let mut old = String::new();
        std::io::Read::read_to_string(&mut &held, &mut old).unwrap();
        assert_eq!(old, "an older, longer compiled component");
        let left: Vec<_> = std::fs::read_dir(&dir).unwrap().collect();
        assert_eq!(left.len(), 1, "only the cache file remains");
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
