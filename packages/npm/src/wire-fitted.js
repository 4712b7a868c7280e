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
import { putVarintBig, putZigzagBig } from './wire-writer.js';

/** What generated code throws at a value it cannot write: nothing to report, only to start again. */
const UNFIT = Object.freeze({ unfit: true });

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

/**
 * The fast encoders of the types `witTypes` describes, falling back on
 * `generic` (an Encoders) for what they do not inline and for every value that
 * does not fit.
 */
export class FittedEncoders {
  constructor(witTypes, generic) {
    this.witTypes = witTypes;
    this.generic = generic;
    // The generated function of each record that is a list's item, by name.
    this.items = new Map();
  }

  /**
   * The encoder of `type`: the fast path, and the generic encoder when the value does not fit
   * it. Where a content security policy forbids generating code, the generic encoder alone.
   */
  of(type) {
    const generic = this.generic.of(type);
    // Generated at the first encoding, so that a codec that never encodes a
    // type (most never encode an outcome) does not pay for its code.
    let fast;
    return (w, v) => {
      if (fast === undefined) fast = this.fast(type);
      if (fast === null) return generic(w, v);
      const start = w.pos;
      try {
        fast(w, v);
        return;
      } catch (e) {
        if (e !== UNFIT && !(e instanceof Misfit)) throw e;
      }
      w.pos = start;
      generic(w, v);
    };
  }

  /** The generated function of `type`, or null where generating code is forbidden. */
  fast(type) {
    try {
      return this.compile('encode', this.node(type, new Set()));
    } catch (e) {
      if (e instanceof EvalError) return null;
      throw e;
    }
  }

  /**
   * What the generator needs to know of `type`: its kind and parts, aliases
   * resolved, a record with its fields; what is not written inline is a call
   * of its generic encoder, and so is a record within itself (`expanding`
   * holds the records it sits in), which WIT forbids anyway.
   */
  node(type, expanding) {
    if (typeof type === 'string') {
      return INLINE_PRIMITIVES.has(type) ? { kind: type } : this.call(type);
    }
    if ('ref' in type) {
      const name = type.ref;
      const def = this.witTypes.types[name];
      if (def?.kind === 'alias') return this.node(def.type, expanding);
      if (def?.kind === 'enum') return { kind: 'enum', cases: def.cases };
      if (def?.kind !== 'record' || expanding.has(name)) return this.call(type);
      const within = new Set(expanding).add(name);
      return { kind: 'record', name, fields: def.fields.map((f) => ({ key: f.name, node: this.node(f.type, within) })) };
    }
    if ('option' in type) return { kind: 'option', inner: this.node(type.option, expanding) };
    if ('list' in type && type.list !== 'u8') return { kind: 'list', item: this.node(type.list, expanding) };
    if ('tuple' in type) return { kind: 'tuple', items: type.tuple.map((t) => this.node(t, expanding)) };
    return this.call(type);
  }

  call(type) {
    return { kind: 'call', encode: this.generic.of(type) };
  }

  /**
   * The function of a record that is a list's item: a function of its own,
   * called once an item, keeps the list's loop small enough for V8 to optimise
   * on its own; a record anywhere else is written inline.
   */
  item(node) {
    let compiled = this.items.get(node.name);
    if (compiled === undefined) {
      compiled = this.compile(`encode_${node.name.replace(/[^A-Za-z0-9]/g, '_')}`, node);
      this.items.set(node.name, compiled);
    }
    return compiled;
  }

  /** A function `(w, v)` writing `v`, of the type `node`. */
  compile(name, node) {
    const code = new Code(this);
    code.push(`let bytes = w.bytes;`, `let view = w.view;`, `let pos = w.pos;`);
    code.within(fixedSize(node), () => {
      code.ensure();
      code.value(node, 'v');
    });
    code.push(`w.pos = pos;`);
    const body = `return function ${name}(w, v) {\n${code.lines.join('\n')}\n};`;
    const factory = new Function('unfit', 'putVarintBig', 'putZigzagBig', ...code.names, body);
    return factory(UNFIT, putVarintBig, putZigzagBig, ...code.values);
  }
}

/** The primitives written inline; the others (f32, u8 lists) are calls of their generic encoders. */
const INLINE_PRIMITIVES = new Set(['bool', 'string', 'u8', 's8', 'u16', 'u32', 's16', 's32', 'u64', 's64', 'f64']);

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

/** The lines of one generated function, and the values it closes over. */
class Code {
  constructor(encoders) {
    this.encoders = encoders;
    this.lines = [];
    this.names = [];
    this.values = [];
    this.count = 0;
    // The bytes the writes up to the next `ensure` may take: the fixed size of
    // the record, or of a list's item within its loop.
    this.room = 0;
  }

  push(...lines) {
    this.lines.push(...lines);
  }

  fresh(prefix) {
    return `${prefix}${this.count++}`;
  }

  /** A name in the generated code for `value`. */
  constant(prefix, value) {
    const name = this.fresh(prefix);
    this.names.push(name);
    this.values.push(value);
    return name;
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
        return this.callOut(`${this.constant('g', node.encode)}(w, ${x})`);
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
    this.callOut(`${this.constant('g', this.encoders.generic.of(kind))}(w, ${x})`);
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
      this.callOut(`${this.constant('r', this.encoders.item(item))}(w, ${y})`);
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
