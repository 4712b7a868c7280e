/** The bundled plugins: discovered at build time in target/slotwise/plugins/, each with its metadata and the settings the page gives it. */

import { digests, plugins } from '../../generated/plugins.js';
import type { HookName } from './messages.ts';
import { DEFAULT_DEADLINE_MS, DEFAULT_RECONCILE_DEADLINE_MS, PluginWorker } from './runner.ts';

/** Who a plugin says it is. */
export interface Metadata {
  name: string;
  version: string;
  description: string;
  hooks: HookName[];
}

/** A bundled plugin and how the page runs it. */
export interface BundledPlugin {
  /** Its component's file name, without `.wasm`. */
  file: string;
  /** The SHA-256 of its component file, in hex. */
  digest: string;
  worker: PluginWorker;
  /** Its metadata, or why it could not be loaded. */
  metadata: Metadata | { error: string };
  enabled: boolean;
  /** Whether the running scenario switched it on, rather than the user. */
  fromScenario: boolean;
  /** The name the scenario gives it, which it then goes by. */
  alias: string | null;
  /** JSON text given to `configure`. */
  settings: string;
  monitor: boolean;
  failOpen: boolean;
  deadlineMs: number;
  /** Milliseconds its calls may take in one reconcile, all together. */
  reconcileDeadlineMs: number;
}

/** Every bundled plugin, disabled, with its metadata read from a bare instance. */
export async function loadCatalog(): Promise<BundledPlugin[]> {
  return Promise.all(
    Object.keys(plugins)
      .sort()
      .map(async (file) => {
        const worker = new PluginWorker(file);
        const outcome = await worker.metadata();
        return {
          file,
          digest: digests[file as keyof typeof digests],
          worker,
          metadata: 'ok' in outcome ? (outcome.ok as Metadata) : { error: outcome.err },
          enabled: false,
          fromScenario: false,
          alias: null,
          settings: '{}',
          monitor: false,
          failOpen: false,
          deadlineMs: DEFAULT_DEADLINE_MS,
          reconcileDeadlineMs: DEFAULT_RECONCILE_DEADLINE_MS,
        };
      }),
  );
}

/** The name a plugin goes by: the scenario's for it, else its metadata's. */
export function nameOf(plugin: BundledPlugin): string {
  return plugin.alias ?? ('name' in plugin.metadata ? plugin.metadata.name : plugin.file);
}

/**
 * Whether a failure of the plugin is reported rather than ending the
 * reconcile: it fails open, or it only monitors, since what a monitoring
 * plugin does never changes the outcome (the scenario crate's rule).
 */
export function failsOpen(plugin: BundledPlugin): boolean {
  return plugin.failOpen || plugin.monitor;
}
