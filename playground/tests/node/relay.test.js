// One orchestration, whichever host relays: every scenario of tests/policy/ runs through the
// session of @slotwise/reconciler (linked from packages/npm, as the page imports it) with the
// scenario's scripted relay in Node, and must end exactly as the Rust host ends it (`slotwise
// reconcile --json`): the same plan, or the same error.

import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { readdir, readFile } from 'node:fs/promises';
import path from 'node:path';
import { before, test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { InputError, Reconciler, ScenarioReader, SessionError, parseJson } from '@slotwise/reconciler';

const root = workspace();

/** The workspace: the nearest folder above this file holding Cargo.lock. */
function workspace() {
  let dir = path.dirname(fileURLToPath(import.meta.url));
  while (!existsSync(path.join(dir, 'Cargo.lock'))) {
    const up = path.dirname(dir);
    if (up === dir) throw new Error('this test runs inside the slotwise workspace');
    dir = up;
  }
  return dir;
}

const slotwise = process.env.SLOTWISE || path.join(root, 'target/debug/slotwise');

let reconciler;
let reader;

/** The scenario files under `dir`, in name order. */
async function scenarios(dir) {
  const entries = (await readdir(dir, { withFileTypes: true })).sort((a, b) => a.name.localeCompare(b.name));
  const found = [];
  for (const e of entries) {
    const full = path.join(dir, e.name);
    if (e.isDirectory()) found.push(...(await scenarios(full)));
    else if (/\.(ya?ml|json)$/.test(e.name)) found.push(full);
  }
  return found;
}

/** How the Rust host ends `file`: its plan, or what it printed on failing. */
async function host(file) {
  try {
    const { stdout } = await promisify(execFile)(slotwise, ['reconcile', file, '--json'], {
      cwd: root,
      maxBuffer: 64 * 1024 * 1024,
    });
    return { plan: parseJson(stdout) };
  } catch (e) {
    if (typeof e.code !== 'number') throw new Error(`cannot run ${slotwise}: ${e.message}`);
    return { error: e.stderr ?? '' };
  }
}

/** How the package's session and the scenario's relays end `file`: its plan in slotwise's rendering, or the error's reason. */
async function playground(file) {
  const text = await readFile(file, 'utf8');
  const read = reader.scenario(text, { syntax: file.endsWith('.json') ? 'json' : 'yaml' });
  try {
    return { plan: await reconciler.reconcileThrough(read.input, read.scripted === null ? [] : [read.scripted]) };
  } catch (e) {
    if (e instanceof InputError || e instanceof SessionError) return { error: e.reason };
    throw e;
  }
}

before(async () => {
  reconciler = await Reconciler.load();
  reader = await ScenarioReader.load();
});

test('every policy scenario ends through the playground relay exactly as through the Rust host', async () => {
  const files = await scenarios(path.join(root, 'tests/policy'));
  assert.ok(files.length >= 25, `only ${files.length} policy scenarios were found`);
  const differing = [];
  for (const file of files) {
    const name = path.relative(root, file);
    const [byHost, byPlayground] = [await host(file), await playground(file)];
    if ('plan' in byHost && 'plan' in byPlayground) {
      try {
        assert.deepStrictEqual(byPlayground.plan, byHost.plan);
      } catch (e) {
        differing.push(`${name}: the plans differ: ${e.message.slice(0, 2000)}`);
      }
    } else if ('error' in byHost && 'error' in byPlayground) {
      if (!byHost.error.includes(byPlayground.error)) {
        differing.push(`${name}: the host fails with ${byHost.error.trim()}, the playground with ${byPlayground.error}`);
      }
    } else {
      differing.push(`${name}: ${'plan' in byHost ? 'the host plans it, the playground fails' : 'the playground plans it, the host fails'}: ${JSON.stringify('error' in byHost ? byHost : byPlayground).slice(0, 500)}`);
    }
  }
  assert.deepEqual(differing, []);
});
