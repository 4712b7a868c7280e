// A plugin's worker seen from the page: answers within the deadline come back with the lines the
// plugin logged, a call past it ends the worker and fails as the host's does, and the next call
// gets a new worker.

import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { WorkerReply, WorkerRequest } from '../../src/plugins/messages.ts';
import { PluginWorker, type WorkerLike } from '../../src/plugins/runner.ts';

/** A stand-in worker: loads at once, answers with `answer` and one log line, or never when `answer` is undefined. */
class FakeWorker implements WorkerLike {
  onmessage: ((event: MessageEvent<WorkerReply>) => void) | null = null;
  terminated = false;
  constructor(private readonly answer: unknown) {}
  postMessage(message: WorkerRequest): void {
    if (message.kind === 'answer' && this.answer === undefined) return;
    const reply: WorkerReply =
      message.kind === 'answer'
        ? { id: message.id, ok: this.answer, logs: [{ level: 'info', message: 'looked' }] }
        : { id: message.id, ok: null, logs: [] };
    setTimeout(() => this.onmessage?.({ data: reply } as MessageEvent<WorkerReply>), 0);
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

test('answers within the deadline come back as the plugin gave them, with the lines it logged', async () => {
  const answers = { tag: 'post-slot', val: [{ slot: 0, decision: { tag: 'accept' } }] };
  const { plugin } = runner(answers);
  assert.deepEqual(await plugin.answer({}, [], 500), { ok: answers, logs: [{ level: 'info', message: 'looked' }] });
});

test('a call past its deadline ends the worker and fails as the host reports an overrun', async () => {
  const { plugin, spawned } = runner(undefined);
  const outcome = await plugin.answer({}, [], 20);
  assert.deepEqual(outcome, { err: { kind: 'deadline', message: 'overran its deadline of 20ms per call' }, logs: [] });
  assert.equal(spawned[0].terminated, true);

  await plugin.answer({}, [], 30);
  assert.equal(spawned.length, 2, 'the next call did not get a new worker');
});
