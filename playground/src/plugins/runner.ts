/** A plugin's worker seen from the page: requests with a deadline, and a worker that overruns it terminated, since a browser has no fuel to stop it with. */

import { span } from '../time.ts';
import type { HookName, WorkerReply, WorkerRequest } from './messages.ts';

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

type Outcome = { ok: unknown } | { err: string };
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
  private worker: { worker: WorkerLike; ready: Promise<unknown> } | undefined;
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
   * Starts a reconcile with a fresh instance configured with `settings`;
   * fails with the cause when the plugin refuses them.
   */
  begin(settings: string, deadlineMs: number): Promise<Outcome> {
    return this.request({ kind: 'begin', settings }, deadlineMs);
  }

  /**
   * Calls `hook` on `item`; past `deadlineMs` the worker is terminated and
   * the call fails as the host's would, with `overrun` as the cause.
   */
  call(hook: HookName, item: unknown, deadlineMs: number, overrun = overranCall(deadlineMs)): Promise<Outcome> {
    return this.request({ kind: 'call', hook, item }, deadlineMs, overrun);
  }

  /** The worker, started with its plugin loaded and compiled, so that no deadline counts compiling. */
  private started(): { worker: WorkerLike; ready: Promise<unknown> } {
    if (this.worker === undefined) {
      const worker = this.spawn(this.file);
      worker.onmessage = (event: MessageEvent<WorkerReply>) => {
        const reply = event.data;
        const resolve = this.waiting.get(reply.id);
        this.waiting.delete(reply.id);
        resolve?.('ok' in reply ? { ok: reply.ok } : { err: reply.err });
      };
      const id = this.nextId++;
      const ready = new Promise((resolve) => this.waiting.set(id, resolve));
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
    await ready;
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
          resolve({ err: overrun });
        }, deadlineMs);
      }
      worker.postMessage({ ...request, id } as WorkerRequest);
    });
  }

  private terminate(): void {
    this.worker?.worker.terminate();
    this.worker = undefined;
    for (const resolve of this.waiting.values()) resolve({ err: 'its worker was terminated' });
    this.waiting.clear();
  }
}
