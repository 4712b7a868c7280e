/** What the server writes when it commits a plan: new allocations pending, stops desired, the deployment and plugin data recorded. */

import type {
  Allocation,
  ClusterNode,
  Deployment,
  FollowupEval,
  Fingerprint,
  GroupPlan,
  Job,
  Placement,
  Plan,
  ReconcileInput,
} from '../contract.ts';

/** A new allocation the plan asks for: a placement, or the replacement of a destructive update. */
interface NewAllocation {
  group: string;
  slot: number;
  canary: boolean;
  previous: string | null;
  reschedule: boolean;
  /** The job version to run, when not the job's (a downgrade). */
  version: bigint | null;
  /** The node it goes to, for system jobs; others take the next ready node. */
  node: number | null;
}

/**
 * The input after `plan` is committed: placements become pending allocations
 * on ready nodes, stops are desired (with the client status the plan records),
 * updates and follow-up evaluations are written on their allocations, the
 * deployment is created or updated, and plugin data is carried over.
 *
 * Returns the follow-up evaluations the plan creates, for the clock to run
 * when they are due.
 */
export function commitPlan(input: ReconcileInput, plan: Plan): { input: ReconcileInput; followups: FollowupEval[] } {
  const next: ReconcileInput = structuredClone(input);
  const now = BigInt(next.now);
  next.deployment = deploymentAfter(next.deployment, plan);
  const byId = new Map<string, Allocation>();
  for (const g of next.allocations) {
    for (const a of g.allocations) byId.set(a.spec.id, a);
  }
  const followups: FollowupEval[] = [];
  for (const groupPlan of plan.groups) {
    followups.push(...groupPlan['followup-evals']);
    writeChanges(groupPlan, byId, now);
    for (const wanted of newAllocations(groupPlan, byId, next.system !== null)) {
      place(next, wanted, byId, now);
    }
  }
  next.ext = structuredClone(plan.ext);
  return { input: next, followups };
}

/** The stops, updates and follow-ups a group's plan writes on existing allocations. */
function writeChanges(plan: GroupPlan, byId: Map<string, Allocation>, now: bigint): void {
  const on = (id: string, change: (a: Allocation) => void) => {
    const alloc = byId.get(id);
    if (alloc) {
      change(alloc);
      alloc.observed['modify-time'] = now;
    }
  };
  for (const stop of plan.stops) {
    on(stop.allocation, (a) => {
      a.observed['desired-status'] = 'stop';
      if (stop['client-status'] !== null) setClientStatus(a, stop['client-status'], now);
      if (stop['followup-eval'] !== null) a.observed['followup-eval'] = stop['followup-eval'];
    });
  }
  for (const update of plan['destructive-updates']) {
    on(update.allocation, (a) => {
      a.observed['desired-status'] = 'stop';
    });
  }
  for (const update of [...plan['attribute-updates'], ...plan['in-place-updates']]) {
    on(update.allocation, (a) => {
      if (update['followup-eval'] !== null) a.observed['followup-eval'] = update['followup-eval'];
    });
  }
  for (const update of plan['disconnect-updates']) {
    on(update.allocation, (a) => {
      setClientStatus(a, 'unknown', now);
      if (update['followup-eval'] !== null) a.observed['followup-eval'] = update['followup-eval'];
    });
  }
  for (const update of plan['reconnect-updates']) {
    on(update.allocation, (a) => {
      a.observed['desired-status'] = 'run';
      setClientStatus(a, 'running', now);
    });
  }
}

/** Records a client status change, in the history too when the allocation keeps one. */
export function setClientStatus(alloc: Allocation, status: Allocation['observed']['client-status'], at: bigint): void {
  alloc.observed['client-status'] = status;
  alloc.observed['client-states']?.push({ status, at });
}

/**
 * The allocations `plan` adds. A system job's replacement stays on the node
 * of the allocation it replaces, which is its slot.
 */
function newAllocations(plan: GroupPlan, byId: Map<string, Allocation>, system: boolean): NewAllocation[] {
  const placed = plan.placements.map((p: Placement) => ({
    group: plan.group,
    slot: p['name-index'],
    canary: p.canary,
    previous: p['previous-allocation'],
    reschedule: p.reschedule,
    version: p['downgrade-non-canary'] ? BigInt(p['min-job-version']) : null,
    node: p.node,
  }));
  const replacements = plan['destructive-updates'].map((d) => ({
    group: plan.group,
    slot: d['name-index'],
    canary: false,
    previous: d.allocation,
    reschedule: false,
    version: null,
    node: system ? (byId.get(d.allocation)?.spec.node ?? null) : null,
  }));
  return [...placed, ...replacements];
}

/** Adds the allocation `wanted` describes, pending, on a ready node. */
function place(input: ReconcileInput, wanted: NewAllocation, byId: Map<string, Allocation>, now: bigint): void {
  const job = input.job;
  if (job === null) return;
  let entry = input.allocations.find((g) => g.group === wanted.group);
  if (entry === undefined) {
    entry = { group: wanted.group, allocations: [] };
    input.allocations.push(entry);
  }
  const node = wanted.node ?? nodeFor(input, wanted.slot);
  const id = wanted.node === null ? freshId(wanted.group, wanted.slot, byId) : nodeSlotId(input, wanted, node, byId);
  const previous = wanted.previous === null ? undefined : byId.get(wanted.previous);
  if (previous !== undefined) previous.spec['next-allocation'] = id;
  const version = wanted.version ?? BigInt(job.version);
  const deployment = input.deployment;
  const inDeployment =
    deployment !== null && deployment.status === 'running' && BigInt(deployment['job-version']) === version;
  const alloc: Allocation = {
    spec: {
      id,
      'name-index': wanted.slot,
      'job-version': version,
      'job-create-index': job['create-index'],
      node,
      deployment: inDeployment ? deployment.id : null,
      'previous-allocation': wanted.previous,
      'next-allocation': null,
      'create-index': nextCreateIndex(input),
      fingerprint: fingerprintOf(job, wanted.group, version),
      'placement-score': null,
    },
    observed: {
      'desired-status': 'run',
      'client-status': 'pending',
      'desired-transition': null,
      health: inDeployment ? { healthy: null, canary: wanted.canary, 'changed-at': null } : null,
      reschedule: wanted.reschedule ? trackerAfter(previous, now) : (previous?.observed.reschedule ?? null),
      'followup-eval': null,
      'client-states': null,
      tasks: null,
      'modify-time': now,
      meta: null,
    },
    update: null,
  };
  entry.allocations.push(alloc);
  byId.set(id, alloc);
}

/** `group-slot` as the scenario format names a slot's first allocation, then `-2`, `-3`... */
function freshId(group: string, slot: number, byId: Map<string, Allocation>): string {
  const base = `${group}-${slot}`;
  for (let n = 2; ; n++) {
    const id = `${base}-${n}`;
    if (!byId.has(id)) return id;
  }
}

/**
 * `group-node` as the scenario format names a system job's allocation on a
 * node (`-index` after it when the slot's index is not 0), then `-2`, `-3`...
 */
function nodeSlotId(input: ReconcileInput, wanted: NewAllocation, node: number, byId: Map<string, Allocation>): string {
  const base = `${wanted.group}-${input.nodes[node]?.id ?? node}${wanted.slot === 0 ? '' : `-${wanted.slot}`}`;
  if (!byId.has(base)) return base;
  for (let n = 2; ; n++) {
    const id = `${base}-${n}`;
    if (!byId.has(id)) return id;
  }
}

/**
 * The node a new allocation of `slot` goes to: the ready, undrained nodes
 * taken in turn by slot, so that replacements spread as a scheduler would;
 * a fresh node joins when none is ready.
 */
function nodeFor(input: ReconcileInput, slot: number): number {
  const ready = input.nodes
    .map((node, position) => ({ node, position }))
    .filter(({ node }) => node.status === 'ready' && !node.draining);
  if (ready.length > 0) return ready[slot % ready.length].position;
  const fresh: ClusterNode = { id: `node-${input.nodes.length + 1}`, status: 'ready', draining: false, meta: [] };
  input.nodes.push(fresh);
  return input.nodes.length - 1;
}

function nextCreateIndex(input: ReconcileInput): bigint {
  let max = 0n;
  for (const g of input.allocations) {
    for (const a of g.allocations) {
      const index = BigInt(a.spec['create-index']);
      if (index > max) max = index;
    }
  }
  return max + 1n;
}

/** The fingerprint of `group` as version `version` defines it. */
function fingerprintOf(job: Job, group: string, version: bigint): Fingerprint {
  const past = job.history.find((h) => BigInt(h.version) === version)?.groups.find((g) => g.name === group);
  const current = job.groups.find((g) => g.name === group);
  return structuredClone((BigInt(job.version) === version ? current : past ?? current)?.fingerprint ?? { destructive: 1, 'in-place': 1 });
}

/** The reschedule history of a replacement for a failure: its predecessor's, and this attempt. */
function trackerAfter(previous: Allocation | undefined, now: bigint): Allocation['observed']['reschedule'] {
  const events = structuredClone(previous?.observed.reschedule?.events ?? []);
  events.push({ at: now, delay: 0 });
  return { events, 'last-failed': false };
}

/** The deployment after the plan: the one it creates, or the existing one with its updates and promotions. */
function deploymentAfter(current: Deployment | null, plan: Plan): Deployment | null {
  if (plan.deployment !== null) {
    const d = plan.deployment;
    return {
      id: d.id,
      'job-id': d['job-id'],
      'job-version': d['job-version'],
      'job-create-index': d['job-create-index'],
      status: d.status,
      description: d.description,
      groups: structuredClone(d.groups),
    };
  }
  if (current === null) return null;
  for (const update of plan['deployment-updates']) {
    if (update.deployment === current.id) {
      current.status = update.status;
      current.description = update.description;
    }
  }
  for (const promotion of plan.promotions) {
    const group = current.groups.find((g) => g.group === promotion.group);
    if (promotion.promoted && promotion.deployment === current.id && group) group.promoted = true;
  }
  return current;
}
