// The reconciler component as the timing scripts load it: transpiled by jco from `target/slotwise/`, imported once, with the WIT type description beside it; and how they warm it up.

import { mkdir, readFile, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { transpile } from '@bytecodealliance/jco';

const here = path.dirname(fileURLToPath(import.meta.url));
const root = path.resolve(here, '../..');

/**
 * The reconciler's bindings (`reconcile` is its interface) and `witTypes`. The transpiled files
 * go to a temporary folder named after `purpose`, which is removed once they are imported.
 */
export async function transpiledReconciler(purpose) {
  const built = path.join(root, 'target/slotwise');
  const witTypes = JSON.parse(await readFile(path.join(built, 'wit-types.json'), 'utf8'));
  const transpiled = await transpile(await readFile(path.join(built, 'reconciler.wasm')), {
    name: 'reconciler',
    quiet: true,
  });
  const dir = path.join(os.tmpdir(), `slotwise-node-${purpose}-${process.pid}`);
  try {
    for (const [name, bytes] of Object.entries(transpiled.files)) {
      const file = path.join(dir, name);
      await mkdir(path.dirname(file), { recursive: true });
      await writeFile(file, bytes);
    }
    const bindings = await import(pathToFileURL(path.join(dir, 'reconciler.js')).href);
    return { bindings, witTypes };
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

/**
 * Runs `run` for at least eight rounds and half a second, so that what is timed next is the
 * settled figure an embedder calling again and again pays. V8 optimises in tiers as code runs
 * hot, while wasmtime compiles ahead of time: the codec's first encoding of the 10k input takes
 * about 80 ms and it settles after about five rounds, but the component's wasm is compiled by a
 * baseline compiler first and each function recompiled optimised once it has run enough, which
 * took 10 to 25 rounds of the encoded path at 10k (the call alone 3.0 ms before, 1.7 ms after).
 */
export function warmUp(run) {
  const started = process.hrtime.bigint();
  for (let i = 0; i < 8 || process.hrtime.bigint() - started < 500_000_000n; i++) run();
}
