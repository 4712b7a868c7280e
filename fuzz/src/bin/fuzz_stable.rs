//! The stable fuzzing engine: mutates each target's corpus with a seeded random source (proptest's) and runs the target on every mutant, catching panics.
//!
//! `fuzz-stable [--runs N] [--seed S] [TARGET...]`: N cases per target
//! (default 20,000). A mutant that panics is written to the target's corpus
//! as `crash-<hash>` and the run fails. `fuzz-stable seed` writes the
//! starting corpus of the plugin-answer, encoded-outcome, records-input and
//! packed-batch targets.

use draw::Below;
use proptest::test_runner::{RngAlgorithm, TestRng};
use slotwise_fuzz::{Target, TARGETS};
use std::hash::{Hash, Hasher};
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::time::Instant;

/// Fragments a mutation may insert: the tokens the readers turn on.
const TOKENS: &[&str] = &[
    ": ",
    "- ",
    "\n",
    "  ",
    "[",
    "]",
    "{",
    "}",
    ",",
    "\"",
    "&a ",
    "*a",
    "<<: *a",
    "---",
    "0-4294967295",
    "4294967295",
    "-1",
    "now-10m",
    "2026-01-01T00:00:00Z",
    "1h30m",
    "null",
    "true",
    "index",
    "count",
    "allocations",
    "job",
    "groups",
    "nodes",
    "input",
    "expect",
    "\"Ok\"",
    "\"Err\"",
    "\"hold\"",
    "\"adjust\"",
    "\"defer\"",
    "\"veto\"",
    "\"until\"",
    "\"allocation\"",
    "\"reclassify\"",
    "\"miscount\"",
    "9223372036854775807",
];

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let corpus = Path::new(env!("CARGO_MANIFEST_DIR")).join("corpus");
    if args.first().map(String::as_str) == Some("seed") {
        return seed(&corpus);
    }
    let mut runs = 20_000u64;
    let mut seed = 0x5107_5e5e_u64;
    let mut names = Vec::new();
    let mut it = args.iter();
    while let Some(arg) = it.next() {
        match arg.as_str() {
            "--runs" => runs = it.next().and_then(|n| n.parse().ok()).unwrap_or(runs),
            "--seed" => seed = it.next().and_then(|n| n.parse().ok()).unwrap_or(seed),
            name => names.push(name.to_string()),
        }
    }
    let chosen: Vec<&Target> = TARGETS
        .iter()
        .filter(|t| names.is_empty() || names.iter().any(|n| n == t.name))
        .collect();
    // A panic is a finding, reported once per target, not a crash of the engine.
    std::panic::set_hook(Box::new(|_| {}));
    let mut failed = false;
    for target in chosen {
        let started = Instant::now();
        match fuzz(target, &corpus.join(target.name), runs, seed) {
            Ok(()) => println!(
                "{}: {runs} cases, no failure ({:.1} s)",
                target.name,
                started.elapsed().as_secs_f64()
            ),
            Err(crash) => {
                println!(
                    "{}: a case panics; kept as {}",
                    target.name,
                    crash.display()
                );
                failed = true;
            }
        }
    }
    if failed {
        ExitCode::FAILURE
    } else {
        ExitCode::SUCCESS
    }
}

/// Runs `target` on its corpus as it is, then on `runs` mutants of it.
fn fuzz(target: &Target, dir: &Path, runs: u64, seed: u64) -> Result<(), PathBuf> {
    let mut corpus: Vec<Vec<u8>> = Vec::new();
    let mut paths: Vec<PathBuf> = std::fs::read_dir(dir)
        .map(|d| d.filter_map(|e| e.ok().map(|e| e.path())).collect())
        .unwrap_or_default();
    paths.sort();
    for path in paths {
        if let Ok(bytes) = std::fs::read(&path) {
            corpus.push(bytes);
        }
    }
    if corpus.is_empty() {
        corpus.push(Vec::new());
    }
    let mut seed_bytes = [0u8; 32];
    seed_bytes[..8].copy_from_slice(&seed.to_le_bytes());
    let mut rng = TestRng::from_seed(RngAlgorithm::ChaCha, &seed_bytes);
    let try_one = |data: &[u8]| -> Result<(), PathBuf> {
        let outcome = std::panic::catch_unwind(|| (target.run)(data));
        match outcome {
            Ok(()) => Ok(()),
            Err(_) => Err(keep(dir, data)),
        }
    };
    for entry in &corpus {
        try_one(entry)?;
    }
    for _ in 0..runs {
        let base = &corpus[rng.below(corpus.len())];
        let other = &corpus[rng.below(corpus.len())];
        let mutant = mutate(base, other, &mut rng);
        try_one(&mutant)?;
    }
    Ok(())
}

/// `base` with one to four mutations: bytes flipped, set, inserted,
/// removed or repeated, a token inserted, or a piece of `other` spliced in.
fn mutate(base: &[u8], other: &[u8], rng: &mut TestRng) -> Vec<u8> {
    let mut data = base.to_vec();
    for _ in 0..1 + rng.below(4) {
        let at = rng.below(data.len() + 1);
        match rng.below(7) {
            0 if !data.is_empty() => {
                let i = at.min(data.len() - 1);
                data[i] ^= 1 << rng.below(8);
            }
            1 if !data.is_empty() => {
                let i = at.min(data.len() - 1);
                data[i] = *b"\0\x7f\xff-:[{\n9 ".get(rng.below(10)).unwrap_or(&0);
            }
            2 => {
                let token = TOKENS[rng.below(TOKENS.len())];
                data.splice(at..at, token.bytes());
            }
            3 if !data.is_empty() => {
                let end = (at + 1 + rng.below(16)).min(data.len());
                data.drain(at.min(end)..end);
            }
            4 if !data.is_empty() => {
                let start = at.min(data.len() - 1);
                let end = (start + 1 + rng.below(32)).min(data.len());
                let piece = data[start..end].to_vec();
                data.splice(start..start, piece);
            }
            5 if !other.is_empty() => {
                let start = rng.below(other.len());
                let end = (start + 1 + rng.below(64)).min(other.len());
                data.splice(at..at, other[start..end].iter().copied());
            }
            _ => data.insert(at, rng.below(256) as u8),
        }
    }
    data
}

/// Writes `data` into the corpus as a regression case; returns its path.
fn keep(dir: &Path, data: &[u8]) -> PathBuf {
    let mut hasher = std::collections::hash_map::DefaultHasher::new();
    data.hash(&mut hasher);
    let path = dir.join(format!("crash-{:016x}", hasher.finish()));
    let _ = std::fs::create_dir_all(dir);
    let _ = std::fs::write(&path, data);
    path
}

/// Writes the seeds of the plugin-answer, encoded-outcome, records-input and
/// packed-batch targets.
fn seed(corpus: &Path) -> ExitCode {
    let dir = corpus.join("plugin_answers");
    let _ = std::fs::create_dir_all(&dir);
    for (name, bytes) in slotwise_fuzz::answer_seeds() {
        if std::fs::write(dir.join(format!("{name}.bin")), bytes).is_err() {
            return ExitCode::FAILURE;
        }
    }
    let dir = corpus.join("encoded_outcome");
    let _ = std::fs::create_dir_all(&dir);
    let mut inputs: Vec<(String, Vec<u8>)> = std::fs::read_dir(corpus.join("encoded_input"))
        .into_iter()
        .flatten()
        .filter_map(|entry| {
            let path = entry.ok()?.path();
            let name = path.file_stem()?.to_str()?.to_string();
            Some((name, std::fs::read(&path).ok()?))
        })
        .collect();
    inputs.sort();
    for (name, bytes) in slotwise_fuzz::outcome_seeds(&inputs) {
        if std::fs::write(dir.join(format!("{name}.bin")), bytes).is_err() {
            return ExitCode::FAILURE;
        }
    }
    let dir = corpus.join("records_input");
    let _ = std::fs::create_dir_all(&dir);
    for (name, bytes) in slotwise_fuzz::records_seeds(&inputs) {
        if std::fs::write(dir.join(format!("{name}.bin")), bytes).is_err() {
            return ExitCode::FAILURE;
        }
    }
    let dir = corpus.join("packed_batch");
    let _ = std::fs::create_dir_all(&dir);
    for (name, bytes) in slotwise_fuzz::packed_seeds() {
        if std::fs::write(dir.join(format!("{name}.bin")), bytes).is_err() {
            return ExitCode::FAILURE;
        }
    }
    ExitCode::SUCCESS
}

/// A bounded draw from proptest's random source.
mod draw {
    use proptest::prelude::Rng;
    use proptest::test_runner::TestRng;

    pub trait Below {
        /// A number in `0..n` (0 when `n` is 0).
        fn below(&mut self, n: usize) -> usize;
    }

    impl Below for TestRng {
        fn below(&mut self, n: usize) -> usize {
            if n == 0 {
                0
            } else {
                (self.next_u64() % n as u64) as usize
            }
        }
    }
}
