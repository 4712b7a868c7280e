// Plugins written as JavaScript functions, run through the installed package's session, change
// the plan exactly as the same policy scripted in a scenario changes it through the `slotwise`
// command; a plugin that throws or answers nonsense fails as the session decides, and the next
// reconcile is unaffected.

import assert from 'node:assert/strict';
import { test } from 'node:test';
import { InputError, SessionError, reconcile, reconcileWith } from '@slotwise/reconciler';
import { scenarioInput, slotwiseJson } from './command.mjs';

/** The scripted plugins of the scenarios: named `scripted` unless named, no version, reading allocation ids. */
function plugin(fields) {
  return { name: 'scripted', version: '', reads: ['allocation-ids'], ...fields };
}

/**
 * One answer per slot of a slot batch, as a script answers: `decide(group, index, slotAt)` for
 * the slots it names, `otherwise` for the rest.
 */
function perSlot(batch, otherwise, decide) {
  const [hook, asked] = Object.entries(batch)[0];
  const answers = [];
  for (const group of asked.groups) {
    for (let at = group.slots.first; at < group.slots.first + group.slots.count; at++) {
      const decision = decide(group.name, asked.slots[at].key.index, asked.slots[at]) ?? otherwise;
      answers.push({ slot: at, decision, ext: null });
    }
  }
  return { [hook]: answers };
}

/** The plan `slotwise reconcile --json` makes of `scenario`, and the one the package makes of its input with `plugins`. */
async function bothPlans(scenario, plugins) {
  const expected = await slotwiseJson('reconcile', scenario, '--json');
  return [await reconcileWith(await scenarioInput(scenario), plugins), expected];
}

test('a pre-slot hold from a function plans as the scripted hold does', async () => {
  const hold = plugin({
    hooks: ['pre-slot'],
    answer: (batch) => perSlot(batch, 'proceed', (group, index) => (group === 'web' && index === 4 ? { hold: 'capacity reserved elsewhere' } : null)),
  });

  const [plan, expected] = await bothPlans('tests/policy/pre-slot/a-held-empty-slot-is-not-filled.yaml', [hold]);

  assert.deepStrictEqual(plan, expected);
  assert.equal(plan['policy-actions'].length, 1);
});

test('a post-slot veto from a function plans as the scripted veto does', async () => {
  const veto = plugin({
    hooks: ['post-slot'],
    answer: (batch) => perSlot(batch, 'accept', (group, index) => (index === 1 ? { veto: 'at most one disruption per round' } : null)),
  });

  const [plan, expected] = await bothPlans('tests/policy/post-slot/veto-keeps-the-slot.yaml', [veto]);

  assert.deepStrictEqual(plan, expected);
});

test('a function that reads its slot batches packed gets the slots as bytes and plans as the scripted veto does', async () => {
  let seen = 0;
  const veto = plugin({
    hooks: ['post-slot'],
    reads: ['allocation-ids', 'packed'],
    answer: (batch) => {
      const asked = batch['post-slot'];
      // slotwise's rendering lifts a list<u8> as it lifts `kept`: bytes, as an array or a Uint8Array.
      const bytes = Uint8Array.from(asked.packed);
      assert.ok(bytes.length >= 28);
      assert.deepEqual([asked.slots.length, asked.candidates.length, asked.changes.length, asked.nodes.length], [0, 0, 0, 0]);
      // Layout 2 (docs/wit.md): a 28-byte header, then 24-byte slot records, the key's value at byte 4.
      const view = new DataView(bytes.buffer);
      assert.equal(view.getUint32(0, true), 2);
      const slots = view.getUint32(4, true);
      seen += slots;
      const answers = [];
      for (let at = 0; at < slots; at++) {
        const index = view.getUint32(28 + at * 24 + 4, true);
        answers.push({ slot: at, decision: index === 1 ? { veto: 'at most one disruption per round' } : 'accept', ext: null });
      }
      return { 'post-slot': answers };
    },
  });

  const [plan, expected] = await bothPlans('tests/policy/post-slot/veto-keeps-the-slot.yaml', [veto]);

  assert.ok(seen > 0);
  assert.deepStrictEqual(plan, expected);
});

test('a promotion from a function plans as the scripted promotion does', async () => {
  const gate = plugin({
    name: 'gate',
    hooks: ['promotion'],
    answer: ({ promotion }) => ({
      promotion: promotion.groups.map((g, at) => ({ group: at, decision: g.group === 'web' ? { promote: 'healthy for long enough' } : 'abstain' })),
    }),
  });

  const [plan, expected] = await bothPlans('tests/policy/promotion/promote-when-the-guards-allow.yaml', [gate]);

  assert.deepStrictEqual(plan, expected);
  assert.equal(plan.promotions[0].promoted, true);
});

test('two plugins at every hook, one monitoring, log and review as the scripted ones do', async () => {
  const first = plugin({
    name: 'first',
    hooks: ['pre-slot', 'review'],
    answer: (batch, { hook, log }) => {
      if (hook === 'pre-slot') {
        log('info', 'looked before');
        return perSlot(batch, 'proceed', () => null);
      }
      log('info', 'looked at the plan');
      const { review } = batch;
      const vetoes = [];
      for (const group of review.groups) {
        for (let at = group.slots.first; at < group.slots.first + group.slots.count; at++) {
          const slot = review.slots[at];
          if (group.name === 'web' && slot.key.index === 1 && slot.changes.count > 0) {
            vetoes.push({ change: slot.changes.first, reason: 'not this one' });
          }
        }
      }
      return { review: vetoes };
    },
  });
  const second = plugin({
    name: 'second',
    mode: 'monitor',
    hooks: ['post-slot'],
    answer: async (batch, { log }) => {
      log('info', 'looked after');
      return perSlot(batch, 'accept', () => null);
    },
  });

  const [plan, expected] = await bothPlans('tests/policy/logs/lines-are-reported-with-plugin-hook-and-group-in-order.yaml', [first, second]);

  assert.deepStrictEqual(plan, expected);
  assert.equal(plan['plugin-logs'].length, 4);
});

test('bytes a function attaches to slots come back to it and leave with the plan, as scripted ones do', async () => {
  const seen = [];
  const text = (data) => new TextDecoder().decode(Uint8Array.from(data));
  const bytes = (words) => Array.from(new TextEncoder().encode(words));
  const attach = plugin({
    hooks: ['pre-slot'],
    answer: (batch, { kept }) => {
      seen.push(...kept.map((k) => `${batch['pre-slot'].slots[k.slot].key.index}: ${text(k.data)}`));
      const ext = { 0: 'round 2', 1: 'new' };
      const answers = perSlot(batch, 'proceed', () => null);
      for (const answer of answers['pre-slot']) {
        const words = ext[batch['pre-slot'].slots[answer.slot].key.index];
        if (words !== undefined) answer.ext = bytes(words);
      }
      return answers;
    },
  });

  const [plan, expected] = await bothPlans('tests/policy/session/ext-is-carried-and-replaced.yaml', [attach]);

  assert.deepStrictEqual(plan, expected);
  assert.deepStrictEqual(seen, ['0: round 1', '5: kept']);
});

test('a plugin that throws and fails closed ends the reconcile with a SessionError naming it; the next reconcile plans', async () => {
  const input = await scenarioInput('docs/examples/rolling-update.yaml');
  const broken = plugin({ name: 'broken', hooks: ['pre-slot'], answer: () => { throw new Error('no idea'); } });

  await assert.rejects(reconcileWith(input, [broken]), (e) => {
    assert.ok(e instanceof SessionError, `${e}`);
    assert.equal(e.plugin, 'broken');
    assert.match(e.message, /no idea/);
    return true;
  });

  assert.deepStrictEqual(await reconcileWith(input, []), await reconcile(input));
});

test('answers that do not fit the contract fail as invalid, naming the field; failing open, the plan is the plain one with the failure reported', async () => {
  const input = await scenarioInput('docs/examples/rolling-update.yaml');
  const confused = plugin({ name: 'confused', hooks: ['pre-slot'], failOpen: true, answer: () => ({ 'pre-slot': [{ slot: 'first' }] }) });

  const plan = await reconcileWith(input, [confused]);

  const plain = await reconcile(input);
  assert.deepStrictEqual(plan.groups, plain.groups);
  assert.ok(plan['plugin-failures'].length > 0);
  const failure = plan['plugin-failures'][0];
  assert.equal(failure.plugin, 'confused');
  assert.match(JSON.stringify(failure), /answers\.pre-slot\[0\]\.slot/);
});

test('a plugin that is not one, or input that does not fit, is refused before the session opens', async () => {
  const input = await scenarioInput('docs/examples/rolling-update.yaml');

  await assert.rejects(reconcileWith(input, [{ name: 'x', hooks: ['sometimes'], answer() {} }]), /plugins\[0\]\.hooks/);
  await assert.rejects(reconcileWith({ ...input, now: 'soon' }, []), { name: 'InputError', field: 'now' });
  await assert.rejects(reconcileWith((({ eval: _, ...rest }) => rest)(input), []), (e) => e instanceof InputError && e.field === 'eval');
});
