/** A scenario's scripted policy as a relay: each question's batch goes to the scenario reader, whose scripted relay answers it as `slotwise reconcile` answers it for the same scenario. */

import { parseJson, stringifyJson } from '@slotwise/reconciler/rendering';
import type { Consulted, Relay, Reply } from '@slotwise/reconciler/session';

/** How a scenario's text is written. */
export type Syntax = 'yaml' | 'json';

/** What the relay needs of the scenario reader component. */
export interface ScriptReader {
  scriptedReply(text: string, syntax: Syntax, plugin: number, batch: string): string;
}

/** Conversions between slotwise's rendering and jco's (see @slotwise/reconciler/rendering). */
export interface Codec {
  lower(value: unknown, type: unknown): unknown;
  lift(value: unknown, type: unknown): unknown;
}

export class ScriptedRelay implements Relay {
  private readonly plugins: Consulted[];

  /**
   * The scripted plugins of the scenario `text`; `scripted` is the JSON of their `consulted`
   * records, as the reader gives it.
   */
  constructor(
    private readonly reader: ScriptReader,
    private readonly codec: Codec,
    private readonly text: string,
    private readonly syntax: Syntax,
    scripted: string,
  ) {
    this.plugins = codec.lower(parseJson(scripted), { list: { ref: 'consulted' } }) as Consulted[];
  }

  async begin(): Promise<void> {}

  consulted(): Consulted[] {
    return this.plugins;
  }

  async answer(plugin: number, batch: unknown, _kept: unknown[]): Promise<Reply> {
    const question = stringifyJson(this.codec.lift(batch, { ref: 'plugin/batch' }));
    let reply: string;
    try {
      reply = this.reader.scriptedReply(this.text, this.syntax, plugin, question);
    } catch (e) {
      const cause = e !== null && typeof e === 'object' && 'payload' in e ? String(e.payload) : String(e);
      return { outcome: { tag: 'err', val: { kind: 'load', message: `the script cannot answer: ${cause}` } }, logs: [] };
    }
    return this.codec.lower(parseJson(reply), { ref: 'reply' }) as Reply;
  }
}
