// A plugin's worker seen from the page: answers within the deadline come back, a call past it
// ends the worker and fails as the host's does, and the next call gets a new worker.

import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { WorkerReply, WorkerRequest } from '../../src/plugins/messages.ts';
import { PluginWorker, type WorkerLike } from '../../src/plugins/runner.ts';

/** A stand-in worker: loads at once, answers calls with `answer`, or never when it is undefined. */
class FakeWorker implements WorkerLike {
  onmessage: ((event: MessageEvent<WorkerReply>) => void) | null = null;
  terminated = false;
  constructor(private readonly answer: unknown) {}
  postMessage(message: WorkerRequest): void {
    if (message.kind === 'call' && this.answer === undefined) return;
    const ok = message.kind === 'call' ? this.answer : null;
    setTimeout(() => this.onmessage?.({ data: { id: message.id, ok } } as MessageEvent<WorkerReply>), 0);
  }
  terminate(): void {
    this.terminated = true;
  }
}

function runner(answer: unknown): { plugin: PluginWorker; spawned: FakeWorker[] } {
  const spawned: FakeWorker[] = [];
  const plugin = new PluginWorker('slow', () => {
    const worker = new FakeWorker(answer);
    spawned.push(worker);
    return worker;
  });
  return { plugin, spawned };
}

test('an answer within the deadline is returned as the plugin gave it', async () => {
  const { plugin } = runner({ tag: 'accept' });
  assert.deepEqual(await plugin.call('post-slot', {}, 500), { ok: { tag: 'accept' } });
});

test('a call past its deadline ends the worker and fails as the host reports an overrun', async () => {
  const { plugin, spawned } = runner(undefined);
  const outcome = await plugin.call('pre-slot', {}, 20);
  assert.deepEqual(outcome, { err: 'overran its deadline of 20ms per call' });
  assert.equal(spawned[0].terminated, true);

  await plugin.call('pre-slot', {}, 30).catch(() => undefined);
  assert.equal(spawned.length, 2, 'the next call did not get a new worker');
});
