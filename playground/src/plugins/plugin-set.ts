/**
 * The relay of the bundled plugins: loads each for a reconcile (a fresh instance in its worker,
 * configured), calls the one a question names with the question's batch, and returns its raw
 * answer or its failure. It keeps each plugin to its deadlines, as the host's sandbox does.
 * What an answer or a failure means is the session's business, in the reconciler.
 */

import type { Consulted, Relay, Reply } from '@slotwise/reconciler/session';
import { nameOf } from './catalog.ts';
import { outOfTime, overranCall } from './runner.ts';
import type { Entry } from './scenario-plugins.ts';

/** The parts of a batch a plugin that could not be loaded would read: none, since it is never asked. */
const NOTHING = { nodeIds: false, nodeMeta: false, allocationIds: false, candidateMeta: false, changeMessages: false, packed: false };

export class PluginSet implements Relay {
  /** Per entry, why it could not be loaded for this reconcile. */
  private unloaded: (string | undefined)[] = [];
  /** Per entry, the milliseconds its calls took in this reconcile. */
  private spent: number[] = [];

  constructor(private readonly entries: Entry[]) {}

  async begin(): Promise<void> {
    this.unloaded = [];
    this.spent = this.entries.map(() => 0);
    for (const entry of this.entries) {
      if ('refused' in entry) {
        this.unloaded.push(entry.refused.cause);
        continue;
      }
      const p = entry.plugin;
      const outcome = await p.worker.configure(p.settings, p.deadlineMs);
      if ('ok' in outcome) {
        this.unloaded.push(undefined);
      } else {
        const { kind, message } = outcome.err;
        this.unloaded.push(kind === 'load' ? message : `\`configure\` failed: ${message}`);
      }
    }
  }

  consulted(): Consulted[] {
    return this.entries.map((entry, at) => {
      if ('refused' in entry) {
        const r = entry.refused;
        return { name: r.plugin, version: '', hooks: [], reads: NOTHING, mode: r.monitor ? 'monitor' : 'enforce', failOpen: r.failOpen, unloaded: r.cause };
      }
      const p = entry.plugin;
      return {
        name: nameOf(p),
        version: p.metadata.version,
        hooks: p.metadata.hooks,
        reads: p.metadata.reads,
        mode: p.monitor ? 'monitor' : 'enforce',
        failOpen: p.failOpen,
        unloaded: this.unloaded[at],
      };
    });
  }

  /**
   * Plugin `plugin`'s reply to `batch`, within its deadline per call or what is left of its time
   * in this reconcile, whichever is less; once that time is used up it fails without being
   * called, as in the host.
   */
  async answer(plugin: number, batch: unknown, kept: unknown[]): Promise<Reply> {
    const entry = this.entries[plugin];
    if (entry === undefined || 'refused' in entry) return failed('load', 'was not loaded');
    const p = entry.plugin;
    const left = p.reconcileDeadlineMs - this.spent[plugin];
    if (left <= 0) return failed('deadline', outOfTime(p.reconcileDeadlineMs));
    const own = p.deadlineMs <= left;
    const started = performance.now();
    const outcome = await p.worker.answer(
      batch,
      kept,
      own ? p.deadlineMs : left,
      own ? overranCall(p.deadlineMs) : outOfTime(p.reconcileDeadlineMs),
    );
    this.spent[plugin] += performance.now() - started;
    return 'ok' in outcome
      ? { outcome: { tag: 'ok', val: outcome.ok }, logs: outcome.logs }
      : { outcome: { tag: 'err', val: outcome.err }, logs: outcome.logs };
  }
}

function failed(kind: 'load' | 'deadline', message: string): Reply {
  return { outcome: { tag: 'err', val: { kind, message } }, logs: [] };
}
