"""How the wire format writes integers: the range of each WIT integer type, and varints."""

from __future__ import annotations

U64_MAX = (1 << 64) - 1

#: The values each WIT integer type holds, lowest and highest.
RANGES = {
    "u8": (0, 0xFF),
    "u16": (0, 0xFFFF),
    "u32": (0, 0xFFFFFFFF),
    "u64": (0, U64_MAX),
    "s8": (-0x80, 0x7F),
    "s16": (-0x8000, 0x7FFF),
    "s32": (-0x80000000, 0x7FFFFFFF),
    "s64": (-(1 << 63), (1 << 63) - 1),
}

# Every fourteen bits as the two bytes of a varint that goes on: a timestamp
# in nanoseconds takes nine bytes, and writing them seven bits at a time was
# about a quarter of encoding an input's allocations.
_FOURTEEN = [bytes(((i & 0x7F) | 0x80, (i >> 7) | 0x80)) for i in range(1 << 14)]


def varint(out: bytearray, n: int) -> None:
    """Appends the unsigned ``n`` as a LEB128 varint: seven bits a byte, low bits first."""
    while n >= 1 << 14:
        out += _FOURTEEN[n & 0x3FFF]
        n >>= 14
    if n > 0x7F:
        out.append((n & 0x7F) | 0x80)
        n >>= 7
    out.append(n)
