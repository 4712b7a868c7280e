/** The messages between the page and a plugin's worker. */

export type HookName = 'pre-slot' | 'post-slot' | 'promotion';

export type WorkerRequest =
  | { id: number; kind: 'load'; file: string }
  | { id: number; kind: 'metadata' }
  | { id: number; kind: 'begin'; settings: string }
  | { id: number; kind: 'call'; hook: HookName; item: unknown };

export type WorkerReply = { id: number; ok: unknown } | { id: number; err: string };
