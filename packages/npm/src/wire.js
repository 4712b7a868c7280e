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
// wire-fitted-decoders.js). An input of content 3 is the same but for its
// allocation lists, fixed-size records the reconciler reads in place
// (wire-allocation-records.js).
//
// Values are in the rendering `slotwise reconcile --json` prints: records as
// objects with kebab-case keys, enums as their case name, variants as "case"
// or {"case": payload}, options as null (or an absent field) or the value,
// results as {Ok} or {Err}, u64 and s64 as numbers, or BigInt beyond 2^53.
//
// The module uses no Node API, so that a browser can load it as it is.

import { recordsInputDecoder, recordsInputEncoder } from './wire-allocation-records.js';
import { Decoders } from './wire-decoders.js';
import { Encoders } from './wire-encoders.js';
import { FittedDecoders } from './wire-fitted-decoders.js';
import { FittedEncoders } from './wire-fitted.js';
import { describe, Misfit, WireError } from './wire-errors.js';
import { UNFIT } from './wire-generated.js';
import { Reader } from './wire-reader.js';
import { Writer } from './wire-writer.js';

export { FieldError, WireError } from './wire-errors.js';

/** The format version this codec writes and reads: `wire::VERSION` in the reconciler. */
export const WIRE_VERSION = 1;

/** What a buffer holds: its fourth byte; `inputRecords`, an input whose allocations are records (docs/wire.md). */
export const CONTENT = { input: 1, outcome: 2, inputRecords: 3 };

/** The buffer a first encoding starts with. */
const FIRST_SIZE = 4096;

/** The largest buffer an encoder keeps for its next encoding: some 80,000 allocations of content 1, 50,000 of content 3. */
const KEPT_SIZE = 8 * 1024 * 1024;

/**
 * The codec of the reconciler's buffers, for the contract `witTypes` (the
 * parsed wit-types.json) describes:
 *
 * - `encodeInput(input)`: a reconcile input, in the slotwise JSON rendering,
 *   as the buffer `reconcile-encoded` takes (content 1); a value that does not
 *   fit the WIT throws a FieldError (a TypeError) naming the field;
 * - `lendEncodedInput(input, use)`: the same, given to `use` as a view that is
 *   valid only during that call (which must not keep it), without a copy;
 *   returns what `use` returns;
 * - `encodeInputRecords`, `lendEncodedInputRecords`: the same as content 3,
 *   the allocations as records the reconciler reads in place, what
 *   `slotwise input --wire --records` prints; content 1 for a group too large
 *   for the records;
 * - `decodeOutcome(bytes)`: the buffer `reconcile-encoded` returns, as
 *   {Ok: plan} or {Err: input-error}; a malformed buffer throws a WireError;
 * - `encodeOutcome`, `decodeInput` (of either content): the same the other
 *   way round.
 */
export function wireCodec(witTypes) {
  const genericEncoders = new Encoders(witTypes);
  const genericDecoders = new Decoders(witTypes);
  const encoders = new FittedEncoders(witTypes, genericEncoders);
  const decoders = new FittedDecoders(witTypes, genericDecoders);
  const inputType = { ref: 'reconcile-input' };
  const outcomeType = { result: { ok: { ref: 'plan' }, err: { ref: 'input-error' } } };
  const plainInput = encoders.of(inputType);
  const input = encoding(plainInput, CONTENT.input, 'input');
  const records = encoding(
    recordsOrPlain(recordsInputEncoder(witTypes, genericEncoders, encoders), plainInput),
    CONTENT.inputRecords,
    'input',
  );
  return {
    encodeInput: input.copy,
    lendEncodedInput: input.lend,
    encodeInputRecords: records.copy,
    lendEncodedInputRecords: records.lend,
    decodeInput: decoding({
      [CONTENT.input]: decoders.of(inputType),
      [CONTENT.inputRecords]: recordsInputDecoder(witTypes, genericDecoders, decoders),
    }),
    encodeOutcome: encoding(encoders.of(outcomeType), CONTENT.outcome, 'outcome').copy,
    decodeOutcome: decoding({ [CONTENT.outcome]: decoders.of(outcomeType) }),
  };
}

/**
 * Encodes an input with `records` (content 3) or, where it refuses the value, with `plain`
 * (content 1); gives the content written. The records' writer names nothing: `plain` either
 * writes what it refused (a group beyond the records' four-byte offsets) or names the field that
 * does not fit.
 */
function recordsOrPlain(records, plain) {
  return (w, value) => {
    const start = w.pos;
    try {
      records(w, value);
      return CONTENT.inputRecords;
    } catch (e) {
      if (e !== UNFIT && !(e instanceof Misfit)) throw e;
    }
    w.pos = start;
    plain(w, value);
    return CONTENT.input;
  };
}

/**
 * Encodes with `encode` under the header of `content`, or of the content `encode` returns when it
 * wrote another; `root` names the value in a FieldError's path. Gives a copy of the encoding
 * (`copy`), or lends a view of it to a function for the time of its call (`lend`), which spares
 * the copy: copying out a megabyte was a seventh of encoding 10,000 allocations in Node.
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
        const wrote = encode(w, value);
        if (wrote !== undefined) w.bytes[3] = wrote;
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

/** Decodes a buffer with the decoder `byContent` has for the content it holds. */
function decoding(byContent) {
  return (bytes) => {
    if (!(bytes instanceof Uint8Array)) throw new TypeError(`expected a Uint8Array, got ${describe(bytes)}`);
    if (bytes.length < 4 || bytes[0] !== 0x53 || bytes[1] !== 0x57) {
      throw new WireError('not a slotwise buffer: it does not start with the header `SW`');
    }
    if (bytes[2] !== WIRE_VERSION) {
      throw new WireError(`wire format version ${bytes[2]}; this codec reads version ${WIRE_VERSION}`);
    }
    const decode = byContent[bytes[3]];
    if (decode === undefined) {
      throw new WireError(`the buffer holds content ${bytes[3]}, not ${Object.keys(byContent).join(' or ')}`);
    }
    const r = new Reader(bytes);
    r.pos = 4;
    const value = decode(r);
    if (r.pos !== bytes.length) throw new WireError(`${bytes.length - r.pos} bytes follow the encoded value`);
    return value;
  };
}
