/** The components the playground runs: the reconciler the host runs, and the scenario reader, both transpiled by jco at build time. */

import { instantiateFresh as reconcilerInstance } from '../generated/reconciler/index.js';
import { instantiateFresh as readerInstance } from '../generated/scenario-reader/index.js';
import type { ReconcilerExports } from '@slotwise/reconciler/session';
import type { Syntax } from './scripted-policy.ts';

export type { Syntax };

/** The reader's exports, as jco renders them. */
export interface Reader {
  reader: {
    read(text: string, syntax: Syntax): {
      description?: string;
      input: string;
      plugins: ReaderPluginEntry[];
      scripted?: string;
    };
    scriptedReply(text: string, syntax: Syntax, plugin: number, batch: string): string;
  };
}


export interface ReaderPluginEntry {
  plugin?: string;
  path?: string;
  name?: string;
  sha256?: string;
  settings: string;
  monitor: boolean;
  failOpen: boolean;
  deadline?: bigint;
  reconcileDeadline?: bigint;
}

/** A fresh reconciler instance: the host, too, gives each reconcile its own. */
export async function freshReconciler(): Promise<ReconcilerExports> {
  return (await reconcilerInstance()) as ReconcilerExports;
}

let reader: Promise<Reader> | undefined;

/** The reader: it keeps nothing between calls, so one instance serves. */
export function scenarioReader(): Promise<Reader> {
  reader ??= readerInstance() as Promise<Reader>;
  return reader;
}
