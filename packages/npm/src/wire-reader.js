// The wire format's input: a position in a buffer that reads postcard's varints, strings and floats, and refuses what runs past the end.

import { WireError } from './wire-errors.js';

const U64_MAX = 2n ** 64n - 1n;
const utf8Decoder = new TextDecoder('utf-8', { fatal: true });

/** A position in an input buffer. */
export class Reader {
  constructor(bytes) {
    this.bytes = bytes;
    this.view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
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
    const bytes = this.bytes;
    // One byte, the common case: small counts, indices and enum cases.
    if (this.pos < bytes.length && bytes[this.pos] < 0x80) return bytes[this.pos++];
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

  f64() {
    if (8 > this.bytes.length - this.pos) throw this.truncated();
    const n = this.view.getFloat64(this.pos, true);
    this.pos += 8;
    return n;
  }

  f32() {
    if (4 > this.bytes.length - this.pos) throw this.truncated();
    const n = this.view.getFloat32(this.pos, true);
    this.pos += 4;
    return n;
  }
}
