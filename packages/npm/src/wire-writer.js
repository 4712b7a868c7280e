// The wire format's output: a growing byte buffer that takes postcard's varints, zigzag integers, strings and floats.

const utf8Encoder = new TextEncoder();
const TWO_32 = 2 ** 32;

// A BigInt's 64 bits, read back as two 32-bit halves: one store into a typed
// array instead of a chain of BigInt operations, each of which allocates.
const big = new BigInt64Array(1);
const bigHalves = new Uint32Array(big.buffer);
const littleEndian = new Uint8Array(new Uint16Array([1]).buffer)[0] === 1;
const LO = littleEndian ? 0 : 1;
const HI = littleEndian ? 1 : 0;

/**
 * Writes the varint of the 64-bit number whose low and high 32 bits are `lo`
 * and `hi` (both unsigned) into `bytes` at `pos`, which has room for ten
 * bytes; returns the position after it.
 */
export function putVarint64(bytes, pos, lo, hi) {
  if (hi === 0) {
    while (lo >= 0x80) {
      bytes[pos++] = (lo & 0x7f) | 0x80;
      lo >>>= 7;
    }
    bytes[pos] = lo;
    return pos + 1;
  }
  // Beyond 32 bits, the first five bytes are certain: written straight, not
  // carried through both halves a byte at a time, which made a timestamp's
  // varint cost a third more. A store into a Uint8Array keeps the low 8 bits.
  bytes[pos] = lo | 0x80;
  bytes[pos + 1] = (lo >>> 7) | 0x80;
  bytes[pos + 2] = (lo >>> 14) | 0x80;
  bytes[pos + 3] = (lo >>> 21) | 0x80;
  const fifth = ((lo >>> 28) | (hi << 4)) & 0x7f;
  let rest = hi >>> 3;
  if (rest === 0) {
    bytes[pos + 4] = fifth;
    return pos + 5;
  }
  bytes[pos + 4] = fifth | 0x80;
  pos += 5;
  while (rest >= 0x80) {
    bytes[pos++] = (rest & 0x7f) | 0x80;
    rest >>>= 7;
  }
  bytes[pos] = rest;
  return pos + 1;
}

/**
 * Stores the 64 bits of a BigInt in [-2^63, 2^64) at `at` of `view`, little-endian: through the
 * typed array, as the varints are; DataView's BigInt store made encoding content 3, with a
 * BigInt timestamp or two in every allocation, 7% slower.
 */
export function putBig64(view, at, n) {
  big[0] = n;
  view.setUint32(at, bigHalves[LO], true);
  view.setUint32(at + 4, bigHalves[HI], true);
}

/** Writes the varint of a BigInt in [0, 2^64) as putVarint64 does. */
export function putVarintBig(bytes, pos, n) {
  big[0] = n;
  return putVarint64(bytes, pos, bigHalves[LO], bigHalves[HI]);
}

/** Writes a BigInt in [-2^63, 2^63), zigzagged, as putVarint64 does. */
export function putZigzagBig(bytes, pos, n) {
  big[0] = n;
  const lo = bigHalves[LO];
  const hi = bigHalves[HI];
  // (n << 1) ^ (n >> 63), a half at a time.
  const sign = (hi >> 31) | 0;
  return putVarint64(bytes, pos, ((lo << 1) ^ sign) >>> 0, (((hi << 1) | (lo >>> 31)) ^ sign) >>> 0);
}

/**
 * Copies the UTF-16 units of `s` into `bytes` (whose DataView is `view`) from `at`, a byte each;
 * whether they were all ASCII, and so the copy `s` in UTF-8. Checked once at the end rather than
 * at every character, and four characters go in one store, as the generated encoders do
 * (wire-fitted.js): copying the ids a byte at a time made encoding content 3 a tenth slower.
 */
function copiedAscii(bytes, view, at, s) {
  const n = s.length;
  let units = 0;
  let i = 0;
  for (; i + 4 <= n; i += 4) {
    const c0 = s.charCodeAt(i);
    const c1 = s.charCodeAt(i + 1);
    const c2 = s.charCodeAt(i + 2);
    const c3 = s.charCodeAt(i + 3);
    units |= c0 | c1 | c2 | c3;
    view.setInt32(at + i, c0 | (c1 << 8) | (c2 << 16) | (c3 << 24), true);
  }
  for (; i < n; i++) {
    const c = s.charCodeAt(i);
    units |= c;
    bytes[at + i] = c;
  }
  return units < 0x80;
}

/** A growable output buffer. */
export class Writer {
  /** A writer into `bytes`, which it replaces with a larger buffer when they run out. */
  constructor(bytes) {
    this.bytes = bytes;
    this.view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
    this.pos = 0;
  }

  /** Makes room for `n` more bytes. */
  reserve(n) {
    if (this.pos + n > this.bytes.length) this.grow(n);
  }

  grow(n) {
    let size = this.bytes.length * 2;
    while (size < this.pos + n) size *= 2;
    const grown = new Uint8Array(size);
    grown.set(this.bytes.subarray(0, this.pos));
    this.bytes = grown;
    this.view = new DataView(grown.buffer);
  }

  byte(b) {
    if (this.pos >= this.bytes.length) this.grow(1);
    this.bytes[this.pos++] = b;
  }

  /** A non-negative integer below 2^32 as a varint. */
  varint32(n) {
    if (this.pos + 5 > this.bytes.length) this.grow(5);
    const bytes = this.bytes;
    let pos = this.pos;
    while (n >= 0x80) {
      bytes[pos++] = (n & 0x7f) | 0x80;
      n >>>= 7;
    }
    bytes[pos++] = n;
    this.pos = pos;
  }

  /** A non-negative integer below 2^53 as a varint. */
  varint(n) {
    if (n < TWO_32) this.varint32(n);
    else this.varint64(n % TWO_32, Math.floor(n / TWO_32));
  }

  /** The varint of the 64-bit number whose low and high 32 bits are `lo` and `hi`, both unsigned. */
  varint64(lo, hi) {
    if (this.pos + 10 > this.bytes.length) this.grow(10);
    this.pos = putVarint64(this.bytes, this.pos, lo, hi);
  }

  /** A BigInt in [0, 2^64) as a varint. */
  varintBig(n) {
    if (this.pos + 10 > this.bytes.length) this.grow(10);
    this.pos = putVarintBig(this.bytes, this.pos, n);
  }

  /** A BigInt in [-2^63, 2^63) zigzagged, as a varint. */
  zigzagBig(n) {
    if (this.pos + 10 > this.bytes.length) this.grow(10);
    this.pos = putZigzagBig(this.bytes, this.pos, n);
  }

  string(s) {
    const n = s.length;
    // A string of ASCII below 128 characters is its UTF-16 units as bytes,
    // after a one-byte length: copied here, without the encoder's call.
    if (n < 0x80) {
      if (this.pos + 1 + n * 3 > this.bytes.length) this.grow(1 + n * 3);
      const bytes = this.bytes;
      const start = this.pos + 1;
      if (copiedAscii(bytes, this.view, start, s)) {
        bytes[this.pos] = n;
        this.pos = start + n;
        return;
      }
      // Every UTF-16 unit takes at most three bytes of UTF-8: a string of up
      // to 42 units has a length that fits the one byte reserved ahead of it.
      if (n <= 42) {
        const { written } = utf8Encoder.encodeInto(s, bytes.subarray(start));
        bytes[this.pos] = written;
        this.pos = start + written;
        return;
      }
    }
    const encoded = utf8Encoder.encode(s);
    this.varint(encoded.length);
    this.raw(encoded);
  }

  /** The UTF-8 bytes of `s`, without a length before them; returns how many. */
  text(s) {
    const n = s.length;
    if (this.pos + n * 3 > this.bytes.length) this.grow(n * 3);
    const start = this.pos;
    const written = copiedAscii(this.bytes, this.view, start, s) ? n : utf8Encoder.encodeInto(s, this.bytes.subarray(start)).written;
    this.pos = start + written;
    return written;
  }

  raw(bytes) {
    this.reserve(bytes.length);
    this.bytes.set(bytes, this.pos);
    this.pos += bytes.length;
  }

  f64(n) {
    if (this.pos + 8 > this.bytes.length) this.grow(8);
    this.view.setFloat64(this.pos, n, true);
    this.pos += 8;
  }

  f32(n) {
    if (this.pos + 4 > this.bytes.length) this.grow(4);
    this.view.setFloat32(this.pos, n, true);
    this.pos += 4;
  }

  finish() {
    return this.bytes.slice(0, this.pos);
  }
}
