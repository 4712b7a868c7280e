// What max-disruption decides, as plain functions: which changes disrupt, how the settings read, and what a slot's answer is given what was spent.
//
// Nothing here knows about components, so the Node tests import it as it is.

// The kinds that take a running allocation down. Placements add capacity and
// in-place updates keep the allocation running; disconnect, reconnect and
// follow-ups only record what the cluster already did.
const ENDING = new Set(["stop", "migrate", "destructive-update"]);

// Stopping an allocation that no longer serves (failed, complete, lost with
// its node) takes nothing down: it is clean-up, and blocking it would only
// hold up its replacement.
const SERVING_CLIENT = new Set(["running", "pending"]);
const GONE = new Set(["lost", "expiring"]);

/**
 * Reads the settings text, `{"limit": N}`.
 *
 * @param {string} text the settings as JSON
 * @returns {number} the limit
 * @throws {string} what is wrong, naming the field
 */
export function readSettings(text) {
  let settings;
  try {
    settings = JSON.parse(text);
  } catch (e) {
    throw `settings are not JSON: ${e.message}`;
  }
  if (settings === null || typeof settings !== "object" || Array.isArray(settings)) {
    throw 'settings must be an object like {"limit": 3}';
  }
  for (const key of Object.keys(settings)) {
    if (key !== "limit") {
      throw `${key}: unknown field; the only setting is \`limit\``;
    }
  }
  const limit = settings.limit;
  if (limit === undefined) {
    throw "limit: missing; give how many disruptive changes one reconcile may make";
  }
  if (!Number.isInteger(limit) || limit < 0) {
    throw `limit: ${JSON.stringify(limit)} is not a whole number of changes (0 or more)`;
  }
  return limit;
}

/**
 * The changes of a slot proposal that take a serving allocation down.
 *
 * @param {object} proposal a `slot-proposal` as jco lifts it
 * @returns {object[]} the disruptive changes, in proposal order
 */
export function disruptive(proposal) {
  const byId = new Map(proposal.slot.candidates.map((c) => [c.allocation, c]));
  return proposal.changes.filter((change) => {
    if (!ENDING.has(change.kind)) {
      return false;
    }
    const candidate = change.allocation == null ? undefined : byId.get(change.allocation);
    // A change about an allocation the slot does not list cannot be judged;
    // counting it errs on the side of fewer disruptions.
    if (candidate === undefined) {
      return true;
    }
    return SERVING_CLIENT.has(candidate.clientStatus) && !GONE.has(candidate.classification);
  });
}

/** Disruptions allowed in one reconcile, spent slot by slot in the order the reconciler asks. */
export class Budget {
  /** @param {number} limit how many disruptive changes the reconcile may make */
  constructor(limit) {
    this.limit = limit;
    this.used = 0;
  }

  /**
   * Accepts a slot whose disruptions fit in what is left, spending them, or
   * vetoes it whole: a slot's changes stand or fall together.
   *
   * @param {object} proposal a `slot-proposal`
   * @returns {object} a `post-slot-answer`
   */
  review(proposal) {
    const count = disruptive(proposal).length;
    if (count === 0 || this.used + count <= this.limit) {
      this.used += count;
      return { decision: { tag: "accept" } };
    }
    const slot = `${proposal.slot.group}/${proposal.slot.index}`;
    const left = this.limit - this.used;
    return {
      decision: {
        tag: "veto",
        val:
          `slot ${slot} would disrupt ${plural(count, "allocation")} ` +
          `but ${left} of ${plural(this.limit, "disruption")} per reconcile ${left === 1 ? "is" : "are"} left`,
      },
    };
  }
}

function plural(n, word) {
  return `${n} ${word}${n === 1 ? "" : "s"}`;
}
