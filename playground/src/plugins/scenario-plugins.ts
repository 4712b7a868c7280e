/** The plugins a scenario lists, applied to the bundled ones: switched on with the scenario's settings, or refused as the host refuses to load them. */

import type { Scenario } from '../scenario.ts';
import { nameOf, type BundledPlugin } from './catalog.ts';
import { DEFAULT_DEADLINE_MS, DEFAULT_RECONCILE_DEADLINE_MS } from './runner.ts';

/** A plugin the scenario asks for that cannot be given as asked, and why. */
export interface Refusal {
  plugin: string;
  cause: string;
  failOpen: boolean;
}

/**
 * Switches on the plugins `scenario` names, with its settings, and off
 * those an earlier scenario switched on; what the user switched stays as
 * it is. Returns the plugins refused: not bundled, asked for by a file
 * path, or pinned to a SHA-256 their file does not have.
 */
export function applyScenarioPlugins(catalog: BundledPlugin[], scenario: Scenario): Refusal[] {
  const refused: Refusal[] = [];
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
      refused.push({ plugin: wanted.name ?? wanted.plugin ?? wanted.path ?? '?', cause, failOpen: wanted.failOpen });
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
      found.settings = wanted.settings === 'null' ? '{}' : wanted.settings;
      found.monitor = wanted.monitor;
      found.failOpen = wanted.failOpen;
      found.deadlineMs = wanted.deadlineMs ?? DEFAULT_DEADLINE_MS;
      found.reconcileDeadlineMs = wanted.reconcileDeadlineMs ?? DEFAULT_RECONCILE_DEADLINE_MS;
    }
  }
  return refused;
}
