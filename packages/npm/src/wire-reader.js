// The wire format's input: a position in a buffer that reads postcard's varints, strings and floats, and refuses what runs past the end.

import { WireError } from './wire-errors.js';

const U64_MAX = 2n ** 64n - 1n;
// A string that starts with U+FEFF keeps it: the decoder would take it for a byte order mark.
const utf8Decoder = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });

/**
 * The bytes decoded as text in one call, for the ASCII strings within them: enough that a plan's
 * strings take a call per few hundred, small enough to stay out of V8's large-object space (the
 * text of a 194 KB buffer took 0.12 ms to decode whole, in twelve stretches of 16 KB 0.02 ms)
 * and not to keep a whole buffer's text alive for one string of it.
 */
const STRETCH = 16 * 1024;
// Where a stretch is copied to have its bytes beyond ASCII stripped of their high bit; one
// suffices, as decoding never calls back into a decoder.
const SCRATCH = new Uint8Array(STRETCH);
const SCRATCH_WORDS = new Uint32Array(SCRATCH.buffer);

/** A position in an input buffer. */
export class Reader {
  constructor(bytes) {
    this.bytes = bytes;
    this.view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
    this.pos = 0;
    // The last stretch decoded as text: the bytes from `textStart` to `textEnd`, each one
    // character (those beyond ASCII stripped of their high bit).
    this.text = '';
    this.textStart = 0;
    this.textEnd = 0;
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
    return this.stringAt(start, start + n);
  }

  /**
   * The string of the bytes from `start` to `end`, which lie in the buffer. ASCII, the common
   * case, is sliced from the stretch decoded as text that holds it: a decoder's call per string,
   * most of them short ids and messages, cost some 70 ns each, and building short strings a
   * character at a time left one string per character to the collector.
   */
  stringAt(start, end) {
    const { bytes, view } = this;
    let high = 0;
    let i = start;
    for (; i + 4 <= end; i += 4) high |= view.getUint32(i);
    for (; i < end; i++) high |= bytes[i];
    if ((high & 0x80808080) !== 0) return this.utf8(start, end - start);
    if (start < this.textStart || end > this.textEnd) {
      if (start === end) return '';
      this.decodeStretch(start, end);
    }
    return this.text.slice(start - this.textStart, end - this.textStart);
  }

  /**
   * Decodes the bytes from `start` to `end`, and those that follow up to STRETCH in all, as the
   * text strings are sliced from: each byte beyond ASCII stripped of its high bit, so that every
   * byte is one character (no string that holds one is sliced from it).
   */
  decodeStretch(start, end) {
    const stop = Math.min(this.bytes.length, Math.max(end, start + STRETCH));
    const n = stop - start;
    const scratch = n <= STRETCH ? SCRATCH : new Uint8Array(n);
    const words = n <= STRETCH ? SCRATCH_WORDS : new Uint32Array(scratch.buffer, 0, n >>> 2);
    scratch.set(this.bytes.subarray(start, stop));
    // Sixteen bytes a test, most of them ASCII: twice as fast as testing each word.
    let k = 0;
    for (; k + 4 <= n >>> 2; k += 4) {
      if (((words[k] | words[k + 1] | words[k + 2] | words[k + 3]) & 0x80808080) !== 0) {
        words[k] &= 0x7f7f7f7f;
        words[k + 1] &= 0x7f7f7f7f;
        words[k + 2] &= 0x7f7f7f7f;
        words[k + 3] &= 0x7f7f7f7f;
      }
    }
    for (let i = 4 * k; i < n; i++) scratch[i] &= 0x7f;
    this.text = utf8Decoder.decode(scratch.subarray(0, n));
    this.textStart = start;
    this.textEnd = stop;
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
