// The plugin's decisions, called in Node on batches shaped as the component receives them.

import { test } from "node:test";
import assert from "node:assert/strict";
import { postSlot, readSettings } from "../src/freeze.js";

/** A batch of one group with `slots` slots, each proposing one change. */
function batch(group, slots) {
  const b = { now: 0, groups: [{ name: group, count: slots, slots: { first: 0, count: slots } }], slots: [], candidates: [], changes: [], nodes: [], rules: [], reasons: ["test"] };
  for (let i = 0; i < slots; i++) {
    b.changes.push({ kind: "stop", candidate: null, reason: 0, message: null });
    b.slots.push({ key: { tag: "index", val: i }, candidates: { first: 0, count: 0 }, changes: { first: i, count: 1 } });
  }
  return b;
}

test("the slots of a frozen group are vetoed, in order, and the count is logged", () => {
  const { answers, lines } = postSlot(["web"], batch("web", 2));
  assert.deepEqual(
    answers.map((a) => [a.slot, a.decision.tag, a.decision.val]),
    [
      [0, "veto", "group web is frozen"],
      [1, "veto", "group web is frozen"],
    ],
  );
  assert.deepEqual(lines, ["kept 2 of 2 slots as they are"]);
});

test("the slots of other groups are accepted, and nothing is logged", () => {
  const { answers, lines } = postSlot(["api"], batch("web", 1));
  assert.deepEqual(answers, [{ slot: 0, decision: { tag: "accept" } }]);
  assert.deepEqual(lines, []);
});

test("settings of the wrong shape are refused naming the field", () => {
  assert.throws(() => readSettings('{"frozen": "web"}'), /frozen/);
  assert.throws(() => readSettings('{"frozen": [], "colour": 1}'), /colour/);
});
