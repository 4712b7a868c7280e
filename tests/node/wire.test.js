// The wire codec in JavaScript writes the bytes the Rust codec writes, at the edges of every integer and string, with the code it generates and without, its straight-line encoders the bytes of its generic ones, and names the field of a value that does not fit however deep it sits.

import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { after, before, test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { parseJson, stringifyJson } from '../../packages/npm/src/rendering.js';
import { Encoders } from '../../packages/npm/src/wire-encoders.js';
import { Misfit } from '../../packages/npm/src/wire-errors.js';
import { FittedEncoders } from '../../packages/npm/src/wire-fitted.js';
import { Writer } from '../../packages/npm/src/wire-writer.js';
import { FieldError, wireCodec } from '../../packages/npm/src/wire.js';

const here = path.dirname(fileURLToPath(import.meta.url));
const root = path.resolve(here, '../..');
const witTypesPath = path.join(root, 'target/slotwise/wit-types.json');
const slotwise = process.env.SLOTWISE || path.join(root, 'target/debug/slotwise');
const run = promisify(execFile);

let wire;
let witTypes;
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
  witTypes = JSON.parse(await readFile(witTypesPath, 'utf8'));
  wire = wireCodec(witTypes);
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

/** A generator of numbers in [0, 1) from `seed`, so that a failure can be replayed. */
function random(seed) {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = Math.imul(state ^ (state >>> 15), 1 | state);
    t ^= t + Math.imul(t ^ (t >>> 7), 61 | t);
    return ((t ^ (t >>> 14)) >>> 0) / 2 ** 32;
  };
}

/** Values at the edges of what each encoding takes: its fast paths' and their fallbacks'. */
const EDGES = {
  string: [
    ...['', 'a', 'node-000007', 'é, ü and 😀', `${'a'.repeat(40)}é`],
    ...['ж'.repeat(42), 'ж'.repeat(43), 'x'.repeat(127), 'y'.repeat(128), 'z'.repeat(300)],
  ],
  u8: [0, 1, 0x7f, 0xff],
  s8: [0, -1, 0x7f, -0x80],
  u16: [0, 0x7f, 0x80, 0xffff],
  s16: [0, -1, 0x7fff, -0x8000],
  u32: [0, 0x7f, 0x80, 0x3fff, 0x4000, 2 ** 31, 0xffffffff],
  s32: [0, -1, 1, 0x3f, -0x40, 2 ** 31 - 1, -(2 ** 31)],
  u64: [0, 0x7f, 0x80, 2 ** 32 - 1, 2 ** 32, 2 ** 35, 2 ** 53 - 1, 2n ** 53n, 2n ** 63n, 2n ** 64n - 1n, 1767225480000000000n],
  s64: [
    ...[0, -1, 2 ** 31 - 1, -(2 ** 31), 2 ** 31, -(2 ** 31) - 1, 2 ** 52 - 1, -(2 ** 52) + 1, 2 ** 52, -(2 ** 53) + 1],
    ...[-(2n ** 63n), 2n ** 63n - 1n, 1767225480000000000n, -1767225480000000000n],
  ],
  f32: [0, 0.5, -2.25, null],
  f64: [0, -0.1, 0.5, 1e300, null],
};

/**
 * A value of `type` in the JSON rendering, drawn by `rng` from the edges of
 * each type; options are null or, in a record, absent as often as present.
 */
function generate(type, rng, depth = 0) {
  const pick = (xs) => xs[Math.floor(rng() * xs.length)];
  const count = () => (depth > 4 ? 0 : Math.floor(rng() * 3));
  if (typeof type === 'string') {
    if (type === 'bool') return rng() < 0.5;
    if (type === 'string' && rng() < 0.3) {
      return Array.from({ length: Math.floor(rng() * 140) }, () => pick(['a', '-', '7', '~', 'é'])).join('');
    }
    return pick(EDGES[type]);
  }
  if ('ref' in type) {
    const def = witTypes.types[type.ref];
    switch (def.kind) {
      case 'alias':
        return generate(def.type, rng, depth);
      case 'enum':
        return pick(def.cases);
      case 'variant': {
        const c = pick(def.cases);
        return c.type === null ? c.name : { [c.name]: generate(c.type, rng, depth + 1) };
      }
      default: {
        const record = {};
        for (const f of def.fields) {
          const value = generate(f.type, rng, depth + 1);
          if (!(value === null && rng() < 0.5)) record[f.name] = value;
        }
        return record;
      }
    }
  }
  if ('option' in type) return rng() < 0.4 ? null : generate(type.option, rng, depth + 1);
  if ('list' in type) {
    const items = Array.from({ length: count() }, () => generate(type.list, rng, depth + 1));
    return type.list === 'u8' && rng() < 0.5 ? Uint8Array.from(items) : items;
  }
  if ('tuple' in type) return type.tuple.map((t) => generate(t, rng, depth + 1));
  const { ok, err } = type.result;
  if (rng() < 0.5) return { Ok: ok === null ? null : generate(ok, rng, depth + 1) };
  return { Err: err === null ? null : generate(err, rng, depth + 1) };
}

/** `value` encoded by `encode` from a one-byte buffer, which it must grow: the bytes, or the FieldError. */
function encodedBy(encode, value) {
  const w = new Writer(new Uint8Array(1));
  try {
    encode(w, value);
  } catch (e) {
    if (!(e instanceof Misfit)) throw e;
    const error = e.fieldError('value');
    return { path: error.path, reason: error.reason };
  }
  return w.finish();
}

/** Every type of the contract the wire format has a codec for, and every primitive, which a future contract may use. */
function encodableTypes() {
  const named = Object.entries(witTypes.types)
    .filter(([, def]) => def.kind !== 'resource')
    .map(([name]) => ({ ref: name }));
  return [...named, ...Object.keys(EDGES)];
}

test('the generated straight-line encoders write the bytes the generic encoders write, for the scenario inputs the tests above encode', async () => {
  const generic = new Encoders(witTypes).of({ ref: 'reconcile-input' });
  const fitted = new FittedEncoders(witTypes, new Encoders(witTypes)).of({ ref: 'reconcile-input' });
  const scenarios = ['docs/examples/rolling-update.yaml', 'docs/examples/node-down.yaml'];
  const inputs = [...(await Promise.all(scenarios.map(async (s) => parseJson(await slotwiseInput(s))))), await edgeInput()];

  for (const input of inputs) assert.deepEqual(encodedBy(fitted, input), encodedBy(generic, input));
});

test('the generated straight-line encoders write the bytes the generic encoders write, for generated values of every type', () => {
  const rng = random(20261127);
  for (const type of encodableTypes()) {
    const generic = new Encoders(witTypes).of(type);
    const fitted = new FittedEncoders(witTypes, new Encoders(witTypes)).of(type);
    for (let i = 0; i < 60; i++) {
      const value = generate(type, rng);

      const expected = encodedBy(generic, value);
      const name = type.ref ?? type;
      assert.ok(expected instanceof Uint8Array, `a generated ${name} fits`);
      assert.deepEqual(encodedBy(fitted, value), expected, `${name} #${i}: ${stringifyJson(value, 0)}`);
    }
  }
});

test('a number beyond its type, or not a number, throws the FieldError of the generic encoders', () => {
  const wrong = [
    ...[-1, 1.5, 0x80, -0x81, 0x100, 0x8000, -0x8001, 0x10000, 2 ** 31, -(2 ** 31) - 1, 2 ** 32, 2 ** 53],
    ...[NaN, Infinity, -0, '7', 7n, null, undefined, {}],
  ];
  for (const type of ['u8', 's8', 'u16', 's16', 'u32', 's32', 'u64', 's64', 'f32', 'f64', 'bool', 'string']) {
    const generic = new Encoders(witTypes).of(type);
    const fitted = new FittedEncoders(witTypes, new Encoders(witTypes)).of(type);
    for (const value of wrong) assert.deepEqual(encodedBy(fitted, value), encodedBy(generic, value), `${type}: ${String(value)}`);
  }
});

/** The places in `value` where a field or item sits: [container, key] pairs, found depth first. */
function places(value, out = []) {
  if (value === null || typeof value !== 'object' || value instanceof Uint8Array) return out;
  for (const key of Object.keys(value)) {
    out.push([value, key]);
    places(value[key], out);
  }
  return out;
}

test('a generated value spoilt anywhere throws the FieldError of the generic encoders, or fits and writes their bytes', () => {
  const rng = random(7);
  const wrong = [7, -1, 1.5, 'x', '', true, null, {}, [], ['zone'], 2n ** 64n, -(2n ** 63n) - 1n, undefined];
  let refused = 0;
  for (const type of [{ ref: 'reconcile-input' }, { result: { ok: { ref: 'plan' }, err: { ref: 'input-error' } } }]) {
    const generic = new Encoders(witTypes).of(type);
    const fitted = new FittedEncoders(witTypes, new Encoders(witTypes)).of(type);
    for (let i = 0; i < 300; i++) {
      const value = generate(type, rng);
      const spots = places(value);
      const [container, key] = spots[Math.floor(rng() * spots.length)];
      const spoilt = wrong[Math.floor(rng() * wrong.length)];
      if (spoilt === undefined && !Array.isArray(container)) delete container[key];
      else container[key] = spoilt;

      const expected = encodedBy(generic, value);
      assert.deepEqual(encodedBy(fitted, value), expected, `#${i}: ${key} spoilt with ${String(spoilt)}`);
      if (!(expected instanceof Uint8Array)) refused++;
    }
  }
  assert.ok(refused > 300, `only ${refused} of 600 spoilt values were refused`);
});
