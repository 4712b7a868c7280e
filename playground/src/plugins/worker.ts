/** A Web Worker that runs one bundled plugin: a fresh instance configured for each reconcile, as the host gives each, its `log` import collecting the lines of each call. */

import { plugins, testPlugins } from '../../generated/plugins.js';
import type { LogLine } from '@slotwise/reconciler/session';
import type { WorkerFailure, WorkerReply, WorkerRequest } from './messages.ts';

/** A plugin's exports, as jco renders them. */
interface PluginExports {
  plugin: {
    metadata(): unknown;
    configure(settings: string): void;
    answer(batch: unknown, kept: unknown[]): unknown;
  };
}

type Instantiate = (imports: object) => Promise<unknown>;

let load: (() => Promise<{ instantiateFresh: Instantiate }>) | undefined;
let live: PluginExports | undefined;
let lines: LogLine[] = [];

/** The one import a plugin has: its lines go to the call under way. */
const imports = {
  'slotwise:plugin/log': {
    log(level: LogLine['level'], message: string) {
      lines.push({ level, message });
    },
  },
};

const post = (reply: WorkerReply) => (self as unknown as Worker).postMessage(reply);

/** Why a call failed, as the host words it. */
function trapped(e: unknown): WorkerFailure {
  if (e instanceof WebAssembly.RuntimeError) {
    const message = /unreachable/.test(e.message) ? 'trapped: wasm `unreachable` instruction executed' : `trapped: ${e.message}`;
    return { kind: 'trap', message };
  }
  return { kind: 'trap', message: `trapped: ${e instanceof Error ? e.message : String(e)}` };
}

function payloadOf(e: unknown): unknown {
  return e !== null && typeof e === 'object' && 'payload' in e ? (e as { payload: unknown }).payload : undefined;
}

async function fresh(): Promise<PluginExports> {
  if (load === undefined) throw new Error('no plugin loaded');
  return (await (await load()).instantiateFresh(imports)) as PluginExports;
}

self.onmessage = async (event: MessageEvent<WorkerRequest>) => {
  const request = event.data;
  lines = [];
  try {
    switch (request.kind) {
      case 'load': {
        const all: Record<string, () => Promise<{ instantiateFresh: Instantiate }>> = { ...plugins, ...testPlugins };
        load = all[request.file];
        // Instantiating once compiles the core modules, which later instances share.
        await fresh();
        post({ id: request.id, ok: null, logs: [] });
        break;
      }
      case 'metadata':
        post({ id: request.id, ok: (await fresh()).plugin.metadata(), logs: [] });
        break;
      case 'configure': {
        live = undefined;
        const instance = await fresh();
        try {
          instance.plugin.configure(request.settings);
        } catch (e) {
          const refusal = payloadOf(e);
          const message = refusal === undefined ? `\`configure\` failed: ${trapped(e).message}` : `refused its settings: ${String(refusal)}`;
          post({ id: request.id, err: { kind: 'load', message }, logs: lines });
          break;
        }
        live = instance;
        post({ id: request.id, ok: null, logs: lines });
        break;
      }
      case 'answer': {
        if (live === undefined) {
          post({ id: request.id, err: { kind: 'load', message: 'was not configured for this reconcile' }, logs: [] });
          break;
        }
        const answers = live.plugin.answer(request.batch, request.kept);
        post({ id: request.id, ok: answers, logs: lines });
        break;
      }
    }
  } catch (e) {
    // A trapped instance cannot be entered again.
    live = undefined;
    post({ id: request.id, err: trapped(e), logs: lines });
  }
};
