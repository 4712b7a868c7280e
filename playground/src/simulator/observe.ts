/** What clients and the deployment watcher report once time has moved on: the playground's stand-in for a cluster, by a few fixed rules. */

import type { Allocation, Deployment, FollowupEval, ReconcileInput } from '../contract.ts';
import { setClientStatus } from './commit.ts';

/** How the next round comes about. */
export interface Step {
  /** How far time moves, in nanoseconds. */
  duration: bigint;
  /** Canaries turn out unhealthy instead of healthy. */
  failCanaries: boolean;
  /** An operator promotes canaries once every one of them is healthy. */
  promote: boolean;
  /** Nodes that go down during the step, by id. */
  nodesDown: string[];
  /** The round about to run, from 1; names its evaluation. */
  round: number;
}

/**
 * The input after `step`, with the follow-up evaluations not yet due. The
 * rules, in order (docs in playground/README.md):
 *
 * 1. Time moves on by `step.duration`; the nodes named go down.
 * 2. An allocation of a deployment that was running for the whole step gets
 *    its health: healthy, or unhealthy for a canary when canaries fail.
 * 3. Pending allocations that are wanted start running; stopped ones that
 *    were pending or running complete.
 * 4. The deployment watcher counts each group's placed, healthy and
 *    unhealthy allocations and its canaries; an unhealthy allocation fails
 *    a running deployment; canaries that are all healthy are promoted when
 *    the group promotes automatically or the operator does.
 * 5. The next evaluation is the earliest follow-up now due, else a fresh
 *    one for the round.
 */
export function observe(
  input: ReconcileInput,
  followups: FollowupEval[],
  step: Step,
): { input: ReconcileInput; followups: FollowupEval[] } {
  const next: ReconcileInput = structuredClone(input);
  const now = BigInt(next.now) + step.duration;
  next.now = now;
  next.nodes.forEach((node, position) => {
    if (!step.nodesDown.includes(node.id)) return;
    node.status = 'down';
    // The scheduler no longer counts a down node as eligible.
    const system = next.system;
    if (system !== null && system.eligible.includes(position)) {
      system.eligible = system.eligible.filter((n) => n !== position);
      system['not-ready'].push(position);
    }
  });
  for (const group of next.allocations) {
    for (const alloc of group.allocations) {
      judgeHealth(alloc, step, now);
      runOrFinish(alloc, now);
    }
  }
  if (next.deployment !== null) watch(next, next.deployment, step);
  const due = followups
    .filter((f) => BigInt(f['wait-until']) <= now)
    .sort((a, b) => (BigInt(a['wait-until']) < BigInt(b['wait-until']) ? -1 : 1));
  next.eval = { ...next.eval, id: due[0]?.id ?? `playground-round-${step.round}` };
  return { input: next, followups: followups.filter((f) => f !== due[0]) };
}

function judgeHealth(alloc: Allocation, step: Step, now: bigint): void {
  const health = alloc.observed.health;
  const running = alloc.observed['client-status'] === 'running' && alloc.observed['desired-status'] === 'run';
  if (health === null || health.healthy !== null || !running || alloc.spec.deployment === null) return;
  health.healthy = !(health.canary && step.failCanaries);
  health['changed-at'] = now;
}

function runOrFinish(alloc: Allocation, now: bigint): void {
  const { observed } = alloc;
  const live = observed['client-status'] === 'pending' || observed['client-status'] === 'running';
  if (observed['desired-status'] !== 'run' && live) {
    setClientStatus(alloc, 'complete', now);
    observed['modify-time'] = now;
  } else if (observed['desired-status'] === 'run' && observed['client-status'] === 'pending') {
    setClientStatus(alloc, 'running', now);
    observed['modify-time'] = now;
  }
}

/** The deployment watcher's counts, failure and promotion. */
function watch(input: ReconcileInput, deployment: Deployment, step: Step): void {
  let unhealthy = false;
  for (const group of deployment.groups) {
    const allocs = (input.allocations.find((g) => g.group === group.group)?.allocations ?? []).filter(
      (a) => a.spec.deployment === deployment.id,
    );
    const healthOf = (a: Allocation) => a.observed.health?.healthy ?? null;
    const canaries = allocs.filter((a) => a.observed.health?.canary === true);
    group['placed-allocs'] = allocs.length;
    group['healthy-allocs'] = allocs.filter((a) => healthOf(a) === true).length;
    group['unhealthy-allocs'] = allocs.filter((a) => healthOf(a) === false).length;
    group['placed-canaries'] = canaries.map((a) => a.spec.id);
    unhealthy ||= group['unhealthy-allocs'] > 0;
    const canariesHealthy =
      canaries.length >= group['desired-canaries'] && canaries.every((a) => healthOf(a) === true);
    if (
      deployment.status === 'running' &&
      group['desired-canaries'] > 0 &&
      !group.promoted &&
      canariesHealthy &&
      (group['auto-promote'] || step.promote)
    ) {
      group.promoted = true;
      deployment.description = 'Deployment is running';
    }
  }
  if (unhealthy && deployment.status === 'running') {
    deployment.status = 'failed';
    deployment.description = 'Failed due to unhealthy allocations';
  }
}
