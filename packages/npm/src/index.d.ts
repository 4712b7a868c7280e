// The package's API; the contract's types are generated from the WIT into ../generated/contract.d.ts.

import type { Plan, PluginAnswers, PluginBatch, PluginKept, ReconcileInput } from '../generated/contract.js';
import type { Codec } from './rendering.js';
import type { AnswerContext, PluginFunction, Relay } from './session.js';

export type * from '../generated/contract.js';
export type { AnswerContext, HookName, Relay } from './session.js';
export type { Codec } from './rendering.js';
export { WireError } from './wire.js';

/** A plugin written as JavaScript functions, on the contract's types: its answers to a batch of the hooks it names. */
export type Plugin = PluginFunction<PluginBatch, PluginAnswers, PluginKept>;
export type { PluginFunction };
/** What a plugin function is given beside its batch. */
export type PluginContext = AnswerContext<PluginKept>;

/** The input does not fit the contract, or the reconciler refuses it. */
export class InputError extends Error {
  /** The path of the field at fault, as the reconciler writes it: `allocations[0].allocations[1].spec.id`. */
  readonly field: string;
  /** What is wrong with it. */
  readonly reason: string;
}

/** A session that ended without a plan: a plugin that fails closed failed, or its answers were refused. */
export class SessionError extends Error {
  /** The plugin whose answer it was; empty when the host erred. */
  readonly plugin: string;
  /** The group of the slot, or of the deployment group. */
  readonly group: string;
  /** The slot, when the answer is about one. */
  readonly slot: number | null;
  /** What is wrong. */
  readonly reason: string;
}

/** A text that is not a scenario, with where it goes wrong when known. */
export class ScenarioError extends Error {
  readonly reason: string;
  readonly field: string | null;
  readonly line: number | null;
  readonly column: number | null;
}

/** A component that cannot be loaded, or that trapped; the next call gets a new instance. */
export class ComponentError extends Error {}

export interface ReconcilerOptions {
  /**
   * Whether inputs cross as content 3 of the wire format, their allocations as records the
   * reconciler reads in place (the default), or, when false, as content 1.
   */
  records?: boolean;
}

/** The reconciler component, compiled once. */
export class Reconciler {
  /** Compiles the bundled reconciler component; inputs cross as content 3 unless `options.records` is false. */
  static load(options?: ReconcilerOptions): Promise<Reconciler>;
  /**
   * The plan for `input`, a reconcile input in slotwise's JSON rendering (what `slotwise input`
   * prints) or a buffer already in the wire format.
   * @throws {InputError} naming the field when the input does not fit or is refused.
   * @throws {ComponentError} if the component traps.
   */
  reconcile(input: ReconcileInput | Uint8Array): Plan;
  /** The component's `reconcile-encoded` as it is: an encoded input in, an encoded outcome out. */
  reconcileEncoded(input: Uint8Array): Uint8Array;
  /**
   * The plan for `input` with `plugins` consulted in order, through the reconciler's session:
   * it asks each plugin at the hooks it names and decides alone what answers and failures mean.
   * @throws {InputError} naming the field when the input does not fit or is refused.
   * @throws {SessionError} when the session ends without a plan.
   * @throws {ComponentError} if the component traps.
   */
  reconcileWith(input: ReconcileInput, plugins: Plugin[]): Promise<Plan>;
  /**
   * The plan for `input` with the plugins of `relays` consulted in order: relays of the caller's
   * own (a page's Web Workers, a scenario's scripted policy), in jco's rendering, which
   * `conversions` converts.
   * @throws {InputError} naming the field when the input does not fit or is refused.
   * @throws {SessionError} when the session ends without a plan.
   * @throws {ComponentError} if the component traps or a relay throws.
   */
  reconcileThrough(input: ReconcileInput, relays: Relay[]): Promise<Plan>;
}

/** Conversions between slotwise's rendering and jco's for the bundled contract, for relays of the caller's own. */
export const conversions: Codec;

export interface ReadOptions {
  /** How the text is written; YAML by default. */
  syntax?: 'yaml' | 'json';
}

/** A plugin a scenario asks for, as its `plugins` list gives it. */
export interface PluginRequest {
  /** A plugin shipped with slotwise, by name; null when the scenario gives a file. */
  plugin: string | null;
  /** A component file (which a browser cannot load). */
  path: string | null;
  /** The name the plugin goes by, when the scenario renames it. */
  name: string | null;
  /** The SHA-256, in hex, its component file must have, when pinned. */
  sha256: string | null;
  /** Its settings, as JSON text. */
  settings: string;
  /** Whether its answers are only reported. */
  monitor: boolean;
  /** Whether a failure of it is reported rather than ending the reconcile. */
  failOpen: boolean;
  /** Milliseconds per hook call, when the scenario sets a deadline. */
  deadlineMs: number | null;
  /** Milliseconds in all its calls of one reconcile, when the scenario sets them. */
  reconcileDeadlineMs: number | null;
}

/** A scenario file, read whole. */
export interface Scenario {
  /** The reconciler input, as `read` gives it. */
  input: ReconcileInput;
  /** What it shows, when it says. */
  description: string | null;
  /** The plugins it asks for, in order; loading them is the caller's business. */
  plugins: PluginRequest[];
  /** The relay of its scripted policy, answering as `slotwise reconcile` does; null when it scripts none. */
  scripted: Relay | null;
}

/** The scenario-reader component, compiled once. */
export class ScenarioReader {
  /** Compiles the bundled scenario-reader component. */
  static load(): Promise<ScenarioReader>;
  /**
   * The reconciler input the scenario `text` describes, with the defaults the `slotwise`
   * command applies.
   * @throws {ScenarioError} naming the field, line and column at fault.
   */
  read(text: string, options?: ReadOptions): ReconcileInput;
  /**
   * The scenario `text` read whole: its input, description, plugins and scripted policy.
   * @throws {ScenarioError} naming the field, line and column at fault.
   */
  scenario(text: string, options?: ReadOptions): Scenario;
}

/** The plan for `input` (see Reconciler#reconcile), with the reconciler compiled on first use. */
export function reconcile(input: ReconcileInput | Uint8Array): Promise<Plan>;

/** The plan for `input` with `plugins` consulted (see Reconciler#reconcileWith), with the reconciler compiled on first use. */
export function reconcileWith(input: ReconcileInput, plugins: Plugin[]): Promise<Plan>;

/** The reconciler input a scenario file's `text` describes (see ScenarioReader#read). */
export function readScenario(text: string, options?: ReadOptions): Promise<ReconcileInput>;

/** JSON text parsed as slotwise's rendering has it: integers beyond 2^53 as BigInt. */
export function parseJson(text: string): unknown;
