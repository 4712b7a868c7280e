// The installed @slotwise/reconciler plans as the `slotwise` command does, and refuses bad input with the field named.
//
// Run by `cargo xtask test` in a fresh project that installed only the packed tarball (and
// TypeScript).

import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { test } from 'node:test';
import { InputError, Reconciler, ScenarioError, readScenario, reconcile } from '@slotwise/reconciler';
import { wireCodec } from '@slotwise/reconciler/wire';
import { root, runSlotwise, scenarioInput, slotwiseJson } from './command.mjs';

const scenarios = [
  'docs/examples/rolling-update.yaml',
  'docs/examples/node-down.yaml',
  'docs/examples/system/node-drains-during-canaries.yaml',
  'docs/examples/canary-rollout/round-3-canaries-healthy.yaml',
];

test('the package is imported from the project, not from the repository', () => {
  assert.match(import.meta.resolve('@slotwise/reconciler'), /node_modules\/@slotwise\/reconciler\//);
});

for (const scenario of scenarios) {
  test(`a scenario reads into the input slotwise input prints (${scenario})`, async () => {
    assert.deepStrictEqual(await scenarioInput(scenario), await slotwiseJson('input', scenario));
  });

  for (const explain of [false, true]) {
    test(`${scenario}${explain ? ', explained,' : ''} plans exactly as slotwise reconcile --json`, async () => {
      const input = { ...(await scenarioInput(scenario)), explain };

      const plan = await reconcile(input);

      assert.deepStrictEqual(plan, await slotwiseJson('reconcile', scenario, '--json', ...(explain ? ['--explain'] : [])));
    });
  }
}

test('a missing field is an InputError naming it, and the next call plans', async () => {
  const { eval: _, ...input } = await scenarioInput(scenarios[0]);

  await assert.rejects(reconcile(input), (e) => {
    assert.ok(e instanceof InputError);
    assert.equal(e.field, 'eval');
    assert.match(e.reason, /missing field of reconcile-input/);
    return true;
  });

  assert.ok((await reconcile(await scenarioInput(scenarios[0]))).groups.length > 0);
});

test('a value of the wrong type is an InputError naming its path', async () => {
  const input = await scenarioInput(scenarios[0]);
  await assert.rejects(reconcile({ ...input, now: 'soon' }), { name: 'InputError', field: 'now', reason: 'expected s64, got "soon"' });

  input.allocations[0].allocations[1].spec['name-index'] = -1;
  await assert.rejects(reconcile(input), (e) => {
    assert.ok(e instanceof InputError);
    assert.equal(e.field, 'allocations[0].allocations[1].spec.name-index');
    assert.match(e.reason, /expected u32/);
    return true;
  });
});

test('garbage bytes are an InputError about the encoded input, and the next call plans', async () => {
  const random = new Uint8Array(1 << 16);
  for (let i = 0; i < random.length; i++) random[i] = (i * 2654435761) >>> 24;
  const cases = [
    [new Uint8Array([1, 2, 3]), /not a slotwise buffer/],
    [Uint8Array.from([0x53, 0x57, 9, 1]), /wire format version 9/],
    [Uint8Array.from([0x53, 0x57, 1, 1, 0xff, 0xff, 0xff, 0xff, 0x0f]), /truncated/],
    [random, /./],
  ];
  for (const [bytes, message] of cases) {
    await assert.rejects(reconcile(bytes), (e) => {
      assert.ok(e instanceof InputError, `${e}`);
      assert.match(e.field, /^encoded-input/);
      assert.match(e.reason, message);
      return true;
    });
  }
  assert.ok((await reconcile(await scenarioInput(scenarios[0]))).groups.length > 0);
});

test('the reconciler refuses a duplicated allocation id as the command does', async () => {
  const scenario = 'tests/node/duplicate-allocation-id.yaml';
  const host = await runSlotwise('reconcile', scenario, '--json');
  assert.notEqual(host.code, 0);

  await assert.rejects(reconcile(await scenarioInput(scenario)), (e) => {
    assert.ok(e instanceof InputError);
    assert.equal(e.field, 'allocations[0].allocations[1].spec.id');
    assert.ok(host.stderr.includes(`invalid input: ${e.message}`), host.stderr);
    return true;
  });
});

test('a timestamp beyond 2^53 crosses exactly', async () => {
  const now = 1767225600000000001n;
  const plan = await reconcile({ ...(await scenarioInput(scenarios[0])), now });
  assert.equal(plan.deployment['create-time'], now);
});

test('a text that is not a scenario is a ScenarioError with its place, and the next read works', async () => {
  await assert.rejects(readScenario('job:\n  groups: [\n'), (e) => {
    assert.ok(e instanceof ScenarioError);
    assert.equal(typeof e.line, 'number');
    return true;
  });
  await assert.rejects(readScenario('allocations:\n  web:\n    - index: 0\n      colour: blue\n'), /colour/);
  await assert.rejects(readScenario(42), TypeError);
  assert.ok((await readScenario('{"allocations": {"web": [{"index": "0-4"}]}}', { syntax: 'json' }))['job-id']);
});

test('a Reconciler plans synchronously, alike on every call', async () => {
  const reconciler = await Reconciler.load();
  const input = await scenarioInput(scenarios[1]);

  const first = reconciler.reconcile(input);

  assert.deepStrictEqual(reconciler.reconcile(input), first);
  assert.deepStrictEqual(first, await slotwiseJson('reconcile', scenarios[1], '--json'));
});

test('the wire codec names the field of a value that does not fit', async () => {
  const description = JSON.parse(await readFile(path.join(root, 'target/slotwise/wit-types.json'), 'utf8'));
  const wire = wireCodec(description);
  const input = await scenarioInput(scenarios[0]);
  assert.deepStrictEqual(wire.decodeInput(wire.encodeInput(input)), input);
  assert.throws(() => wire.encodeInput({ ...input, now: 'soon' }), { name: 'FieldError', path: 'input.now' });
});
