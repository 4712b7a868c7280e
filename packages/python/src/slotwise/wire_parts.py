"""What the wire codecs share: a value that does not fit its type, a position in a buffer being read, and a type's writer and reader.

Their names stay private to the package: its codec modules use them, users do not.
"""

from __future__ import annotations

from typing import Any, Callable, List, Union

from .errors import WireError
from .wire_numbers import U64_MAX

Writer = Callable[[bytearray, Any], None]


class _Mismatch(Exception):
    """A value that does not fit its type; the path is filled in as it unwinds, innermost first."""

    def __init__(self, message: str) -> None:
        super().__init__(message)
        self.message = message
        self.path: List[Union[str, int]] = []

    def field(self) -> str:
        text = ""
        for segment in reversed(self.path):
            text += f"[{segment}]" if isinstance(segment, int) else f".{segment}" if text else segment
        return text or "input"


def _describe(value: Any) -> str:
    text = repr(value)
    return text if len(text) <= 60 else text[:57] + "..."


def _expected(what: str, value: Any) -> _Mismatch:
    return _Mismatch(f"expected {what}, got {_describe(value)}")


def _is_int(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


class _Reader:
    """A position in a buffer being decoded."""

    __slots__ = ("buf", "pos")

    def __init__(self, buf: bytes, pos: int) -> None:
        self.buf = buf
        self.pos = pos

    def truncated(self) -> WireError:
        return WireError(
            f"the buffer ends inside a value at byte {self.pos}: it is truncated, "
            "or a length claims more than it holds"
        )

    def byte(self) -> int:
        pos = self.pos
        if pos >= len(self.buf):
            raise self.truncated()
        self.pos = pos + 1
        return self.buf[pos]

    def varint(self) -> int:
        buf, pos = self.buf, self.pos
        n = 0
        shift = 0
        while True:
            if pos >= len(buf):
                self.pos = pos
                raise self.truncated()
            b = buf[pos]
            pos += 1
            n |= (b & 0x7F) << shift
            if b < 0x80:
                break
            shift += 7
            if shift > 63:
                raise WireError(f"a malformed varint at byte {pos}")
        if n > U64_MAX:
            raise WireError(f"a varint beyond 64 bits at byte {pos}")
        self.pos = pos
        return n

    def length(self) -> int:
        n = self.varint()
        if n > len(self.buf) - self.pos:
            raise self.truncated()
        return n

    def take(self, n: int) -> bytes:
        if n > len(self.buf) - self.pos:
            raise self.truncated()
        start = self.pos
        self.pos = start + n
        return self.buf[start : start + n]


Reader = Callable[[_Reader], Any]


class _Codec:
    __slots__ = ("write", "read", "optional")

    def __init__(self, write: Writer, read: Reader, optional: bool = False) -> None:
        self.write = write
        self.read = read
        self.optional = optional


def _named(ty: Any) -> str:
    """The name of the type a type description refers to; empty for one that is not a reference."""
    name = ty.get("ref") if isinstance(ty, dict) else None
    return name if isinstance(name, str) else ""
