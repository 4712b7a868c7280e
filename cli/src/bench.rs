//! The `bench` command: what a reconcile costs natively, through the component (typed and encoded), and in Node, with the peak memory of each; what instances cost; and what plugin hooks add.
//!
//! Timings of the different paths are taken interleaved, round by round, so
//! that the noise of a busy machine falls on all of them alike; the median
//! and the best of the rounds are shown. Peak memory is measured in child
//! processes, one per path and size, so that one measurement cannot hide in
//! another's high-water mark.

mod aims;
mod cache;
mod hooks;
mod memory;
mod neutral;
mod node;
mod nomad;
mod paths;
mod python;
mod split;
mod system;
mod timing;

use aims::verdict;
use anyhow::{Context, Result};
use slotwise_cli::workload::rolling_update;
use slotwise_host::component::precompile;
use slotwise_host::transcode::transcode;
use slotwise_host::{wit, ComponentReconciler};
use slotwise_reconciler as core;
use std::path::Path;
use std::time::Instant;
pub use timing::{human, interleaved, time, Timing};

/// What `slotwise bench` measures.
pub struct Options<'a> {
    pub component: &'a Path,
    pub shipped: &'a Path,
    pub sizes: &'a [usize],
    pub rounds: usize,
    /// Skip the measurements in child processes (memory, Node).
    pub quick: bool,
    /// Only the reconcile table and the aims it decides, for a short run
    /// while working on the reconciler's speed.
    pub table_only: bool,
}

/// Prints every figure: the reconcile table, linearity, the 1M-allocation
/// memory, instances, then what plugins found in `shipped` add per hook call.
pub fn run(options: &Options) -> Result<()> {
    let reconciler = ComponentReconciler::load(options.component)?;
    let rows = reconcile_table(&reconciler, options)?;
    if !options.quick {
        python::print_beside(
            rows.iter()
                .find(|r| r.n == python::SIZE)
                .map(|r| python::Beside {
                    encoded: &r.encoded,
                    native: &r.native,
                    node: r.node.as_ref().map(|f| &f.encoded),
                }),
        )?;
    }
    split::run(&reconciler, options.rounds.max(60))?;
    let mut verdicts = Vec::new();
    verdicts.extend(ratio_verdicts(&rows));
    // Native on its own when it is measured so: in the table, each native
    // round follows the component's, which leaves a 10k input out of the
    // cache on a busy machine.
    let growth = (!options.quick && !options.table_only).then(|| cache::run(options.rounds));
    verdicts.extend(linearity(&rows, growth.as_ref()));
    if !options.quick && !options.table_only {
        verdicts.push(memory::million(options.component)?);
    }
    if !options.table_only {
        verdicts.push(small(options.component, options.rounds.max(200))?);
    }
    println!("\naims (issue 9)");
    for line in &verdicts {
        println!("  {line}");
    }
    if options.table_only {
        return Ok(());
    }
    system::run(&reconciler, options.rounds)?;
    hooks::run(&reconciler, options.shipped, options.rounds)?;
    nomad::run(&reconciler)
}

/// One size's figures.
struct Row {
    n: usize,
    native: Timing,
    typed: Timing,
    encoded: Timing,
    node: Option<node::Figures>,
}

/// Times every path at every size, interleaved; measures peak memory and
/// Node in child processes unless `quick`.
fn reconcile_table(reconciler: &ComponentReconciler, options: &Options) -> Result<Vec<Row>> {
    let rounds = options.rounds;
    println!("rolling update: 60% old version, 30% new, 5% failed, 2% on a down node, 1% draining");
    println!(
        "times: median of {rounds} interleaved rounds (best in parentheses), the component in \
         an instance kept warm between them; per allocation: median; memory: peak RSS above \
         the input's, per allocation, in a child process\n"
    );
    println!(
        "{:>7}  {:>19}  {:>19}  {:>19}  {:>19}  {:>6}  {:>14}  {:>14}",
        "allocs",
        "native",
        "typed component",
        "encoded component",
        "Node (encoded)",
        "ratio",
        "ns/alloc n / e",
        "B/alloc n / e"
    );
    let mut rows = Vec::new();
    for &n in options.sizes {
        let input = rolling_update(n);
        let crossing: wit::ReconcileInput = transcode(&input)?;
        let same = reconciler.reconcile_core(&input)? == core::reconcile(&input);
        anyhow::ensure!(same, "the encoded path planned {n} allocations otherwise");
        let [native, typed, encoded] = interleaved(
            rounds,
            [
                &mut || drop(core::reconcile(&input)),
                &mut || drop(reconciler.reconcile(&crossing)),
                &mut || drop(reconciler.reconcile_core(&input)),
            ],
        );
        let node = if options.quick {
            None
        } else {
            node::measure(&input, rounds)?
        };
        let memory = if options.quick {
            None
        } else {
            Some((
                memory::per_allocation(options.component, "native", n)?,
                memory::per_allocation(options.component, "encoded", n)?,
            ))
        };
        let row = Row {
            n,
            native,
            typed,
            encoded,
            node,
        };
        println!(
            "{n:>7}  {:>19}  {:>19}  {:>19}  {:>19}  {:>5.2}x  {:>14}  {:>14}",
            row.native.show(),
            row.typed.show(),
            row.encoded.show(),
            row.node.as_ref().map_or("-".into(), |f| f.encoded.show()),
            row.encoded.ratio(&row.native),
            format!("{:.0} / {:.0}", row.native.per(n), row.encoded.per(n)),
            memory.map_or("-".into(), |(n, e)| format!("{n:.0} / {e:.0}")),
        );
        rows.push(row);
    }
    Ok(rows)
}

/// Targets 1, 2 and 6: the encoded path's ratio at 10k and 100k, 100k's best
/// time, and Node's ratio at 10k.
fn ratio_verdicts(rows: &[Row]) -> Vec<String> {
    let mut lines = Vec::new();
    for row in rows.iter().filter(|r| r.n == 10_000 || r.n == 100_000) {
        let ratio = row.encoded.ratio(&row.native);
        lines.push(verdict(
            ratio <= aims::RATIO,
            format!(
                "encoded component / native at {}: {ratio:.2}x (aim <= {}x)",
                row.n,
                aims::RATIO
            ),
        ));
        if row.n == 100_000 {
            let best = row.encoded.best.as_secs_f64() * 1e3;
            lines.push(verdict(
                best <= aims::AT_100K_MS,
                format!(
                    "100k through the component, best: {best:.1} ms (aim <= {} ms)",
                    aims::AT_100K_MS
                ),
            ));
        }
        if let (10_000, Some(node)) = (row.n, &row.node) {
            let ratio = node.encoded.ratio(&row.encoded);
            lines.push(verdict(
                ratio <= aims::NODE_RATIO,
                format!(
                    "Node / wasmtime, encoded, at 10k: {ratio:.2}x (aim <= {}x; Node typed: {})",
                    aims::NODE_RATIO,
                    node.typed.show()
                ),
            ));
        }
    }
    lines
}

/// Target 3: native time per allocation at 300k over that at 10k, from the
/// rounds of native alone when they ran, the table's figures beside them.
fn linearity(rows: &[Row], alone: Option<&cache::Growth>) -> Option<String> {
    let at = |n: usize| rows.iter().find(|r| r.n == n).map(|r| r.native.per(n));
    let table = at(10_000).zip(at(300_000));
    let ((small, large), beside) = match (alone, table) {
        (Some(g), Some((small, large))) => (
            (g.small, g.large),
            format!(
                "; in the table, taking turns with the component: {large:.0} / {small:.0} ns = {:.2}x",
                large / small
            ),
        ),
        (Some(g), None) => ((g.small, g.large), String::new()),
        (None, Some(pair)) => (pair, String::new()),
        (None, None) => return None,
    };
    let ratio = large / small;
    Some(verdict(
        ratio <= aims::LINEAR,
        format!(
            "native per allocation, 300k over 10k: {large:.0} / {small:.0} ns = {ratio:.2}x (aim <= {}x){beside}",
            aims::LINEAR
        ),
    ))
}

/// Loading a precompiled component, then instantiation alone and with a
/// count-10 reconcile on the encoded path, in a fresh instance: what a host
/// pays for its first question, or for every one when it keeps no instance
/// warm (target 5). The same reconcile in a warm instance is printed beside.
fn small(component_path: &Path, rounds: usize) -> Result<String> {
    let cwasm = std::env::temp_dir().join(format!("slotwise-bench-{}.cwasm", std::process::id()));
    precompile(component_path, &cwasm)?;
    let started = Instant::now();
    let mut reconciler =
        ComponentReconciler::load(&cwasm).context("loading the precompiled component")?;
    let load = started.elapsed();
    reconciler.set_warm_instances(0);
    let warm = ComponentReconciler::load(&cwasm).context("loading the precompiled component")?;
    let _ = std::fs::remove_file(&cwasm);
    let input = rolling_update(10);
    let typed: wit::ReconcileInput = transcode(&input)?;
    let [instantiation, encoded, through, warmed] = interleaved(
        rounds,
        [
            &mut || drop(reconciler.instantiate_only()),
            &mut || drop(reconciler.reconcile_core(&input)),
            &mut || drop(reconciler.reconcile(&typed)),
            &mut || drop(warm.reconcile_core(&input)),
        ],
    );
    println!("\nload of the precompiled component: {}", human(load));
    println!(
        "instantiation alone: {}; with a count-10 reconcile: {} encoded, {} typed; \
         in a warm instance: {} encoded ({rounds} rounds)",
        instantiation.show(),
        encoded.show(),
        through.show(),
        warmed.show()
    );
    // A host that keeps no instance warm runs this path alone, question
    // after question; taking turns with the typed path above leaves less of
    // it in the cache. Printed beside the aim's figure, which stays the
    // interleaved one.
    let alone = time(rounds, || drop(reconciler.reconcile_core(&input)));
    println!(
        "the same fresh-instance count-10 reconcile, encoded, in rounds of its own: {}",
        alone.show()
    );
    let us = encoded.median.as_secs_f64() * 1e6;
    Ok(verdict(
        us <= aims::SMALL_US,
        format!(
            "instantiation + count-10 reconcile, encoded: {us:.1} µs, taking turns with the other paths (aim <= {} µs); in rounds of its own {:.1} µs",
            aims::SMALL_US,
            alone.median.as_secs_f64() * 1e6
        ),
    ))
}

/// What a `--probe` child does: builds the workload of `n` allocations
/// (and, for `encoded`, loads the component), resets its peak RSS, then
/// reconciles once natively (`native`) or on the encoded path (`encoded`),
/// and prints how far its peak rose above what it held before. With
/// `peak-rss`, it runs `slotwise command` instead and prints that child's
/// peak RSS.
pub fn probe(component_path: &Path, mode: &str, n: usize, command: &[String]) -> Result<()> {
    if mode == "peak-rss" {
        println!("{}", memory::peak_rss_of(command)?);
        return Ok(());
    }
    let input = rolling_update(n);
    let reconciler = match mode {
        "native" => None,
        "encoded" => Some(ComponentReconciler::load(component_path)?),
        other => anyhow::bail!("no probe mode `{other}`"),
    };
    let before = memory::reset_peak()?;
    match &reconciler {
        None => drop(core::reconcile(&input)),
        Some(reconciler) => drop(reconciler.reconcile_core(&input)?),
    }
    println!("{}", memory::peak()?.saturating_sub(before));
    std::hint::black_box(&input);
    Ok(())
}
