// The wire format in JavaScript: values of the contract in slotwise's JSON rendering, encoded into and decoded from the buffers `reconcile-encoded` takes and returns.
//
// The format is described in docs/wire.md: a four-byte header ("S", "W", the
// format version, what the buffer holds), then the value in postcard's
// encoding, driven by the WIT alone. Codecs are compiled once per type from
// the description `cargo xtask build` writes (target/slotwise/wit-types.json),
// so that encoding a large input runs straight-line closures, not a type walk.
//
// Values are in the rendering `slotwise reconcile --json` prints: records as
// objects with kebab-case keys, enums as their case name, variants as "case"
// or {"case": payload}, options as null (or an absent field) or the value,
// results as {Ok} or {Err}, u64 and s64 as numbers, or BigInt beyond 2^53.
//
// The module uses no Node API, so that a browser can load it as it is.

/** The format version this codec writes and reads: `wire::VERSION` in the reconciler. */
export const WIRE_VERSION = 1;

/** What a buffer holds: its fourth byte. */
export const CONTENT = { input: 1, outcome: 2 };

const SAFE = BigInt(Number.MAX_SAFE_INTEGER);
const U64_MAX = 2n ** 64n - 1n;
const S64_MIN = -(2n ** 63n);
const S64_MAX = 2n ** 63n - 1n;

const utf8Encoder = new TextEncoder();
const utf8Decoder = new TextDecoder('utf-8', { fatal: true });

/** Why a buffer could not be read. */
export class WireError extends Error {
  constructor(message) {
    super(message);
    this.name = 'WireError';
  }
}

function describe(value) {
  if (typeof value === 'bigint') return `${value}n`;
  const text = JSON.stringify(value);
  return text === undefined ? String(value) : text.length > 60 ? `${text.slice(0, 57)}...` : text;
}

/** A value that does not fit the contract: `path` is where, `reason` what is wrong. */
export class FieldError extends TypeError {
  constructor(path, reason) {
    super(`${path}: ${reason}`);
    this.name = 'FieldError';
    this.path = path;
    this.reason = reason;
  }
}

function fail(path, expected, value) {
  throw new FieldError(path, `expected ${expected}, got ${describe(value)}`);
}

/** A growable output buffer. */
class Writer {
  constructor(size = 1024) {
    this.bytes = new Uint8Array(size);
    this.pos = 0;
  }

  reserve(n) {
    if (this.pos + n <= this.bytes.length) return;
    let size = this.bytes.length * 2;
    while (size < this.pos + n) size *= 2;
    const grown = new Uint8Array(size);
    grown.set(this.bytes.subarray(0, this.pos));
    this.bytes = grown;
  }

  byte(b) {
    this.reserve(1);
    this.bytes[this.pos++] = b;
  }

  /** A non-negative integer below 2^53 as a varint. */
  varint(n) {
    this.reserve(8);
    while (n >= 0x80) {
      this.bytes[this.pos++] = (n % 0x80) | 0x80;
      n = Math.floor(n / 0x80);
    }
    this.bytes[this.pos++] = n;
  }

  /** A non-negative BigInt as a varint. */
  varintBig(n) {
    this.reserve(10);
    while (n >= 0x80n) {
      this.bytes[this.pos++] = Number(n & 0x7fn) | 0x80;
      n >>= 7n;
    }
    this.bytes[this.pos++] = Number(n);
  }

  string(s) {
    // Every UTF-16 unit takes at most three bytes of UTF-8: a short string's
    // length fits the one varint byte reserved ahead of it.
    if (s.length <= 42) {
      this.reserve(1 + s.length * 3);
      const { written } = utf8Encoder.encodeInto(s, this.bytes.subarray(this.pos + 1));
      this.bytes[this.pos] = written;
      this.pos += 1 + written;
      return;
    }
    const encoded = utf8Encoder.encode(s);
    this.varint(encoded.length);
    this.raw(encoded);
  }

  raw(bytes) {
    this.reserve(bytes.length);
    this.bytes.set(bytes, this.pos);
    this.pos += bytes.length;
  }

  float(n, size) {
    this.reserve(size);
    const view = new DataView(this.bytes.buffer, this.bytes.byteOffset + this.pos, size);
    if (size === 8) view.setFloat64(0, n, true);
    else view.setFloat32(0, n, true);
    this.pos += size;
  }

  finish() {
    return this.bytes.slice(0, this.pos);
  }
}

/** A position in an input buffer. */
class Reader {
  constructor(bytes) {
    this.bytes = bytes;
    this.pos = 0;
  }

  truncated() {
    return new WireError(
      `the buffer ends inside a value at byte ${this.pos}: it is truncated, or a length claims more than it holds`,
    );
  }

  byte() {
    if (this.pos >= this.bytes.length) throw this.truncated();
    return this.bytes[this.pos++];
  }

  /** A varint: a number when it is exact, else a BigInt. */
  varint() {
    let n = 0;
    let scale = 1;
    for (let i = 0; i < 10; i++) {
      const b = this.byte();
      n += (b & 0x7f) * scale;
      if ((b & 0x80) === 0) {
        if (n <= Number.MAX_SAFE_INTEGER) return n;
        return this.rereadBig(i + 1);
      }
      scale *= 0x80;
    }
    throw new WireError(`a malformed varint at byte ${this.pos}`);
  }

  /** Reads the `length`-byte varint that ends here again, exactly. */
  rereadBig(length) {
    let n = 0n;
    for (let i = length - 1; i >= 0; i--) {
      n = (n << 7n) | BigInt(this.bytes[this.pos - length + i] & 0x7f);
    }
    if (n > U64_MAX) throw new WireError(`a varint beyond 64 bits at byte ${this.pos}`);
    return n;
  }

  length() {
    const n = this.varint();
    if (typeof n !== 'number' || n > this.bytes.length - this.pos) throw this.truncated();
    return n;
  }

  string() {
    const n = this.length();
    const start = this.pos;
    this.pos += n;
    const bytes = this.bytes;
    // Short ASCII strings, the common case, skip the decoder's call.
    if (n <= 32) {
      let ascii = '';
      for (let i = start; i < start + n; i++) {
        const b = bytes[i];
        if (b >= 0x80) return this.utf8(start, n);
        ascii += String.fromCharCode(b);
      }
      return ascii;
    }
    return this.utf8(start, n);
  }

  utf8(start, n) {
    try {
      return utf8Decoder.decode(this.bytes.subarray(start, start + n));
    } catch {
      throw new WireError(`a string that is not UTF-8 at byte ${start}`);
    }
  }

  raw(n) {
    if (n > this.bytes.length - this.pos) throw this.truncated();
    const out = this.bytes.subarray(this.pos, this.pos + n);
    this.pos += n;
    return out;
  }

  float(size) {
    const raw = this.raw(size);
    const view = new DataView(raw.buffer, raw.byteOffset, size);
    return size === 8 ? view.getFloat64(0, true) : view.getFloat32(0, true);
  }
}

const SMALL = {
  u16: [0, 0xffff],
  u32: [0, 0xffffffff],
  s16: [-0x8000, 0x7fff],
  s32: [-0x80000000, 0x7fffffff],
};

function primitiveCodec(prim) {
  switch (prim) {
    case 'bool':
      return {
        write(w, v, path) {
          if (typeof v !== 'boolean') fail(path, 'bool', v);
          w.byte(v ? 1 : 0);
        },
        read(r) {
          const b = r.byte();
          if (b > 1) throw new WireError(`a bool that is neither 0 nor 1 at byte ${r.pos - 1}`);
          return b === 1;
        },
      };
    case 'string':
      return {
        write(w, v, path) {
          if (typeof v !== 'string') fail(path, 'string', v);
          w.string(v);
        },
        read: (r) => r.string(),
      };
    case 'u8':
      return {
        write(w, v, path) {
          if (!Number.isInteger(v) || v < 0 || v > 0xff) fail(path, 'u8', v);
          w.byte(v);
        },
        read: (r) => r.byte(),
      };
    case 's8':
      return {
        write(w, v, path) {
          if (!Number.isInteger(v) || v < -0x80 || v > 0x7f) fail(path, 's8', v);
          w.byte(v & 0xff);
        },
        read: (r) => (r.byte() << 24) >> 24,
      };
    case 'u16':
    case 'u32':
      return {
        write(w, v, path) {
          const [min, max] = SMALL[prim];
          if (!Number.isInteger(v) || v < min || v > max) fail(path, prim, v);
          w.varint(v);
        },
        read(r) {
          const n = r.varint();
          if (typeof n !== 'number' || n > SMALL[prim][1]) throw new WireError(`a ${prim} out of range at byte ${r.pos}`);
          return n;
        },
      };
    case 's16':
    case 's32':
      return {
        write(w, v, path) {
          const [min, max] = SMALL[prim];
          if (!Number.isInteger(v) || v < min || v > max) fail(path, prim, v);
          w.varint(v >= 0 ? v * 2 : -v * 2 - 1);
        },
        read(r) {
          const z = r.varint();
          if (typeof z !== 'number') throw new WireError(`a ${prim} out of range at byte ${r.pos}`);
          return z % 2 === 0 ? z / 2 : -(z + 1) / 2;
        },
      };
    case 'u64':
      return {
        write(w, v, path) {
          if (typeof v === 'number') {
            if (!Number.isSafeInteger(v) || v < 0) fail(path, 'u64 (a BigInt beyond 2^53)', v);
            w.varint(v);
          } else if (typeof v === 'bigint' && v >= 0n && v <= U64_MAX) {
            w.varintBig(v);
          } else {
            fail(path, 'u64', v);
          }
        },
        read: (r) => r.varint(),
      };
    case 's64':
      return {
        write(w, v, path) {
          // Zigzag: 2n for n >= 0, -2n - 1 below; exact in a double up to 2^52.
          if (typeof v === 'number' && Number.isSafeInteger(v) && Math.abs(v) < 2 ** 52) {
            w.varint(v >= 0 ? v * 2 : -v * 2 - 1);
          } else if ((typeof v === 'bigint' || Number.isSafeInteger(v)) && BigInt(v) >= S64_MIN && BigInt(v) <= S64_MAX) {
            const b = BigInt(v);
            w.varintBig(b >= 0n ? b * 2n : -b * 2n - 1n);
          } else {
            fail(path, 's64', v);
          }
        },
        read(r) {
          const z = r.varint();
          if (typeof z === 'number') return z % 2 === 0 ? z / 2 : -(z + 1) / 2;
          const n = z % 2n === 0n ? z / 2n : -(z + 1n) / 2n;
          return n >= -SAFE && n <= SAFE ? Number(n) : n;
        },
      };
    case 'f32':
    case 'f64': {
      const size = prim === 'f64' ? 8 : 4;
      return {
        write(w, v, path) {
          if (v === null) v = NaN;
          if (typeof v !== 'number') fail(path, prim, v);
          w.float(v, size);
        },
        read(r) {
          const n = r.float(size);
          return Number.isFinite(n) ? n : null;
        },
      };
    }
    default:
      throw new TypeError(`the wire format has no codec for the WIT type ${prim}`);
  }
}

/** Builds and caches the codecs of the types `witTypes` describes. */
class Codecs {
  constructor(witTypes) {
    this.witTypes = witTypes;
    this.named = new Map();
  }

  of(type) {
    if (typeof type === 'string') return primitiveCodec(type);
    if ('ref' in type) return this.ref(type.ref);
    if ('option' in type) return this.option(this.of(type.option));
    if ('list' in type) return type.list === 'u8' ? this.bytes() : this.list(this.of(type.list));
    if ('tuple' in type) return this.tuple(type.tuple.map((t) => this.of(t)));
    if ('result' in type) return this.result(type.result);
    throw new TypeError(`a malformed type ${JSON.stringify(type)}`);
  }

  /** A named type's codec; resolved lazily so that the types' order does not matter. */
  ref(name) {
    const cached = this.named.get(name);
    if (cached) return cached;
    const def = this.witTypes.types[name];
    if (def === undefined) throw new TypeError(`wit-types.json describes no type ${name}`);
    const codec = {};
    this.named.set(name, codec);
    Object.assign(codec, this.definition(name, def));
    return codec;
  }

  definition(name, def) {
    switch (def.kind) {
      case 'alias':
        return this.of(def.type);
      case 'record':
        return this.record(name, def.fields);
      case 'enum':
        return this.enumeration(name, def.cases);
      case 'variant':
        return this.variant(name, def.cases);
      default:
        throw new TypeError(`the wire format has no codec for ${name}, a ${def.kind}`);
    }
  }

  record(name, fields) {
    const compiled = fields.map((f) => ({
      name: f.name,
      codec: this.of(f.type),
      optional: this.isOption(f.type),
    }));
    return {
      write(w, v, path) {
        if (v === null || typeof v !== 'object' || Array.isArray(v)) fail(path, `a ${name} record`, v);
        for (const f of compiled) {
          const value = v[f.name];
          if (value === undefined && !f.optional) throw new FieldError(`${path}.${f.name}`, `missing field of ${name}`);
          f.codec.write(w, value, `${path}.${f.name}`);
        }
      },
      read(r) {
        const out = {};
        for (const f of compiled) out[f.name] = f.codec.read(r);
        return out;
      },
    };
  }

  enumeration(name, cases) {
    const index = new Map(cases.map((c, i) => [c, i]));
    return {
      write(w, v, path) {
        const i = index.get(v);
        if (i === undefined) fail(path, `a case of ${name} (${cases.join(', ')})`, v);
        w.varint(i);
      },
      read(r) {
        const i = r.varint();
        if (!(i < cases.length)) throw new WireError(`case ${i} of ${name}, which has ${cases.length}`);
        return cases[i];
      },
    };
  }

  variant(name, cases) {
    const compiled = cases.map((c) => ({ name: c.name, codec: c.type === null ? null : this.of(c.type) }));
    const index = new Map(compiled.map((c, i) => [c.name, i]));
    return {
      write(w, v, path) {
        let tag = v;
        let payload;
        if (v !== null && typeof v === 'object' && !Array.isArray(v)) {
          const keys = Object.keys(v);
          if (keys.length !== 1) fail(path, `a case of ${name}`, v);
          [tag] = keys;
          payload = v[tag];
        }
        const i = index.get(tag);
        if (i === undefined) fail(path, `a case of ${name} (${cases.map((c) => c.name).join(', ')})`, v);
        w.varint(i);
        const c = compiled[i];
        if (c.codec !== null) c.codec.write(w, payload, `${path}.${tag}`);
      },
      read(r) {
        const i = r.varint();
        if (!(i < compiled.length)) throw new WireError(`case ${i} of ${name}, which has ${compiled.length}`);
        const c = compiled[i];
        return c.codec === null ? c.name : { [c.name]: c.codec.read(r) };
      },
    };
  }

  option(inner) {
    return {
      write(w, v, path) {
        if (v === null || v === undefined) {
          w.byte(0);
        } else {
          w.byte(1);
          inner.write(w, v, path);
        }
      },
      read(r) {
        const tag = r.byte();
        if (tag > 1) throw new WireError(`an option tag that is neither 0 nor 1 at byte ${r.pos - 1}`);
        return tag === 1 ? inner.read(r) : null;
      },
    };
  }

  list(element) {
    return {
      write(w, v, path) {
        if (!Array.isArray(v)) fail(path, 'a list', v);
        w.varint(v.length);
        for (let i = 0; i < v.length; i++) element.write(w, v[i], `${path}[${i}]`);
      },
      read(r) {
        // Every item takes at least a byte: a length beyond what remains is a lie.
        const n = r.length();
        const out = new Array(n);
        for (let i = 0; i < n; i++) out[i] = element.read(r);
        return out;
      },
    };
  }

  bytes() {
    return {
      write(w, v, path) {
        if (v instanceof Uint8Array) {
          w.varint(v.length);
          w.raw(v);
          return;
        }
        if (!Array.isArray(v)) fail(path, 'list<u8>', v);
        w.varint(v.length);
        w.reserve(v.length);
        for (let i = 0; i < v.length; i++) {
          const b = v[i];
          if (!Number.isInteger(b) || b < 0 || b > 0xff) fail(`${path}[${i}]`, 'u8', b);
          w.bytes[w.pos++] = b;
        }
      },
      read: (r) => Array.from(r.raw(r.length())),
    };
  }

  tuple(items) {
    return {
      write(w, v, path) {
        if (!Array.isArray(v) || v.length !== items.length) fail(path, `a tuple of ${items.length}`, v);
        items.forEach((c, i) => c.write(w, v[i], `${path}[${i}]`));
      },
      read: (r) => items.map((c) => c.read(r)),
    };
  }

  result({ ok, err }) {
    const okCodec = ok === null ? null : this.of(ok);
    const errCodec = err === null ? null : this.of(err);
    return {
      write(w, v, path) {
        if (v !== null && typeof v === 'object' && 'Ok' in v) {
          w.varint(0);
          okCodec?.write(w, v.Ok, `${path}.Ok`);
        } else if (v !== null && typeof v === 'object' && 'Err' in v) {
          w.varint(1);
          errCodec?.write(w, v.Err, `${path}.Err`);
        } else {
          fail(path, '{Ok: ...} or {Err: ...}', v);
        }
      },
      read(r) {
        const tag = r.varint();
        if (tag === 0) return { Ok: okCodec === null ? null : okCodec.read(r) };
        if (tag === 1) return { Err: errCodec === null ? null : errCodec.read(r) };
        throw new WireError(`a result tag ${tag}, neither Ok (0) nor Err (1)`);
      },
    };
  }

  isOption(type) {
    if (typeof type !== 'object' || type === null) return false;
    if ('option' in type) return true;
    if ('ref' in type) {
      const def = this.witTypes.types[type.ref];
      return def?.kind === 'alias' && this.isOption(def.type);
    }
    return false;
  }
}

/**
 * The codec of the reconciler's buffers, for the contract `witTypes` (the
 * parsed wit-types.json) describes:
 *
 * - `encodeInput(input)`: a reconcile input, in the slotwise JSON rendering,
 *   as the buffer `reconcile-encoded` takes; a value that does not fit the
 *   WIT throws a FieldError (a TypeError) naming the field;
 * - `decodeOutcome(bytes)`: the buffer `reconcile-encoded` returns, as
 *   {Ok: plan} or {Err: input-error}; a malformed buffer throws a WireError;
 * - `encodeOutcome`, `decodeInput`: the same the other way round.
 */
export function wireCodec(witTypes) {
  const codecs = new Codecs(witTypes);
  const input = codecs.of({ ref: 'reconcile-input' });
  const outcome = codecs.of({ result: { ok: { ref: 'plan' }, err: { ref: 'input-error' } } });
  const encode = (codec, content, value, path) => {
    const w = new Writer(4096);
    w.raw([0x53, 0x57, WIRE_VERSION, content]);
    codec.write(w, value, path);
    return w.finish();
  };
  const decode = (codec, content, bytes) => {
    if (!(bytes instanceof Uint8Array)) throw new TypeError(`expected a Uint8Array, got ${describe(bytes)}`);
    if (bytes.length < 4 || bytes[0] !== 0x53 || bytes[1] !== 0x57) {
      throw new WireError('not a slotwise buffer: it does not start with the header `SW`');
    }
    if (bytes[2] !== WIRE_VERSION) {
      throw new WireError(`wire format version ${bytes[2]}; this codec reads version ${WIRE_VERSION}`);
    }
    if (bytes[3] !== content) throw new WireError(`the buffer holds content ${bytes[3]}, not ${content}`);
    const r = new Reader(bytes);
    r.pos = 4;
    const value = codec.read(r);
    if (r.pos !== bytes.length) throw new WireError(`${bytes.length - r.pos} bytes follow the encoded value`);
    return value;
  };
  return {
    encodeInput: (value) => encode(input, CONTENT.input, value, 'input'),
    decodeInput: (bytes) => decode(input, CONTENT.input, bytes),
    encodeOutcome: (value) => encode(outcome, CONTENT.outcome, value, 'outcome'),
    decodeOutcome: (bytes) => decode(outcome, CONTENT.outcome, bytes),
  };
}
