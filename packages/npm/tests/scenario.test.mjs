// A scenario read whole by the installed package: its description, the plugins it asks for, and its scripted policy as a relay that, through `reconcileThrough`, plans as `slotwise reconcile --json` does.

import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { test } from 'node:test';
import { InputError, Reconciler, ScenarioReader, conversions } from '@slotwise/reconciler';
import { root, slotwiseJson } from './command.mjs';

/** The scenario file `scenario` of the repository, read whole. */
async function readWhole(scenario) {
  const reader = await ScenarioReader.load();
  return reader.scenario(await readFile(path.join(root, scenario), 'utf8'));
}

test('a scripted policy, relayed, plans exactly as slotwise reconcile --json', async () => {
  const scenario = 'tests/policy/pre-slot/a-held-empty-slot-is-not-filled.yaml';
  const read = await readWhole(scenario);
  assert.notEqual(read.scripted, null);
  assert.match(read.description, /holds the empty slot 4/);
  const reconciler = await Reconciler.load();

  const plan = await reconciler.reconcileThrough(read.input, [read.scripted]);

  assert.deepStrictEqual(plan, await slotwiseJson('reconcile', scenario, '--json'));
  assert.equal(plan['policy-actions'][0].verdict, 'held');
});

test('the plugins a scenario asks for are listed with their settings and limits', async () => {
  const read = await readWhole('tests/plugins/max-disruption/replacements-beyond-the-limit-are-vetoed.yaml');

  assert.equal(read.scripted, null);
  assert.deepStrictEqual(read.plugins.map(({ plugin, monitor, failOpen }) => ({ plugin, monitor, failOpen })), [
    { plugin: 'max-disruption', monitor: false, failOpen: false },
  ]);
  assert.deepStrictEqual(JSON.parse(read.plugins[0].settings), { limit: 2 });
});

test('reconcileThrough with no relay plans as reconcile, and names the field of an input that does not fit', async () => {
  const { input } = await readWhole('docs/examples/node-down.yaml');
  const reconciler = await Reconciler.load();

  assert.deepStrictEqual(await reconciler.reconcileThrough(input, []), reconciler.reconcile(input));
  await assert.rejects(reconciler.reconcileThrough({ ...input, now: 'soon' }, []), (e) => {
    assert.ok(e instanceof InputError);
    assert.equal(e.field, 'now');
    return true;
  });
});

test('the conversions lower and lift a plan as the relays see it', async () => {
  const { input } = await readWhole('docs/examples/node-down.yaml');
  const plan = (await Reconciler.load()).reconcile(input);

  assert.deepStrictEqual(conversions.lift(conversions.lower(plan, { ref: 'plan' }), { ref: 'plan' }), plan);
});
