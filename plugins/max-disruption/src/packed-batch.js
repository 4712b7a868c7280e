// Reads a packed slot batch (`slot-batch.packed`, layout 2 of docs/wit.md) in place with a DataView: nothing is converted until asked for, so a plugin that looks at a few fields of each change pays for those only.
//
// Enum values come back as the same kebab-case strings a typed batch holds
// (constants, not fresh strings), so code written for typed batches
// compares them unchanged. Strings (allocation ids, meta, messages) are
// decoded from UTF-8 only when read.

/** The layout this reader knows: the header's first field. */
export const LAYOUT = 2;

const HEADER = 28;
const SLOT = 24;
const CANDIDATE = 48;
const CHANGE = 20;
const NODE = 20;
const META_PAIR = 16;
const ABSENT = 0xffffffff;

const NODE_STATUS = ["ready", "initializing", "down", "disconnected", "unknown"];
const CLIENT_STATUS = ["pending", "running", "complete", "failed", "lost", "unknown"];
const CLASSIFICATION = ["untainted", "migrate", "lost", "disconnecting", "reconnecting", "ignore", "expiring"];
const UPDATE = [null, "ignore", "in-place", "destructive"];
const CHANGE_KIND = [
  "place",
  "stop",
  "migrate",
  "in-place-update",
  "destructive-update",
  "disconnect",
  "reconnect",
  "attach-followup",
];

/** Decodes UTF-8 without TextDecoder, which QuickJS components may lack. */
function utf8(bytes, at, length) {
  let out = "";
  for (let i = at, end = at + length; i < end; ) {
    const b = bytes[i++];
    let code;
    if (b < 0x80) code = b;
    else if (b < 0xe0) code = ((b & 0x1f) << 6) | (bytes[i++] & 0x3f);
    else if (b < 0xf0) code = ((b & 0x0f) << 12) | ((bytes[i++] & 0x3f) << 6) | (bytes[i++] & 0x3f);
    else code = ((b & 0x07) << 18) | ((bytes[i++] & 0x3f) << 12) | ((bytes[i++] & 0x3f) << 6) | (bytes[i++] & 0x3f);
    out += String.fromCodePoint(code);
  }
  return out;
}

/**
 * The slots, candidates, changes and nodes of a packed slot batch, read lazily by
 * position. Positions are those of the typed lists the bytes stand for, so
 * answers name slots, candidates and changes exactly as for a typed batch.
 */
export class PackedBatch {
  /**
   * @param {Uint8Array} bytes the batch's `packed`
   * @throws {string} when the bytes are not layout 2 or not as long as their header says
   */
  constructor(bytes) {
    if (bytes.byteLength < HEADER) throw `packed batch: ${bytes.byteLength} bytes, shorter than its header`;
    const dv = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
    const layout = dv.getUint32(0, true);
    if (layout !== LAYOUT) throw `packed batch: layout ${layout}, this reader knows ${LAYOUT}`;
    this.bytes = bytes;
    this.dv = dv;
    /** How many slots, candidates, changes and nodes the batch holds. */
    this.slotCount = dv.getUint32(4, true);
    this.candidateCount = dv.getUint32(8, true);
    this.changeCount = dv.getUint32(12, true);
    this.nodeCount = dv.getUint32(16, true);
    const metaCount = dv.getUint32(20, true);
    const stringLength = dv.getUint32(24, true);
    this.candidatesAt = HEADER + this.slotCount * SLOT;
    this.changesAt = this.candidatesAt + this.candidateCount * CANDIDATE;
    this.nodesAt = this.changesAt + this.changeCount * CHANGE;
    this.metaAt = this.nodesAt + this.nodeCount * NODE;
    this.stringsAt = this.metaAt + metaCount * META_PAIR;
    const expected = this.stringsAt + stringLength;
    if (expected !== bytes.byteLength) {
      throw `packed batch: ${bytes.byteLength} bytes where its header gives ${expected}`;
    }
  }

  /** Slot `at`'s key: `{tag: "index" | "node", val}`, as a typed slot's. */
  slotKey(at) {
    const o = HEADER + at * SLOT;
    return { tag: this.dv.getUint8(o) === 0 ? "index" : "node", val: this.dv.getUint32(o + 4, true) };
  }

  /** Slot `at`'s candidates: `{first, count}`. */
  slotCandidates(at) {
    const o = HEADER + at * SLOT;
    return { first: this.dv.getUint32(o + 8, true), count: this.dv.getUint32(o + 12, true) };
  }

  /** The position of slot `at`'s first change. */
  slotChangesFirst(at) {
    return this.dv.getUint32(HEADER + at * SLOT + 16, true);
  }

  /** How many changes slot `at` has. */
  slotChangesCount(at) {
    return this.dv.getUint32(HEADER + at * SLOT + 20, true);
  }

  /** Change `c`'s kind, kebab-case. */
  changeKind(c) {
    return CHANGE_KIND[this.dv.getUint8(this.changesAt + c * CHANGE)];
  }

  /** The position of the candidate change `c` concerns, or null. */
  changeCandidate(c) {
    const o = this.changesAt + c * CHANGE;
    return this.dv.getUint8(o + 1) === 0 ? null : this.dv.getUint32(o + 4, true);
  }

  /** Change `c`'s reason: a position in the batch's `reasons`. */
  changeReason(c) {
    return this.dv.getUint32(this.changesAt + c * CHANGE + 8, true);
  }

  /** Change `c`'s message, when the plugin reads change messages; else null. */
  changeMessage(c) {
    const o = this.changesAt + c * CHANGE;
    return this.#string(o + 12);
  }

  /** Candidate `k`'s client status, kebab-case. */
  clientStatus(k) {
    return CLIENT_STATUS[this.dv.getUint8(this.candidatesAt + k * CANDIDATE)];
  }

  /** Candidate `k`'s classification, kebab-case. */
  classification(k) {
    return CLASSIFICATION[this.dv.getUint8(this.candidatesAt + k * CANDIDATE + 1)];
  }

  /**
   * Candidate `k` whole, shaped as a typed batch's candidate under
   * componentize-qjs: camelCase names, absent options as null, 64-bit
   * integers as Numbers (exact to 2^53, as the typed form's).
   */
  candidate(k) {
    const dv = this.dv;
    const o = this.candidatesAt + k * CANDIDATE;
    const healthy = dv.getUint8(o + 2);
    return {
      allocation: this.#string(o + 32),
      jobVersion: Number(dv.getBigUint64(o + 8, true)),
      node: dv.getUint32(o + 24, true),
      clientStatus: CLIENT_STATUS[dv.getUint8(o)],
      healthy: healthy === 0 ? null : healthy === 2,
      healthySince: dv.getUint8(o + 5) === 0 ? null : Number(dv.getBigInt64(o + 16, true)),
      canary: dv.getUint8(o + 4) === 1,
      classification: CLASSIFICATION[dv.getUint8(o + 1)],
      rule: dv.getUint32(o + 28, true),
      update: UPDATE[dv.getUint8(o + 3)] ?? null,
      meta: this.#meta(o + 40),
    };
  }

  /** Node `n` whole, shaped as a typed batch's node: `{id, status, draining, meta}`. */
  node(n) {
    const o = this.nodesAt + n * NODE;
    return {
      id: this.#string(o + 4),
      status: NODE_STATUS[this.dv.getUint8(o)],
      draining: this.dv.getUint8(o + 1) === 1,
      meta: this.#meta(o + 12),
    };
  }

  /** The meta pairs whose first pair and count are at `o`, or null when absent. */
  #meta(o) {
    const first = this.dv.getUint32(o, true);
    if (first === ABSENT) return null;
    const meta = [];
    for (let p = 0, n = this.dv.getUint32(o + 4, true); p < n; p++) {
      const m = this.metaAt + (first + p) * META_PAIR;
      meta.push([this.#string(m), this.#string(m + 8)]);
    }
    return meta;
  }

  /** The string whose offset and length are at `o`, or null when absent. */
  #string(o) {
    const offset = this.dv.getUint32(o, true);
    if (offset === ABSENT) return null;
    return utf8(this.bytes, this.stringsAt + offset, this.dv.getUint32(o + 4, true));
  }
}
