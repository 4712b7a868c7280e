/** A Web Worker that runs one bundled plugin: a fresh, configured instance per reconcile, as the host gives each. */

import { plugins } from '../../generated/plugins.js';
import type { HookName, WorkerReply, WorkerRequest } from './messages.ts';

/** A plugin's exports, as jco renders them. */
interface PluginExports {
  plugin: { metadata(): unknown; configure(settings: string): void };
  preSlot?: { preSlot(item: unknown): unknown };
  postSlot?: { postSlot(item: unknown): unknown };
  promotion?: { promotion(item: unknown): unknown };
}

let load: (() => Promise<{ instantiateFresh(): Promise<unknown> }>) | undefined;
let settings = '{}';
let live: PluginExports | undefined;

const post = (reply: WorkerReply) => (self as unknown as Worker).postMessage(reply);

/** Why a call failed, as the host words it. */
function failure(e: unknown): string {
  if (e instanceof WebAssembly.RuntimeError) {
    return /unreachable/.test(e.message) ? 'trapped: wasm `unreachable` instruction executed' : `trapped: ${e.message}`;
  }
  if (e !== null && typeof e === 'object' && 'payload' in e) {
    return String((e as { payload: unknown }).payload);
  }
  return e instanceof Error ? e.message : String(e);
}

async function fresh(): Promise<PluginExports> {
  if (load === undefined) throw new Error('no plugin loaded');
  return (await (await load()).instantiateFresh()) as PluginExports;
}

async function configured(): Promise<PluginExports> {
  if (live !== undefined) return live;
  const instance = await fresh();
  try {
    instance.plugin.configure(settings);
  } catch (e) {
    const payload = e !== null && typeof e === 'object' && 'payload' in e;
    throw new Error(payload ? `refused its settings: ${failure(e)}` : `\`configure\` failed: ${failure(e)}`);
  }
  live = instance;
  return instance;
}

function call(instance: PluginExports, hook: HookName, item: unknown): unknown {
  switch (hook) {
    case 'pre-slot':
      if (!instance.preSlot) throw new Error('exports no pre-slot hook');
      return instance.preSlot.preSlot(item);
    case 'post-slot':
      if (!instance.postSlot) throw new Error('exports no post-slot hook');
      return instance.postSlot.postSlot(item);
    case 'promotion':
      if (!instance.promotion) throw new Error('exports no promotion hook');
      return instance.promotion.promotion(item);
  }
}

self.onmessage = async (event: MessageEvent<WorkerRequest>) => {
  const request = event.data;
  try {
    switch (request.kind) {
      case 'load':
        load = plugins[request.file as keyof typeof plugins];
        // Instantiating once compiles the core modules, which later instances share.
        await fresh();
        post({ id: request.id, ok: null });
        break;
      case 'metadata':
        post({ id: request.id, ok: (await fresh()).plugin.metadata() });
        break;
      case 'begin':
        settings = request.settings;
        live = undefined;
        await configured();
        post({ id: request.id, ok: null });
        break;
      case 'call': {
        const instance = await configured();
        post({ id: request.id, ok: call(instance, request.hook, request.item) });
        break;
      }
    }
  } catch (e) {
    // A trapped instance cannot be entered again: the next reconcile gets a fresh one.
    live = undefined;
    post({ id: request.id, err: failure(e) });
  }
};
