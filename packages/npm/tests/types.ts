// Compiled by `cargo xtask test` with `tsc --strict` in a project that installed the tarball: the declarations describe the API as a user's code calls it.

import {
  InputError,
  Reconciler,
  ScenarioError,
  ScenarioReader,
  SessionError,
  readScenario,
  reconcile,
  reconcileWith,
  conversions,
  type Codec,
  type GroupPlan,
  type Plan,
  type Plugin,
  type PluginAnswers,
  type PluginBatch,
  type PluginContext,
  type PluginRequest,
  type ReconcileInput,
  type ReconcilerOptions,
  type Scenario,
} from '@slotwise/reconciler';
import { runSession, type Relay } from '@slotwise/reconciler/session';
import { CONTENT, wireCodec, type Outcome } from '@slotwise/reconciler/wire';
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

/** A plugin that holds every slot of the batches it is asked about. */
export const freeze: Plugin = {
  name: 'freeze',
  hooks: ['pre-slot'],
  answer(batch: PluginBatch, { hook, log }: PluginContext): PluginAnswers {
    log('info', `asked at ${hook}`);
    if (!('pre-slot' in batch)) return { 'pre-slot': [] };
    return { 'pre-slot': batch['pre-slot'].slots.map((_, slot) => ({ slot, decision: { hold: 'frozen' }, ext: null })) };
  },
};

export async function frozen(input: ReconcileInput, relays: Relay[]): Promise<number> {
  const plan: Plan = await reconcileWith(input, [freeze]);
  const reconciler = await Reconciler.load();
  const again: Plan = await reconciler.reconcileWith(input, [freeze]);
  const outcome = await runSession({} as Parameters<typeof runSession>[0], {}, relays);
  return plan.groups.length + again.groups.length + ('plan' in outcome ? 1 : 0);
}

/** A scenario read whole, planned with its scripted policy and relays of the caller's own. */
export async function scripted(text: string, relays: Relay[]): Promise<number> {
  const reader = await ScenarioReader.load();
  const scenario: Scenario = reader.scenario(text, { syntax: 'json' });
  const requests: PluginRequest[] = scenario.plugins;
  const deadline: number | null = requests[0]?.deadlineMs ?? null;
  const description: string | null = scenario.description;
  const own: Relay[] = scenario.scripted === null ? relays : [scenario.scripted, ...relays];
  const plan: Plan = await (await Reconciler.load()).reconcileThrough(scenario.input, own);
  const codec: Codec = conversions;
  codec.lift(codec.lower(plan, { ref: 'plan' }), { ref: 'plan' });
  return plan.groups.length + (deadline ?? 0) + (description?.length ?? 0);
}

export function describe(e: unknown): string {
  if (e instanceof SessionError) return `${e.plugin} ${e.group} ${e.slot ?? '-'}: ${e.reason}`;
  if (e instanceof InputError) return `${e.field}: ${e.reason}`;
  if (e instanceof ScenarioError) return `${e.line ?? '?'}:${e.column ?? '?'} ${e.reason}`;
  return String(e);
}

export function decode(bytes: Uint8Array, description: unknown): Outcome {
  return wireCodec(description).decodeOutcome(bytes);
}

/** An input sent as content 1 rather than the default content 3, and its content 3 encoding read back. */
export async function plainly(input: ReconcileInput, description: unknown): Promise<number> {
  const options: ReconcilerOptions = { records: false };
  const plan: Plan = (await Reconciler.load(options)).reconcile(input);
  const wire = wireCodec(description);
  const records: Uint8Array = wire.encodeInputRecords(input);
  const again: ReconcileInput = wire.decodeInput(records);
  const length: number = wire.lendEncodedInputRecords(again, (bytes) => bytes.length);
  return plan.groups.length + length + (records[3] === CONTENT.inputRecords ? 1 : 0);
}
