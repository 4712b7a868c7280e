// @slotwise/reconciler: the slotwise reconciler, a WebAssembly component transpiled by jco, run on its encoded path in Node 20+ and browsers, or through its session with plugins written as JavaScript functions or relayed by the caller; and the scenario reader.
//
// Inputs and plans are slotwise's JSON rendering, as `slotwise input` and `slotwise reconcile
// --json` print them (objects with kebab-case keys; 64-bit integers as numbers, or BigInt
// beyond 2^53). The input crosses into the component as one buffer in slotwise's wire format
// and the plan comes back as one. The input is of content 3, its allocations as records the
// reconciler reads in place rather than decodes, which measured faster in Node than content 1
// (the README has the figures); content 1 on request, `Reconciler.load({ records: false })`.

import * as reconcilerComponent from '../generated/reconciler/index.js';
import * as readerComponent from '../generated/scenario-reader/index.js';
import witTypes from '../generated/wit-types.js';
import { codec, parseJson } from './rendering.js';
import { ScriptedRelay } from './scripted.js';
import { FunctionRelay, runEncodedSession } from './session.js';
import { FieldError, wireCodec, WireError } from './wire.js';

export { parseJson, WireError };

/** The input does not fit the contract, or the reconciler refuses it; `field` names the field at fault. */
export class InputError extends Error {
  constructor(field, message) {
    super(`${field}: ${message}`);
    this.name = 'InputError';
    this.field = field;
    this.reason = message;
  }
}

/** A session that ended without a plan: a plugin that fails closed failed, or its answers were refused. */
export class SessionError extends Error {
  constructor({ plugin, group, slot, message }) {
    const where = [plugin && `plugin ${plugin}`, group && `group ${group}`, slot === null ? '' : `slot ${slot}`].filter(Boolean);
    super(where.length > 0 ? `${where.join(', ')}: ${message}` : message);
    this.name = 'SessionError';
    this.plugin = plugin;
    this.group = group;
    this.slot = slot;
    this.reason = message;
  }
}

/** A text that is not a scenario, with where it goes wrong when known. */
export class ScenarioError extends Error {
  constructor({ message, field, line, column }) {
    const where = [
      field === undefined ? '' : `field ${field}`,
      line === undefined ? '' : `line ${line}`,
      column === undefined ? '' : `column ${column}`,
    ].filter(Boolean);
    super(where.length > 0 ? `${message} (${where.join(', ')})` : message);
    this.name = 'ScenarioError';
    this.reason = message;
    this.field = field ?? null;
    this.line = line ?? null;
    this.column = column ?? null;
  }
}

/** A component that cannot be loaded, or that trapped; its instance is dropped and the next call gets a new one. */
export class ComponentError extends Error {
  constructor(message, cause) {
    super(message, { cause });
    this.name = 'ComponentError';
  }
}

const isNode = typeof process !== 'undefined' && Boolean(process.versions?.node);

/** Compiles the core module `file` beside the transpiled component `dir`, from disk in Node, fetched in a browser. */
async function compileCore(dir, file) {
  // The literal `.wasm` keeps what bundlers gather for this URL (Vite: `../generated/*/*.wasm`) to the core modules.
  const url = new URL(`../generated/${dir}/${file.replace(/\.wasm$/, '')}.wasm`, import.meta.url);
  if (isNode) {
    const { readFile } = await import('node:fs/promises');
    return WebAssembly.compile(await readFile(url));
  }
  return WebAssembly.compileStreaming(fetch(url));
}

/**
 * A transpiled component whose core modules are compiled once. One instance serves every call
 * (jco's instantiation costs about 30 ms); an exception that is not the component's own answer
 * (a trap) drops it, so that the next call starts afresh.
 */
class Component {
  #transpiled;
  #cores;
  #what;
  #instance;

  constructor(transpiled, cores, what) {
    this.#transpiled = transpiled;
    this.#cores = cores;
    this.#what = what;
  }

  static async load(transpiled, dir, what) {
    const cores = new Map();
    try {
      await Promise.all(transpiled.cores.map(async (file) => cores.set(file, await compileCore(dir, file))));
    } catch (e) {
      throw new ComponentError(`${what} cannot be compiled: ${e.message}`, e);
    }
    return new Component(transpiled, cores, what);
  }

  /** Runs `f` on the instance's exports; `isAnswer(e)` tells the component's own errors from traps. */
  call(f, isAnswer = () => false) {
    this.#instance ??= this.#transpiled.instantiate((file) => this.#cores.get(file), {});
    try {
      return f(this.#instance);
    } catch (e) {
      if (isAnswer(e)) throw e;
      this.#instance = undefined;
      throw new ComponentError(`${this.#what} trapped: ${e.message}`, e);
    }
  }

  /** As `call`, for an `f` that waits in between: any error it throws drops the instance. */
  async during(f) {
    this.#instance ??= this.#transpiled.instantiate((file) => this.#cores.get(file), {});
    const instance = this.#instance;
    try {
      return await f(instance);
    } catch (e) {
      if (this.#instance === instance) this.#instance = undefined;
      throw new ComponentError(`${this.#what} failed: ${e.message}`, e);
    }
  }
}

const wire = wireCodec(witTypes);
const rendering = codec(witTypes);

/** Conversions between slotwise's rendering and jco's for the bundled contract, for relays of the caller's own. */
export const conversions = rendering;

/** The reconciler component, compiled once; `reconcile` is synchronous. */
export class Reconciler {
  #component;
  #records;

  constructor(component, { records = true } = {}) {
    this.#component = component;
    this.#records = records;
  }

  /**
   * Compiles the bundled reconciler component. Inputs are sent as content 3 of the wire format,
   * their allocations as records, unless `records` is false: then as content 1, the smaller
   * buffer the guest decodes whole.
   */
  static async load({ records = true } = {}) {
    const component = await Component.load(reconcilerComponent, 'reconciler', 'the reconciler component');
    return new Reconciler(component, { records });
  }

  /**
   * The plan for `input`: a reconcile input in slotwise's JSON rendering, or a buffer already
   * in the wire format. Throws InputError naming the field when the input does not fit the
   * contract or the reconciler refuses it, ComponentError if the component traps.
   */
  reconcile(input) {
    const call = (bytes) => this.reconcileEncoded(bytes);
    return planOf(input instanceof Uint8Array ? call(input) : encodeDuring(input, this.#records, call));
  }

  /** The component's `reconcile-encoded` as it is: an encoded input in, an encoded outcome out. */
  reconcileEncoded(bytes) {
    return this.#component.call((exports) => exports.reconcile.reconcileEncoded(bytes));
  }

  /**
   * The plan for `input` (slotwise's JSON rendering) with `plugins` consulted, each a plugin
   * written as JavaScript functions (see FunctionRelay in session.js), in order. Throws
   * InputError naming the field, SessionError when the session ends without a plan,
   * ComponentError if the component traps.
   */
  async reconcileWith(input, plugins) {
    return this.reconcileThrough(input, [new FunctionRelay(plugins, rendering)]);
  }

  /**
   * The plan for `input` (slotwise's JSON rendering, or a buffer already in the wire format) with
   * the plugins of `relays` consulted, in order: relays of the caller's own (see Relay in
   * session.d.ts; they work in jco's rendering, which `conversions` converts), such as a page's
   * Web Workers or a scenario's scripted policy. The input and the plan cross as one buffer each.
   * Throws as `reconcileWith`; an error a relay throws is a ComponentError.
   */
  async reconcileThrough(input, relays) {
    const bytes = input instanceof Uint8Array ? input : encodeDuring(input, this.#records, (view) => view.slice());
    const ended = await this.#component.during((exports) => runEncodedSession(exports, bytes, relays));
    if ('outcome' in ended) return planOf(ended.outcome);
    if ('inputError' in ended) {
      const { field, message } = rendering.lift(ended.inputError, { ref: 'input-error' });
      throw new InputError(field, message);
    }
    throw new SessionError(rendering.lift(ended.sessionError, { ref: 'session-error' }));
  }
}

/** The plan an encoded outcome holds; the reconciler's refusal as an InputError. */
function planOf(encodedOutcome) {
  const outcome = wire.decodeOutcome(encodedOutcome);
  if ('Err' in outcome) throw new InputError(outcome.Err.field, outcome.Err.message);
  return outcome.Ok;
}

/**
 * `input` in the wire format, of content 3 with `records` and else of content 1, lent to `use`
 * for the time of its call (the component copies it into its memory); a value that does not fit
 * is an InputError at its field.
 */
function encodeDuring(input, records, use) {
  try {
    return (records ? wire.lendEncodedInputRecords : wire.lendEncodedInput)(input, use);
  } catch (e) {
    if (e instanceof FieldError) throw new InputError(e.path.replace(/^input\.?/, '') || 'input', e.reason);
    throw e;
  }
}

/** The scenario-reader component, compiled once. */
export class ScenarioReader {
  #component;

  constructor(component) {
    this.#component = component;
  }

  /** Compiles the bundled scenario-reader component. */
  static async load() {
    return new ScenarioReader(
      await Component.load(readerComponent, 'scenario-reader', 'the scenario-reader component'),
    );
  }

  /**
   * The reconciler input the scenario `text` describes, with the defaults the `slotwise`
   * command applies. Throws ScenarioError naming the field, line and column at fault.
   */
  read(text, options) {
    return this.scenario(text, options).input;
  }

  /**
   * The scenario `text` read whole: its input (as `read` gives it), its description, the
   * plugins it asks for, and the relay of its scripted policy (null when it scripts none), which
   * answers as `slotwise reconcile` does. Throws as `read`.
   */
  scenario(text, { syntax = 'yaml' } = {}) {
    if (typeof text !== 'string') throw new TypeError(`a scenario is text, not ${typeof text}`);
    if (syntax !== 'yaml' && syntax !== 'json') throw new TypeError(`syntax is 'yaml' or 'json', not ${syntax}`);
    let read;
    try {
      read = this.#component.call((exports) => exports.reader.read(text, syntax), isPayload);
    } catch (e) {
      if (e instanceof ComponentError) throw e;
      throw new ScenarioError(e.payload);
    }
    const reply = (plugin, batch) =>
      this.#component.call((exports) => exports.reader.scriptedReply(text, syntax, plugin, batch), isPayload);
    return {
      input: parseJson(read.input),
      description: read.description ?? null,
      plugins: read.plugins.map(pluginRequest),
      scripted: read.scripted === undefined ? null : new ScriptedRelay(parseJson(read.scripted), reply, rendering),
    };
  }
}

/** Whether `e` is the `err` of a result, which jco throws as the payload of an error. */
function isPayload(e) {
  return e?.payload !== undefined;
}

/** Nanoseconds, as the reader gives a deadline, in whole milliseconds. */
function millis(nanos) {
  return nanos === undefined ? null : Number(BigInt(nanos) / 1_000_000n);
}

/** A plugin the scenario asks for, as the reader gives it, in the package's idiom. */
function pluginRequest(entry) {
  return {
    plugin: entry.plugin ?? null,
    path: entry.path ?? null,
    name: entry.name ?? null,
    sha256: entry.sha256 ?? null,
    settings: entry.settings,
    monitor: entry.monitor,
    failOpen: entry.failOpen,
    deadlineMs: millis(entry.deadline),
    reconcileDeadlineMs: millis(entry.reconcileDeadline),
  };
}

let reconciler;
let reader;

/** The plan for `input` (see Reconciler#reconcile), with the reconciler compiled on first use. */
export async function reconcile(input) {
  reconciler ??= Reconciler.load();
  return (await reconciler).reconcile(input);
}

/** The plan for `input` with `plugins` consulted (see Reconciler#reconcileWith), with the reconciler compiled on first use. */
export async function reconcileWith(input, plugins) {
  reconciler ??= Reconciler.load();
  return (await reconciler).reconcileWith(input, plugins);
}

/** The reconciler input a scenario file's `text` describes (see ScenarioReader#read). */
export async function readScenario(text, options) {
  reader ??= ScenarioReader.load();
  return (await reader).read(text, options);
}
