// What max-disruption decides, as plain functions: which changes disrupt, how the settings read, and which slots of the whole proposed plan go beyond the budget.
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
 * The positions of the changes of slot `at` of `batch` that take a serving
 * allocation down, in proposal order.
 *
 * @param {object} batch a `slot-batch` as jco lifts it
 * @param {number} at the slot's position
 * @returns {number[]} positions in `batch.changes`
 */
export function disruptive(batch, at) {
  const { first, count } = batch.slots[at].changes;
  const found = [];
  for (let c = first; c < first + count; c++) {
    const change = batch.changes[c];
    if (!ENDING.has(change.kind)) continue;
    const candidate = change.candidate == null ? undefined : batch.candidates[change.candidate];
    // A change about no candidate cannot be judged; counting it errs on the
    // side of fewer disruptions.
    if (candidate === undefined || (SERVING_CLIENT.has(candidate.clientStatus) && !GONE.has(candidate.classification))) {
      found.push(c);
    }
  }
  return found;
}

/**
 * The vetoes of the whole proposed plan: slots are taken in the plan's
 * order, every group of the job together; a slot whose disruptions fit in
 * what is left spends them, one that does not is vetoed whole (a slot's
 * changes stand or fall together) and spends nothing.
 *
 * @param {number} limit disruptive changes the reconcile may make
 * @param {object} batch a `slot-batch`
 * @returns {object[]} `veto` records
 */
export function review(limit, batch) {
  let used = 0;
  const vetoes = [];
  for (let at = 0; at < batch.slots.length; at++) {
    const changes = disruptive(batch, at);
    if (changes.length === 0) continue;
    if (used + changes.length <= limit) {
      used += changes.length;
      continue;
    }
    const left = limit - used;
    vetoes.push({
      change: changes[0],
      reason:
        `slot ${slotName(batch, at)} would disrupt ${plural(changes.length, "allocation")} ` +
        `but ${left} of ${plural(limit, "disruption")} per reconcile ${left === 1 ? "is" : "are"} left`,
    });
  }
  return vetoes;
}

/**
 * The line max-disruption logs about a review: how much of the budget the
 * plan would use, and how many slots it vetoed.
 *
 * @param {number} limit disruptive changes the reconcile may make
 * @param {object} batch the reviewed `slot-batch`
 * @param {object[]} vetoes what `review` answered
 * @returns {string}
 */
export function summary(limit, batch, vetoes) {
  let proposed = 0;
  for (let at = 0; at < batch.slots.length; at++) proposed += disruptive(batch, at).length;
  return (
    `${plural(proposed, "disruptive change")} proposed across ${plural(batch.groups.length, "group")}, ` +
    `${plural(limit, "disruption")} allowed: ${plural(vetoes.length, "slot")} vetoed`
  );
}

/** `group/index`, as messages name a slot. */
function slotName(batch, at) {
  const group = batch.groups.find((g) => at >= g.slots.first && at < g.slots.first + g.slots.count);
  const key = batch.slots[at].key;
  return `${group ? group.name : "?"}/${key.tag === "index" ? key.val : "node"}`;
}

function plural(n, word) {
  return `${n} ${word}${n === 1 ? "" : "s"}`;
}
