/** The plugins a scenario lists, applied to the bundled ones: switched on with the scenario's settings, or found missing as the host finds a plugin it cannot load. */

import type { Scenario } from '../scenario.ts';
import { nameOf, type BundledPlugin, type Loadable } from './catalog.ts';
import { DEFAULT_DEADLINE_MS, DEFAULT_RECONCILE_DEADLINE_MS } from './runner.ts';

/** A plugin the scenario asks for that cannot be given as asked, and why. */
export interface Refusal {
  plugin: string;
  cause: string;
  monitor: boolean;
  failOpen: boolean;
}

/** A plugin the next reconcile consults: a bundled one switched on, or one that cannot be loaded. */
export type Entry = { plugin: Loadable } | { refused: Refusal };

/**
 * Switches on the plugins `scenario` names, with its settings, and off those an earlier scenario
 * switched on; what the user switched stays as it is. Returns the scenario's plugins in its
 * order: each found, or refused (not bundled, asked for by a file path, or pinned to a SHA-256
 * its file does not have).
 */
export function applyScenarioPlugins(catalog: BundledPlugin[], scenario: Scenario): Entry[] {
  const entries: Entry[] = [];
  for (const p of catalog) {
    if (p.fromScenario || scenario.plugins.length > 0) p.enabled = false;
    p.fromScenario = false;
    p.alias = null;
  }
  for (const wanted of scenario.plugins) {
    const found = catalog.find(
      (p) => wanted.plugin !== null && (p.file === wanted.plugin || ('name' in p.metadata && p.metadata.name === wanted.plugin)),
    );
    const refuse = (cause: string) =>
      entries.push({
        refused: { plugin: wanted.name ?? wanted.plugin ?? wanted.path ?? '?', cause, monitor: wanted.monitor, failOpen: wanted.failOpen },
      });
    if (found === undefined) {
      refuse(wanted.path === null ? 'it is not bundled with the playground' : 'a browser cannot load a plugin by its path');
    } else if ('error' in found.metadata) {
      refuse(found.metadata.error);
    } else if (found.fromScenario) {
      refuse(`the playground runs each bundled plugin once; ${nameOf(found)} is listed already`);
    } else if (wanted.sha256 !== null && wanted.sha256.toLowerCase() !== found.digest) {
      refuse(`its SHA-256 is ${found.digest}, not ${wanted.sha256} as pinned`);
    } else {
      found.enabled = true;
      found.fromScenario = true;
      found.alias = wanted.name;
      found.settings = wanted.settings;
      found.monitor = wanted.monitor;
      found.failOpen = wanted.failOpen;
      found.deadlineMs = wanted.deadlineMs ?? DEFAULT_DEADLINE_MS;
      found.reconcileDeadlineMs = wanted.reconcileDeadlineMs ?? DEFAULT_RECONCILE_DEADLINE_MS;
      entries.push({ plugin: found as Loadable });
    }
  }
  return entries;
}
