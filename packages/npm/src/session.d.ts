// The session's driver and relays; see session.js. The driver's types are in jco's rendering.

/** A hook, as the plugin package names it. */
export type HookName = 'pre-slot' | 'post-slot' | 'promotion' | 'review';

/** The optional parts of a batch a plugin reads. */
export interface ViewParts {
  nodeIds: boolean;
  nodeMeta: boolean;
  allocationIds: boolean;
  candidateMeta: boolean;
  changeMessages: boolean;
  /** Slots, candidates and changes of slot batches as little-endian records in the batch's `packed` bytes (docs/wit.md). */
  packed: boolean;
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
  /** What the call used, when the relay meters it (a browser cannot). */
  usage?: { fuel: bigint; memory: bigint };
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
export interface ReconcilerExports {
  reconcile: { reconcile(input: unknown): unknown };
  session: {
    Session: {
      open(input: unknown, plugins: Consulted[]): { next(reply: Reply | undefined): unknown };
      openEncoded(input: Uint8Array, plugins: Consulted[]): { nextEncoded(reply: Reply | undefined): unknown };
    };
  };
}

/** How a reconcile ended, in jco's rendering. */
export type Outcome = { plan: unknown } | { inputError: unknown } | { sessionError: unknown };

/**
 * Reconciles `input` (jco's rendering) with the instance `reconciler`, consulting the plugins of
 * `relays` in order. Traps of the component, and errors a relay throws, are thrown.
 */
export function runSession(reconciler: ReconcilerExports, input: unknown, relays: Relay[]): Promise<Outcome>;

/** How a reconcile on an encoded input ended: the encoded outcome, or a refusal in jco's rendering. */
export type EncodedOutcome = { outcome: Uint8Array } | { inputError: unknown } | { sessionError: unknown };

/**
 * As `runSession`, with the input and the plan each crossing as one buffer in the wire format:
 * `input` is an encoded input, and a plan comes back as the encoded outcome.
 */
export function runEncodedSession(reconciler: ReconcilerExports, input: Uint8Array, relays: Relay[]): Promise<EncodedOutcome>;

/** What a plugin function is given beside its batch. */
export interface AnswerContext<Kept = unknown> {
  /** The hook it is asked at. */
  hook: HookName;
  /** The bytes it attached to the batch's slots earlier. */
  kept: Kept[];
  /** Writes a line the plan reports with the plugin and the hook. */
  log(level: LogLine['level'], message: string): void;
}

/** A plugin written as JavaScript functions, in slotwise's rendering. */
export interface PluginFunction<Batch = unknown, Answers = unknown, Kept = unknown> {
  /** Its name, unique among the plugins of a reconcile. */
  name: string;
  version?: string;
  /** The hooks it is asked at. */
  hooks: HookName[];
  /** The optional parts of a batch it reads: 'node-ids', 'node-meta', 'allocation-ids', 'candidate-meta', 'change-messages', 'packed' (slots, candidates and changes as the bytes of the batch's `packed`, laid out as docs/wit.md says). */
  reads?: string[];
  /** Whether its answers apply ('enforce', the default) or are only reported. */
  mode?: 'enforce' | 'monitor';
  /** Whether a failure of it is skipped and reported rather than ending the reconcile; false by default. */
  failOpen?: boolean;
  /** Its answers to `batch`; throwing fails the call, as a trap. */
  answer(batch: Batch, context: AnswerContext<Kept>): Answers | Promise<Answers>;
}

/** Conversions between slotwise's rendering and jco's (see rendering.js). */
export interface Codec {
  lower(value: unknown, type: unknown): unknown;
  lift(value: unknown, type: unknown): unknown;
}

/** Plugins written as JavaScript functions, as a relay. */
export class FunctionRelay implements Relay {
  constructor(plugins: PluginFunction[], codec: Codec);
  begin(): Promise<void>;
  consulted(): Consulted[];
  answer(plugin: number, batch: unknown, kept: unknown[]): Promise<Reply>;
}
