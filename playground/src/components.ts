/** The components the playground runs, from @slotwise/reconciler: the reconciler the host runs and the scenario reader, each compiled once. */

import { Reconciler, ScenarioReader } from '@slotwise/reconciler';

/** How a scenario's text is written. */
export type Syntax = 'yaml' | 'json';

let reconciler: Promise<Reconciler> | undefined;
let reader: Promise<ScenarioReader> | undefined;

/** The reconciler; the package drops an instance that trapped, so one serves every reconcile. */
export function loadedReconciler(): Promise<Reconciler> {
  reconciler ??= Reconciler.load();
  return reconciler;
}

/** The reader: it keeps nothing between calls, so one instance serves. */
export function scenarioReader(): Promise<ScenarioReader> {
  reader ??= ScenarioReader.load();
  return reader;
}
