/** A scenario's scripted policy answering the session's questions, through the scenario reader as `slotwise reconcile` answers them. */

import type { ReconcileInput } from './contract.ts';
import type { HookName } from './plugins/messages.ts';
import type { Replier } from './reconcile.ts';
import { scriptedReplies, type Scenario } from './scenario.ts';
import { lift, lower, parseJson, stringifyJson } from './wit.ts';

export class ScriptedPolicy implements Replier {
  constructor(private readonly scenario: Scenario & { scripted: unknown[] }) {}

  consulted(): unknown[] {
    return this.scenario.scripted;
  }

  async begin(_input: ReconcileInput): Promise<string | null> {
    return null;
  }

  async reply(hook: HookName, items: unknown[]): Promise<unknown[][]> {
    const question = stringifyJson(lift({ tag: hook, val: items }, { ref: 'question' }));
    const replies = parseJson(await scriptedReplies(this.scenario, question));
    return (lower(replies, { ref: 'replies' }) as { val: unknown[][] }).val;
  }

  finish(): void {}
}
