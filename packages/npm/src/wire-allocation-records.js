// Content 3 of the wire format: a reconcile input whose groups' allocations are fixed-size records followed by a tail of their strings, which the reconciler reads where they lie instead of decoding them.
//
// docs/wire.md ("Allocations as records") describes the layout; the Rust writer
// (guest-reconciler/src/wire/record_writer.rs) is the authority for its bytes, and this one
// writes the same: it fills a group's tail in the same order and shares a deployment id between
// consecutive records as it does. Everything of the input but the allocation lists is encoded
// as content 1 encodes it, by the same compiled encoders.
//
// The writer checks values as strictly as the generic encoders but names nothing: at the first
// value it cannot write it throws UNFIT, and wire.js encodes the input again as content 1, whose
// encoders either write it (a group too large for the records' four-byte offsets) or name the
// field that does not fit.

import { list as listDecoder } from './wire-decoders.js';
import { list as listEncoder } from './wire-encoders.js';
import { WireError } from './wire-errors.js';
import { UNFIT } from './wire-generated.js';
import { Reader } from './wire-reader.js';
import { putBig64 } from './wire-writer.js';

/** The bytes of one record. */
const RECORD_LEN = 120;

// Where each field lies, from the record's first byte (`allocation_record::at`). A string, and
// the rest, is placed as its offset from the record's first byte and its length, two u32.
const ID = 0;
const NAME_INDEX = 8;
const NODE = 12;
const JOB_VERSION = 16;
const JOB_CREATE_INDEX = 24;
const CREATE_INDEX = 32;
const DESTRUCTIVE = 40;
const IN_PLACE = 48;
const PLACEMENT_SCORE = 56;
const MODIFY_TIME = 64;
const CHANGED_AT = 72;
const DEPLOYMENT = 80;
const PREVIOUS = 88;
const NEXT = 96;
const REST = 104;
const DESIRED_STATUS = 112;
const CLIENT_STATUS = 113;
const TRANSITION = 114;
const HEALTH = 115;
const UPDATE = 116;
const PRESENT = 117;
const RESERVED = 118;

// The bits of the transition byte; without the first, the byte is zero.
const TRANSITION_SET = 1;
const MIGRATE = 1 << 1;
const RESCHEDULE = 1 << 2;
const FORCE_RESCHEDULE = 1 << 3;
const MIGRATE_DISABLE_PLACEMENT = 1 << 4;
const TRANSITION_ALL = 0x1f;

// The bits of the health byte; without the first, the byte is zero.
const HEALTH_SET = 1;
const HEALTHY_KNOWN = 1 << 1;
const HEALTHY = 1 << 2;
const CANARY = 1 << 3;
const CHANGED_AT_KNOWN = 1 << 4;
const HEALTH_ALL = 0x1f;

// The bits of the byte saying which options of the spec are present.
const HAS_DEPLOYMENT = 1;
const HAS_PREVIOUS = 1 << 1;
const HAS_NEXT = 1 << 2;
const HAS_SCORE = 1 << 3;
const PRESENT_ALL = 0x0f;

/** The fields of `observed-state` the rest holds, in its order. */
const REST_FIELDS = ['reschedule', 'followup-eval', 'client-states', 'tasks', 'meta'];

/**
 * The fields of the contract's types that a record lays out, in WIT order. The layout is fixed,
 * not compiled from the WIT: a contract whose allocation has other fields is refused when the
 * codec is built rather than written into the wrong places.
 */
const LAID_OUT = {
  allocation: ['spec', 'observed', 'update'],
  'allocation-spec': [
    'id',
    'name-index',
    'job-version',
    'job-create-index',
    'node',
    'deployment',
    'previous-allocation',
    'next-allocation',
    'create-index',
    'fingerprint',
    'placement-score',
  ],
  fingerprint: ['destructive', 'in-place'],
  'observed-state': [
    'desired-status',
    'client-status',
    'desired-transition',
    'health',
    'reschedule',
    'followup-eval',
    'client-states',
    'tasks',
    'modify-time',
    'meta',
  ],
  'desired-transition': ['migrate', 'reschedule', 'force-reschedule', 'migrate-disable-placement'],
  'deployment-health': ['healthy', 'canary', 'changed-at'],
};

const TWO_32 = 2 ** 32;

/**
 * The encoder of a reconcile input of content 3 for `witTypes`: `generic`'s record encoders (an
 * Encoders) with each field written by `fitted`'s encoder, but the groups' allocation lists
 * written as records. Throws UNFIT, or a Misfit, at a value it does not write.
 */
export function recordsInputEncoder(witTypes, generic, fitted) {
  const of = (type) => fitted.of(type);
  const allocations = recordsWriter(witTypes, fitted);
  const group = generic.record('group-allocations', fieldsOf(witTypes, 'group-allocations'), { of, replaced: { allocations } });
  const groups = listEncoder(group);
  return generic.record('reconcile-input', fieldsOf(witTypes, 'reconcile-input'), { of, replaced: { allocations: groups } });
}

/** The decoder of a reconcile input of content 3, as `recordsInputEncoder` is the encoder. */
export function recordsInputDecoder(witTypes, generic, fitted) {
  const of = (type) => fitted.of(type);
  const allocations = recordsReader(witTypes, fitted);
  const groups = listDecoder(generic.record(fieldsOf(witTypes, 'group-allocations'), { of, replaced: { allocations } }));
  return generic.record(fieldsOf(witTypes, 'reconcile-input'), { of, replaced: { allocations: groups } });
}

function fieldsOf(witTypes, name) {
  return witTypes.types[name].fields;
}

/** The type of the field `field` of the record `name`. */
function fieldType(witTypes, name, field) {
  return fieldsOf(witTypes, name).find((f) => f.name === field).type;
}

function checkLayout(witTypes) {
  for (const [name, fields] of Object.entries(LAID_OUT)) {
    const found = witTypes.types[name]?.fields?.map((f) => f.name);
    if (found?.join() !== fields.join()) {
      throw new TypeError(`content 3 lays out ${name} as (${fields.join(', ')}); the contract's is (${found?.join(', ')})`);
    }
  }
}

/** The cases of the enum `name`. */
function casesOf(witTypes, name) {
  return witTypes.types[name].cases;
}

function isRecord(v) {
  return v !== null && typeof v === 'object' && !Array.isArray(v);
}

function isSome(v) {
  return v !== null && v !== undefined;
}

/**
 * The writer of a group's allocation list: its count, the tail's length, the records, the tail.
 * `encoders` writes the rest of each observed state, as content 1 does.
 */
function recordsWriter(witTypes, encoders) {
  checkLayout(witTypes);
  const desiredStatus = casesOf(witTypes, 'desired-status');
  const clientStatus = casesOf(witTypes, 'client-status');
  const updateKind = casesOf(witTypes, 'update-kind');
  const [encodeReschedule, encodeFollowupEval, encodeClientStates, encodeTasks, encodeMeta] = REST_FIELDS.map((f) =>
    encoders.of(fieldType(witTypes, 'observed-state', f)),
  );

  /**
   * Writes record `a` at `first`, its strings onto the tail. `shared` is the last deployment
   * written to the tail (`text`, where it lies and its length), which a record naming the same
   * one places instead of writing it again, as most records of a rollout do.
   */
  function record(w, first, a, shared) {
    if (!isRecord(a)) throw UNFIT;
    const spec = a.spec;
    if (!isRecord(spec)) throw UNFIT;
    string(w, first, ID, spec.id);
    u32(w.view, first + NAME_INDEX, spec['name-index']);
    u64(w.view, first + JOB_VERSION, spec['job-version']);
    u64(w.view, first + JOB_CREATE_INDEX, spec['job-create-index']);
    u32(w.view, first + NODE, spec.node);
    let present = 0;
    const deployment = spec.deployment;
    if (isSome(deployment)) {
      present |= HAS_DEPLOYMENT;
      if (deployment === shared.text) {
        place(w.view, first, DEPLOYMENT, shared.at, shared.length);
      } else {
        shared.at = w.pos;
        shared.length = string(w, first, DEPLOYMENT, deployment);
        shared.text = deployment;
      }
    }
    const previous = spec['previous-allocation'];
    if (isSome(previous)) {
      present |= HAS_PREVIOUS;
      string(w, first, PREVIOUS, previous);
    }
    const next = spec['next-allocation'];
    if (isSome(next)) {
      present |= HAS_NEXT;
      string(w, first, NEXT, next);
    }
    u64(w.view, first + CREATE_INDEX, spec['create-index']);
    const fingerprint = spec.fingerprint;
    if (!isRecord(fingerprint)) throw UNFIT;
    u64(w.view, first + DESTRUCTIVE, fingerprint.destructive);
    u64(w.view, first + IN_PLACE, fingerprint['in-place']);
    const score = spec['placement-score'];
    if (isSome(score)) {
      if (typeof score !== 'number') throw UNFIT;
      present |= HAS_SCORE;
      w.view.setFloat64(first + PLACEMENT_SCORE, score, true);
    }
    w.bytes[first + PRESENT] = present;
    observed(w, first, a.observed);
    const update = a.update;
    if (isSome(update)) w.bytes[first + UPDATE] = caseOf(updateKind, update) + 1;
  }

  function observed(w, first, o) {
    if (!isRecord(o)) throw UNFIT;
    const bytes = w.bytes;
    bytes[first + DESIRED_STATUS] = caseOf(desiredStatus, o['desired-status']);
    bytes[first + CLIENT_STATUS] = caseOf(clientStatus, o['client-status']);
    const transition = o['desired-transition'];
    if (isSome(transition)) {
      if (!isRecord(transition)) throw UNFIT;
      bytes[first + TRANSITION] =
        TRANSITION_SET |
        bit(transition.migrate, MIGRATE) |
        bit(transition.reschedule, RESCHEDULE) |
        bit(transition['force-reschedule'], FORCE_RESCHEDULE) |
        bit(transition['migrate-disable-placement'], MIGRATE_DISABLE_PLACEMENT);
    }
    const health = o.health;
    if (isSome(health)) {
      if (!isRecord(health)) throw UNFIT;
      const healthy = health.healthy;
      let bits = HEALTH_SET | (isSome(healthy) ? HEALTHY_KNOWN | bit(healthy, HEALTHY) : 0) | bit(health.canary, CANARY);
      const changedAt = health['changed-at'];
      if (isSome(changedAt)) {
        bits |= CHANGED_AT_KNOWN;
        s64(w.view, first + CHANGED_AT, changedAt);
      }
      bytes[first + HEALTH] = bits;
    }
    // Read in WIT order, as the content 1 encoders read them; written after modify-time.
    const reschedule = o.reschedule;
    const followupEval = o['followup-eval'];
    const clientStates = o['client-states'];
    const tasks = o.tasks;
    s64(w.view, first + MODIFY_TIME, o['modify-time']);
    const meta = o.meta;
    if (!isSome(reschedule) && !isSome(followupEval) && !isSome(clientStates) && !isSome(tasks) && !isSome(meta)) return;
    const at = w.pos;
    encodeReschedule(w, reschedule);
    encodeFollowupEval(w, followupEval);
    encodeClientStates(w, clientStates);
    encodeTasks(w, tasks);
    encodeMeta(w, meta);
    place(w.view, first, REST, at, w.pos - at);
  }

  return (w, allocations) => {
    if (!Array.isArray(allocations)) throw UNFIT;
    const n = allocations.length;
    w.varint(n);
    const lengthAt = w.pos;
    const records = lengthAt + 4;
    const tail = records + n * RECORD_LEN;
    w.reserve(tail - lengthAt);
    // The buffer is the last encoding's: absent fields and unused bytes must be zeroed.
    w.bytes.fill(0, lengthAt, tail);
    w.pos = tail;
    const shared = { text: null, at: 0, length: 0 };
    for (let i = 0; i < n; i++) record(w, records + i * RECORD_LEN, allocations[i], shared);
    // Offsets are four bytes: a larger group goes as content 1, as docs/wire.md has writers do.
    if (w.pos - records > 0xffffffff) throw UNFIT;
    w.view.setUint32(lengthAt, w.pos - tail, true);
  };
}

/** The position of the case `v` in `cases`: a scan, as enums have a few cases, was faster than a Map. */
function caseOf(cases, v) {
  const i = cases.indexOf(v);
  if (i < 0) throw UNFIT;
  return i;
}

/** `set` when the bool `v` is true. */
function bit(v, set) {
  if (v === true) return set;
  if (v === false) return 0;
  throw UNFIT;
}

/** Places at `field` of the record at `first` the `length` bytes at `at`. */
function place(view, first, field, at, length) {
  view.setUint32(first + field, at - first, true);
  view.setUint32(first + field + 4, length, true);
}

/** Writes the string `s` onto the tail and places it at `field`; returns its length in bytes. */
function string(w, first, field, s) {
  if (typeof s !== 'string') throw UNFIT;
  const at = w.pos;
  const length = w.text(s);
  place(w.view, first, field, at, length);
  return length;
}

function u32(view, at, v) {
  if (typeof v !== 'number' || v >>> 0 !== v) throw UNFIT;
  view.setUint32(at, v, true);
}

// A number's high half below is Math.floor(v / 2^32), exact for a safe integer; the bytes were
// zeroed, so a number within 32 bits needs only its low half.
function u64(view, at, v) {
  if (typeof v === 'number') {
    if (v >>> 0 === v) {
      view.setUint32(at, v, true);
      return;
    }
    if (!Number.isSafeInteger(v) || v < 0) throw UNFIT;
    const hi = Math.floor(v / TWO_32);
    view.setUint32(at, v - hi * TWO_32, true);
    view.setUint32(at + 4, hi, true);
  } else if (typeof v === 'bigint' && BigInt.asUintN(64, v) === v) {
    putBig64(view, at, v);
  } else {
    throw UNFIT;
  }
}

function s64(view, at, v) {
  if (typeof v === 'number') {
    if (!Number.isSafeInteger(v)) throw UNFIT;
    const hi = Math.floor(v / TWO_32);
    view.setUint32(at, v - hi * TWO_32, true);
    view.setInt32(at + 4, hi, true);
  } else if (typeof v === 'bigint' && BigInt.asIntN(64, v) === v) {
    putBig64(view, at, v);
  } else {
    throw UNFIT;
  }
}

/**
 * The reader of a group's allocation list, checking each record as the reconciler does
 * (record_reader.rs): every string and rest within the group's tail, strings UTF-8, cases and
 * flags in range, absent fields and unused bytes zero, the rest decoding whole. `decoders`
 * reads the rest of each observed state. A record that fails throws a WireError.
 */
function recordsReader(witTypes, decoders) {
  checkLayout(witTypes);
  const cases = {
    desiredStatus: casesOf(witTypes, 'desired-status'),
    clientStatus: casesOf(witTypes, 'client-status'),
    updateKind: casesOf(witTypes, 'update-kind'),
  };
  const rest = REST_FIELDS.map((f) => decoders.of(fieldType(witTypes, 'observed-state', f)));
  return (r) => {
    const count = r.varint();
    if (r.bytes.length - r.pos < 4) throw r.truncated();
    const tailLength = r.view.getUint32(r.pos, true);
    const records = r.pos + 4;
    if (typeof count !== 'number' || count * RECORD_LEN > r.bytes.length - records) {
      throw new WireError(`an allocation count of ${count} claims more records than the buffer holds, at byte ${records}`);
    }
    const tail = records + count * RECORD_LEN;
    if (tailLength > r.bytes.length - tail) {
      throw new WireError(`a tail of ${tailLength} bytes runs past the end of the buffer, at byte ${tail}`);
    }
    const group = new GroupRecords(r, tail, tail + tailLength, cases, rest);
    const out = new Array(count);
    for (let i = 0; i < count; i++) out[i] = group.allocation(i, records + i * RECORD_LEN);
    r.pos = group.end;
    return out;
  };
}

/** The records of one group, read with `r`, their tail from `tail` to `end`. */
class GroupRecords {
  constructor(r, tail, end, cases, rest) {
    this.r = r;
    this.bytes = r.bytes;
    this.view = r.view;
    this.tail = tail;
    this.end = end;
    this.cases = cases;
    this.rest = rest;
    // The record being read: its position in the list, and its first byte.
    this.i = 0;
    this.first = 0;
  }

  refuse(field, message) {
    throw new WireError(`allocation ${this.i} of a group, a record at byte ${this.first}: ${field} ${message}`);
  }

  /** The `length` bytes at `at`, an absent field's or unused, which must be zero. */
  zero(at, length, field) {
    for (let k = this.first + at; k < this.first + at + length; k++) {
      if (this.bytes[k] !== 0) this.refuse(field, 'is absent, but its bytes are not zero');
    }
  }

  /** Where the bytes placed at `at` start and end, which must lie within the tail. */
  placed(at, field) {
    const from = this.first + this.view.getUint32(this.first + at, true);
    const to = from + this.view.getUint32(this.first + at + 4, true);
    if (from < this.tail || to > this.end) this.refuse(field, "is placed outside its group's tail");
    return [from, to];
  }

  string(at, field) {
    const [from, to] = this.placed(at, field);
    return this.r.stringAt(from, to);
  }

  /** The optional string at `at`, present when the presence flags `present` have the bit `has`. */
  optional(present, has, at, field) {
    if ((present & has) !== 0) return this.string(at, field);
    this.zero(at, 8, field);
    return null;
  }

  /** A byte of flags at `at`: no unknown bits, and none without the presence bit `set`. */
  flags(at, set, all, field) {
    const bits = this.bytes[this.first + at];
    if ((bits & ~all) !== 0 || ((bits & set) === 0 && bits !== 0)) {
      this.refuse(field, 'has flags out of range, or set while absent');
    }
    return bits;
  }

  /** The case at `at` of `cases`; `offset` is what the byte adds to the case's position. */
  caseAt(at, cases, field, offset = 0) {
    const c = cases[this.bytes[this.first + at] - offset];
    if (c === undefined) this.refuse(field, 'is not a case');
    return c;
  }

  /** The rest of the observed state: its five fields, all null when it has none. */
  restOf() {
    const field = 'observed (its rest)';
    if (this.view.getUint32(this.first + REST + 4, true) === 0) {
      this.zero(REST, 8, field);
      return [null, null, null, null, null];
    }
    const [from, to] = this.placed(REST, field);
    const r = new Reader(this.bytes.subarray(from, to));
    let values;
    try {
      values = this.rest.map((decode) => decode(r));
    } catch (e) {
      if (!(e instanceof WireError)) throw e;
      this.refuse(field, `does not decode: ${e.message}, counting from byte ${from}`);
    }
    if (r.pos !== to - from) this.refuse(field, `is followed by ${to - from - r.pos} bytes in its place`);
    return values;
  }

  /** Allocation `i`, whose record starts at `first`. */
  allocation(i, first) {
    this.i = i;
    this.first = first;
    const { bytes, view } = this;
    const present = bytes[first + PRESENT];
    if ((present & ~PRESENT_ALL) !== 0) this.refuse('spec', 'has unknown bits in its presence flags');
    const id = this.string(ID, 'spec.id');
    const deployment = this.optional(present, HAS_DEPLOYMENT, DEPLOYMENT, 'spec.deployment');
    const previous = this.optional(present, HAS_PREVIOUS, PREVIOUS, 'spec.previous-allocation');
    const next = this.optional(present, HAS_NEXT, NEXT, 'spec.next-allocation');
    let score = null;
    if ((present & HAS_SCORE) !== 0) {
      const f = view.getFloat64(first + PLACEMENT_SCORE, true);
      score = Number.isFinite(f) ? f : null;
    } else {
      this.zero(PLACEMENT_SCORE, 8, 'spec.placement-score');
    }
    const desired = this.caseAt(DESIRED_STATUS, this.cases.desiredStatus, 'observed.desired-status');
    const client = this.caseAt(CLIENT_STATUS, this.cases.clientStatus, 'observed.client-status');
    const t = this.flags(TRANSITION, TRANSITION_SET, TRANSITION_ALL, 'observed.desired-transition');
    const h = this.flags(HEALTH, HEALTH_SET, HEALTH_ALL, 'observed.health');
    if ((h & HEALTHY_KNOWN) === 0 && (h & HEALTHY) !== 0) this.refuse('observed.health.healthy', 'has a value but is absent');
    if ((h & CHANGED_AT_KNOWN) === 0) this.zero(CHANGED_AT, 8, 'observed.health.changed-at');
    const update = bytes[first + UPDATE] === 0 ? null : this.caseAt(UPDATE, this.cases.updateKind, 'update', 1);
    this.zero(RESERVED, 2, 'the reserved bytes');
    const [reschedule, followupEval, clientStates, tasks, meta] = this.restOf();
    return {
      spec: {
        id,
        'name-index': view.getUint32(first + NAME_INDEX, true),
        'job-version': u64At(view, first + JOB_VERSION),
        'job-create-index': u64At(view, first + JOB_CREATE_INDEX),
        node: view.getUint32(first + NODE, true),
        deployment,
        'previous-allocation': previous,
        'next-allocation': next,
        'create-index': u64At(view, first + CREATE_INDEX),
        fingerprint: { destructive: u64At(view, first + DESTRUCTIVE), 'in-place': u64At(view, first + IN_PLACE) },
        'placement-score': score,
      },
      observed: {
        'desired-status': desired,
        'client-status': client,
        'desired-transition':
          t === 0
            ? null
            : {
                migrate: (t & MIGRATE) !== 0,
                reschedule: (t & RESCHEDULE) !== 0,
                'force-reschedule': (t & FORCE_RESCHEDULE) !== 0,
                'migrate-disable-placement': (t & MIGRATE_DISABLE_PLACEMENT) !== 0,
              },
        health:
          h === 0
            ? null
            : {
                healthy: (h & HEALTHY_KNOWN) === 0 ? null : (h & HEALTHY) !== 0,
                canary: (h & CANARY) !== 0,
                'changed-at': (h & CHANGED_AT_KNOWN) === 0 ? null : s64At(view, first + CHANGED_AT),
              },
        reschedule,
        'followup-eval': followupEval,
        'client-states': clientStates,
        tasks,
        'modify-time': s64At(view, first + MODIFY_TIME),
        meta,
      },
      update,
    };
  }
}

/** A u64 as the content 1 decoders read it: a number when exact, else a BigInt. */
function u64At(view, at) {
  const hi = view.getUint32(at + 4, true);
  return hi < 0x200000 ? hi * TWO_32 + view.getUint32(at, true) : view.getBigUint64(at, true);
}

/** An s64 as the content 1 decoders read it: a number when exact, else a BigInt. */
function s64At(view, at) {
  const hi = view.getInt32(at + 4, true);
  const n = hi * TWO_32 + view.getUint32(at, true);
  return hi >= -0x200000 && hi < 0x200000 && n >= -Number.MAX_SAFE_INTEGER ? n : view.getBigInt64(at, true);
}
