// The packed reader against batches packed as docs/wit.md lays them out: it reads back every field, refuses bytes of another layout or length, and max-disruption decides the same on a packed batch as on the typed one.

import { test } from "node:test";
import assert from "node:assert/strict";
import { PackedBatch } from "../src/packed-batch.js";
import { judge, summary } from "../src/disruption.js";
import { pack } from "./pack.js";

function typed() {
  const candidates = [
    { allocation: "a-0", jobVersion: 3, node: 0, clientStatus: "running", healthy: true, healthySince: 1767225600000000000, canary: true, classification: "untainted", rule: 0, update: "destructive", meta: [["zone", "eu-1"], ["rack", "r\u00e9-7"]] },
    { allocation: null, jobVersion: 2, node: 1, clientStatus: "failed", healthy: false, healthySince: null, canary: false, classification: "lost", rule: 1, update: null, meta: null },
    { allocation: "a-2", jobVersion: 2, node: 1, clientStatus: "pending", healthy: null, healthySince: null, canary: false, classification: "migrate", rule: 0, update: "in-place", meta: [] },
  ];
  const changes = [
    { kind: "destructive-update", candidate: 0, reason: 0, message: "replace a-0" },
    { kind: "place", candidate: null, reason: 1, message: null },
    { kind: "stop", candidate: 1, reason: 0, message: null },
    { kind: "migrate", candidate: 2, reason: 1, message: "move off a draining node" },
    { kind: "stop", candidate: 9, reason: 0, message: null },
  ];
  const slots = [
    { key: { tag: "index", val: 0 }, candidates: { first: 0, count: 1 }, changes: { first: 0, count: 2 } },
    { key: { tag: "index", val: 4 }, candidates: { first: 1, count: 1 }, changes: { first: 2, count: 1 } },
    { key: { tag: "node", val: 1 }, candidates: { first: 2, count: 1 }, changes: { first: 3, count: 2 } },
  ];
  return {
    now: 0,
    groups: [{ name: "web", count: 3, slots: { first: 0, count: 3 } }],
    slots,
    candidates,
    changes,
    nodes: [
      { id: "node-a", status: "disconnected", draining: true, meta: [["zone", "eu-2"]] },
      { id: null, status: "unknown", draining: false, meta: null },
    ],
    rules: ["untainted", "lost"],
    reasons: ["a", "b"],
    packed: new Uint8Array(0),
  };
}

test("every field of slots, candidates, changes and nodes reads back as the typed batch has it", () => {
  const b = typed();
  const p = new PackedBatch(pack(b).packed);
  assert.equal(p.slotCount, 3);
  assert.equal(p.candidateCount, 3);
  assert.equal(p.changeCount, 5);
  assert.equal(p.nodeCount, 2);
  b.nodes.forEach((n, k) => assert.deepEqual(p.node(k), n));
  b.slots.forEach((s, at) => {
    assert.deepEqual(p.slotKey(at), s.key);
    assert.deepEqual(p.slotCandidates(at), s.candidates);
    assert.equal(p.slotChangesFirst(at), s.changes.first);
    assert.equal(p.slotChangesCount(at), s.changes.count);
  });
  b.candidates.forEach((c, k) => assert.deepEqual(p.candidate(k), c));
  b.changes.forEach((c, at) => {
    assert.equal(p.changeKind(at), c.kind);
    assert.equal(p.changeCandidate(at), c.candidate);
    assert.equal(p.changeReason(at), c.reason);
    assert.equal(p.changeMessage(at), c.message);
  });
});

test("bytes of another layout, or not as long as their header says, are refused", () => {
  const bytes = pack(typed()).packed;
  assert.throws(() => new PackedBatch(bytes.subarray(0, 10)), /shorter than its header/);
  assert.throws(() => new PackedBatch(bytes.subarray(0, bytes.length - 1)), /where its header gives/);
  const other = bytes.slice();
  other[0] = 1;
  assert.throws(() => new PackedBatch(other), /layout 1/);
});

test("max-disruption vetoes the same changes with the same reasons on a packed batch", () => {
  for (const limit of [0, 1, 2, 3]) {
    const b = typed();
    const p = pack(b);
    assert.deepEqual(judge(limit, p), judge(limit, b), `limit ${limit}`);
    assert.equal(summary(limit, p, judge(limit, p).vetoes), summary(limit, b, judge(limit, b).vetoes));
  }
  assert.equal(judge(1, pack(typed())).vetoes[0].reason, "slot web/node would disrupt 2 allocations but 0 of 1 disruption per reconcile are left");
});
