// The wire format's fast encoders: straight-line code generated per record type from the WIT, writing simple fields inline, for values that fit; a value that does not is encoded again by the generic encoders, which name its field.
//
// The generic encoders (wire-encoders.js) call a function per field and a
// writer method per byte run: for 10,000 allocations, most of the encoding's
// time went to those calls. Here the code generated for a type holds the
// writer's buffer and position in locals, makes room once for the fixed-size
// part of its fields, and writes strings (their ASCII fast path), integers,
// bools, enums, records, options, lists and tuples of them inline. A record
// that is a list's item gets a function of its own; what is not inlined
// (variants, results, lists of bytes, a u64 or s64 number beyond 32 bits) is
// a call of its generic encoder.
//
// It checks values exactly as strictly as the generic encoders, but keeps no
// path: at the first value it cannot write it throws, and the entry point
// encodes the whole value again with the generic encoders, which either write
// it (a value the fast path passes over) or throw the FieldError naming the
// field. A value that fits is read once, in the generic encoders' order.

import { Misfit } from './wire-errors.js';
import { Code, Fitted, UNFIT } from './wire-generated.js';
import { putVarintBig, putZigzagBig } from './wire-writer.js';

/** The bytes of the varint of `n`, below 2^32. */
function varintBytes(n) {
  const out = [];
  while (n >= 0x80) {
    out.push((n & 0x7f) | 0x80);
    n >>>= 7;
  }
  out.push(n);
  return out;
}

/** The primitives written inline; the others (f32, u8 lists) are calls of their generic encoders. */
const INLINE_PRIMITIVES = new Set(['bool', 'string', 'u8', 's8', 'u16', 'u32', 's16', 's32', 'u64', 's64', 'f64']);

/**
 * The fast encoders of the types `witTypes` describes, falling back on
 * `generic` (an Encoders) for what they do not inline and for every value that
 * does not fit.
 */
export class FittedEncoders extends Fitted {
  constructor(witTypes, generic) {
    super(witTypes, generic, { verb: 'encode', refused: Misfit, inline: INLINE_PRIMITIVES, Code: EncoderCode });
  }
}

/** The bytes a value's inline writes take at most, outside loops and calls; a string's characters are made room for on their own. */
function fixedSize(node) {
  switch (node.kind) {
    case 'bool':
    case 'u8':
    case 's8':
      return 1;
    case 'f64':
      return 8;
    case 'u64':
    case 's64':
      return 10;
    case 'enum':
      return varintBytes(node.cases.length).length;
    case 'option':
      return 1 + fixedSize(node.inner);
    case 'tuple':
      return node.items.reduce((n, item) => n + fixedSize(item), 0);
    case 'record':
      return node.fields.reduce((n, f) => n + fixedSize(f.node), 0);
    case 'call':
      return 0;
    default:
      // Varints of up to 32 bits: a string's or list's length, an integer.
      return 5;
  }
}

/** The lines of one generated encoder. */
class EncoderCode extends Code {
  constructor(fitted) {
    super(fitted);
    // The bytes the writes up to the next `ensure` may take: the fixed size of
    // the record, or of a list's item within its loop.
    this.room = 0;
  }

  /** A function `(w, v)` writing `v`, of the type `node`. */
  function(name, node) {
    this.push(`let bytes = w.bytes;`, `let view = w.view;`, `let pos = w.pos;`);
    this.within(fixedSize(node), () => {
      this.ensure();
      this.value(node, 'v');
    });
    this.push(`w.pos = pos;`);
    return this.build(name, 'w, v', { unfit: UNFIT, putVarintBig, putZigzagBig });
  }

  /** Runs `emit` with `room` as the bytes made room for at each `ensure`. */
  within(room, emit) {
    const outer = this.room;
    this.room = room;
    emit();
    this.room = outer;
  }

  /** Makes room for the fixed part, and `extra` more bytes (an expression). */
  ensure(extra = null) {
    if (extra === null && this.room === 0) return;
    const n = extra === null ? `${this.room}` : `${extra} + ${this.room}`;
    this.push(`if (bytes.length - pos < ${n}) { w.pos = pos; w.grow(${n}); bytes = w.bytes; view = w.view; }`);
  }

  /** Makes `call` (an expression) with the writer brought up to date, and takes its buffer and position back. */
  callOut(call) {
    this.push(`w.pos = pos;`, `${call};`, `bytes = w.bytes;`, `view = w.view;`, `pos = w.pos;`);
    this.ensure();
  }

  /** An unsigned varint of the local `t`, below 2^32, which it consumes. */
  varint(t) {
    this.push(`while (${t} >= 0x80) { bytes[pos++] = (${t} & 0x7f) | 0x80; ${t} >>>= 7; }`, `bytes[pos++] = ${t};`);
  }

  /** Writes the value of the variable `x`, of the type `node`, or throws unfit. */
  value(node, x) {
    switch (node.kind) {
      case 'bool':
        this.push(`if (${x} === true) bytes[pos++] = 1;`, `else if (${x} === false) bytes[pos++] = 0;`, `else throw unfit;`);
        return;
      case 'string':
        return this.string(x);
      case 'u8':
        return this.push(`if (typeof ${x} !== 'number' || (${x} & 0xff) !== ${x}) throw unfit;`, `bytes[pos++] = ${x};`);
      case 's8':
        return this.push(`if (typeof ${x} !== 'number' || (${x} << 24) >> 24 !== ${x}) throw unfit;`, `bytes[pos++] = ${x} & 0xff;`);
      case 'u16':
      case 'u32':
        return this.unsigned(x, node.kind === 'u16' ? ` || ${x} > 0xffff` : '');
      case 's16':
      case 's32':
        return this.signed(x, node.kind === 's16' ? ` || ${x} < -0x8000 || ${x} > 0x7fff` : '');
      case 'u64':
      case 's64':
        return this.wide(node.kind, x);
      case 'f64': {
        const f = this.fresh('f');
        this.push(`const ${f} = ${x} === null ? NaN : ${x};`, `if (typeof ${f} !== 'number') throw unfit;`);
        return this.push(`view.setFloat64(pos, ${f}, true);`, `pos += 8;`);
      }
      case 'enum':
        return this.enumeration(node.cases, x);
      case 'option':
        this.push(`if (${x} === null || ${x} === undefined) bytes[pos++] = 0;`, `else {`, `bytes[pos++] = 1;`);
        this.value(node.inner, x);
        return this.push(`}`);
      case 'list':
        return this.list(node.item, x);
      case 'tuple':
        return this.tuple(node.items, x);
      case 'record':
        return this.record(node.fields, x);
      case 'call':
        return this.callOut(`${this.constant('g', node.generic)}(w, ${x})`);
      default:
        throw new TypeError(`no inline encoding for ${node.kind}`);
    }
  }

  /**
   * Its length and its characters, copied when they are all ASCII and fewer
   * than 128; else the writer's string. Four characters go in one store: the
   * copy is most of the encoding's time, and its reads the most of that.
   */
  string(x) {
    const [n, units, i, at] = ['n', 'u', 'i', 'p'].map((prefix) => this.fresh(prefix));
    const c = [0, 1, 2, 3].map(() => this.fresh('c'));
    this.push(`if (typeof ${x} !== 'string') throw unfit;`, `const ${n} = ${x}.length;`, `let ${units} = 0x80;`, `if (${n} < 0x80) {`);
    this.ensure(n);
    this.push(
      `${units} = 0;`,
      `const ${at} = pos + 1;`,
      `let ${i} = 0;`,
      `for (; ${i} + 4 <= ${n}; ${i} += 4) {`,
      ...c.map((ci, k) => `const ${ci} = ${x}.charCodeAt(${i} + ${k});`),
      `${units} |= ${c.join(' | ')};`,
      `view.setInt32(${at} + ${i}, ${c.map((ci, k) => (k === 0 ? ci : `(${ci} << ${8 * k})`)).join(' | ')}, true);`,
      `}`,
      `for (; ${i} < ${n}; ${i}++) { const ${c[0]} = ${x}.charCodeAt(${i}); ${units} |= ${c[0]}; bytes[${at} + ${i}] = ${c[0]}; }`,
      `}`,
      `if (${units} < 0x80) { bytes[pos] = ${n}; pos += ${n} + 1; }`,
      `else {`,
    );
    this.callOut(`w.string(${x})`);
    this.push(`}`);
  }

  unsigned(x, range) {
    const t = this.fresh('t');
    this.push(`if (typeof ${x} !== 'number' || ${x} >>> 0 !== ${x}${range}) throw unfit;`, `let ${t} = ${x};`);
    this.varint(t);
  }

  signed(x, range) {
    const t = this.fresh('t');
    this.push(`if (typeof ${x} !== 'number' || (${x} | 0) !== ${x}${range}) throw unfit;`);
    this.push(`let ${t} = ((${x} << 1) ^ (${x} >> 31)) >>> 0;`);
    this.varint(t);
  }

  /** A u64 or s64: inline within 32 bits (31 for s64) or as a BigInt, else its generic encoder, which takes larger numbers. */
  wide(kind, x) {
    const t = this.fresh('t');
    const fits = kind === 'u64' ? `${x} >>> 0 === ${x}` : `(${x} | 0) === ${x}`;
    const zigzag = kind === 'u64' ? x : `((${x} << 1) ^ (${x} >> 31)) >>> 0`;
    const [inRange, put] = kind === 'u64' ? ['BigInt.asUintN', 'putVarintBig'] : ['BigInt.asIntN', 'putZigzagBig'];
    this.push(`if (typeof ${x} === 'number' && ${fits}) {`, `let ${t} = ${zigzag};`);
    this.varint(t);
    this.push(`} else if (typeof ${x} === 'bigint' && ${inRange}(64, ${x}) === ${x}) {`, `pos = ${put}(bytes, pos, ${x});`, `} else {`);
    this.callOut(`${this.constant('g', this.fitted.generic.of(kind))}(w, ${x})`);
    this.push(`}`);
  }

  /** The case's position, its varint bytes written as constants. */
  enumeration(cases, x) {
    this.push(`switch (${x}) {`);
    cases.forEach((c, i) => {
      const writes = varintBytes(i).map((b) => `bytes[pos++] = ${b};`);
      this.push(`case ${JSON.stringify(c)}: ${writes.join(' ')} break;`);
    });
    this.push(`default: throw unfit;`, `}`);
  }

  list(item, x) {
    const n = this.fresh('n');
    const t = this.fresh('t');
    const i = this.fresh('i');
    const y = this.fresh('y');
    this.push(`if (!Array.isArray(${x})) throw unfit;`, `const ${n} = ${x}.length;`, `let ${t} = ${n};`);
    this.varint(t);
    this.push(`for (let ${i} = 0; ${i} < ${n}; ${i}++) {`, `const ${y} = ${x}[${i}];`);
    if (item.kind === 'record') {
      this.callOut(`${this.constant('r', this.fitted.item(item))}(w, ${y})`);
    } else {
      this.within(fixedSize(item), () => {
        this.ensure();
        this.value(item, y);
      });
    }
    this.push(`}`);
    this.ensure();
  }

  record(fields, x) {
    this.push(`if (${x} === null || typeof ${x} !== 'object' || Array.isArray(${x})) throw unfit;`);
    for (const f of fields) {
      const y = this.fresh('x');
      this.push(`const ${y} = ${x}[${JSON.stringify(f.key)}];`);
      // A field that is not an option must be there; every inline check refuses undefined.
      if (f.node.kind === 'call') this.push(`if (${y} === undefined) throw unfit;`);
      this.value(f.node, y);
    }
  }

  tuple(items, x) {
    this.push(`if (!Array.isArray(${x}) || ${x}.length !== ${items.length}) throw unfit;`);
    items.forEach((item, i) => {
      const y = this.fresh('y');
      this.push(`const ${y} = ${x}[${i}];`);
      this.value(item, y);
    });
  }
}
