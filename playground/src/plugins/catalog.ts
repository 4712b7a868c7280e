/** The bundled plugins: discovered at build time in target/slotwise/plugins/, each with its metadata and the settings the page gives it. Test plugins are bundled apart and listed only for the end-to-end tests. */

import { plugins, testPlugins, digests } from '../../generated/plugins.js';
import type { HookName, ViewParts } from '@slotwise/reconciler/session';
import { DEFAULT_DEADLINE_MS, DEFAULT_RECONCILE_DEADLINE_MS, PluginWorker } from './runner.ts';

/** Who a plugin says it is. */
export interface Metadata {
  name: string;
  version: string;
  description: string;
  hooks: HookName[];
  reads: ViewParts;
  settingsExample: string;
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

/** A bundled plugin whose metadata was read. */
export type Loadable = BundledPlugin & { metadata: Metadata };

/**
 * Every bundled plugin, disabled, with its metadata read from a bare instance, and the settings
 * its metadata gives as an example; with `withTests`, the test plugins too.
 */
export async function loadCatalog(withTests: boolean): Promise<BundledPlugin[]> {
  const files = Object.keys(plugins).concat(withTests ? Object.keys(testPlugins) : []);
  return Promise.all(
    files.sort().map(async (file) => {
      const worker = new PluginWorker(file);
      const outcome = await worker.metadata();
      const metadata = 'ok' in outcome ? (outcome.ok as Metadata) : { error: outcome.err.message };
      return {
        file,
        digest: digests[file as keyof typeof digests],
        worker,
        metadata,
        enabled: false,
        fromScenario: false,
        alias: null,
        settings: 'settingsExample' in metadata && metadata.settingsExample !== '' ? metadata.settingsExample : '{}',
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
