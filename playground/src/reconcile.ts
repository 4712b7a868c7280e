/**
 * One reconcile through the reconciler component: `reconcile` when no plugin is consulted, else
 * its session, every question relayed to whoever answers for the plugin it names. Everything here
 * is in jco's rendering and decides nothing: whom to ask, what an answer or a failure means, what
 * monitor mode does and how answers compose are the session's, inside the component.
 */

import { errPayload } from './wit-values.js';

/** A hook, as the plugin package names it. */
export type HookName = 'pre-slot' | 'post-slot' | 'promotion' | 'review';

/** The optional parts of a batch a plugin reads. */
export interface ViewParts {
  nodeIds: boolean;
  nodeMeta: boolean;
  allocationIds: boolean;
  candidateMeta: boolean;
  changeMessages: boolean;
}

/** A plugin as the session is opened with it. */
export interface Consulted {
  name: string;
  version: string;
  hooks: HookName[];
  reads: ViewParts;
  mode: 'enforce' | 'monitor';
  failOpen: boolean;
  /** Why it could not be loaded, when it could not: the session decides what that means. */
  unloaded?: string;
}

/** Why a plugin has no answer, as its relay saw it. */
export type FailureKind = 'trap' | 'fuel' | 'memory' | 'deadline' | 'too-large' | 'invalid' | 'load';

/** A line a plugin logged during a call. */
export interface LogLine {
  level: 'debug' | 'info' | 'warn' | 'error';
  message: string;
}

/** A relay's reply to a question: the plugin's raw answers, or why it has none. */
export interface Reply {
  outcome: { tag: 'ok'; val: unknown } | { tag: 'err'; val: { kind: FailureKind; message: string } };
  logs: LogLine[];
  /** A browser cannot meter fuel or memory. */
  usage?: undefined;
}

/** Whoever calls some of the consulted plugins: loads them, calls the one a question names, and returns its reply or its failure. */
export interface Relay {
  /** Gets ready for a reconcile: a fresh, configured instance of each plugin. */
  begin(): Promise<void>;
  /** Its plugins, in the order they are consulted. */
  consulted(): Consulted[];
  /** The reply of its plugin `plugin` (a position in `consulted`) to `batch`, given the bytes it kept. */
  answer(plugin: number, batch: unknown, kept: unknown[]): Promise<Reply>;
}

/** The reconciler component's exports, as jco renders them. */
export interface Reconciler {
  reconcile: { reconcile(input: unknown): unknown };
  session: {
    Session: {
      open(input: unknown, plugins: Consulted[]): { next(reply: Reply | undefined): unknown };
    };
  };
}

/** How a reconcile ended, in jco's rendering. */
export type Outcome =
  | { plan: unknown }
  | { inputError: unknown }
  | { sessionError: unknown };

/** A question of the session. */
interface Question {
  plugin: number;
  hook: HookName;
  batch?: unknown;
  kept: unknown[];
}

/**
 * Reconciles `input` with `reconciler`, consulting the plugins of `relays` in order. Traps of the
 * component itself are thrown.
 */
export async function reconcile(reconciler: Reconciler, input: unknown, relays: Relay[]): Promise<Outcome> {
  for (const relay of relays) await relay.begin();
  const owners = relays.flatMap((relay) => relay.consulted().map((_, at) => ({ relay, at })));
  const consulted = relays.flatMap((relay) => relay.consulted());
  if (consulted.length === 0) {
    try {
      return { plan: reconciler.reconcile.reconcile(input) };
    } catch (e) {
      return { inputError: payloadOf(e) };
    }
  }
  let session;
  try {
    session = reconciler.session.Session.open(input, consulted);
  } catch (e) {
    return { inputError: payloadOf(e) };
  }
  // A question about the batch of the one before carries none: the relay keeps the last.
  let batch: unknown = undefined;
  let reply: Reply | undefined = undefined;
  for (;;) {
    let progress: { tag: 'ask' | 'done'; val: unknown };
    try {
      progress = session.next(reply) as typeof progress;
    } catch (e) {
      return { sessionError: payloadOf(e) };
    }
    if (progress.tag === 'done') return { plan: progress.val };
    const question = progress.val as Question;
    batch = question.batch ?? batch;
    const owner = owners[question.plugin];
    if (owner === undefined || batch === undefined) {
      throw new Error(`the session asked plugin ${question.plugin}, which no relay answers for, or asked about no batch`);
    }
    reply = await owner.relay.answer(owner.at, batch, question.kept);
  }
}

/** The `err` payload a jco export threw; anything else (a trap of the component) is thrown on. */
function payloadOf(e: unknown): unknown {
  const payload = errPayload(e);
  if (payload === undefined) throw e;
  return payload;
}
