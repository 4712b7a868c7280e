// Content 3 of the wire format from the installed package: its encoder writes the bytes `slotwise input --wire --records` prints, its decoder reads back the input, a value that does not fit is named as in content 1, and the reconciler plans from it exactly as from content 1, which the package sends when asked to.
//
// Run by `cargo xtask test` in a fresh project that installed only the packed tarball. Inputs
// come from `slotwise input`, so that only the reconciler component is needed.

import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { after, before, test } from 'node:test';
import { promisify } from 'node:util';
import { InputError, Reconciler } from '@slotwise/reconciler';
import { stringifyJson } from '@slotwise/reconciler/rendering';
import { CONTENT, FieldError, WireError, wireCodec } from '@slotwise/reconciler/wire';
import { root, slotwiseBytes, slotwiseJson } from './command.mjs';

/** The scenarios the wire codec's tests and the package's tests compare with the command. */
const NAMED = [
  'docs/examples/rolling-update.yaml',
  'docs/examples/node-down.yaml',
  'docs/examples/saved-input.yaml',
  'docs/examples/system/node-drains-during-canaries.yaml',
  'docs/examples/canary-rollout/round-3-canaries-healthy.yaml',
];

/** What an input's allocations use of the record layout, for checking that the scenarios cover it all. */
const FEATURES = {
  'several groups': (input) => input.allocations.length > 1,
  'a deployment': (a) => a.spec.deployment !== null,
  'two deployments in one group': (input) => input.allocations.some((g) => new Set(g.allocations.map((a) => a.spec.deployment).filter(Boolean)).size > 1),
  'a previous allocation': (a) => a.spec['previous-allocation'] !== null,
  'a next allocation': (a) => a.spec['next-allocation'] !== null,
  'a placement score': (a) => a.spec['placement-score'] !== null,
  'a desired transition': (a) => a.observed['desired-transition'] !== null,
  health: (a) => a.observed.health !== null,
  'a reschedule tracker': (a) => a.observed.reschedule !== null,
  'a follow-up evaluation': (a) => a.observed['followup-eval'] !== null,
  'client states': (a) => a.observed['client-states'] !== null,
  tasks: (a) => a.observed.tasks !== null,
  meta: (a) => a.observed.meta !== null,
  'an update kind': (a) => a.update !== null,
};
const INPUT_FEATURES = new Set(['several groups', 'two deployments in one group']);

let wire;
let dir;
let reconciler;
let plainReconciler;
/** Every scenario compared: the named ones, every conformance scenario, and `rich` below. */
let scenarios;
/** The input `slotwise input` prints for each scenario, by scenario. */
const inputs = new Map();

/** An input with every part of the record layout set, at the edges of what each field holds. */
async function richInput() {
  const input = await slotwiseJson('input', 'docs/examples/rolling-update.yaml');
  const [first] = input.allocations[0].allocations;
  const variant = (i, spec, observed, update = null) => ({
    spec: { ...structuredClone(first.spec), id: `web-rich-${i}`, 'name-index': i, ...spec },
    observed: { ...structuredClone(first.observed), ...observed },
    update,
  });
  const NOW = 1767225600000000000n;
  input.allocations[0].allocations.push(
    variant(10, { deployment: 'dep-a', 'previous-allocation': 'web-0', 'next-allocation': '' }, {
      reschedule: { events: [{ at: NOW - 1n, delay: 5 }, { at: 0, delay: -1 }], 'last-failed': true },
      'followup-eval': 'eval-é',
      'client-states': [{ status: 'lost', at: NOW }, { status: null, at: -1 }],
      tasks: [{ name: 'wéb', state: 'dead', failed: true, 'started-at': -(2n ** 63n), 'finished-at': null, restarts: 0xffffffff, 'last-restart': NOW }],
      meta: [['zone', 'é, ü and 😀'], ['', ''], ['long', 'x'.repeat(300)]],
    }),
    variant(11, { deployment: 'dep-a' }, { meta: [] }, 'ignore'),
    variant(12, { deployment: 'dep-b', id: 'ж'.repeat(43) }, { 'followup-eval': '' }, 'in-place'),
    variant(13, { deployment: 'dep-a', 'placement-score': -0.1 }, {
      'desired-status': 'evict',
      'client-status': 'unknown',
      'desired-transition': { migrate: true, reschedule: true, 'force-reschedule': true, 'migrate-disable-placement': true },
      health: { healthy: false, canary: true, 'changed-at': 2n ** 63n - 1n },
      'modify-time': -(2n ** 63n),
    }, 'destructive'),
    variant(14, {
      'job-version': 2n ** 64n - 1n,
      'job-create-index': 2 ** 32,
      'create-index': 2 ** 53 - 1,
      fingerprint: { destructive: 2n ** 53n, 'in-place': 0 },
      'placement-score': 0,
      'previous-allocation': 'y'.repeat(16 * 1024 + 3),
    }, {
      'desired-transition': { migrate: false, reschedule: false, 'force-reschedule': false, 'migrate-disable-placement': false },
      health: { healthy: null, canary: false, 'changed-at': null },
      'modify-time': -(2 ** 53) + 1,
    }),
    variant(15, {}, { health: { healthy: true, canary: false, 'changed-at': -(2n ** 53n) }, 'modify-time': 2 ** 53 - 1 }),
  );
  input.allocations.push({ group: 'empty', allocations: [] });
  input.allocations.push({ group: 'web-again', allocations: [variant(0, { id: 'web-again-0', deployment: 'dep-a' }, {})] });
  return input;
}

/** Runs `f` on each of `items`, a few at a time. */
async function eachOf(items, f) {
  for (let i = 0; i < items.length; i += 8) await Promise.all(items.slice(i, i + 8).map(f));
}

before(async () => {
  wire = wireCodec(JSON.parse(await readFile(path.join(root, 'target/slotwise/wit-types.json'), 'utf8')));
  dir = await mkdtemp(path.join(os.tmpdir(), 'slotwise-records-test-'));
  reconciler = await Reconciler.load();
  plainReconciler = await Reconciler.load({ records: false });
  const rich = path.join(dir, 'rich.yaml');
  await writeFile(rich, `input: ${stringifyJson(await richInput(), 0)}\n`);
  // The `.unit.yaml` files are cases of a unit of the reconciler, not scenarios.
  const conformance = (await readdir(path.join(root, 'tests/conformance'), { recursive: true }))
    .filter((file) => file.endsWith('.yaml') && !file.endsWith('.unit.yaml'))
    .sort()
    .map((file) => path.join('tests/conformance', file));
  scenarios = [...NAMED, ...conformance, rich];
  await eachOf(scenarios, async (scenario) => inputs.set(scenario, await slotwiseJson('input', scenario)));
});

after(async () => {
  await rm(dir, { recursive: true, force: true });
});

test('the scenarios compared lay out every part of an allocation record', () => {
  const all = [...inputs.values()];
  for (const [feature, has] of Object.entries(FEATURES)) {
    const found = INPUT_FEATURES.has(feature)
      ? all.some(has)
      : all.some((input) => input.allocations.some((g) => g.allocations.some(has)));
    assert.ok(found, `no scenario has ${feature}`);
  }
  assert.ok(inputs.size > 300, `${inputs.size} scenarios`);
});

// One codec encodes them all, one after another: each encoding writes over the buffer of a
// larger or smaller one before it, whose records must not show through.
test('content 3 is the bytes slotwise input --wire --records prints, and decodes back to the input', async () => {
  await eachOf(scenarios, async (scenario) => {
    const expected = await slotwiseBytes('input', '--wire', '--records', scenario);
    const input = inputs.get(scenario);

    const encoded = wire.encodeInputRecords(input);

    assert.equal(encoded[3], CONTENT.inputRecords, scenario);
    assert.deepEqual(encoded, expected, scenario);
    assert.deepStrictEqual(wire.decodeInput(encoded), input, scenario);
  });
});

test('content 3 is written alike where generating code is forbidden', async () => {
  const script = [
    `import { readFileSync } from 'node:fs';`,
    `import { parseJson } from ${JSON.stringify(import.meta.resolve('@slotwise/reconciler/rendering'))};`,
    `import { wireCodec } from ${JSON.stringify(import.meta.resolve('@slotwise/reconciler/wire'))};`,
    `const wire = wireCodec(JSON.parse(readFileSync(${JSON.stringify(path.join(root, 'target/slotwise/wit-types.json'))}, 'utf8')));`,
    `const encoded = parseJson(readFileSync(0, 'utf8')).map((input) => Buffer.from(wire.encodeInputRecords(input)).toString('hex'));`,
    `process.stdout.write(JSON.stringify(encoded));`,
  ].join('\n');
  const chosen = [...NAMED, scenarios.at(-1)];
  const child = promisify(execFile)(process.execPath, ['--disallow-code-generation-from-strings', '--input-type=module', '-e', script], {
    maxBuffer: 64 << 20,
  });
  child.child.stdin.end(stringifyJson(chosen.map((scenario) => inputs.get(scenario)), 0));

  const encoded = JSON.parse((await child).stdout);

  for (const [i, scenario] of chosen.entries()) {
    assert.equal(encoded[i], Buffer.from(wire.encodeInputRecords(inputs.get(scenario))).toString('hex'), scenario);
  }
});

test('the lent encoding is the copied one', () => {
  for (const input of inputs.values()) {
    assert.deepEqual(wire.lendEncodedInputRecords(input, (view) => view.slice()), wire.encodeInputRecords(input));
  }
});

test('the reconciler plans from content 3 exactly as from content 1', () => {
  for (const [scenario, input] of inputs) {
    const plain = reconciler.reconcileEncoded(wire.encodeInput(input));

    assert.deepEqual(reconciler.reconcileEncoded(wire.encodeInputRecords(input)), plain, scenario);
  }
  const planned = [...inputs.values()].filter((input) => 'Ok' in wire.decodeOutcome(reconciler.reconcileEncoded(wire.encodeInput(input))));
  assert.ok(planned.length > 300, `only ${planned.length} inputs were planned`);
});

test('a Reconciler sends content 3 unless asked for content 1, and plans alike', () => {
  const input = inputs.get('docs/examples/node-down.yaml');
  const sent = (r) => {
    const contents = [];
    const call = r.reconcileEncoded.bind(r);
    r.reconcileEncoded = (bytes) => {
      contents.push(bytes[3]);
      return call(bytes);
    };
    const plan = r.reconcile(input);
    delete r.reconcileEncoded;
    return { plan, contents };
  };

  const records = sent(reconciler);
  const plain = sent(plainReconciler);

  assert.deepEqual(records.contents, [CONTENT.inputRecords]);
  assert.deepEqual(plain.contents, [CONTENT.input]);
  assert.deepStrictEqual(records.plan, plain.plan);
});

test('a session opened from content 3 plans as from content 1', async () => {
  const input = await slotwiseJson('input', 'tests/policy/pre-slot/a-held-empty-slot-is-not-filled.yaml');
  const hold = {
    name: 'scripted',
    version: '',
    reads: ['allocation-ids'],
    hooks: ['pre-slot'],
    answer: (batch) => {
      const asked = batch['pre-slot'];
      return {
        'pre-slot': asked.slots.map((slot, at) => ({
          slot: at,
          decision: slot.key.index === 4 ? { hold: 'capacity reserved elsewhere' } : 'proceed',
          ext: null,
        })),
      };
    },
  };

  const plan = await reconciler.reconcileWith(input, [hold]);

  assert.deepStrictEqual(plan, await plainReconciler.reconcileWith(input, [hold]));
  assert.equal(plan['policy-actions'].length, 1);
});

test('a value that does not fit names its field in content 3 as in content 1, however deep in an allocation', async () => {
  const input = inputs.get('docs/examples/node-down.yaml');
  const at = (v) => v.allocations[0].allocations[3];
  const cases = [
    [(v) => (at(v).spec.node = -1), 'allocations[0].allocations[3].spec.node', 'expected u32, got -1'],
    [(v) => (at(v).spec['job-version'] = -1), 'allocations[0].allocations[3].spec.job-version', 'expected u64 (a BigInt beyond 2^53), got -1'],
    [(v) => (at(v).spec.deployment = 7), 'allocations[0].allocations[3].spec.deployment', 'expected string, got 7'],
    [(v) => delete at(v).spec.fingerprint['in-place'], 'allocations[0].allocations[3].spec.fingerprint.in-place', 'missing field of fingerprint'],
    [(v) => (at(v).spec['placement-score'] = '0.5'), 'allocations[0].allocations[3].spec.placement-score', 'expected f64, got "0.5"'],
    [(v) => (at(v).observed['client-status'] = 'gone'), 'allocations[0].allocations[3].observed.client-status', /expected a case of client-status/],
    [(v) => (at(v).observed.health = { healthy: 1, canary: false }), 'allocations[0].allocations[3].observed.health.healthy', 'expected bool, got 1'],
    [(v) => (at(v).observed['modify-time'] = 2n ** 63n), 'allocations[0].allocations[3].observed.modify-time', 'expected s64, got 9223372036854775808n'],
    [(v) => (at(v).observed.tasks = [{ name: 7 }]), 'allocations[0].allocations[3].observed.tasks[0].name', 'expected string, got 7'],
    [(v) => (at(v).observed.meta = [['zone']]), 'allocations[0].allocations[3].observed.meta[0]', 'expected a tuple of 2, got ["zone"]'],
    [(v) => (at(v).update = 'sometimes'), 'allocations[0].allocations[3].update', /expected a case of update-kind/],
    [(v) => (v.allocations[0].allocations[2] = null), 'allocations[0].allocations[2]', 'expected a allocation record, got null'],
    [(v) => (v.allocations[0].allocations = {}), 'allocations[0].allocations', 'expected a list, got {}'],
    [(v) => (v.nodes[1].meta = [['zone']]), 'nodes[1].meta[0]', 'expected a tuple of 2, got ["zone"]'],
    [(v) => (v.now = 'soon'), 'now', 'expected s64, got "soon"'],
  ];
  for (const [spoil, field, reason] of cases) {
    const spoilt = structuredClone(input);
    spoil(spoilt);

    assert.throws(() => wire.encodeInputRecords(spoilt), (e) => {
      assert.ok(e instanceof FieldError, `${field}: ${e}`);
      assert.equal(e.path, `input.${field}`);
      if (typeof reason === 'string') assert.equal(e.reason, reason);
      else assert.match(e.reason, reason);
      return true;
    });
    assert.throws(() => wire.encodeInput(spoilt), { name: 'FieldError', path: `input.${field}` });
    assert.throws(() => reconciler.reconcile(spoilt), (e) => e instanceof InputError && e.field === field);
  }
  assert.deepEqual(wire.encodeInputRecords(input), await slotwiseBytes('input', '--wire', '--records', 'docs/examples/node-down.yaml'));
});

/** Where the first group's records of `bytes`, an encoding of `input`, start: its first id is the first of its tail. */
function firstRecord(bytes, input) {
  const { allocations } = input.allocations[0];
  const id = new TextEncoder().encode(allocations[0].spec.id);
  const tail = Buffer.from(bytes).indexOf(id);
  assert.ok(tail > 0);
  return tail - 120 * allocations.length;
}

test('a malformed record is refused by the decoder and by the reconciler', async () => {
  const input = inputs.get('docs/examples/node-down.yaml');
  const bytes = wire.encodeInputRecords(input);
  const first = firstRecord(bytes, input);
  const view = new DataView(bytes.buffer);
  assert.equal(view.getUint32(first, true), 120 * input.allocations[0].allocations.length, 'the first id lies where the tail starts');
  const u32At = (at, n) => (b) => new DataView(b.buffer).setUint32(at, n, true);
  const spoilers = [
    [(b) => (b[first + 117] |= 0x80), /presence flags/],
    [(b) => (b[first + 119] = 1), /reserved bytes/],
    [(b) => (b[first + 113] = 6), /client-status is not a case/],
    [(b) => (b[first + 114] = 2), /desired-transition has flags/],
    [(b) => (b[first + 56] = 1), /placement-score is absent/],
    [u32At(first + 4, 1 << 20), /spec.id is placed outside/],
    [u32At(first + 108, 1), /rest\) is placed outside/],
  ];
  const spoilt = spoilers.map(([spoil, message]) => {
    const b = bytes.slice();
    spoil(b);
    return [b, message];
  });
  spoilt.push([bytes.slice(0, first + 60), /claims more records/]);
  for (const [b, message] of spoilt) {
    assert.throws(() => wire.decodeInput(b), (e) => e instanceof WireError && message.test(e.message), String(message));
    assert.throws(() => reconciler.reconcile(b), (e) => e instanceof InputError && e.field.startsWith('encoded-input'), String(message));
  }
});
