// Splits Node's encoded path into its parts, for finding where the time goes: encoding the input, the call into the component, and decoding the outcome.
//
// Usage: node breakdown.mjs INPUT.json ROUNDS, INPUT.json an input as `slotwise input` prints
// it. Prints, per part, the median and best of the rounds in milliseconds, the parts timed one
// after another within every round, after the warm-up `slotwise bench` gives Node; with
// SHOW_ROUNDS set, every round's figures too.

import { readFile } from 'node:fs/promises';
import { parseJson } from '../../packages/npm/src/rendering.js';
import { wireCodec } from '../../packages/npm/src/wire.js';
import { transpiledReconciler, warmUp } from './transpiled.mjs';

const [inputPath, roundsText] = process.argv.slice(2);
const rounds = Number(roundsText);

const { bindings, witTypes } = await transpiledReconciler('breakdown');
const { reconcileEncoded } = bindings.reconcile;
const wire = wireCodec(witTypes);
const input = parseJson(await readFile(inputPath, 'utf8'));

warmUp(() => wire.decodeOutcome(wire.lendEncodedInputRecords(input, reconcileEncoded)));
const parts = { encode: [], call: [], decode: [], total: [] };
let sizes;
for (let i = 0; i < rounds; i++) {
  const t0 = process.hrtime.bigint();
  let t1, t2, length;
  // As the package's `reconcile` does: the encoding lent to the call, not copied out.
  const returned = wire.lendEncodedInputRecords(input, (encoded) => {
    t1 = process.hrtime.bigint();
    length = encoded.length;
    const outcome = reconcileEncoded(encoded);
    t2 = process.hrtime.bigint();
    return outcome;
  });
  wire.decodeOutcome(returned);
  const t3 = process.hrtime.bigint();
  sizes = { input: length, outcome: returned.length };
  parts.encode.push(Number(t1 - t0));
  parts.call.push(Number(t2 - t1));
  parts.decode.push(Number(t3 - t2));
  parts.total.push(Number(t3 - t0));
}
const ms = (ns) => (ns / 1e6).toFixed(2);
const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
console.log(`bytes: input ${sizes.input}, outcome ${sizes.outcome}; ${rounds} rounds`);
if (process.env.SHOW_ROUNDS) for (const [name, times] of Object.entries(parts)) console.log(name, times.map((t) => ms(t)).join(" "));
for (const [name, times] of Object.entries(parts)) {
  console.log(`${name.padEnd(7)} median ${ms(median(times)).padStart(7)} ms  best ${ms(Math.min(...times)).padStart(7)} ms`);
}
