// The wire format's codec; see wire.js.

import type { InputError as ContractInputError, Plan, ReconcileInput } from '../generated/contract.js';

/** The format version this codec writes and reads. */
export const WIRE_VERSION: number;
/** What a buffer holds: its fourth byte; `inputRecords` (3) is an input whose allocations are fixed-size records. */
export const CONTENT: { input: number; outcome: number; inputRecords: number };

/** Why a buffer could not be read. */
export class WireError extends Error {}

/** A value that does not fit the contract: `path` is where, `reason` what is wrong. */
export class FieldError extends TypeError {
  readonly path: string;
  readonly reason: string;
}

export type Outcome = { Ok: Plan } | { Err: ContractInputError };

export interface WireCodec {
  /** `input` as content 1: every allocation in postcard's encoding, as `slotwise input --wire` prints it. */
  encodeInput(input: ReconcileInput): Uint8Array;
  /** `input` encoded, lent to `use` for the time of its call only (no copy); returns what `use` returns. */
  lendEncodedInput<T>(input: ReconcileInput, use: (bytes: Uint8Array) => T): T;
  /**
   * `input` as content 3: its allocations as fixed-size records the reconciler reads in place, as
   * `slotwise input --wire --records` prints it; content 1 for a group too large for the records.
   */
  encodeInputRecords(input: ReconcileInput): Uint8Array;
  /** As `lendEncodedInput`, as content 3. */
  lendEncodedInputRecords<T>(input: ReconcileInput, use: (bytes: Uint8Array) => T): T;
  /** An encoded input of content 1 or 3. */
  decodeInput(bytes: Uint8Array): ReconcileInput;
  encodeOutcome(outcome: Outcome): Uint8Array;
  decodeOutcome(bytes: Uint8Array): Outcome;
}

/** The codec for the contract `witTypes` (the parsed wit-types.json) describes. */
export function wireCodec(witTypes: unknown): WireCodec;
