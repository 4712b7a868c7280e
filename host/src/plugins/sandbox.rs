//! The sandbox plugins run in: an engine that meters fuel and interrupts calls past a deadline, and per plugin and reconcile a store whose memory is capped.

use crate::component::HostError;
use crate::plugin_wit::log;
use crate::wit::{Failure, FailureKind, LogLevel, LogLine};
use slotwise_reconciler::{MAX_LOG_LINE, MAX_LOG_LINES};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::thread::JoinHandle;
use std::time::Duration;
use wasmtime::{
    Config, Engine, InstanceAllocationStrategy, PoolingAllocationConfig, ResourceLimiter, Store,
    Trap,
};

/// Fuel a hook call may use per item it is asked about (a slot, or a
/// deployment group) unless the plugins file says otherwise: about a hundred
/// million WebAssembly instructions.
pub const DEFAULT_FUEL: u64 = 100_000_000;

/// Linear memory a plugin may use unless the plugins file says otherwise.
pub const DEFAULT_MEMORY: u64 = 64 << 20;

/// Wall-clock time a hook call may take unless the plugins file says otherwise.
pub const DEFAULT_DEADLINE: Duration = Duration::from_millis(500);

/// Wall-clock time a plugin's calls may take in one reconcile, all together,
/// unless the plugins file says otherwise: a plugin quick enough on each
/// call could otherwise hold a reconcile of 10,000 slots for over an hour.
pub const DEFAULT_RECONCILE_DEADLINE: Duration = Duration::from_secs(10);

/// How often the engine's epoch advances; deadlines are counted in these.
const TICK: Duration = Duration::from_millis(1);

/// How many plugin instances may exist at once.
const POOLED_INSTANCES: u32 = 256;

/// Keep this much of a pooled plugin instance's memory mapped between
/// instances: a batch of thousands of slots fills a megabyte or two of a
/// plugin's memory, and faulting those pages in again for every reconcile
/// costs more than zeroing them.
const KEEP_RESIDENT: usize = 2 << 20;

/// Table elements a plugin may grow to.
const MAX_TABLE_ELEMENTS: usize = 1 << 20;

/// The limits of one plugin.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Limits {
    /// Fuel per item a hook call is asked about (a slot, or a deployment
    /// group); per call outside reconciles.
    pub fuel: u64,
    /// Bytes of linear memory.
    pub memory: u64,
    /// Wall-clock time per hook call.
    pub deadline: Duration,
    /// Wall-clock time in all calls of one reconcile.
    pub reconcile_deadline: Duration,
}

impl Default for Limits {
    fn default() -> Self {
        Self {
            fuel: DEFAULT_FUEL,
            memory: DEFAULT_MEMORY,
            deadline: DEFAULT_DEADLINE,
            reconcile_deadline: DEFAULT_RECONCILE_DEADLINE,
        }
    }
}

/// The engine plugins are compiled for, and the clock that interrupts them.
pub struct Sandbox {
    engine: Engine,
    /// Runs while the sandbox lives.
    _ticker: Ticker,
}

impl Sandbox {
    /// An engine that meters fuel and can interrupt, with pooled instances.
    ///
    /// # Errors
    /// When the engine cannot be configured.
    pub fn new() -> Result<Self, HostError> {
        let mut pool = PoolingAllocationConfig::default();
        pool.total_component_instances(POOLED_INSTANCES)
            .total_core_instances(POOLED_INSTANCES)
            .total_memories(POOLED_INSTANCES)
            .total_tables(POOLED_INSTANCES)
            .linear_memory_keep_resident(KEEP_RESIDENT);
        let mut config = Config::new();
        config
            .concurrency_support(false)
            .consume_fuel(true)
            .epoch_interruption(true)
            .allocation_strategy(InstanceAllocationStrategy::Pooling(pool));
        let engine = Engine::new(&config).map_err(|e| HostError::Engine(e.to_string()))?;
        let ticker = Ticker::start(engine.clone());
        Ok(Self {
            engine,
            _ticker: ticker,
        })
    }

    pub fn engine(&self) -> &Engine {
        &self.engine
    }

    /// A store for one plugin's instance, its memory capped by `limits`.
    pub fn store(&self, limits: Limits) -> Store<PluginState> {
        let state = PluginState {
            limiter: Limiter {
                memory: usize::try_from(limits.memory).unwrap_or(usize::MAX),
                peak: 0,
            },
            logs: Vec::new(),
        };
        let mut store = Store::new(&self.engine, state);
        store.limiter(|s| &mut s.limiter);
        store.epoch_deadline_trap();
        store
    }

    /// Arms `store` for one call: fresh fuel and `deadline` from now.
    pub fn arm(store: &mut Store<PluginState>, fuel: u64, deadline: Deadline) {
        // Fuel is only refused when consume_fuel is off, which it never is here.
        let _ = store.set_fuel(fuel);
        let ticks = deadline.left.as_nanos().div_ceil(TICK.as_nanos()) as u64;
        store.set_epoch_deadline(ticks.max(1) + 1);
    }
}

/// When a call must end: at its own deadline, or when the plugin's time in
/// the reconcile runs out, whichever comes first.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Deadline {
    /// The time the call may take.
    pub left: Duration,
    /// Whether that is what remains of the reconcile's time, not the call's own.
    pub of_reconcile: bool,
}

impl Deadline {
    /// The deadline of a call, given the time the plugin's calls already took
    /// in this reconcile; none when that time is used up.
    pub fn of_call(limits: Limits, spent: Duration) -> Option<Self> {
        let remains = limits.reconcile_deadline.checked_sub(spent)?;
        if remains.is_zero() {
            return None;
        }
        Some(Self {
            left: limits.deadline.min(remains),
            of_reconcile: remains < limits.deadline,
        })
    }

    /// The deadline of a call outside any reconcile (loading, configuring).
    pub fn alone(limits: Limits) -> Self {
        Self {
            left: limits.deadline,
            of_reconcile: false,
        }
    }
}

/// Why a call about `items` slots or deployment groups ran out of fuel.
pub fn out_of_fuel(limits: Limits, items: usize) -> String {
    let items = items.max(1) as u64;
    match items {
        1 => format!(
            "ran out of fuel (its limit is {} per item asked)",
            group_digits(limits.fuel)
        ),
        n => format!(
            "ran out of fuel ({} for a batch of {n} items: its limit is {} per item asked)",
            group_digits(limits.fuel.saturating_mul(n)),
            group_digits(limits.fuel)
        ),
    }
}

/// Why a plugin is not called again in a reconcile whose time it used up.
pub fn out_of_time(limits: Limits) -> String {
    format!(
        "used up its time of {} per reconcile",
        slotwise_reconciler::phrasing::duration(limits.reconcile_deadline.as_nanos() as i64)
    )
}

/// What a plugin's store holds.
pub struct PluginState {
    limiter: Limiter,
    /// The lines logged in the current call.
    logs: Vec<LogLine>,
}

impl PluginState {
    /// The most linear memory the instance has had, in bytes.
    pub fn peak_memory(&self) -> usize {
        self.limiter.peak
    }

    /// The lines logged since the last time they were taken.
    pub fn take_logs(&mut self) -> Vec<LogLine> {
        std::mem::take(&mut self.logs)
    }
}

impl log::Host for PluginState {
    fn log(&mut self, level: log::Level, message: String) {
        // One line past the limit is kept, cut short, so that the reconciler
        // sees the plugin said too much; nothing beyond is held.
        if self.logs.len() > MAX_LOG_LINES {
            return;
        }
        let mut message = message;
        if message.len() > MAX_LOG_LINE {
            let mut end = MAX_LOG_LINE + 1;
            while !message.is_char_boundary(end) {
                end -= 1;
            }
            message.truncate(end);
        }
        let level = match level {
            log::Level::Debug => LogLevel::Debug,
            log::Level::Info => LogLevel::Info,
            log::Level::Warn => LogLevel::Warn,
            log::Level::Error => LogLevel::Error,
        };
        self.logs.push(LogLine { level, message });
    }
}

/// Caps memory growth, and remembers the peak.
struct Limiter {
    memory: usize,
    peak: usize,
}

impl ResourceLimiter for Limiter {
    fn memory_growing(
        &mut self,
        _current: usize,
        desired: usize,
        _maximum: Option<usize>,
    ) -> wasmtime::Result<bool> {
        if desired > self.memory {
            return Err(wasmtime::Error::msg(format!(
                "{MEMORY_REFUSED} of {} (asked for {})",
                bytes(self.memory as u64),
                bytes(desired as u64)
            )));
        }
        self.peak = self.peak.max(desired);
        Ok(true)
    }

    fn table_growing(
        &mut self,
        _current: usize,
        desired: usize,
        _maximum: Option<usize>,
    ) -> wasmtime::Result<bool> {
        Ok(desired <= MAX_TABLE_ELEMENTS)
    }
}

/// Advances the engine's epoch every tick, on its own thread, until dropped.
struct Ticker {
    stop: Arc<AtomicBool>,
    thread: Option<JoinHandle<()>>,
}

impl Ticker {
    fn start(engine: Engine) -> Self {
        let stop = Arc::new(AtomicBool::new(false));
        let flag = Arc::clone(&stop);
        let thread = std::thread::Builder::new()
            .name("slotwise-plugin-clock".into())
            .spawn(move || {
                while !flag.load(Ordering::Relaxed) {
                    std::thread::sleep(TICK);
                    engine.increment_epoch();
                }
            })
            .ok();
        Self { stop, thread }
    }
}

impl Drop for Ticker {
    fn drop(&mut self) {
        self.stop.store(true, Ordering::Relaxed);
        if let Some(thread) = self.thread.take() {
            let _ = thread.join();
        }
    }
}

/// Why a plugin call failed, from the error wasmtime gave: the kind, and
/// the cause in words.
pub fn failure(e: &wasmtime::Error, limits: Limits, deadline: Deadline) -> Failure {
    let (kind, message) = match e.downcast_ref::<Trap>() {
        Some(Trap::OutOfFuel) => (
            FailureKind::Fuel,
            format!(
                "ran out of fuel (its limit is {} per call)",
                group_digits(limits.fuel)
            ),
        ),
        Some(Trap::Interrupt) if deadline.of_reconcile => {
            (FailureKind::Deadline, out_of_time(limits))
        }
        Some(Trap::Interrupt) => (
            FailureKind::Deadline,
            format!(
                "overran its deadline of {} per call",
                slotwise_reconciler::phrasing::duration(limits.deadline.as_nanos() as i64)
            ),
        ),
        // wasmtime's text starts `wasm trap: `, which would say it twice.
        Some(trap) => {
            let text = trap.to_string();
            (
                FailureKind::Trap,
                format!("trapped: {}", text.trim_start_matches("wasm trap: ")),
            )
        }
        // A refused memory growth carries the limiter's own message.
        None if e.root_cause().to_string().contains(MEMORY_REFUSED) => {
            (FailureKind::Memory, format!("{}", e.root_cause()))
        }
        None => (FailureKind::Trap, format!("{}", e.root_cause())),
    };
    Failure { kind, message }
}

/// How the limiter's refusal starts.
const MEMORY_REFUSED: &str = "exceeded its memory limit";

pub use slotwise_reconciler::phrasing::{bytes, digits as group_digits};

#[cfg(test)]
mod tests {
    use super::{Deadline, Limits};
    use std::time::Duration;

    fn limits(call_ms: u64, reconcile_ms: u64) -> Limits {
        Limits {
            deadline: Duration::from_millis(call_ms),
            reconcile_deadline: Duration::from_millis(reconcile_ms),
            ..Limits::default()
        }
    }

    #[test]
    fn a_call_gets_its_own_deadline_while_the_reconcile_has_more_time_left() {
        let d = Deadline::of_call(limits(100, 1_000), Duration::from_millis(850));
        assert_eq!(
            d,
            Some(Deadline {
                left: Duration::from_millis(100),
                of_reconcile: false
            })
        );
    }

    #[test]
    fn a_call_gets_what_is_left_of_the_reconcile_when_that_is_less() {
        let d = Deadline::of_call(limits(100, 1_000), Duration::from_millis(950));
        assert_eq!(
            d,
            Some(Deadline {
                left: Duration::from_millis(50),
                of_reconcile: true
            })
        );
    }

    #[test]
    fn no_call_is_made_once_the_reconcile_time_is_used_up() {
        assert_eq!(
            Deadline::of_call(limits(100, 1_000), Duration::from_millis(1_000)),
            None
        );
        assert_eq!(
            Deadline::of_call(limits(100, 1_000), Duration::from_millis(1_200)),
            None
        );
    }
}
