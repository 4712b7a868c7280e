// The max-disruption component: exports the slotwise:plugin post-slot world, and keeps one disruption budget per instance.
//
// The host gives each reconcile a fresh instance and configures it first, so
// the budget below belongs to one reconcile: no reset, no clock.

import { Budget, readSettings } from "./disruption.js";

let budget = new Budget(0);

export const plugin = {
  metadata() {
    return {
      name: "max-disruption",
      version: "0.1.0",
      description: "Vetoes disruptive changes beyond a limit per reconcile.",
      hooks: ["post-slot"],
    };
  },

  configure(settings) {
    // A thrown string is the `err` of configure's result.
    budget = new Budget(readSettings(settings));
  },
};

export const postSlot = {
  postSlot(proposal) {
    return budget.review(proposal);
  },
};

// The types interface has no functions; the world exports it so that the
// plugin imports nothing.
export const types = {};
