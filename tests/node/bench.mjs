// Times the reconciler in Node, for `slotwise bench`: the encoded export with the wire codec, then the typed export through jco's bindings, each path in a phase of its own.
//
// Usage: node bench.mjs INPUT.json ROUNDS. Prints one JSON line: the nanoseconds of every
// round of each path, and the process's peak resident memory.

import { readFile } from 'node:fs/promises';
import { parseJson, toComponent } from '../../packages/npm/src/rendering.js';
import { wireCodec } from '../../packages/npm/src/wire.js';
import { transpiledReconciler, warmUp } from './transpiled.mjs';

const [inputPath, roundsText] = process.argv.slice(2);
const rounds = Number(roundsText);

const { bindings, witTypes } = await transpiledReconciler('bench');
const { reconcile, reconcileEncoded } = bindings.reconcile;
const wire = wireCodec(witTypes);

const input = parseJson(await readFile(inputPath, 'utf8'));
const inputType = witTypes.functions.find((f) => f.name === 'reconcile').params[0].type;

/**
 * The nanoseconds of `rounds` calls of `run`, after the warm-up. The paths are not interleaved:
 * a round of the typed path (about 25 ms) leaves most of the garbage, and its collection fell on
 * the encoded rounds that followed them. Each path pays for the collection of its own garbage,
 * as an embedder calling it again and again does.
 */
function timed(run) {
  warmUp(run);
  const times = [];
  for (let i = 0; i < rounds; i++) {
    const started = process.hrtime.bigint();
    run();
    times.push(Number(process.hrtime.bigint() - started));
  }
  return times;
}

// As the package's `reconcile` does: the encoding lent to the call, not copied out.
const encoded = timed(() => wire.decodeOutcome(wire.lendEncodedInputRecords(input, reconcileEncoded)));
// The typed input is built only now, so that the encoded phase ran in the heap it alone makes.
const typedInput = toComponent(input, inputType, witTypes);
const typed = timed(() => reconcile(typedInput));
console.log(JSON.stringify({ typed, encoded, maxRssBytes: process.resourceUsage().maxRSS * 1024 }));
