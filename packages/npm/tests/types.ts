// Compiled by `cargo xtask test` with `tsc --strict` in a project that installed the tarball: the declarations describe the API as a user's code calls it.

import {
  InputError,
  Reconciler,
  ScenarioError,
  readScenario,
  reconcile,
  type GroupPlan,
  type Plan,
  type ReconcileInput,
} from '@slotwise/reconciler';
import { wireCodec, type Outcome } from '@slotwise/reconciler/wire';
import type { Placement } from '@slotwise/reconciler/contract';

export async function plan(text: string): Promise<number> {
  const input: ReconcileInput = await readScenario(text, { syntax: 'yaml' });
  const now: number | bigint = input.now;
  const plan: Plan = await reconcile({ ...input, now, explain: true });
  const groups: GroupPlan[] = plan.groups;
  const placements: Placement[] = groups.flatMap((g) => g.placements);
  const reconciler = await Reconciler.load();
  const encoded: Uint8Array = reconciler.reconcileEncoded(new Uint8Array([0x53, 0x57, 1, 1]));
  const again: Plan = reconciler.reconcile(input);
  return placements.length + again.groups.length + encoded.length;
}

export function describe(e: unknown): string {
  if (e instanceof InputError) return `${e.field}: ${e.reason}`;
  if (e instanceof ScenarioError) return `${e.line ?? '?'}:${e.column ?? '?'} ${e.reason}`;
  return String(e);
}

export function decode(bytes: Uint8Array, description: unknown): Outcome {
  return wireCodec(description).decodeOutcome(bytes);
}
