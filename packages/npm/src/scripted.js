// A scenario's scripted policy as a relay: the session's questions about the scripted plugins go to the scenario reader, which answers each as `slotwise reconcile` answers it for the same scenario.

import { parseJson, stringifyJson } from './rendering.js';

/**
 * The relay of a scenario's scripted plugins. It works in jco's rendering, as every relay does;
 * `codec` converts between the renderings (see rendering.js).
 */
export class ScriptedRelay {
  #consulted;
  #reply;
  #codec;

  /**
   * `consulted`: the scripted plugins' session records, in slotwise's rendering; `reply(plugin,
   * batch)`: the script's reply to a batch (JSON text in slotwise's rendering), as JSON text.
   */
  constructor(consulted, reply, codec) {
    this.#consulted = codec.lower(consulted, { list: { ref: 'consulted' } });
    this.#reply = reply;
    this.#codec = codec;
  }

  async begin() {}

  consulted() {
    return this.#consulted;
  }

  async answer(plugin, batch, _kept) {
    const question = stringifyJson(this.#codec.lift(batch, { ref: 'plugin/batch' }));
    let reply;
    try {
      reply = this.#reply(plugin, question);
    } catch (e) {
      // A script that cannot answer is a plugin that cannot be loaded: the session decides.
      const cause = e?.payload === undefined ? (e instanceof Error ? e.message : String(e)) : String(e.payload);
      return { outcome: { tag: 'err', val: { kind: 'load', message: `the script cannot answer: ${cause}` } }, logs: [] };
    }
    return this.#codec.lower(parseJson(reply), { ref: 'reply' });
  }
}
