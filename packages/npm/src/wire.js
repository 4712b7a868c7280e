// The wire format in JavaScript: values of the contract in slotwise's JSON rendering, encoded into and decoded from the buffers `reconcile-encoded` takes and returns.
//
// The format is described in docs/wire.md: a four-byte header ("S", "W", the
// format version, what the buffer holds), then the value in postcard's
// encoding, driven by the WIT alone. Encoders and decoders are compiled once
// per type from the description `cargo xtask build` writes
// (target/slotwise/wit-types.json), so that a large input runs straight
// through closures, not a walk of the type tree (wire-encoders.js,
// wire-decoders.js); a value that fits is encoded, and a well-formed buffer
// decoded, by straight-line code generated per record type, and only the
// others by the generic codec, which names the field that does not fit or
// says what is wrong with the buffer (wire-fitted.js,
// wire-fitted-decoders.js).
//
// Values are in the rendering `slotwise reconcile --json` prints: records as
// objects with kebab-case keys, enums as their case name, variants as "case"
// or {"case": payload}, options as null (or an absent field) or the value,
// results as {Ok} or {Err}, u64 and s64 as numbers, or BigInt beyond 2^53.
//
// The module uses no Node API, so that a browser can load it as it is.

import { Decoders } from './wire-decoders.js';
import { Encoders } from './wire-encoders.js';
import { FittedDecoders } from './wire-fitted-decoders.js';
import { FittedEncoders } from './wire-fitted.js';
import { describe, Misfit, WireError } from './wire-errors.js';
import { Reader } from './wire-reader.js';
import { Writer } from './wire-writer.js';

export { FieldError, WireError } from './wire-errors.js';

/** The format version this codec writes and reads: `wire::VERSION` in the reconciler. */
export const WIRE_VERSION = 1;

/** What a buffer holds: its fourth byte. */
export const CONTENT = { input: 1, outcome: 2 };

/** The buffer a first encoding starts with. */
const FIRST_SIZE = 4096;

/** The largest buffer an encoder keeps for its next encoding: enough for some 80,000 allocations. */
const KEPT_SIZE = 8 * 1024 * 1024;

/**
 * The codec of the reconciler's buffers, for the contract `witTypes` (the
 * parsed wit-types.json) describes:
 *
 * - `encodeInput(input)`: a reconcile input, in the slotwise JSON rendering,
 *   as the buffer `reconcile-encoded` takes; a value that does not fit the
 *   WIT throws a FieldError (a TypeError) naming the field;
 * - `lendEncodedInput(input, use)`: the same, given to `use` as a view that is
 *   valid only during that call (which must not keep it), without a copy;
 *   returns what `use` returns;
 * - `decodeOutcome(bytes)`: the buffer `reconcile-encoded` returns, as
 *   {Ok: plan} or {Err: input-error}; a malformed buffer throws a WireError;
 * - `encodeOutcome`, `decodeInput`: the same the other way round.
 */
export function wireCodec(witTypes) {
  const encoders = new FittedEncoders(witTypes, new Encoders(witTypes));
  const decoders = new FittedDecoders(witTypes, new Decoders(witTypes));
  const inputType = { ref: 'reconcile-input' };
  const outcomeType = { result: { ok: { ref: 'plan' }, err: { ref: 'input-error' } } };
  const input = encoding(encoders.of(inputType), CONTENT.input, 'input');
  return {
    encodeInput: input.copy,
    lendEncodedInput: input.lend,
    decodeInput: decoding(decoders.of(inputType), CONTENT.input),
    encodeOutcome: encoding(encoders.of(outcomeType), CONTENT.outcome, 'outcome').copy,
    decodeOutcome: decoding(decoders.of(outcomeType), CONTENT.outcome),
  };
}

/**
 * Encodes with `encode` under the header of `content`; `root` names the value in a FieldError's
 * path. Gives a copy of the encoding (`copy`), or lends a view of it to a function for the time
 * of its call (`lend`), which spares the copy: copying out a megabyte was a seventh of encoding
 * 10,000 allocations in Node.
 */
function encoding(encode, content, root) {
  // The buffer of the last encoding, written over by the next one: encoding
  // the same workload again neither grows a buffer from nothing nor leaves one
  // to the collector. Taken while in use, so that an encoding within an
  // encoding (a getter of the value calling the codec, or the borrower of a
  // lent view) gets a buffer of its own.
  let kept = null;
  const lend = (value, use) => {
    const w = new Writer(kept ?? new Uint8Array(FIRST_SIZE));
    kept = null;
    try {
      w.raw([0x53, 0x57, WIRE_VERSION, content]);
      try {
        encode(w, value);
      } catch (e) {
        throw e instanceof Misfit ? e.fieldError(root) : e;
      }
      return use(w.bytes.subarray(0, w.pos));
    } finally {
      if (w.bytes.length <= KEPT_SIZE) kept = w.bytes;
    }
  };
  return { copy: (value) => lend(value, (view) => view.slice()), lend };
}

/** Decodes with `decode` a buffer that must hold `content`. */
function decoding(decode, content) {
  return (bytes) => {
    if (!(bytes instanceof Uint8Array)) throw new TypeError(`expected a Uint8Array, got ${describe(bytes)}`);
    if (bytes.length < 4 || bytes[0] !== 0x53 || bytes[1] !== 0x57) {
      throw new WireError('not a slotwise buffer: it does not start with the header `SW`');
    }
    if (bytes[2] !== WIRE_VERSION) {
      throw new WireError(`wire format version ${bytes[2]}; this codec reads version ${WIRE_VERSION}`);
    }
    if (bytes[3] !== content) throw new WireError(`the buffer holds content ${bytes[3]}, not ${content}`);
    const r = new Reader(bytes);
    r.pos = 4;
    const value = decode(r);
    if (r.pos !== bytes.length) throw new WireError(`${bytes.length - r.pos} bytes follow the encoded value`);
    return value;
  };
}
