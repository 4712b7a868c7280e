// The wire codec in JavaScript writes the bytes the Rust codec writes, at the edges of every integer and string, with the code it generates and without, and names the field of a value that does not fit however deep it sits.

import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { after, before, test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { parseJson, stringifyJson } from '../../packages/npm/src/rendering.js';
import { FieldError, wireCodec } from '../../packages/npm/src/wire.js';

const here = path.dirname(fileURLToPath(import.meta.url));
const root = path.resolve(here, '../..');
const witTypesPath = path.join(root, 'target/slotwise/wit-types.json');
const slotwise = process.env.SLOTWISE || path.join(root, 'target/debug/slotwise');
const run = promisify(execFile);

let wire;
let dir;

/** What `slotwise input` prints for `scenario`: JSON, or with `--wire`, the encoded buffer. */
async function slotwiseInput(scenario, ...args) {
  const { stdout } = await run(slotwise, ['input', ...args, scenario], {
    cwd: root,
    encoding: args.includes('--wire') ? 'buffer' : 'utf8',
    maxBuffer: 64 * 1024 * 1024,
  });
  return stdout;
}

/** A scenario file holding `input` as it is, saved under `dir`. */
async function savedInput(name, input) {
  const file = path.join(dir, `${name}.yaml`);
  await writeFile(file, `input: ${stringifyJson(input, 0)}\n`);
  return file;
}

/** An input whose integers, floats and strings sit at the edges of what their types hold. */
async function edgeInput() {
  const input = parseJson(await slotwiseInput('docs/examples/saved-input.yaml'));
  input.now = -(2n ** 63n);
  input.job['modify-index'] = 2n ** 64n - 1n;
  input.job['job-modify-index'] = 2 ** 53 - 1;
  input.job.groups[0].reschedule.interval = 2n ** 63n - 1n;
  input.job.groups[0].reschedule.delay = -(2 ** 52) + 1;
  input.job.groups[0].reschedule['max-delay'] = 2 ** 52;
  input.job.groups[0].count = 0xffffffff;
  input.nodes[0].meta = [
    ['zone', 'é, ü and 😀'],
    ['long', 'x'.repeat(127)],
    ['longer', 'y'.repeat(128)],
    ['wide', 'ж'.repeat(43)],
    ['', ''],
  ];
  input.allocations[0].allocations[0].spec['placement-score'] = -0.1;
  input.allocations[0].allocations[0].spec['create-index'] = 2 ** 32;
  return input;
}

before(async () => {
  wire = wireCodec(JSON.parse(await readFile(witTypesPath, 'utf8')));
  dir = await mkdtemp(path.join(os.tmpdir(), 'slotwise-wire-test-'));
});

after(async () => {
  await rm(dir, { recursive: true, force: true });
});

for (const scenario of ['docs/examples/rolling-update.yaml', 'docs/examples/node-down.yaml']) {
  test(`the codec encodes an input into the bytes slotwise input --wire prints (${scenario})`, async () => {
    const input = parseJson(await slotwiseInput(scenario));

    assert.deepEqual(wire.encodeInput(input), new Uint8Array(await slotwiseInput(scenario, '--wire')));
  });
}

test('integers and strings at the edges of their types encode as Rust encodes them and decode back', async () => {
  const file = await savedInput('edges', await edgeInput());
  const input = parseJson(await slotwiseInput(file));

  const encoded = wire.encodeInput(input);

  assert.deepEqual(encoded, new Uint8Array(await slotwiseInput(file, '--wire')));
  assert.deepStrictEqual(wire.decodeInput(encoded), input);
});

test('the codec writes the same bytes where generating code is forbidden', async () => {
  const file = await savedInput('edges', await edgeInput());
  const script = [
    `import { readFileSync } from 'node:fs';`,
    `import { parseJson } from ${JSON.stringify(path.join(root, 'packages/npm/src/rendering.js'))};`,
    `import { wireCodec } from ${JSON.stringify(path.join(root, 'packages/npm/src/wire.js'))};`,
    `const wire = wireCodec(JSON.parse(readFileSync(${JSON.stringify(witTypesPath)}, 'utf8')));`,
    `const input = parseJson(readFileSync(0, 'utf8'));`,
    `const encoded = wire.encodeInput(input);`,
    `if (JSON.stringify(wire.decodeInput(encoded), (k, v) => typeof v === 'bigint' ? String(v) : v) !==`,
    `    JSON.stringify(input, (k, v) => typeof v === 'bigint' ? String(v) : v)) throw new Error('no round trip');`,
    `process.stdout.write(Buffer.from(encoded).toString('hex'));`,
  ].join('\n');
  const flags = ['--disallow-code-generation-from-strings', '--input-type=module'];
  const child = run(process.execPath, [...flags, '-e', script]);
  child.child.stdin.end(await slotwiseInput(file));
  const { stdout } = await child;

  assert.equal(stdout, Buffer.from(await slotwiseInput(file, '--wire')).toString('hex'));
});

test('a value that does not fit names its field through lists, records and options', async () => {
  const input = parseJson(await slotwiseInput('docs/examples/node-down.yaml'));
  const spec = (v) => v.allocations[0].allocations[3].spec;
  const cases = [
    [
      (v) => (spec(v)['job-version'] = -1),
      'allocations[0].allocations[3].spec.job-version',
      'expected u64 (a BigInt beyond 2^53), got -1',
    ],
    [(v) => (spec(v).deployment = 7), 'allocations[0].allocations[3].spec.deployment', 'expected string, got 7'],
    [
      (v) => delete spec(v).fingerprint['in-place'],
      'allocations[0].allocations[3].spec.fingerprint.in-place',
      'missing field of fingerprint',
    ],
    [(v) => (v.nodes[1].meta = [['zone']]), 'nodes[1].meta[0]', 'expected a tuple of 2, got ["zone"]'],
    [(v) => (v.now = 2n ** 63n), 'now', 'expected s64, got 9223372036854775808n'],
  ];
  for (const [spoil, field, reason] of cases) {
    const spoilt = structuredClone(input);
    spoil(spoilt);

    assert.throws(() => wire.encodeInput(spoilt), (e) => {
      assert.ok(e instanceof FieldError);
      assert.deepEqual([e.path, e.reason, e.message], [`input.${field}`, reason, `input.${field}: ${reason}`]);
      return true;
    });
  }
});

test('an encoding within an encoding, or after one that failed, writes the bytes of its own value', async () => {
  const input = parseJson(await slotwiseInput('docs/examples/node-down.yaml'));
  const expected = new Uint8Array(await slotwiseInput('docs/examples/node-down.yaml', '--wire'));
  const other = parseJson(await slotwiseInput('docs/examples/rolling-update.yaml'));
  let inner;
  const nested = { ...input };
  Object.defineProperty(nested, 'job-id', {
    enumerable: true,
    get: () => {
      inner = wire.encodeInput(other);
      return input['job-id'];
    },
  });

  const outer = wire.encodeInput(nested);
  assert.throws(() => wire.encodeInput({ ...other, nodes: [{ ...other.nodes[0], status: 'gone' }] }), FieldError);

  assert.deepEqual(outer, expected);
  assert.deepEqual(inner, new Uint8Array(await slotwiseInput('docs/examples/rolling-update.yaml', '--wire')));
  assert.deepEqual(wire.encodeInput(input), expected);
});
