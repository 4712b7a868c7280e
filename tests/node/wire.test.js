// The wire codec in JavaScript writes the bytes the Rust codec writes, at the edges of every integer and string, with the code it generates and without, its straight-line encoders the bytes of its generic ones and its straight-line decoders the values and errors of its generic ones, and names the field of a value that does not fit however deep it sits.

import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { after, before, test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { parseJson, stringifyJson } from '../../packages/npm/src/rendering.js';
import { Decoders } from '../../packages/npm/src/wire-decoders.js';
import { Encoders } from '../../packages/npm/src/wire-encoders.js';
import { Misfit } from '../../packages/npm/src/wire-errors.js';
import { FittedDecoders } from '../../packages/npm/src/wire-fitted-decoders.js';
import { FittedEncoders } from '../../packages/npm/src/wire-fitted.js';
import { Reader } from '../../packages/npm/src/wire-reader.js';
import { Writer } from '../../packages/npm/src/wire-writer.js';
import { FieldError, WireError, wireCodec } from '../../packages/npm/src/wire.js';

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
    // A string that a decoder could take for one with a byte order mark, and one longer than
    // the stretch the reader decodes at once.
    ...['\uFEFF marked', 'w'.repeat(16 * 1024 + 3)],
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

// The generated function is called alone, not through `of`, which would fall back on the generic
// encoders and so pass even if the generated code refused every value.
test('the generated straight-line encoders write the bytes the generic encoders write, for the scenario inputs the tests above encode', async () => {
  const generic = new Encoders(witTypes).of({ ref: 'reconcile-input' });
  const fitted = new FittedEncoders(witTypes, new Encoders(witTypes)).fast({ ref: 'reconcile-input' });
  const scenarios = ['docs/examples/rolling-update.yaml', 'docs/examples/node-down.yaml'];
  const inputs = [...(await Promise.all(scenarios.map(async (s) => parseJson(await slotwiseInput(s))))), await edgeInput()];

  for (const input of inputs) assert.deepEqual(encodedBy(fitted, input), encodedBy(generic, input));
});

test('the generated straight-line encoders write the bytes the generic encoders write, for generated values of every type', () => {
  const rng = random(20261127);
  for (const type of encodableTypes()) {
    const generic = new Encoders(witTypes).of(type);
    const fitted = new FittedEncoders(witTypes, new Encoders(witTypes)).fast(type);
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

/** What `decode` makes of `bytes`: the value and where it stopped, or the WireError's message. */
function decodedBy(decode, bytes) {
  const r = new Reader(bytes);
  try {
    return { value: decode(r), pos: r.pos };
  } catch (e) {
    if (!(e instanceof WireError)) throw e;
    return { error: e.message };
  }
}

/**
 * The decoders of `type`: the generic one, and the straight-line one, which falls back on a
 * generic one of its own for a buffer it cannot read; with `alone`, the straight-line one
 * without that fall back, which throws at what it cannot read.
 */
function decodersOf(type, { alone = false } = {}) {
  const fitted = new FittedDecoders(witTypes, new Decoders(witTypes));
  return [new Decoders(witTypes).of(type), alone ? fitted.fast(type) : fitted.of(type)];
}

const OUTCOME = { result: { ok: { ref: 'plan' }, err: { ref: 'input-error' } } };

test('the generated straight-line decoders read the values the generic decoders read, from the scenario inputs and plans', async () => {
  const scenarios = ['docs/examples/rolling-update.yaml', 'docs/examples/node-down.yaml'];
  const edges = await savedInput('edges', await edgeInput());
  const inputs = await Promise.all([...scenarios, edges].map(async (s) => new Uint8Array(await slotwiseInput(s, '--wire'))));
  const plans = await Promise.all(
    scenarios.map(async (s) => {
      const { stdout } = await run(slotwise, ['reconcile', '--json', s], { cwd: root, maxBuffer: 64 * 1024 * 1024 });
      return encodedBy(new Encoders(witTypes).of(OUTCOME), { Ok: parseJson(stdout) });
    }),
  );

  for (const [type, buffers] of [[{ ref: 'reconcile-input' }, inputs], [OUTCOME, plans]]) {
    const [generic, fitted] = decodersOf(type, { alone: true });
    for (const bytes of buffers) {
      // Past the header of a whole buffer: the decoders read the value alone.
      const value = bytes[0] === 0x53 ? bytes.subarray(4) : bytes;
      const expected = decodedBy(generic, value);
      assert.ok('value' in expected);
      assert.deepStrictEqual(decodedBy(fitted, value), expected);
    }
  }
});

/** The encodings of generated values of every type, by type, drawn with the seed `seed`. */
function generatedBuffers(seed, count) {
  const rng = random(seed);
  return [...encodableTypes(), OUTCOME].map((type) => {
    const encode = new Encoders(witTypes).of(type);
    return [type, Array.from({ length: count }, () => encodedBy(encode, generate(type, rng)))];
  });
}

test('the generated straight-line decoders read the values the generic decoders read, for generated values of every type', () => {
  for (const [type, buffers] of generatedBuffers(20261128, 60)) {
    const [generic, fitted] = decodersOf(type, { alone: true });
    buffers.forEach((bytes, i) => {
      const expected = decodedBy(generic, bytes);
      const name = type.ref ?? JSON.stringify(type);
      assert.ok('value' in expected, `a generated ${name} decodes`);
      assert.deepStrictEqual(decodedBy(fitted, bytes), expected, `${name} #${i}`);
    });
  }
});

test('a malformed buffer throws the WireError of the generic decoders, or reads as theirs', () => {
  const rng = random(11);
  const spoilers = [
    // Cut short anywhere.
    (bytes) => bytes.subarray(0, Math.floor(rng() * bytes.length)),
    // A byte changed: to a high one (a longer varint, a bad tag, UTF-8 broken), or any.
    (bytes) => {
      const spoilt = bytes.slice();
      spoilt[Math.floor(rng() * bytes.length)] = [0x80, 0xff, 0x02, Math.floor(rng() * 256)][Math.floor(rng() * 4)];
      return spoilt;
    },
  ];
  let refused = 0;
  let tried = 0;
  for (const [type, buffers] of generatedBuffers(5, 30)) {
    const [generic, fitted] = decodersOf(type);
    for (const bytes of buffers.filter((b) => b.length > 0)) {
      for (const spoil of spoilers) {
        const spoilt = spoil(bytes);

        const expected = decodedBy(generic, spoilt);
        assert.deepStrictEqual(decodedBy(fitted, spoilt), expected, `${type.ref ?? JSON.stringify(type)}: ${spoilt}`);
        tried++;
        if ('error' in expected) refused++;
      }
    }
  }
  assert.ok(refused > tried / 3, `only ${refused} of ${tried} spoilt buffers were refused`);
});

test('strings decode back whatever their length, their characters and the bytes beside them', () => {
  const type = { list: { tuple: ['string', 'u64', 'string'] } };
  const rng = random(3);
  const text = (n) => Array.from({ length: n }, () => ['a', '-', '7', 'é', 'ж', '😀', '\uFEFF', '\u007f'][Math.floor(rng() * 8)]).join('');
  const ascii = (n) => 'q'.repeat(n);
  // Numbers whose varints end in high bytes or not, beside ASCII and other strings, some longer
  // than the stretch the reader decodes at once, some across its end.
  const value = Array.from({ length: 3000 }, (_, i) => [
    i % 7 === 0 ? text(Math.floor(rng() * 40)) : ascii(Math.floor(rng() * 70)),
    [0, 0x7f, 0x80, 2 ** 35, 2n ** 64n - 1n][i % 5],
    i % 500 === 0 ? ascii(16 * 1024 + (i % 3)) : text(i % 3),
  ]);
  // Strings that end just before, at and just after the end of a stretch that starts where the
  // first begins.
  const edges = [];
  for (let k = 1; k < 5; k++) for (const more of [-1, 0, 1]) edges.push(['a'.repeat(16 * 1024 - k), 0, 'b'.repeat(k + more)]);

  for (const strings of [value, ...edges.map((edge) => [edge])]) {
    const bytes = encodedBy(new Encoders(witTypes).of(type), strings);
    for (const decode of decodersOf(type, { alone: true })) {
      assert.deepStrictEqual(decodedBy(decode, bytes), { value: strings, pos: bytes.length });
    }
  }
});

test('a number beyond its type throws the WireError of the generic decoders', () => {
  const numbers = [0, 1, 2, 0x7f, 0x80, 0xff, 0x100, 0xffff, 0x10000, 2 ** 32 - 1, 2 ** 32, 2 ** 53 - 1, 2n ** 53n, 2n ** 64n - 1n];
  const types = ['bool', 'u8', 's8', 'u16', 's16', 'u32', 's32', 'u64', 's64', { ref: 'reason' }, { option: 'u8' }];
  for (const n of numbers) {
    const bytes = encodedBy(new Encoders(witTypes).of('u64'), n);
    for (const type of types) {
      const [generic, fitted] = decodersOf(type);
      assert.deepStrictEqual(decodedBy(fitted, bytes), decodedBy(generic, bytes), `${JSON.stringify(type)}: ${n}`);
    }
  }
});
