// Embedding slotwise in JavaScript: a scenario's plan in Node (run from the repository's root).
import { readFile } from 'node:fs/promises';
import { readScenario, reconcile } from '@slotwise/reconciler';

const text = await readFile('docs/examples/node-down.yaml', 'utf8');
const plan = await reconcile(await readScenario(text));

for (const group of plan.groups) {
  for (const stop of group.stops) {
    console.log(`${group.group}: stop ${stop.allocation} (${stop.message})`);
  }
  for (const placement of group.placements) {
    console.log(`${group.group}: place slot ${placement['name-index']} (${placement.message})`);
  }
}
