// Times the reconciler in Node, for `slotwise bench`: the typed export through jco's bindings, and the encoded export with the wire codec, interleaved round by round.
//
// Usage: node bench.mjs INPUT.json ROUNDS. Prints one JSON line: the nanoseconds of every
// round of each path, and the process's peak resident memory.

import { readFile } from 'node:fs/promises';
import { parseJson, toComponent } from '../../packages/npm/src/rendering.js';
import { wireCodec } from '../../packages/npm/src/wire.js';
import { transpiledReconciler } from './transpiled.mjs';

const [inputPath, roundsText] = process.argv.slice(2);
const rounds = Number(roundsText);

const { bindings, witTypes } = await transpiledReconciler('bench');
const { reconcile, reconcileEncoded } = bindings.reconcile;
const wire = wireCodec(witTypes);

const input = parseJson(await readFile(inputPath, 'utf8'));
const inputType = witTypes.functions.find((f) => f.name === 'reconcile').params[0].type;
const typedInput = toComponent(input, inputType, witTypes);

const paths = {
  typed: () => reconcile(typedInput),
  // As the package's `reconcile` does: the encoding lent to the call, not copied out.
  encoded: () => wire.decodeOutcome(wire.lendEncodedInput(input, reconcileEncoded)),
};
const times = Object.fromEntries(Object.keys(paths).map((name) => [name, []]));
// V8 optimises in tiers as code runs hot: the codec's first encoding of the 10k input takes
// about 80 ms and it settles after about five rounds, while wasmtime compiles ahead of time.
// What an embedder calling again and again pays is the settled figure.
const WARM_UP_ROUNDS = 8;
for (let i = 0; i < WARM_UP_ROUNDS; i++) {
  for (const run of Object.values(paths)) run();
}
for (let i = 0; i < rounds; i++) {
  for (const [name, run] of Object.entries(paths)) {
    const started = process.hrtime.bigint();
    run();
    times[name].push(Number(process.hrtime.bigint() - started));
  }
}
console.log(JSON.stringify({ ...times, maxRssBytes: process.resourceUsage().maxRSS * 1024 }));
