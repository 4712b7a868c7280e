// The plugin's decisions, called in Node on batches shaped as the QuickJS component receives them: absent options as null, spans and tables as the reconciler sends them.

import { test } from "node:test";
import assert from "node:assert/strict";
import { disruptive, readSettings, review, summary } from "../src/disruption.js";

function candidate(overrides = {}) {
  return {
    allocation: null,
    jobVersion: 0,
    node: 0,
    clientStatus: "running",
    healthy: null,
    healthySince: null,
    canary: false,
    classification: "untainted",
    rule: 0,
    update: null,
    meta: null,
    ...overrides,
  };
}

/** A batch of `groups`, each a list of slots, each a list of change kinds on one candidate. */
function batch(groups) {
  const b = { now: 0, groups: [], slots: [], candidates: [], changes: [], nodes: [], rules: ["untainted"], reasons: ["test"] };
  for (const [name, slots] of Object.entries(groups)) {
    const first = b.slots.length;
    slots.forEach((kinds, index) => {
      const c = b.candidates.length;
      b.candidates.push(candidate());
      const changes = { first: b.changes.length, count: kinds.length };
      for (const kind of kinds) b.changes.push({ kind, candidate: kind === "place" ? null : c, reason: 0, message: null });
      b.slots.push({ key: { tag: "index", val: index }, candidates: { first: c, count: 1 }, changes });
    });
    b.groups.push({ name, count: slots.length, slots: { first, count: slots.length } });
  }
  return b;
}

test("stops, migrations and destructive updates of serving allocations are disruptive", () => {
  for (const kind of ["stop", "migrate", "destructive-update"]) {
    assert.equal(disruptive(batch({ web: [[kind]] }), 0).length, 1, kind);
  }
});

test("placements, in-place updates and reconnects are not disruptive", () => {
  assert.deepEqual(disruptive(batch({ web: [["place", "in-place-update", "reconnect"]] }), 0), []);
});

test("stopping an allocation that no longer serves is not disruptive", () => {
  const failed = batch({ web: [["place", "stop"]] });
  failed.candidates[0].clientStatus = "failed";
  assert.deepEqual(disruptive(failed, 0), []);
  const lost = batch({ web: [["stop"]] });
  lost.candidates[0].classification = "lost";
  assert.deepEqual(disruptive(lost, 0), []);
});

test("slots are accepted until the limit, then vetoed, across every group of the job", () => {
  const vetoes = review(2, batch({ web: [["destructive-update"]], api: [["stop"], ["stop"]] }));
  assert.deepEqual(vetoes, [
    { change: 2, reason: "slot api/1 would disrupt 1 allocation but 0 of 2 disruptions per reconcile are left" },
  ]);
});

test("a vetoed slot spends nothing, so a later slot that fits still passes", () => {
  const vetoes = review(1, batch({ web: [["stop", "destructive-update"], ["stop"]] }));
  assert.equal(vetoes.length, 1);
  assert.equal(vetoes[0].change, 0);
});

test("slots without disruptions pass even when the budget is spent", () => {
  assert.deepEqual(review(0, batch({ web: [["place"]] })), []);
});

test("bad settings are refused naming the field", () => {
  assert.equal(readSettings('{"limit": 3}'), 3);
  assert.throws(() => readSettings('{"limit": -1}'), /limit: -1 is not a whole number/);
  assert.throws(() => readSettings('{"per": 1}'), /per: unknown field/);
  assert.throws(() => readSettings("{}"), /limit: missing/);
});

test("the logged line counts the disruptions proposed, the budget and the slots vetoed", () => {
  const b = batch({ web: [["stop"], ["destructive-update"]], api: [["place"], ["migrate"]] });
  const vetoes = review(1, b);
  assert.equal(summary(1, b, vetoes), "3 disruptive changes proposed across 2 groups, 1 disruption allowed: 2 slots vetoed");
});
