// A reconcile through the reconciler's resumable session: the session asks, one question at a
// time, for a plugin's answers to a batch; relays answer for the plugins they call. Whom to ask,
// what an answer or a failure means, what monitor mode does and how answers compose are the
// session's, inside the component: nothing here decides. `runSession` works in jco's rendering
// on any instance of the reconciler (the playground's, the package's); `FunctionRelay` runs
// plugins written as JavaScript functions, in slotwise's rendering.

import { errPayload } from './rendering.js';

/**
 * Reconciles `input` (jco's rendering) with the reconciler instance `reconciler` (its exports),
 * consulting the plugins of `relays` in order: `{ plan }`, `{ inputError }` or `{ sessionError }`,
 * each in jco's rendering. Traps of the component, and errors a relay throws, are thrown.
 */
export async function runSession(reconciler, input, relays) {
  return drive(relays, {
    plain: () => ({ plan: reconciler.reconcile.reconcile(input) }),
    open: (consulted) => reconciler.session.Session.open(input, consulted),
    next: (session, reply) => session.next(reply),
    done: (plan) => ({ plan }),
  });
}

/**
 * As `runSession`, with the input and the plan each crossing as one buffer in the wire format
 * (`open-encoded`, `next-encoded`): `input` is an encoded input (a Uint8Array). Gives
 * `{ outcome }`, the encoded outcome (the plan, or the reconciler's refusal of the input),
 * `{ inputError }` (jco's rendering) when the session refused to open, or `{ sessionError }`.
 */
export async function runEncodedSession(reconciler, input, relays) {
  return drive(relays, {
    plain: () => ({ outcome: reconciler.reconcile.reconcileEncoded(input) }),
    open: (consulted) => reconciler.session.Session.openEncoded(input, consulted),
    next: (session, reply) => session.nextEncoded(reply),
    done: (outcome) => ({ outcome }),
  });
}

/**
 * Drives one session through `relays`: `plain` reconciles when no plugin is consulted; `open`
 * opens the session with the plugins, `next` takes a reply and gives the progress, `done` says
 * what the plan that ends it is.
 */
async function drive(relays, { plain, open, next, done }) {
  for (const relay of relays) await relay.begin();
  const owners = relays.flatMap((relay) => relay.consulted().map((_, at) => ({ relay, at })));
  const consulted = relays.flatMap((relay) => relay.consulted());
  if (consulted.length === 0) {
    try {
      return plain();
    } catch (e) {
      return { inputError: payloadOf(e) };
    }
  }
  let session;
  try {
    session = open(consulted);
  } catch (e) {
    return { inputError: payloadOf(e) };
  }
  // A question about the batch of the one before carries none: the driver keeps the last.
  let batch;
  let reply;
  for (;;) {
    let progress;
    try {
      progress = next(session, reply);
    } catch (e) {
      return { sessionError: payloadOf(e) };
    }
    if (progress.tag === 'done') return done(progress.val);
    const question = progress.val;
    batch = question.batch ?? batch;
    const owner = owners[question.plugin];
    if (owner === undefined || batch === undefined) {
      throw new Error(`the session asked plugin ${question.plugin}, which no relay answers for, or asked about no batch`);
    }
    reply = await owner.relay.answer(owner.at, batch, question.kept);
  }
}

/** The `err` payload a jco export threw; anything else (a trap of the component) is thrown on. */
function payloadOf(e) {
  const payload = errPayload(e);
  if (payload === undefined) throw e;
  return payload;
}

/** The hooks of `slotwise:plugin@0.2.0`, as a plugin function's `hooks` names them. */
const HOOKS = ['pre-slot', 'post-slot', 'promotion', 'review'];

/** The optional parts of a batch, as a plugin function's `reads` names them. */
const PARTS = ['node-ids', 'node-meta', 'allocation-ids', 'candidate-meta', 'change-messages', 'packed'];

/** The levels a plugin function logs at. */
const LEVELS = ['debug', 'info', 'warn', 'error'];

/**
 * Plugins written as JavaScript functions, as a relay. Each plugin is
 * `{ name, version?, hooks, reads?, mode?, failOpen?, answer(batch, context) }` in slotwise's
 * rendering: `answer` gets the batch (`{ 'pre-slot': {...} }`) and `{ hook, kept, log(level,
 * message) }`, and returns (or resolves to) its answers (`{ 'pre-slot': [...] }`). A function that
 * throws fails as a trap; answers that do not fit the contract fail as invalid, naming the field.
 * The session decides what a failure means (`failOpen`, monitor mode).
 */
export class FunctionRelay {
  #plugins;
  #codec;
  #consulted;

  /** `plugins` as above; `codec` converts between the renderings (see rendering.js). */
  constructor(plugins, codec) {
    if (!Array.isArray(plugins)) throw new TypeError('plugins: expected an array of plugins');
    this.#plugins = plugins;
    this.#codec = codec;
    this.#consulted = plugins.map((plugin, at) => {
      const consulted = consultedOf(plugin, `plugins[${at}]`);
      try {
        return codec.lower(consulted, { ref: 'consulted' });
      } catch (e) {
        throw new TypeError(e.message.replace(/^value/, `plugins[${at}]`));
      }
    });
  }

  async begin() {}

  consulted() {
    return this.#consulted;
  }

  async answer(at, batch, kept) {
    const plugin = this.#plugins[at];
    const logs = [];
    const log = (level, message) => {
      if (!LEVELS.includes(level)) throw new TypeError(`log: the level is one of ${LEVELS.join(', ')}, not ${level}`);
      logs.push({ level, message: String(message) });
    };
    const asked = this.#codec.lift(batch, { ref: 'plugin/batch' });
    const context = { hook: Object.keys(asked)[0], kept: kept.map((k) => this.#codec.lift(k, { ref: 'plugin/kept' })), log };
    let answers;
    try {
      answers = await plugin.answer(asked, context);
    } catch (e) {
      return this.#reply({ Err: { kind: 'trap', message: `threw: ${e instanceof Error ? e.message : String(e)}` } }, logs);
    }
    try {
      return this.#reply({ Ok: answers }, logs);
    } catch (e) {
      return this.#reply({ Err: { kind: 'invalid', message: e instanceof Error ? e.message.replace(/^value\.outcome\.Ok/, 'answers') : String(e) } }, logs);
    }
  }

  #reply(outcome, logs) {
    return this.#codec.lower({ outcome, logs, usage: null }, { ref: 'reply' });
  }
}

/** The session's record of `plugin`, in slotwise's rendering; `at` names it in errors. */
function consultedOf(plugin, at) {
  if (plugin === null || typeof plugin !== 'object') throw new TypeError(`${at}: expected a plugin object`);
  const { name, version = '', hooks, reads = [], mode = 'enforce', failOpen = false, answer } = plugin;
  if (typeof name !== 'string' || name === '') throw new TypeError(`${at}.name: expected a non-empty string`);
  if (typeof answer !== 'function') throw new TypeError(`${at}.answer: expected a function`);
  if (!Array.isArray(hooks) || hooks.some((h) => !HOOKS.includes(h))) {
    throw new TypeError(`${at}.hooks: expected a list of ${HOOKS.join(', ')}`);
  }
  if (!Array.isArray(reads) || reads.some((part) => !PARTS.includes(part))) {
    throw new TypeError(`${at}.reads: expected a list of ${PARTS.join(', ')}`);
  }
  const parts = Object.fromEntries(PARTS.map((part) => [part, reads.includes(part)]));
  return { name, version, hooks, reads: parts, mode, 'fail-open': failOpen, unloaded: null };
}
