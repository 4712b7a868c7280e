/** One reconcile in the browser: the reconciler component alone, or its session driven through the plugins' questions. */

import { freshReconciler } from './components.ts';
import type { Plan, ReconcileInput } from './contract.ts';
import type { HookName } from './plugins/messages.ts';
import { errPayload, lift, lower } from './wit.ts';

/** Something that answers a session's questions for some consulted plugins. */
export interface Replier {
  /** The plugins it answers for, as session `consulted` records in slotwise's rendering. */
  consulted(): unknown[];
  /** Starts a reconcile of `input`: why it cannot, or null. */
  begin(input: ReconcileInput): Promise<string | null>;
  /** Per item, in order, the replies of its plugins, in jco's rendering. */
  reply(hook: HookName, items: unknown[]): Promise<unknown[][]>;
  /** Adds what it reports to the plan. */
  finish(plan: Plan): void;
}

export type Outcome =
  | { plan: Plan }
  | { inputError: { field: string; message: string } }
  | { sessionError: { plugin: string; group: string; slot: number | null; message: string } }
  | { hostError: string };

/**
 * Reconciles `input` with a fresh reconciler instance. With no plugin to
 * consult it calls `reconcile`, as `slotwise reconcile` does; otherwise it
 * opens a session and hands each question to the repliers, their replies
 * concatenated in the order their plugins are consulted.
 */
export async function reconcile(input: ReconcileInput, repliers: Replier[]): Promise<Outcome> {
  for (const r of repliers) {
    const refused = await r.begin(input);
    if (refused !== null) return { hostError: refused };
  }
  const reconciler = await freshReconciler();
  const lowered = lower(input, { ref: 'reconcile-input' });
  const consulted = repliers.flatMap((r) => r.consulted());
  if (consulted.length === 0) {
    try {
      const plan = lift<Plan>(reconciler.reconcile.reconcile(lowered), { ref: 'plan' });
      for (const r of repliers) r.finish(plan);
      return { plan };
    } catch (e) {
      return { inputError: liftErr(e, 'input-error') };
    }
  }
  let session;
  try {
    session = reconciler.session.Session.open(lowered, lower(consulted, { list: { ref: 'consulted' } }));
  } catch (e) {
    return { inputError: liftErr(e, 'input-error') };
  }
  let replies: unknown = undefined;
  for (;;) {
    let progress: { tag: 'ask' | 'done'; val: unknown };
    try {
      progress = session.next(replies) as typeof progress;
    } catch (e) {
      return { sessionError: liftErr(e, 'session-error') };
    }
    if (progress.tag === 'done') {
      const plan = lift<Plan>(progress.val, { ref: 'plan' });
      for (const r of repliers) r.finish(plan);
      return { plan };
    }
    const question = progress.val as { tag: HookName; val: unknown[] };
    const perReplier: unknown[][][] = [];
    for (const r of repliers) perReplier.push(await r.reply(question.tag, question.val));
    replies = {
      tag: question.tag,
      val: question.val.map((_, i) => perReplier.flatMap((answers) => answers[i] ?? [])),
    };
  }
}

/** The `err` payload a jco export threw, in slotwise's rendering; anything else (a trap) is rethrown. */
function liftErr<T>(e: unknown, type: string): T {
  const payload = errPayload(e);
  if (payload === undefined) throw e;
  return lift<T>(payload, { ref: type });
}
