// The plugin's decisions, called in Node on proposals shaped as the QuickJS component receives them: 64-bit integers as Numbers, absent options as null.

import { test } from "node:test";
import assert from "node:assert/strict";
import { Budget, disruptive, readSettings } from "../src/disruption.js";

function candidate(allocation, overrides = {}) {
  return {
    allocation,
    jobVersion: 0,
    healthy: null,
    healthySince: null,
    update: null,
    node: { id: `node-${allocation}`, status: "ready", draining: false, meta: [] },
    clientStatus: "running",
    canary: false,
    classification: "untainted",
    rule: "untainted",
    meta: [],
    ...overrides,
  };
}

function proposal(index, kinds, candidates = [candidate(`web-${index}`)]) {
  return {
    slot: { group: "web", index, count: 10, candidates, now: 1767225600000000000, ext: null },
    changes: kinds.map((kind) => ({
      kind,
      allocation: `web-${index}`,
      reason: "test",
      message: "proposed by a test",
    })),
  };
}

test("stops, migrations and destructive updates of serving allocations are disruptive", () => {
  for (const kind of ["stop", "migrate", "destructive-update"]) {
    assert.equal(disruptive(proposal(0, [kind])).length, 1, kind);
  }
});

test("placements, in-place updates and reconnects are not disruptive", () => {
  assert.deepEqual(disruptive(proposal(0, ["place", "in-place-update", "reconnect"])), []);
});

test("stopping an allocation that no longer serves is not disruptive", () => {
  const failed = candidate("web-0", { clientStatus: "failed" });
  assert.deepEqual(disruptive(proposal(0, ["place", "stop"], [failed])), []);
  const lost = candidate("web-0", { classification: "lost" });
  assert.deepEqual(disruptive(proposal(0, ["stop"], [lost])), []);
});

test("slots are accepted until the limit, then vetoed", () => {
  const budget = new Budget(2);
  const answers = [0, 1, 2].map((i) => budget.review(proposal(i, ["destructive-update"])));
  assert.deepEqual(
    answers.map((a) => a.decision.tag),
    ["accept", "accept", "veto"],
  );
  assert.equal(
    answers[2].decision.val,
    "slot web/2 would disrupt 1 allocation but 0 of 2 disruptions per reconcile are left",
  );
});

test("a vetoed slot spends nothing, so a later slot that fits still passes", () => {
  const budget = new Budget(1);
  const two = proposal(0, ["stop", "destructive-update"], [candidate("web-0")]);
  two.changes[1].allocation = "web-0";
  assert.equal(budget.review(two).decision.tag, "veto");
  assert.equal(budget.review(proposal(1, ["stop"])).decision.tag, "accept");
});

test("slots without disruptions pass even when the budget is spent", () => {
  const budget = new Budget(0);
  assert.equal(budget.review(proposal(0, ["place"])).decision.tag, "accept");
});

test("bad settings are refused naming the field", () => {
  assert.equal(readSettings('{"limit": 3}'), 3);
  assert.throws(() => readSettings("{}"), /^limit: missing/);
  assert.throws(() => readSettings('{"limit": -1}'), /^limit: -1 is not/);
  assert.throws(() => readSettings('{"limit": "3"}'), /^limit: "3" is not/);
  assert.throws(() => readSettings('{"limit": 3, "per": "group"}'), /^per: unknown field/);
  assert.throws(() => readSettings("[3]"), /must be an object/);
});
