// One orchestration, whichever host relays: every scenario of tests/policy/ runs through the
// package's session driver and the playground's scripted relay in Node (the reconciler and the
// scenario reader transpiled by jco, as the page runs them) and must end exactly as the Rust
// host ends it (`slotwise reconcile --json`): the same plan, or the same error. The driver and the
// conversions are @slotwise/reconciler's, as the page imports them; the scripted relay is the one
// `npm run test:unit` compiles into node_modules/.unit.

import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdir, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { before, test } from 'node:test';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { promisify } from 'node:util';
import { transpile } from '@bytecodealliance/jco';
import { codec, parseJson } from '@slotwise/reconciler/rendering';
import { runSession } from '@slotwise/reconciler/session';

const root = workspace();
const compiled = fileURLToPath(new URL('../../node_modules/.unit/src', import.meta.url));
const { ScriptedRelay } = await import(pathToFileURL(path.join(compiled, 'scripted-policy.js')).href);

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

const built = path.join(root, 'target/slotwise');
const slotwise = process.env.SLOTWISE || path.join(root, 'target/debug/slotwise');
const generated = path.join(root, 'target/playground/node-components');

let reconciler;
let reader;
let wit;

/** The component at `file` transpiled by jco into `generated/<name>/`, imported. */
async function transpiled(file, name) {
  const { files } = await transpile(await readFile(file), { name });
  const dir = path.join(generated, name);
  await rm(dir, { recursive: true, force: true });
  for (const [fileName, bytes] of Object.entries(files)) {
    await mkdir(path.dirname(path.join(dir, fileName)), { recursive: true });
    await writeFile(path.join(dir, fileName), bytes);
  }
  return import(pathToFileURL(path.join(dir, `${name}.js`)).href);
}

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

/** How the playground's driver and relays end `file`: its plan in slotwise's rendering, or the error's message. */
async function playground(file) {
  const text = await readFile(file, 'utf8');
  const syntax = file.endsWith('.json') ? 'json' : 'yaml';
  const read = reader.read(text, syntax);
  const relays = read.scripted === undefined ? [] : [new ScriptedRelay(reader, wit, text, syntax, read.scripted)];
  const input = wit.lower(parseJson(read.input), { ref: 'reconcile-input' });
  const outcome = await runSession(reconciler, input, relays);
  if ('plan' in outcome) return { plan: wit.lift(outcome.plan, { ref: 'plan' }) };
  const error = 'inputError' in outcome ? outcome.inputError : outcome.sessionError;
  return { error: error.message };
}

before(async () => {
  for (const file of ['reconciler.wasm', 'scenario-reader.wasm', 'wit-types.json']) {
    assert.ok(existsSync(path.join(built, file)), `${path.join(built, file)} is missing: run \`cargo xtask build\` first`);
  }
  wit = codec(JSON.parse(await readFile(path.join(built, 'wit-types.json'), 'utf8')));
  reconciler = await transpiled(path.join(built, 'reconciler.wasm'), 'reconciler');
  reader = (await transpiled(path.join(built, 'scenario-reader.wasm'), 'scenario-reader')).reader;
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
