// Proves the reconciler component embeds anywhere a component runs: transpiled by jco, it
// imports nothing, plans the bundled scenarios exactly as the wasmtime host (`slotwise
// reconcile --json`) does, and refuses inconsistent input with the host's error record.

import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { access, mkdir, readFile, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { before, test } from 'node:test';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { promisify } from 'node:util';
import { transpile } from '@bytecodealliance/jco';
import { callFunction, findFunction, fromComponent, parseJson, toComponent } from '../../packages/npm/src/rendering.js';
import { WireError, wireCodec } from '../../packages/npm/src/wire.js';

const here = path.dirname(fileURLToPath(import.meta.url));
const root = path.resolve(here, '../..');
const componentPath = path.join(root, 'target/slotwise/reconciler.wasm');
const witTypesPath = path.join(root, 'target/slotwise/wit-types.json');
const slotwise = process.env.SLOTWISE || path.join(root, 'target/debug/slotwise');
const generated = path.join(here, 'generated');

const scenarios = ['docs/examples/rolling-update.yaml', 'docs/examples/node-down.yaml'];

let witTypes;
let signature;
let transpiled;
let reconcile;
let reconcileEncoded;
let wire;

/** Runs `slotwise` with `args`, resolving to its exit code, stdout and stderr. */
async function runSlotwise(...args) {
  try {
    const { stdout, stderr } = await promisify(execFile)(slotwise, args, {
      cwd: root,
      maxBuffer: 256 * 1024 * 1024,
    });
    return { code: 0, stdout, stderr };
  } catch (e) {
    if (typeof e.code !== 'number') {
      throw new Error(`cannot run ${slotwise}: ${e.message}`);
    }
    return { code: e.code, stdout: e.stdout, stderr: e.stderr };
  }
}

/** The reconciler input `scenario` describes, in the slotwise JSON rendering. */
async function inputOf(scenario) {
  const { code, stdout, stderr } = await runSlotwise('input', scenario);
  assert.equal(code, 0, `slotwise input ${scenario} failed: ${stderr}`);
  return parseJson(stdout);
}

/** The reconciler run by jco on `input`: {Ok: plan} or {Err: input-error}. */
function reconcileWithJco(input) {
  return callFunction(reconcile, signature, [input], witTypes);
}

/** The same through the encoded path: one buffer in, one buffer out. */
function reconcileEncodedWithJco(input) {
  return wire.decodeOutcome(reconcileEncoded(wire.encodeInput(input)));
}

before(async () => {
  const needed = [
    [componentPath, 'the reconciler component'],
    [witTypesPath, 'the WIT type description'],
  ];
  if (!process.env.SLOTWISE) {
    needed.push([slotwise, 'the slotwise command']);
  }
  for (const [file, what] of needed) {
    await access(file).catch(() => {
      throw new Error(`${what} is missing at ${file}: run \`cargo xtask build\` first`);
    });
  }
  witTypes = JSON.parse(await readFile(witTypesPath, 'utf8'));
  signature = findFunction(witTypes, 'reconcile', 'reconcile');

  transpiled = await transpile(await readFile(componentPath), { name: 'reconciler', quiet: true });
  await rm(generated, { recursive: true, force: true });
  for (const [name, bytes] of Object.entries(transpiled.files)) {
    const file = path.join(generated, name);
    await mkdir(path.dirname(file), { recursive: true });
    await writeFile(file, bytes);
  }
  const bindings = await import(pathToFileURL(path.join(generated, 'reconciler.js')).href);
  reconcile = bindings.reconcile.reconcile;
  reconcileEncoded = bindings.reconcile.reconcileEncoded;
  wire = wireCodec(witTypes);
});

test('the transpiled component imports nothing and exports reconcile', () => {
  assert.deepEqual(transpiled.imports, []);
  assert.equal(typeof reconcile, 'function');
});

for (const scenario of scenarios) {
  test(`an input survives conversion to jco's rendering and back unchanged (${scenario})`, async () => {
    const input = await inputOf(scenario);
    const type = signature.params[0].type;
    assert.deepStrictEqual(fromComponent(toComponent(input, type, witTypes), type, witTypes), input);
  });

  for (const explain of [false, true]) {
    const how = explain ? ', slot explanations included,' : '';
    test(`the component run by jco plans ${scenario}${how} exactly as the wasmtime host does`, async () => {
      const input = { ...(await inputOf(scenario)), explain };
      const host = await runSlotwise('reconcile', scenario, '--json', ...(explain ? ['--explain'] : []));
      assert.equal(host.code, 0, `slotwise reconcile ${scenario} failed: ${host.stderr}`);
      const hostPlan = parseJson(host.stdout);

      const result = reconcileWithJco(input);

      assert.ok('Ok' in result, `jco refused the input: ${JSON.stringify(result.Err)}`);
      assert.deepStrictEqual(result.Ok, hostPlan);
      assert.deepStrictEqual(reconcileEncodedWithJco(input), result, 'the encoded path planned otherwise');
    });
  }

  test(`an input survives the wire format's JavaScript codec unchanged (${scenario})`, async () => {
    const input = await inputOf(scenario);
    assert.deepStrictEqual(wire.decodeInput(wire.encodeInput(input)), input);
  });
}

test('garbage on the encoded path is an input error naming what is wrong, and the next call still plans', async () => {
  const cases = [
    [new Uint8Array([1, 2, 3]), /not a slotwise buffer/],
    [Uint8Array.from([0x53, 0x57, 9, 1]), /wire format version 9/],
    [wire.encodeInput(await inputOf(scenarios[0])).slice(0, 40), /truncated/],
    [Uint8Array.from([0x53, 0x57, 1, 1, 0xff, 0xff, 0xff, 0xff, 0x0f]), /truncated|claims more/],
  ];
  for (const [bytes, message] of cases) {
    const outcome = wire.decodeOutcome(reconcileEncoded(bytes));
    assert.ok('Err' in outcome, `accepted ${bytes.length} bytes of garbage`);
    assert.match(outcome.Err.message, message);
    assert.match(outcome.Err.field, /^encoded-input/);
  }
  const random = new Uint8Array(1 << 20);
  for (let i = 0; i < random.length; i++) random[i] = (i * 2654435761) >>> 24;
  assert.ok('Err' in wire.decodeOutcome(reconcileEncoded(random)));
  assert.ok('Ok' in reconcileEncodedWithJco(await inputOf(scenarios[0])));
});

test('the JavaScript codec names the field of a value that does not fit the contract', async () => {
  const input = await inputOf(scenarios[0]);
  assert.throws(() => wire.encodeInput({ ...input, now: 'soon' }), /input\.now: expected s64/);
  const { eval: _, ...noEval } = input;
  assert.throws(() => wire.encodeInput(noEval), /input\.eval: missing field of reconcile-input/);
  assert.throws(() => wire.decodeOutcome(new Uint8Array([0x53, 0x57, 1, 2, 7])), WireError);
});

test('the component run by jco refuses a duplicated allocation id with the error record the host reports', async () => {
  const scenario = path.join(here, 'duplicate-allocation-id.yaml');
  const input = await inputOf(scenario);
  const host = await runSlotwise('reconcile', scenario, '--json');
  assert.notEqual(host.code, 0, 'the host accepted the input');
  const reported = /invalid input: (?<field>\S+?): (?<message>.*)$/m.exec(host.stderr);
  assert.ok(reported, `no "invalid input" error in the host's output: ${host.stderr}`);

  const result = reconcileWithJco(input);

  assert.deepStrictEqual(result, { Err: { ...reported.groups } });
  assert.equal(result.Err.field, 'allocations[0].allocations[1].spec.id');
  // jco itself throws the `err` of the result as the payload of a ComponentError.
  assert.throws(
    () => reconcile(toComponent(input, signature.params[0].type, witTypes)),
    (e) => e instanceof Error && e.constructor.name === 'ComponentError' && e.payload.field === result.Err.field,
  );
});

test('a timestamp beyond 2^53 crosses the component exactly', async () => {
  const now = 1767225600000000001n;
  assert.equal(parseJson(`{"now": ${now}}`).now, now);
  const input = { ...(await inputOf(scenarios[0])), now };

  const result = reconcileWithJco(input);

  assert.ok('Ok' in result, `jco refused the input: ${JSON.stringify(result.Err)}`);
  assert.equal(result.Ok.deployment['create-time'], now);
});
