// The wire format's encoders: each WIT type of the contract compiled once into a function that checks a value in the JSON rendering and writes it.
//
// An encoder is `(writer, value) => void`. It knows nothing of where the value
// sits: a value that does not fit throws a Misfit, and each record, list,
// tuple, variant and result it passes through adds its step to the path.

import { describe, misfit, Misfit, within } from './wire-errors.js';
import { recordEncoder } from './wire-records.js';
import { TypeCompiler } from './wire-types.js';

const U64_MAX = 2n ** 64n - 1n;
const S64_MIN = -(2n ** 63n);
const S64_MAX = 2n ** 63n - 1n;
const TWO_52 = 2 ** 52;

function bool(w, v) {
  if (typeof v !== 'boolean') misfit('bool', v);
  w.byte(v ? 1 : 0);
}

function string(w, v) {
  if (typeof v !== 'string') misfit('string', v);
  w.string(v);
}

function u8(w, v) {
  if (!Number.isInteger(v) || v < 0 || v > 0xff) misfit('u8', v);
  w.byte(v);
}

function s8(w, v) {
  if (!Number.isInteger(v) || v < -0x80 || v > 0x7f) misfit('s8', v);
  w.byte(v & 0xff);
}

function unsigned(prim, max) {
  return (w, v) => {
    if (!Number.isInteger(v) || v < 0 || v > max) misfit(prim, v);
    w.varint32(v);
  };
}

function signed(prim, min, max) {
  return (w, v) => {
    if (!Number.isInteger(v) || v < min || v > max) misfit(prim, v);
    w.varint32(v >= 0 ? v * 2 : -v * 2 - 1);
  };
}

function u64(w, v) {
  if (typeof v === 'number') {
    if (!Number.isSafeInteger(v) || v < 0) misfit('u64 (a BigInt beyond 2^53)', v);
    w.varint(v);
  } else if (typeof v === 'bigint' && v >= 0n && v <= U64_MAX) {
    w.varintBig(v);
  } else {
    misfit('u64', v);
  }
}

function s64(w, v) {
  // Zigzag: 2n for n >= 0, -2n - 1 below; exact in a double below 2^52.
  if (typeof v === 'number' && Number.isSafeInteger(v) && Math.abs(v) < TWO_52) {
    w.varint(v >= 0 ? v * 2 : -v * 2 - 1);
  } else if (typeof v === 'bigint' && v >= S64_MIN && v <= S64_MAX) {
    w.zigzagBig(v);
  } else if (Number.isSafeInteger(v)) {
    w.zigzagBig(BigInt(v));
  } else {
    misfit('s64', v);
  }
}

function f32(w, v) {
  if (v === null) v = NaN;
  if (typeof v !== 'number') misfit('f32', v);
  w.f32(v);
}

function f64(w, v) {
  if (v === null) v = NaN;
  if (typeof v !== 'number') misfit('f64', v);
  w.f64(v);
}

const PRIMITIVES = {
  bool,
  string,
  u8,
  s8,
  u16: unsigned('u16', 0xffff),
  u32: unsigned('u32', 0xffffffff),
  s16: signed('s16', -0x8000, 0x7fff),
  s32: signed('s32', -0x80000000, 0x7fffffff),
  u64,
  s64,
  f32,
  f64,
};

function isRecord(v) {
  return v !== null && typeof v === 'object' && !Array.isArray(v);
}

/** Compiles and caches the encoders of the types `witTypes` describes. */
export class Encoders extends TypeCompiler {
  constructor(witTypes) {
    super(witTypes, {
      primitives: PRIMITIVES, bytes, option, list, tuple,
      result: (type, encoders) => encoders.result(type),
      forward: (get) => (w, v) => get()(w, v),
    });
  }

  definition(name, def) {
    switch (def.kind) {
      case 'alias':
        return this.of(def.type);
      case 'record':
        return this.record(name, def.fields);
      case 'enum':
        return enumeration(name, def.cases);
      case 'variant':
        return this.variant(name, def.cases);
      default:
        throw new TypeError(`the wire format has no codec for ${name}, a ${def.kind}`);
    }
  }

  /**
   * The encoder of the record `name`, whose fields are `fields`; its fields' encoders are
   * `of(type)`'s, but for those `replaced` gives by name (content 3's allocation lists).
   */
  record(name, fields, { of = (type) => this.of(type), replaced = {} } = {}) {
    return recordEncoder(
      name,
      fields.map((f) => {
        if (Object.hasOwn(replaced, f.name)) return { key: f.name, encode: replaced[f.name], optional: false, some: null };
        const some = this.optionOf(f.type);
        return {
          key: f.name,
          encode: of(f.type),
          optional: some !== null,
          some: some === null ? null : of(some),
        };
      }),
    );
  }

  variant(name, cases) {
    const encoders = cases.map((c) => (c.type === null ? null : this.of(c.type)));
    const index = new Map(cases.map((c, i) => [c.name, i]));
    const expected = `a case of ${name}`;
    const expectedOne = `a case of ${name} (${cases.map((c) => c.name).join(', ')})`;
    return (w, v) => {
      let tag = v;
      let payload;
      if (isRecord(v)) {
        const keys = Object.keys(v);
        if (keys.length !== 1) misfit(expected, v);
        [tag] = keys;
        payload = v[tag];
      }
      const i = index.get(tag);
      if (i === undefined) misfit(expectedOne, v);
      w.varint32(i);
      const encode = encoders[i];
      if (encode === null) return;
      try {
        encode(w, payload);
      } catch (e) {
        throw within(e, `.${tag}`);
      }
    };
  }

  result({ ok, err }) {
    const okEncoder = ok === null ? null : this.of(ok);
    const errEncoder = err === null ? null : this.of(err);
    // One arm of the result: its tag, then its value when it carries one.
    const arm = (w, tag, encoder, value, step) => {
      w.byte(tag);
      if (encoder === null) return;
      try {
        encoder(w, value);
      } catch (e) {
        throw within(e, step);
      }
    };
    return (w, v) => {
      if (v !== null && typeof v === 'object' && 'Ok' in v) arm(w, 0, okEncoder, v.Ok, '.Ok');
      else if (v !== null && typeof v === 'object' && 'Err' in v) arm(w, 1, errEncoder, v.Err, '.Err');
      else misfit('{Ok: ...} or {Err: ...}', v);
    };
  }

  /** The type of an option's value, when `type` is an option (or an alias of one); else null. */
  optionOf(type) {
    if (typeof type !== 'object' || type === null) return null;
    if ('option' in type) return type.option;
    if ('ref' in type) {
      const def = this.witTypes.types[type.ref];
      return def?.kind === 'alias' ? this.optionOf(def.type) : null;
    }
    return null;
  }
}

function enumeration(name, cases) {
  const index = new Map(cases.map((c, i) => [c, i]));
  const expected = `a case of ${name} (${cases.join(', ')})`;
  return (w, v) => {
    const i = index.get(v);
    if (i === undefined) misfit(expected, v);
    w.varint32(i);
  };
}

function option(inner) {
  return (w, v) => {
    if (v === null || v === undefined) {
      w.byte(0);
    } else {
      w.byte(1);
      inner(w, v);
    }
  };
}

/** The encoder of a list whose items `element` encodes. */
export function list(element) {
  return (w, v) => {
    if (!Array.isArray(v)) misfit('a list', v);
    const n = v.length;
    w.varint(n);
    let i = 0;
    try {
      for (; i < n; i++) element(w, v[i]);
    } catch (e) {
      throw within(e, `[${i}]`);
    }
  };
}

function bytes(w, v) {
  if (v instanceof Uint8Array) {
    w.varint(v.length);
    w.raw(v);
    return;
  }
  if (!Array.isArray(v)) misfit('list<u8>', v);
  w.varint(v.length);
  w.reserve(v.length);
  for (let i = 0; i < v.length; i++) {
    const b = v[i];
    if (!Number.isInteger(b) || b < 0 || b > 0xff) {
      const error = new Misfit(`expected u8, got ${describe(b)}`);
      throw within(error, `[${i}]`);
    }
    w.bytes[w.pos++] = b;
  }
}

function tuple(items) {
  const n = items.length;
  const expected = `a tuple of ${n}`;
  return (w, v) => {
    if (!Array.isArray(v) || v.length !== n) misfit(expected, v);
    let i = 0;
    try {
      for (; i < n; i++) items[i](w, v[i]);
    } catch (e) {
      throw within(e, `[${i}]`);
    }
  };
}
