// The round simulator: what committing a plan and observing the cluster after a step do to the input.

import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { Allocation, GroupPlan, Plan, ReconcileInput } from '../../src/contract.ts';
import { commitPlan } from '../../src/simulator/commit.ts';
import { observe, type Step } from '../../src/simulator/observe.ts';
import { nextRound } from '../../src/simulator/round.ts';

const NOW = 1767225600000000000n;
const SECOND = 1_000_000_000n;

function allocation(id: string, slot: number, node: number, changes: Partial<Allocation['observed']> = {}): Allocation {
  return {
    spec: {
      id,
      'name-index': slot,
      'job-version': 1,
      'job-create-index': 42,
      node,
      deployment: null,
      'previous-allocation': null,
      'next-allocation': null,
      'create-index': 100 + slot,
      fingerprint: { destructive: 1, 'in-place': 1 },
      'placement-score': null,
    },
    observed: {
      'desired-status': 'run',
      'client-status': 'running',
      'desired-transition': null,
      health: null,
      reschedule: null,
      'followup-eval': null,
      'client-states': null,
      tasks: null,
      'modify-time': 0,
      meta: null,
      ...changes,
    },
    update: null,
  };
}

function input(allocs: Allocation[] = [allocation('web-0', 0, 0), allocation('web-1', 1, 1)]): ReconcileInput {
  return {
    'job-id': 'shop',
    job: {
      id: 'shop',
      kind: 'service',
      version: 2,
      'create-index': 42,
      stopped: false,
      groups: [
        {
          name: 'web',
          count: 2,
          update: { 'max-parallel': 1, canary: 1, 'auto-promote': false },
          fingerprint: { destructive: 2, 'in-place': 1 },
        },
      ],
      history: [],
    },
    nodes: [
      { id: 'n1', status: 'ready', draining: false, meta: [] },
      { id: 'n2', status: 'down', draining: false, meta: [] },
      { id: 'n3', status: 'ready', draining: false, meta: [] },
    ],
    allocations: [{ group: 'web', allocations: allocs }],
    deployment: null,
    eval: { id: 'e1', priority: 50 },
    now: NOW,
    explain: true,
    ext: [],
    system: null,
  };
}

function groupPlan(changes: Partial<GroupPlan>): GroupPlan {
  return {
    group: 'web',
    counters: {},
    placements: [],
    stops: [],
    'in-place-updates': [],
    'destructive-updates': [],
    'attribute-updates': [],
    'disconnect-updates': [],
    'reconnect-updates': [],
    'followup-evals': [],
    slots: [],
    ...changes,
  };
}

function plan(group: Partial<GroupPlan>, changes: Partial<Plan> = {}): Plan {
  return {
    groups: [groupPlan(group)],
    deployment: null,
    'deployment-updates': [],
    promotions: [],
    'policy-actions': [],
    'plugin-failures': [],
    steps: [],
    ext: [],
    'plugin-logs': [],
    ...changes,
  };
}

const placement = (slot: number, canary = false, previous: string | null = null) => ({
  'name-index': slot,
  canary,
  'previous-allocation': previous,
  reschedule: false,
  'previous-lost': false,
  'downgrade-non-canary': false,
  'min-job-version': 0,
  reason: canary ? 'canary' : 'fill-slot',
  message: '',
  node: null,
});

const deployment = {
  id: 'd1',
  'job-id': 'shop',
  'job-version': 2,
  'job-create-index': 42,
  'job-modify-index': 99,
  'job-spec-modify-index': 99,
  multiregion: false,
  status: 'running' as const,
  description: 'Deployment is running but requires manual promotion',
  'eval-priority': 50,
  'create-time': NOW,
  groups: [
    {
      group: 'web',
      promoted: false,
      'placed-canaries': [],
      'desired-canaries': 1,
      'desired-total': 2,
      'placed-allocs': 0,
      'healthy-allocs': 0,
      'unhealthy-allocs': 0,
      'auto-promote': false,
      'auto-revert': false,
      'progress-deadline': 0,
    },
  ],
  reason: 'deployment-created',
  message: '',
};

function step(changes: Partial<Step> = {}): Step {
  return { duration: 30n * SECOND, failCanaries: false, promote: false, nodesDown: [], round: 2, ...changes };
}

function find(i: ReconcileInput, id: string): Allocation {
  const found = i.allocations.flatMap((g) => g.allocations).find((a) => a.spec.id === id);
  assert.ok(found, `no allocation ${id}`);
  return found;
}

test('a placement appears pending, runs after a step, and is healthy in its deployment after the next', () => {
  const committed = commitPlan(input(), plan({ placements: [placement(0, true)] }, { deployment })).input;
  const canary = find(committed, 'web-0-2');
  assert.equal(canary.observed['client-status'], 'pending');
  assert.equal(canary.spec.deployment, 'd1');
  assert.deepEqual(canary.observed.health, { healthy: null, canary: true, 'changed-at': null });

  const once = observe(committed, [], step()).input;
  assert.equal(find(once, 'web-0-2').observed['client-status'], 'running');
  assert.equal(find(once, 'web-0-2').observed.health?.healthy, null);

  const twice = observe(once, [], step()).input;
  assert.equal(find(twice, 'web-0-2').observed.health?.healthy, true);
  assert.equal(twice.now, NOW + 60n * SECOND);
  assert.deepEqual(twice.deployment?.groups[0]['placed-canaries'], ['web-0-2']);
  assert.equal(twice.deployment?.groups[0]['healthy-allocs'], 1);
});

test('a stopped allocation is desired stopped at commit and complete after a step', () => {
  const stop = { allocation: 'web-1', 'name-index': 1, 'client-status': null, 'followup-eval': null, reason: 'scale-down', message: '' };
  const committed = commitPlan(input(), plan({ stops: [stop] })).input;
  assert.equal(find(committed, 'web-1').observed['desired-status'], 'stop');
  assert.equal(find(committed, 'web-1').observed['client-status'], 'running');
  assert.equal(find(observe(committed, [], step()).input, 'web-1').observed['client-status'], 'complete');
});

test('a stop that records a lost client keeps it lost, and its replacement goes to a ready node', () => {
  const stop = { allocation: 'web-1', 'name-index': 1, 'client-status': 'lost' as const, 'followup-eval': null, reason: 'lost', message: '' };
  const { input: committed } = commitPlan(input(), plan({ stops: [stop], placements: [placement(1, false, 'web-1')] }));
  assert.equal(find(committed, 'web-1').observed['client-status'], 'lost');
  assert.equal(find(committed, 'web-1').spec['next-allocation'], 'web-1-2');
  const replacement = find(committed, 'web-1-2');
  assert.equal(committed.nodes[replacement.spec.node].status, 'ready');
  assert.equal(replacement.spec['previous-allocation'], 'web-1');
  assert.equal(find(observe(committed, [], step()).input, 'web-1').observed['client-status'], 'lost');
});

test('a destructive update stops the old allocation and places the new version in its slot', () => {
  const update = { allocation: 'web-0', 'name-index': 0, reason: 'destructive-update', message: '' };
  const { input: committed } = commitPlan(input(), plan({ 'destructive-updates': [update] }));
  assert.equal(find(committed, 'web-0').observed['desired-status'], 'stop');
  const replacement = find(committed, 'web-0-2');
  assert.equal(replacement.spec['job-version'], 2n);
  assert.deepEqual(replacement.spec.fingerprint, { destructive: 2, 'in-place': 1 });
});

test('failing canaries turn out unhealthy and fail the running deployment', () => {
  const committed = commitPlan(input(), plan({ placements: [placement(0, true)] }, { deployment })).input;
  const failing = step({ failCanaries: true });
  const after = observe(observe(committed, [], failing).input, [], failing).input;
  assert.equal(find(after, 'web-0-2').observed.health?.healthy, false);
  assert.equal(after.deployment?.status, 'failed');
  assert.equal(after.deployment?.groups[0]['unhealthy-allocs'], 1);
});

test('healthy canaries are promoted only when the operator promotes', () => {
  const committed = commitPlan(input(), plan({ placements: [placement(0, true)] }, { deployment })).input;
  const waiting = observe(observe(committed, [], step()).input, [], step()).input;
  assert.equal(waiting.deployment?.groups[0].promoted, false);
  const promoting = step({ promote: true });
  const promoted = observe(observe(committed, [], promoting).input, [], promoting).input;
  assert.equal(promoted.deployment?.groups[0].promoted, true);
  assert.equal(promoted.deployment?.description, 'Deployment is running');
});

test('a follow-up evaluation runs once due and waits until then', () => {
  const followup = {
    id: 'f1',
    trigger: 'alloc-reschedule',
    'wait-until': NOW + 45n * SECOND,
    description: '',
    reason: 'reschedule-later',
    message: '',
  };
  const first = nextRound(input(), plan({ 'followup-evals': [followup] }), [], step({ round: 2 }));
  assert.equal(first.input.eval.id, 'playground-round-2');
  assert.deepEqual(first.followups, [followup]);
  const second = nextRound(first.input, plan({}), first.followups, step({ round: 3 }));
  assert.equal(second.input.eval.id, 'f1');
  assert.deepEqual(second.followups, []);
});

test('a node taken down in a step is down in the next input', () => {
  const after = observe(input(), [], step({ nodesDown: ['n1'] })).input;
  assert.equal(after.nodes[0].status, 'down');
});

test('plugin data of the plan is the next input’s, and the input given is left as it was', () => {
  const before = input();
  const snapshot = structuredClone(before);
  const ext = [{ plugin: 'probe', group: 'web', slot: 0, node: null, data: [1, 2] }];
  const { input: committed } = commitPlan(before, plan({ placements: [placement(0)] }, { ext }));
  assert.deepEqual(committed.ext, ext);
  assert.deepEqual(before, snapshot);
});

/** The same cluster running a system job: node n1 eligible, n2 down, n3 eligible. */
function systemInput(allocs: Allocation[]): ReconcileInput {
  const i = input(allocs);
  if (i.job !== null) {
    i.job.kind = 'system';
    i.job.groups[0].count = 1;
  }
  i.system = { eligible: [0, 2], 'not-ready': [1] };
  return i;
}

test('a system placement goes to its node, named after it, and a canary or replacement stays on the node it replaces', () => {
  const old = allocation('web-n1', 0, 0, { 'client-status': 'running' });
  const canary = { ...placement(0, true, 'web-n1'), node: 0 };
  const fill = { ...placement(0), node: 2 };
  const stop = { allocation: 'web-n1', 'name-index': 0, 'client-status': null, 'followup-eval': null, reason: 'replaced-by-canary', message: '' };
  const committed = commitPlan(systemInput([old]), plan({ placements: [canary, fill], stops: [stop] }, { deployment })).input;
  assert.equal(find(committed, 'web-n1').observed['desired-status'], 'stop');
  const onN1 = find(committed, 'web-n1-2');
  assert.equal(onN1.spec.node, 0);
  assert.equal(onN1.observed.health?.canary, true);
  assert.equal(find(committed, 'web-n3').spec.node, 2);

  const update = { allocation: 'web-n3', 'name-index': 0, reason: 'destructive-update', message: '' };
  const replaced = commitPlan(committed, plan({ 'destructive-updates': [update] })).input;
  assert.equal(find(replaced, 'web-n3-2').spec.node, 2);
});

test('a system node that goes down is no longer eligible', () => {
  const next = observe(systemInput([]), [], step({ nodesDown: ['n3'] })).input;
  assert.deepEqual(next.system, { eligible: [0], 'not-ready': [1, 2] });
  assert.equal(next.nodes[2].status, 'down');
});
