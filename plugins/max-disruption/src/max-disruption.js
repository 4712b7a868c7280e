// The max-disruption component: exports the slotwise:plugin@0.2.0 world and answers the review hook, once per reconcile, on the whole proposed plan.
//
// The host gives each reconcile a fresh instance and configures it first;
// the limit below is read then. No clock.

import { log } from "slotwise:plugin/log@0.2.0";
import { judge, line, readSettings } from "./disruption.js";

let limit = 0;

export const plugin = {
  metadata() {
    return {
      name: "max-disruption",
      version: "0.2.0",
      description: "Vetoes disruptive changes beyond a limit per reconcile, across every group of the job.",
      hooks: ["review"],
      // Packed: the plan crosses as one byte list, read in place
      // (src/packed-batch.js), instead of a JS object per item.
      reads: { nodeIds: false, nodeMeta: false, allocationIds: false, candidateMeta: false, changeMessages: false, packed: true },
      settingsExample: '{"limit": 3}',
    };
  },

  configure(settings) {
    // A thrown string is the `err` of configure's result.
    limit = readSettings(settings);
  },

  answer(batch, _kept) {
    if (batch.tag !== "review") {
      throw `max-disruption answers review batches, not ${batch.tag}`;
    }
    const { vetoes, proposed } = judge(limit, batch.val);
    log("info", line(limit, batch.val, proposed, vetoes.length));
    return { tag: "review", val: vetoes };
  },
};

// The types interface has no functions; the world exports it so that it is
// not an import.
export const types = {};
