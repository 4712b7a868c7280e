/** A plugin's worker seen from the page: requests with a deadline, and a worker that overruns it terminated, since a browser has no fuel to stop it with. */

import { span } from '../time.ts';
import type { LogLine } from '@slotwise/reconciler/session';
import type { WorkerFailure, WorkerReply, WorkerRequest } from './messages.ts';

/** The host's deadline per hook call unless the plugin's settings say otherwise. */
export const DEFAULT_DEADLINE_MS = 500;

/** The host's time for all of a plugin's calls in one reconcile unless its settings say otherwise. */
export const DEFAULT_RECONCILE_DEADLINE_MS = 10_000;

/** Why a call past its own deadline failed, in the host's words. */
export function overranCall(deadlineMs: number): string {
  return `overran its deadline of ${span(BigInt(Math.round(deadlineMs)) * 1_000_000n)} per call`;
}

/** Why a plugin whose time in the reconcile ran out failed, in the host's words. */
export function outOfTime(reconcileDeadlineMs: number): string {
  return `used up its time of ${span(BigInt(Math.round(reconcileDeadlineMs)) * 1_000_000n)} per reconcile`;
}

/** A request's result or failure, with the lines logged meanwhile. */
export type Outcome = { ok: unknown; logs: LogLine[] } | { err: WorkerFailure; logs: LogLine[] };
type Request = WorkerRequest extends infer R ? (R extends { id: number } ? Omit<R, 'id'> : never) : never;

/** What the runner needs of a worker; tests give a stand-in. */
export interface WorkerLike {
  onmessage: ((event: MessageEvent<WorkerReply>) => void) | null;
  postMessage(message: WorkerRequest): void;
  terminate(): void;
}

/** A module worker running src/plugins/worker.ts. */
function spawnPluginWorker(file: string): WorkerLike {
  return new Worker(new URL('./worker.ts', import.meta.url), { type: 'module', name: file });
}

export class PluginWorker {
  private worker: { worker: WorkerLike; ready: Promise<Outcome> } | undefined;
  private nextId = 1;
  private readonly waiting = new Map<number, (outcome: Outcome) => void>();

  constructor(
    readonly file: string,
    private readonly spawn: (file: string) => WorkerLike = spawnPluginWorker,
  ) {}

  /** The plugin's metadata, from a bare instance. */
  metadata(): Promise<Outcome> {
    return this.request({ kind: 'metadata' }, null);
  }

  /**
   * Gives the plugin a fresh instance configured with `settings`, for one reconcile; fails with
   * the cause when the plugin refuses them.
   */
  configure(settings: string, deadlineMs: number): Promise<Outcome> {
    return this.request({ kind: 'configure', settings }, deadlineMs);
  }

  /**
   * Asks the plugin to answer `batch`; past `deadlineMs` the worker is terminated and the call
   * fails as the host's would, with `overrun` as the cause.
   */
  answer(batch: unknown, kept: unknown[], deadlineMs: number, overrun = overranCall(deadlineMs)): Promise<Outcome> {
    return this.request({ kind: 'answer', batch, kept }, deadlineMs, overrun);
  }

  /** The worker, started with its plugin loaded and compiled, so that no deadline counts compiling. */
  private started(): { worker: WorkerLike; ready: Promise<Outcome> } {
    if (this.worker === undefined) {
      const worker = this.spawn(this.file);
      worker.onmessage = (event: MessageEvent<WorkerReply>) => {
        const reply = event.data;
        const resolve = this.waiting.get(reply.id);
        this.waiting.delete(reply.id);
        resolve?.('ok' in reply ? { ok: reply.ok, logs: reply.logs } : { err: reply.err, logs: reply.logs });
      };
      const id = this.nextId++;
      const ready = new Promise<Outcome>((resolve) => this.waiting.set(id, resolve));
      worker.postMessage({ id, kind: 'load', file: this.file });
      this.worker = { worker, ready };
    }
    return this.worker;
  }

  private async request(
    request: Request,
    deadlineMs: number | null,
    overrun = deadlineMs === null ? '' : overranCall(deadlineMs),
  ): Promise<Outcome> {
    const { worker, ready } = this.started();
    const loaded = await ready;
    if ('err' in loaded) {
      this.terminate();
      return { err: { kind: 'load', message: loaded.err.message }, logs: [] };
    }
    const id = this.nextId++;
    return new Promise((resolve) => {
      let timer: ReturnType<typeof setTimeout> | undefined;
      this.waiting.set(id, (outcome) => {
        clearTimeout(timer);
        resolve(outcome);
      });
      if (deadlineMs !== null) {
        timer = setTimeout(() => {
          this.waiting.delete(id);
          this.terminate();
          resolve({ err: { kind: 'deadline', message: overrun }, logs: [] });
        }, deadlineMs);
      }
      worker.postMessage({ ...request, id } as WorkerRequest);
    });
  }

  private terminate(): void {
    this.worker?.worker.terminate();
    this.worker = undefined;
    for (const resolve of this.waiting.values()) resolve({ err: { kind: 'trap', message: 'its worker was terminated' }, logs: [] });
    this.waiting.clear();
  }
}
