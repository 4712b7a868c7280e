/** One round of the playground: the plan committed, then the cluster observed after a step. */

import type { FollowupEval, Plan, ReconcileInput } from '../contract.ts';
import { commitPlan } from './commit.ts';
import { observe, type Step } from './observe.ts';

export type { Step } from './observe.ts';

/** The input of the next round after `plan`, and the follow-up evaluations still waiting. */
export function nextRound(
  input: ReconcileInput,
  plan: Plan,
  waiting: FollowupEval[],
  step: Step,
): { input: ReconcileInput; followups: FollowupEval[] } {
  const committed = commitPlan(input, plan);
  return observe(committed.input, [...waiting, ...committed.followups], step);
}
