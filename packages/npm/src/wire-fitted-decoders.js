// The wire format's fast decoders: straight-line code generated per record type from the WIT, reading simple fields inline, for buffers that are well formed; one that is not is decoded again by the generic decoders, which say what is wrong with it.
//
// The generic decoders (wire-decoders.js) are closures shared by every type of the contract:
// an option's or a list's call of its item's decoder sees every type that has one, and V8 can
// neither inline it nor keep one shape at it. Here the code generated for a type keeps the
// reader's position in a local, reads one-byte varints (most counts, lengths, indices, enum
// cases and small integers), bools, enums, f64, options, lists, tuples and records inline, and
// builds each record from one object literal; a longer varint and a string's bytes are calls of
// the reader, and what is not inline (variants, s64, f32, lists of bytes) a call of its generic
// decoder. A record that is a list's item gets a function of its own.
//
// It refuses exactly what the generic decoders refuse, but says nothing of it: at the first
// thing wrong it throws, and the entry point decodes the buffer again with the generic
// decoders, which throw the WireError that says what and where.

import { WireError } from './wire-errors.js';
import { Code, Fitted, UNFIT } from './wire-generated.js';

/** The primitives read inline; the others (s64, f32, u8 lists) are calls of their generic decoders. */
const INLINE = new Set(['bool', 'string', 'u8', 's8', 'u16', 'u32', 's16', 's32', 'u64', 'f64', 'result']);

/** The lines of one generated decoder. */
class DecoderCode extends Code {
  /** A function `(r)` reading a value of the type `node`. */
  function(name, node) {
    this.push('const bytes = r.bytes;', 'const len = bytes.length;', 'let pos = r.pos;');
    const value = this.value(node);
    this.push('r.pos = pos;', `return ${value};`);
    return this.build(name, 'r', { unfit: UNFIT });
  }

  /** Reads a value of the type `node`, or throws; returns the name of the local that holds it. */
  value(node) {
    switch (node.kind) {
      case 'bool': {
        const b = this.byte();
        return this.local(`${b} === 1`, `if (${b} > 1) throw unfit;`);
      }
      case 'u8':
        return this.byte();
      case 's8':
        return this.local(`(${this.byte()} << 24) >> 24`);
      case 'u16':
      case 'u32': {
        const n = this.varint();
        this.push(`if (typeof ${n} !== 'number' || ${n} > ${node.kind === 'u16' ? '0xffff' : '0xffffffff'}) throw unfit;`);
        return n;
      }
      case 'u64':
        return this.varint();
      case 's16':
      case 's32': {
        const z = this.varint();
        return this.local(`${z} % 2 === 0 ? ${z} / 2 : -(${z} + 1) / 2`, `if (typeof ${z} !== 'number') throw unfit;`);
      }
      case 'f64': {
        const f = this.fresh('f');
        this.push(`if (len - pos < 8) throw unfit;`, `const ${f} = r.view.getFloat64(pos, true);`, `pos += 8;`);
        return this.local(`Number.isFinite(${f}) ? ${f} : null`);
      }
      case 'string': {
        const n = this.length();
        const x = this.local(`r.stringAt(pos, pos + ${n})`);
        this.push(`pos += ${n};`);
        return x;
      }
      case 'enum': {
        const i = this.varint();
        const cases = this.constant('cases', node.cases);
        return this.local(`${cases}[${i}]`, `if (!(${i} < ${node.cases.length})) throw unfit;`);
      }
      case 'option':
        return this.option(node.inner);
      case 'list':
        return this.list(node.item);
      case 'tuple':
        return this.local(`[${node.items.map((item) => this.value(item)).join(', ')}]`);
      case 'record':
        return this.record(node.fields);
      case 'result':
        return this.result(node);
      case 'call':
        return this.callOut(this.constant('g', node.generic));
      default:
        throw new TypeError(`no inline decoding for ${node.kind}`);
    }
  }

  /** A local holding `expression`, after the lines `before`. */
  local(expression, ...before) {
    const x = this.fresh('x');
    this.push(...before, `const ${x} = ${expression};`);
    return x;
  }

  /** A byte, as the reader's `byte` reads it. */
  byte() {
    return this.local('bytes[pos++]', 'if (pos >= len) throw unfit;');
  }

  /** A varint, as the reader's `varint` reads it: one byte inline, more by the reader. */
  varint() {
    const n = this.fresh('n');
    this.push(`if (pos >= len) throw unfit;`, `let ${n} = bytes[pos++];`);
    this.push(`if (${n} >= 0x80) { r.pos = pos - 1; ${n} = r.varint(); pos = r.pos; }`);
    return n;
  }

  /** A length, as the reader's `length` reads it: one no larger than the bytes that follow. */
  length() {
    const n = this.fresh('n');
    this.push(`if (pos >= len) throw unfit;`, `let ${n} = bytes[pos++];`);
    this.push(`if (${n} >= 0x80) { r.pos = pos - 1; ${n} = r.length(); pos = r.pos; }`, `else if (${n} > len - pos) throw unfit;`);
    return n;
  }

  /** A call of `decode` (a constant's name) with the reader brought up to date; returns the local holding its value. */
  callOut(decode) {
    this.push(`r.pos = pos;`);
    const x = this.local(`${decode}(r)`);
    this.push(`pos = r.pos;`);
    return x;
  }

  option(inner) {
    const tag = this.byte();
    const x = this.fresh('x');
    this.push(`if (${tag} > 1) throw unfit;`, `let ${x} = null;`, `if (${tag} === 1) {`);
    this.push(`${x} = ${this.value(inner)};`, `}`);
    return x;
  }

  list(item) {
    const n = this.length();
    const x = this.local(`new Array(${n})`);
    const i = this.fresh('i');
    this.push(`for (let ${i} = 0; ${i} < ${n}; ${i}++) {`);
    const y = item.kind === 'record' ? this.callOut(this.constant('d', this.fitted.item(item))) : this.value(item);
    this.push(`${x}[${i}] = ${y};`, `}`);
    return x;
  }

  record(fields) {
    const values = fields.map((f) => `${JSON.stringify(f.key)}: ${this.value(f.node)}`);
    return this.local(`{ ${values.join(', ')} }`);
  }

  /** {Ok: value} for the tag 0, {Err: value} for 1, each null without a type. */
  result({ ok, err }) {
    const tag = this.varint();
    const x = this.fresh('x');
    this.push(`let ${x};`, `if (${tag} === 0) {`);
    this.push(`${x} = { Ok: ${ok === null ? 'null' : this.value(ok)} };`, `} else if (${tag} === 1) {`);
    this.push(`${x} = { Err: ${err === null ? 'null' : this.value(err)} };`, `} else throw unfit;`);
    return x;
  }
}

/** Decoders generated for well-formed buffers of `witTypes`, with `generic` (a Decoders) for the rest. */
export class FittedDecoders extends Fitted {
  constructor(witTypes, generic) {
    super(witTypes, generic, { verb: 'decode', refused: WireError, inline: INLINE, Code: DecoderCode });
  }
}
