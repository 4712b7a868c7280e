/** The messages between the page and a plugin's worker. */

import type { FailureKind, LogLine } from '@slotwise/reconciler/session';

export type WorkerRequest =
  | { id: number; kind: 'load'; file: string }
  | { id: number; kind: 'metadata' }
  | { id: number; kind: 'configure'; settings: string }
  | { id: number; kind: 'answer'; batch: unknown; kept: unknown[] };

/** Why a request has no result, as the host words it. */
export interface WorkerFailure {
  kind: FailureKind;
  message: string;
}

/** A request's result, or its failure, with the lines the plugin logged meanwhile. */
export type WorkerReply =
  | { id: number; ok: unknown; logs: LogLine[] }
  | { id: number; err: WorkerFailure; logs: LogLine[] };
