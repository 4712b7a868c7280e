// Packs a typed slot batch as the reconciler does (layout 2 of docs/wit.md), written from the documentation alone, so that the tests check the reader against the documented layout.

const NODE_STATUS = ["ready", "initializing", "down", "disconnected", "unknown"];
const CLIENT_STATUS = ["pending", "running", "complete", "failed", "lost", "unknown"];
const CLASSIFICATION = ["untainted", "migrate", "lost", "disconnecting", "reconnecting", "ignore", "expiring"];
const UPDATE = [null, "ignore", "in-place", "destructive"];
const CHANGE_KIND = ["place", "stop", "migrate", "in-place-update", "destructive-update", "disconnect", "reconnect", "attach-followup"];
const ABSENT = 0xffffffff;

/** `batch` with its slots, candidates, changes and nodes moved into `packed`. */
export function pack(batch) {
  const strings = [];
  let stringLength = 0;
  const meta = [];
  const string = (s) => {
    if (s == null) return [ABSENT, 0];
    const bytes = new TextEncoder().encode(s);
    const at = stringLength;
    strings.push(bytes);
    stringLength += bytes.length;
    return [at, bytes.length];
  };
  const metaOf = (pairs) => {
    if (pairs == null) return [ABSENT, 0];
    const ref = [meta.length, pairs.length];
    for (const [k, v] of pairs) meta.push([...string(k), ...string(v)]);
    return ref;
  };
  const cands = batch.candidates.map((c) => ({ c, allocation: string(c.allocation), metaRef: metaOf(c.meta) }));
  const changes = batch.changes.map((ch) => ({ ch, message: string(ch.message) }));
  const nodes = batch.nodes.map((n) => ({ n, id: string(n.id), metaRef: metaOf(n.meta) }));
  const size = 28 + batch.slots.length * 24 + cands.length * 48 + changes.length * 20 + nodes.length * 20 + meta.length * 16 + stringLength;
  const bytes = new Uint8Array(size);
  const dv = new DataView(bytes.buffer);
  [2, batch.slots.length, cands.length, changes.length, nodes.length, meta.length, stringLength].forEach((v, i) => dv.setUint32(i * 4, v, true));
  let o = 28;
  for (const s of batch.slots) {
    dv.setUint8(o, s.key.tag === "index" ? 0 : 1);
    [s.key.val, s.candidates.first, s.candidates.count, s.changes.first, s.changes.count].forEach((v, i) => dv.setUint32(o + 4 + i * 4, v, true));
    o += 24;
  }
  for (const { c, allocation, metaRef } of cands) {
    dv.setUint8(o, CLIENT_STATUS.indexOf(c.clientStatus));
    dv.setUint8(o + 1, CLASSIFICATION.indexOf(c.classification));
    dv.setUint8(o + 2, c.healthy == null ? 0 : c.healthy ? 2 : 1);
    dv.setUint8(o + 3, UPDATE.indexOf(c.update));
    dv.setUint8(o + 4, c.canary ? 1 : 0);
    dv.setUint8(o + 5, c.healthySince == null ? 0 : 1);
    dv.setBigUint64(o + 8, BigInt(c.jobVersion), true);
    dv.setBigInt64(o + 16, BigInt(c.healthySince ?? 0), true);
    [c.node, c.rule, ...allocation, ...metaRef].forEach((v, i) => dv.setUint32(o + 24 + i * 4, v, true));
    o += 48;
  }
  for (const { ch, message } of changes) {
    dv.setUint8(o, CHANGE_KIND.indexOf(ch.kind));
    dv.setUint8(o + 1, ch.candidate == null ? 0 : 1);
    [ch.candidate ?? 0, ch.reason, ...message].forEach((v, i) => dv.setUint32(o + 4 + i * 4, v, true));
    o += 20;
  }
  for (const { n, id, metaRef } of nodes) {
    dv.setUint8(o, NODE_STATUS.indexOf(n.status));
    dv.setUint8(o + 1, n.draining ? 1 : 0);
    [...id, ...metaRef].forEach((v, i) => dv.setUint32(o + 4 + i * 4, v, true));
    o += 20;
  }
  for (const pair of meta) {
    pair.forEach((v, i) => dv.setUint32(o + i * 4, v, true));
    o += 16;
  }
  for (const s of strings) {
    bytes.set(s, o);
    o += s.length;
  }
  return { ...batch, slots: [], candidates: [], changes: [], nodes: [], packed: bytes };
}
