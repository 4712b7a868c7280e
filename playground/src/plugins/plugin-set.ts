/** The enabled plugins consulted by a reconcile, asked in order at every hook point, exactly as the host asks its plugin set. */

import type { Plan, ReconcileInput, StepReport } from '../contract.ts';
import type { Replier } from '../reconcile.ts';
import { failsOpen, nameOf, type BundledPlugin, type Metadata } from './catalog.ts';
import { oversized } from './answer-size.ts';
import type { HookName } from './messages.ts';
import { outOfTime, overranCall } from './runner.ts';

/** What a plugin did in one reconcile. */
interface Usage {
  calls: Map<HookName, number>;
  ms: number;
}

type Loadable = BundledPlugin & { metadata: Metadata };

export class PluginSet implements Replier {
  private ext = new Map<string, number[]>();
  private failed = new Set<number>();
  private usage: Usage[] = [];
  /** The plugins that took their settings, in order. */
  private plugins: Loadable[] = [];
  /** Fail-open plugins that refused their settings, with why; every plan says so. */
  private unloaded: { plugin: string; cause: string }[] = [];

  /**
   * `enabled`, in order, and the plugins already refused (a pin their file
   * does not match, one not bundled) that fail open: every plan says so.
   */
  constructor(
    private readonly enabled: Loadable[],
    private readonly refused: { plugin: string; cause: string }[] = [],
  ) {}

  consulted(): unknown[] {
    return this.plugins.map((p) => ({
      name: nameOf(p),
      version: p.metadata.version,
      hooks: p.metadata.hooks,
      monitor: p.monitor,
      'fail-open': failsOpen(p),
    }));
  }

  /**
   * Gives each plugin a fresh instance configured with its settings. One
   * that refuses them ends the reconcile when it fails closed, as the host
   * refuses to load it; failing open, it is left out and reported.
   */
  async begin(input: ReconcileInput): Promise<string | null> {
    this.plugins = [];
    this.unloaded = [...this.refused];
    for (const p of this.enabled) {
      const outcome = await p.worker.begin(p.settings, p.deadlineMs);
      if ('ok' in outcome) {
        this.plugins.push(p);
      } else if (failsOpen(p)) {
        this.unloaded.push({ plugin: nameOf(p), cause: outcome.err });
      } else {
        return `cannot load plugin ${nameOf(p)} ${p.metadata.version}: ${outcome.err}`;
      }
    }
    const names = new Set(this.plugins.map(nameOf));
    this.ext = new Map(
      input.ext.filter((e) => names.has(e.plugin)).map((e) => [key(e.plugin, e.group, e.slot), e.data]),
    );
    this.failed.clear();
    this.usage = this.plugins.map(() => ({ calls: new Map(), ms: 0 }));
    return null;
  }

  /**
   * Per item, the replies of the plugins implementing `hook`, in jco's
   * rendering. A plugin that failed is not asked again; after a failure of
   * a plugin that fails closed the reconcile ends, so nothing more is asked.
   */
  async reply(hook: HookName, items: unknown[]): Promise<unknown[][]> {
    const asked = this.plugins.map((p, i) => ({ p, i })).filter(({ p }) => p.metadata.hooks.includes(hook));
    const all: unknown[][] = [];
    let closed = false;
    for (const item of items) {
      const replies: unknown[] = [];
      for (const { p, i } of asked) {
        if (closed || this.failed.has(i)) continue;
        const called = await this.call(p, i, hook, item);
        // A call that failed leaves an instance that cannot be entered again; an answer too
        // large is refused without that.
        if ('err' in called) this.failed.add(i);
        const tooLarge = 'ok' in called ? oversized(hook, called.ok) : null;
        const outcome = tooLarge === null ? called : { err: tooLarge };
        if ('err' in outcome) closed = !failsOpen(p);
        replies.push({
          plugin: nameOf(p),
          answer: 'ok' in outcome ? { tag: 'ok', val: outcome.ok } : { tag: 'err', val: outcome.err },
        });
      }
      all.push(replies);
    }
    return all;
  }

  /** Adds the plugins left out, and a step per plugin, as the host reports them. */
  finish(plan: Plan): void {
    for (const { plugin, cause } of this.unloaded) {
      plan['plugin-failures'].push({ plugin, hook: 'load', group: null, slot: null, cause });
      plan.steps.push({ step: `plugin ${plugin}`, group: null, status: 'skipped', message: `not loaded: ${cause}` });
    }
    this.plugins.forEach((p, i) => {
      const usage = this.usage[i];
      const calls = [...usage.calls].map(([hook, n]) => `${hook} ${n}`);
      const summary = calls.length === 0 ? 'not called' : `calls: ${calls.join(', ')}; ${Math.round(usage.ms)} ms`;
      const step: StepReport = {
        step: `plugin ${nameOf(p)}`,
        group: null,
        status: 'done',
        message: `${p.metadata.version} ${p.monitor ? 'monitoring' : 'enforcing'}; ${summary}`,
      };
      plan.steps.push(step);
    });
  }

  /**
   * Asks plugin `p` (the `i`th) about `item` within its deadline, or within
   * what is left of its time in this reconcile when that is less; once that
   * time is used up the plugin fails without being called, as in the host.
   */
  private async call(p: Loadable, i: number, hook: HookName, item: unknown): Promise<{ ok: unknown } | { err: string }> {
    const left = p.reconcileDeadlineMs - this.usage[i].ms;
    if (left <= 0) return { err: outOfTime(p.reconcileDeadlineMs) };
    const ownDeadline = p.deadlineMs <= left;
    const started = performance.now();
    const called = await p.worker.call(
      hook,
      this.withOwnExt(hook, item, nameOf(p)),
      ownDeadline ? p.deadlineMs : left,
      ownDeadline ? overranCall(p.deadlineMs) : outOfTime(p.reconcileDeadlineMs),
    );
    this.count(i, hook, performance.now() - started);
    return called;
  }

  /** The item with the bytes this plugin kept for its slot, as the host hands each plugin its own. */
  private withOwnExt(hook: HookName, item: unknown, plugin: string): unknown {
    if (hook === 'promotion') return item;
    const view = (hook === 'pre-slot' ? item : (item as { slot: unknown }).slot) as {
      group: string;
      index: number;
      ext?: Uint8Array;
    };
    const data = this.ext.get(key(plugin, view.group, view.index));
    const own = { ...view, ext: data === undefined ? undefined : Uint8Array.from(data) };
    return hook === 'pre-slot' ? own : { ...(item as object), slot: own };
  }

  private count(i: number, hook: HookName, ms: number): void {
    const usage = this.usage[i];
    usage.calls.set(hook, (usage.calls.get(hook) ?? 0) + 1);
    usage.ms += ms;
  }
}

function key(plugin: string, group: string, slot: number): string {
  return `${plugin}\u0000${group}\u0000${slot}`;
}
