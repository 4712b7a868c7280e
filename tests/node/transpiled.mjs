// The reconciler component as the timing scripts load it: transpiled by jco from `target/slotwise/`, imported once, with the WIT type description beside it.

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
