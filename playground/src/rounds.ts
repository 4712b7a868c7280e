/** The rounds played from a scenario: each with its input, its outcome and the follow-up evaluations still waiting. */

import type { FollowupEval, Plan, ReconcileInput } from './contract.ts';
import { nextRound, type Step } from './simulator/round.ts';

/** How a round's reconcile ended, in slotwise's rendering. */
export type Outcome =
  | { plan: Plan }
  | { inputError: { field: string; message: string } }
  | { sessionError: { plugin: string; group: string; slot: number | null; message: string } }
  | { hostError: string };

export interface Round {
  /** From 1. */
  number: number;
  input: ReconcileInput;
  outcome: Outcome;
  /** Follow-up evaluations created by earlier rounds, not yet due. */
  waiting: FollowupEval[];
}

/**
 * The input of the round after `round`, when it has a plan: the plan
 * committed and the cluster observed after `step` (see simulator/observe.ts).
 */
export function inputAfter(round: Round, step: Omit<Step, 'round'>): { input: ReconcileInput; waiting: FollowupEval[] } | null {
  if (!('plan' in round.outcome)) return null;
  const next = nextRound(round.input, round.outcome.plan, round.waiting, { ...step, round: round.number + 1 });
  return { input: next.input, waiting: next.followups };
}
