// What max-disruption decides, as plain functions: which changes disrupt, how the settings read, and which slots of the whole proposed plan go beyond the budget.
//
// Nothing here knows about components, so the Node tests import it as it is.
// A batch arrives packed (the plugin asks for it: one byte list instead of a
// record per item, see docs/writing-plugins.md) or typed (the Node tests
// build both); both are read through the same few accessors.

import { PackedBatch } from "./packed-batch.js";

// Which changes take a serving allocation down is asked of every change of
// the plan, so it compares strings directly: the batch's enum values arrive
// as fresh strings, which a Set would hash on every lookup.

/** A typed batch, read through the accessors `PackedBatch` has. */
class TypedBatch {
  constructor(batch) {
    this.batch = batch;
    this.slotCount = batch.slots.length;
    this.candidateCount = batch.candidates.length;
  }
  slotKey(at) {
    return this.batch.slots[at].key;
  }
  slotChangesFirst(at) {
    return this.batch.slots[at].changes.first;
  }
  slotChangesCount(at) {
    return this.batch.slots[at].changes.count;
  }
  changeKind(c) {
    return this.batch.changes[c].kind;
  }
  changeCandidate(c) {
    const k = this.batch.changes[c].candidate;
    return k == null ? null : k;
  }
  clientStatus(k) {
    return this.batch.candidates[k].clientStatus;
  }
  classification(k) {
    return this.batch.candidates[k].classification;
  }
}

/**
 * The slots, candidates and changes of `batch`, packed or typed.
 *
 * @param {object} batch a `slot-batch` as jco lifts it
 * @returns {PackedBatch | TypedBatch}
 */
export function itemsOf(batch) {
  return batch.packed && batch.packed.length > 0 ? new PackedBatch(batch.packed) : new TypedBatch(batch);
}

/**
 * Whether change `c` takes a running allocation down: a stop, a migration or
 * a destructive update (placements add capacity, in-place updates keep the
 * allocation running, and disconnect, reconnect and follow-ups only record
 * what the cluster already did) of an allocation that still serves.
 * Stopping one that no longer serves (failed, complete, lost with its node)
 * is clean-up, and blocking it would only hold up its replacement.
 *
 * @param {PackedBatch | TypedBatch} items the batch's items
 * @param {number} c the change's position
 * @returns {boolean}
 */
function disrupts(items, c) {
  const kind = items.changeKind(c);
  if (kind !== "stop" && kind !== "migrate" && kind !== "destructive-update") return false;
  const k = items.changeCandidate(c);
  // A change about no candidate cannot be judged; counting it errs on the
  // side of fewer disruptions.
  if (k === null || k >= items.candidateCount) return true;
  const status = items.clientStatus(k);
  if (status !== "running" && status !== "pending") return false;
  const classification = items.classification(k);
  return classification !== "lost" && classification !== "expiring";
}

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
  const items = itemsOf(batch);
  const first = items.slotChangesFirst(at);
  const count = items.slotChangesCount(at);
  const found = [];
  for (let c = first; c < first + count; c++) {
    if (disrupts(items, c)) found.push(c);
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
  return judge(limit, batch).vetoes;
}

/**
 * The review of the whole plan in one pass over its changes: the vetoes, as
 * `review` gives them, and how many disruptive changes the plan proposes.
 *
 * @param {number} limit disruptive changes the reconcile may make
 * @param {object} batch a `slot-batch`
 * @returns {{vetoes: object[], proposed: number}}
 */
export function judge(limit, batch) {
  const items = itemsOf(batch);
  let used = 0;
  let proposed = 0;
  const vetoes = [];
  for (let at = 0; at < items.slotCount; at++) {
    let count = 0;
    let first = 0;
    for (let c = items.slotChangesFirst(at), end = c + items.slotChangesCount(at); c < end; c++) {
      if (!disrupts(items, c)) continue;
      if (count === 0) first = c;
      count++;
    }
    if (count === 0) continue;
    proposed += count;
    if (used + count <= limit) {
      used += count;
      continue;
    }
    const left = limit - used;
    vetoes.push({
      change: first,
      reason:
        `slot ${slotName(batch, items, at)} would disrupt ${plural(count, "allocation")} ` +
        `but ${left} of ${plural(limit, "disruption")} per reconcile ${left === 1 ? "is" : "are"} left`,
    });
  }
  return { vetoes, proposed };
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
  return line(limit, batch, judge(limit, batch).proposed, vetoes.length);
}

/**
 * The summary line from counts already made: `proposed` disruptive changes,
 * `vetoed` slots.
 *
 * @param {number} limit disruptive changes the reconcile may make
 * @param {object} batch the reviewed `slot-batch`
 * @param {number} proposed disruptive changes in the plan
 * @param {number} vetoed slots vetoed
 * @returns {string}
 */
export function line(limit, batch, proposed, vetoed) {
  return (
    `${plural(proposed, "disruptive change")} proposed across ${plural(batch.groups.length, "group")}, ` +
    `${plural(limit, "disruption")} allowed: ${plural(vetoed, "slot")} vetoed`
  );
}

/** `group/index`, as messages name a slot. */
function slotName(batch, items, at) {
  const group = batch.groups.find((g) => at >= g.slots.first && at < g.slots.first + g.slots.count);
  const key = items.slotKey(at);
  return `${group ? group.name : "?"}/${key.tag === "index" ? key.val : "node"}`;
}

function plural(n, word) {
  return `${n} ${word}${n === 1 ? "" : "s"}`;
}
