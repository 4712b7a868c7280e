// The wire format's decoders: each WIT type of the contract compiled once into a function that reads a value from a buffer into the JSON rendering.

import { WireError } from './wire-errors.js';
import { recordDecoder } from './wire-records.js';
import { TypeCompiler } from './wire-types.js';

const SAFE = BigInt(Number.MAX_SAFE_INTEGER);

function bool(r) {
  const b = r.byte();
  if (b > 1) throw new WireError(`a bool that is neither 0 nor 1 at byte ${r.pos - 1}`);
  return b === 1;
}

function unsigned(prim, max) {
  return (r) => {
    const n = r.varint();
    if (typeof n !== 'number' || n > max) throw new WireError(`a ${prim} out of range at byte ${r.pos}`);
    return n;
  };
}

function signed(prim) {
  return (r) => {
    const z = r.varint();
    if (typeof z !== 'number') throw new WireError(`a ${prim} out of range at byte ${r.pos}`);
    return z % 2 === 0 ? z / 2 : -(z + 1) / 2;
  };
}

function s64(r) {
  const z = r.varint();
  if (typeof z === 'number') return z % 2 === 0 ? z / 2 : -(z + 1) / 2;
  const n = z % 2n === 0n ? z / 2n : -(z + 1n) / 2n;
  return n >= -SAFE && n <= SAFE ? Number(n) : n;
}

const PRIMITIVES = {
  bool,
  string: (r) => r.string(),
  u8: (r) => r.byte(),
  s8: (r) => (r.byte() << 24) >> 24,
  u16: unsigned('u16', 0xffff),
  u32: unsigned('u32', 0xffffffff),
  s16: signed('s16'),
  s32: signed('s32'),
  u64: (r) => r.varint(),
  s64,
  f32(r) {
    const n = r.f32();
    return Number.isFinite(n) ? n : null;
  },
  f64(r) {
    const n = r.f64();
    return Number.isFinite(n) ? n : null;
  },
};

/** Compiles and caches the decoders of the types `witTypes` describes. */
export class Decoders extends TypeCompiler {
  constructor(witTypes) {
    super(witTypes, {
      primitives: PRIMITIVES, bytes, option, list, tuple,
      result: ({ ok, err }, decoders) => result(ok, err, decoders),
      forward: (get) => (r) => get()(r),
    });
  }

  definition(name, def) {
    switch (def.kind) {
      case 'alias':
        return this.of(def.type);
      case 'record':
        return this.record(def.fields);
      case 'enum':
        return enumeration(name, def.cases);
      case 'variant':
        return variant(
          name,
          def.cases.map((c) => c.name),
          def.cases.map((c) => (c.type === null ? null : this.of(c.type))),
        );
      default:
        throw new TypeError(`the wire format has no codec for ${name}, a ${def.kind}`);
    }
  }

  /** The decoder of a record of `fields`, each read by `of(type)`'s decoder or, by name, by the one `replaced` gives. */
  record(fields, { of = (type) => this.of(type), replaced = {} } = {}) {
    return recordDecoder(
      fields.map((f) => f.name),
      fields.map((f) => (Object.hasOwn(replaced, f.name) ? replaced[f.name] : of(f.type))),
    );
  }
}

function enumeration(name, cases) {
  return (r) => {
    const i = r.varint();
    if (!(i < cases.length)) throw new WireError(`case ${i} of ${name}, which has ${cases.length}`);
    return cases[i];
  };
}

function variant(name, names, decoders) {
  return (r) => {
    const i = r.varint();
    if (!(i < names.length)) throw new WireError(`case ${i} of ${name}, which has ${names.length}`);
    const decode = decoders[i];
    return decode === null ? names[i] : { [names[i]]: decode(r) };
  };
}

function option(inner) {
  return (r) => {
    const tag = r.byte();
    if (tag > 1) throw new WireError(`an option tag that is neither 0 nor 1 at byte ${r.pos - 1}`);
    return tag === 1 ? inner(r) : null;
  };
}

/** The decoder of a list whose items `element` reads. */
export function list(element) {
  return (r) => {
    // Every item takes at least a byte: a length beyond what remains is a lie.
    const n = r.length();
    const out = new Array(n);
    for (let i = 0; i < n; i++) out[i] = element(r);
    return out;
  };
}

function bytes(r) {
  return Array.from(r.raw(r.length()));
}

function tuple(items) {
  return (r) => items.map((decode) => decode(r));
}

function result(ok, err, decoders) {
  const okDecoder = ok === null ? null : decoders.of(ok);
  const errDecoder = err === null ? null : decoders.of(err);
  return (r) => {
    const tag = r.varint();
    if (tag === 0) return { Ok: okDecoder === null ? null : okDecoder(r) };
    if (tag === 1) return { Err: errDecoder === null ? null : errDecoder(r) };
    throw new WireError(`a result tag ${tag}, neither Ok (0) nor Err (1)`);
  };
}
