"""The wire format in Python: values of the contract in slotwise's JSON rendering, encoded into and decoded from the buffers ``reconcile-encoded`` takes and returns.

A buffer is a four-byte header (``S``, ``W``, the format version, what it
holds), then the value in postcard's encoding in WIT order: records as their
fields, enums and variants as a varint case index, options as a 0/1 byte,
lists and strings as a varint length then their items, unsigned integers as
varints, signed ones zigzagged, floats as little-endian bytes. An input may
instead lay each group's allocations out as fixed records that the
reconciler reads where they lie (content 3, ``wire_records``). The codecs are
compiled once per type from the contract's description (``wit-types.json``,
bundled with the package), so that encoding runs straight-line closures
rather than a walk of the types.

Values are those ``slotwise reconcile --json`` prints, as ``json.loads``
reads them: records as dicts with kebab-case keys, enums as their case name,
variants as ``"case"`` or ``{"case": payload}``, options as ``None`` (or an
absent key) or the value, results as ``{"Ok": ...}`` or ``{"Err": ...}``,
non-finite floats as ``None``.
"""

from __future__ import annotations

import struct
from typing import Any, Dict, List, Mapping, Optional, Tuple

from .errors import InputError, WireError
from .wire_fitted import FittedInput
from .wire_numbers import RANGES, varint
from .wire_parts import Reader, Writer, _Codec, _describe, _expected, _is_int, _Mismatch, _named, _Reader
from .wire_records import AllocationRecords, Oversized

#: The format version this codec writes and reads (``wire::VERSION`` in the reconciler).
WIRE_VERSION = 1
#: What a buffer holds: its fourth byte.
CONTENT_INPUT = 1
CONTENT_OUTCOME = 2
#: An input whose allocations are records the reconciler reads in place (``wire_records``).
CONTENT_RECORDS = 3

_MAGIC = b"SW"


def _bool() -> _Codec:
    def write(out: bytearray, v: Any) -> None:
        if v is True:
            out.append(1)
        elif v is False:
            out.append(0)
        else:
            raise _expected("bool", v)

    def read(r: _Reader) -> bool:
        b = r.byte()
        if b > 1:
            raise WireError(f"a bool that is neither 0 nor 1 at byte {r.pos - 1}")
        return b == 1

    return _Codec(write, read)


def _string() -> _Codec:
    def write(out: bytearray, v: Any) -> None:
        if not isinstance(v, str):
            raise _expected("string", v)
        try:
            encoded = v.encode("utf-8")
        except UnicodeEncodeError as e:
            raise _Mismatch(f"a string that cannot be UTF-8: {e.reason}") from None
        n = len(encoded)
        if n < 0x80:
            out.append(n)
        else:
            varint(out, n)
        out += encoded

    def read(r: _Reader) -> str:
        start = r.pos
        raw = r.take(r.length())
        try:
            return raw.decode("utf-8")
        except UnicodeDecodeError:
            raise WireError(f"a string that is not UTF-8 at byte {start}") from None

    return _Codec(write, read)


def _integer(prim: str) -> _Codec:
    low, high = RANGES[prim]
    signed = low < 0

    if prim in ("u8", "s8"):

        def write_byte(out: bytearray, v: Any) -> None:
            if not _is_int(v) or not low <= v <= high:
                raise _expected(prim, v)
            out.append(v & 0xFF)

        def read_byte(r: _Reader) -> int:
            b = r.byte()
            return b - 0x100 if signed and b > 0x7F else b

        return _Codec(write_byte, read_byte)

    def write(out: bytearray, v: Any) -> None:
        if not (type(v) is int or _is_int(v)) or not low <= v <= high:
            raise _expected(prim, v)
        n = (v << 1 if v >= 0 else (-v << 1) - 1) if signed else v
        if n < 0x80:
            out.append(n)
        else:
            varint(out, n)

    def read(r: _Reader) -> int:
        n = r.varint()
        if signed:
            n = n >> 1 if n & 1 == 0 else -((n + 1) >> 1)
        if not low <= n <= high:
            raise WireError(f"a {prim} out of range at byte {r.pos}")
        return n

    return _Codec(write, read)


def _float(prim: str) -> _Codec:
    packer = struct.Struct("<d" if prim == "f64" else "<f")
    size = packer.size

    def write(out: bytearray, v: Any) -> None:
        if v is None:
            v = float("nan")
        if not (isinstance(v, float) or _is_int(v)):
            raise _expected(prim, v)
        out += packer.pack(v)

    def read(r: _Reader) -> Optional[float]:
        (n,) = packer.unpack(r.take(size))
        # JSON has no NaN or infinities: the rendering writes them as null.
        return n if n - n == 0 else None

    return _Codec(write, read)


def _primitive(prim: str) -> _Codec:
    if prim == "bool":
        return _bool()
    if prim == "string":
        return _string()
    if prim in RANGES:
        return _integer(prim)
    if prim in ("f32", "f64"):
        return _float(prim)
    raise TypeError(f"the wire format has no codec for the WIT type {prim}")


def _write_payload(codec: Optional[_Codec], out: bytearray, payload: Any, tag: str) -> None:
    """The payload of the case ``tag`` of a variant or a result, when the case has one."""
    if codec is None:
        return
    try:
        codec.write(out, payload)
    except _Mismatch as m:
        m.path.append(tag)
        raise


class _Codecs:
    """The codecs of the types a contract's description holds, compiled once each.

    ``lists`` maps the name of a type to the codec of a whole list of it, for
    a list laid out otherwise than item after item (content 3's allocations).
    """

    def __init__(self, wit_types: Mapping[str, Any], lists: Optional[Mapping[str, _Codec]] = None) -> None:
        self.types: Mapping[str, Any] = wit_types["types"]
        self.named: Dict[str, _Codec] = {}
        self.lists = lists or {}

    def of(self, ty: Any) -> _Codec:
        if isinstance(ty, str):
            return _primitive(ty)
        if "ref" in ty:
            return self.ref(ty["ref"])
        if "option" in ty:
            return self.option(self.of(ty["option"]))
        if "list" in ty:
            if _named(ty["list"]) in self.lists:
                return self.lists[_named(ty["list"])]
            return self.bytes() if ty["list"] == "u8" else self.list(self.of(ty["list"]))
        if "tuple" in ty:
            return self.tuple([self.of(t) for t in ty["tuple"]])
        if "result" in ty:
            return self.result(ty["result"])
        raise TypeError(f"a malformed type {ty!r}")

    def ref(self, name: str) -> _Codec:
        # WIT types cannot be recursive: each is compiled after the types it holds.
        codec = self.named.get(name)
        if codec is None:
            definition = self.types.get(name)
            if definition is None:
                raise TypeError(f"wit-types.json describes no type {name}")
            codec = self.definition(name, definition)
            self.named[name] = codec
        return codec

    def definition(self, name: str, definition: Mapping[str, Any]) -> _Codec:
        kind = definition["kind"]
        if kind == "alias":
            return self.of(definition["type"])
        if kind == "record":
            return self.record(name, definition["fields"])
        if kind == "enum":
            return self.enumeration(name, definition["cases"])
        if kind == "variant":
            return self.variant(name, definition["cases"])
        raise TypeError(f"the wire format has no codec for {name}, a {kind}")

    def record(self, name: str, fields: List[Mapping[str, Any]]) -> _Codec:
        compiled: List[Tuple[str, Writer, bool]] = []
        readers: List[Tuple[str, Reader]] = []
        for f in fields:
            codec = self.of(f["type"])
            compiled.append((f["name"], codec.write, codec.optional))
            readers.append((f["name"], codec.read))

        def write(out: bytearray, v: Any) -> None:
            # A dict, as JSON reads records, skips the ABC check of
            # `Mapping`, which was a sixth of encoding an input.
            if type(v) is not dict and not isinstance(v, Mapping):
                raise _expected(f"a {name} record", v)
            for key, write_field, optional in compiled:
                try:
                    value = v[key]
                except KeyError:
                    if not optional:
                        mismatch = _Mismatch(f"missing field of {name}")
                        mismatch.path.append(key)
                        raise mismatch from None
                    value = None
                try:
                    write_field(out, value)
                except _Mismatch as m:
                    m.path.append(key)
                    raise

        def read(r: _Reader) -> Dict[str, Any]:
            return {key: read_field(r) for key, read_field in readers}

        return _Codec(write, read)

    def enumeration(self, name: str, cases: List[str]) -> _Codec:
        index = {case: i for i, case in enumerate(cases)}

        def write(out: bytearray, v: Any) -> None:
            i = index.get(v) if isinstance(v, str) else None
            if i is None:
                raise _expected(f"a case of {name} ({', '.join(cases)})", v)
            if i < 0x80:
                out.append(i)
            else:
                varint(out, i)

        def read(r: _Reader) -> str:
            i = r.varint()
            if i >= len(cases):
                raise WireError(f"case {i} of {name}, which has {len(cases)}")
            return cases[i]

        return _Codec(write, read)

    def variant(self, name: str, cases: List[Mapping[str, Any]]) -> _Codec:
        compiled = [(c["name"], None if c["type"] is None else self.of(c["type"])) for c in cases]
        index = {case: i for i, (case, _) in enumerate(compiled)}
        names = ", ".join(case for case, _ in compiled)

        def write(out: bytearray, v: Any) -> None:
            tag, payload = v, None
            if isinstance(v, Mapping):
                if len(v) != 1:
                    raise _expected(f"a case of {name} ({names})", v)
                ((tag, payload),) = v.items()
            i = index.get(tag) if isinstance(tag, str) else None
            if i is None:
                raise _expected(f"a case of {name} ({names})", v)
            varint(out, i)
            _write_payload(compiled[i][1], out, payload, tag)

        def read(r: _Reader) -> Any:
            i = r.varint()
            if i >= len(compiled):
                raise WireError(f"case {i} of {name}, which has {len(compiled)}")
            case, codec = compiled[i]
            return case if codec is None else {case: codec.read(r)}

        return _Codec(write, read)

    def option(self, inner: _Codec) -> _Codec:
        write_inner, read_inner = inner.write, inner.read

        def write(out: bytearray, v: Any) -> None:
            if v is None:
                out.append(0)
            else:
                out.append(1)
                write_inner(out, v)

        def read(r: _Reader) -> Any:
            tag = r.byte()
            if tag > 1:
                raise WireError(f"an option tag that is neither 0 nor 1 at byte {r.pos - 1}")
            return read_inner(r) if tag == 1 else None

        return _Codec(write, read, optional=True)

    def list(self, element: _Codec) -> _Codec:
        write_item, read_item = element.write, element.read

        def write(out: bytearray, v: Any) -> None:
            if not isinstance(v, (list, tuple)):
                raise _expected("a list", v)
            varint(out, len(v))
            for i, item in enumerate(v):
                try:
                    write_item(out, item)
                except _Mismatch as m:
                    m.path.append(i)
                    raise

        def read(r: _Reader) -> List[Any]:
            # Every item takes at least a byte: a length beyond what remains is a lie.
            return [read_item(r) for _ in range(r.length())]

        return _Codec(write, read)

    def bytes(self) -> _Codec:
        def write(out: bytearray, v: Any) -> None:
            if isinstance(v, (bytes, bytearray)):
                data = bytes(v)
            elif isinstance(v, (list, tuple)):
                for i, b in enumerate(v):
                    if not _is_int(b) or not 0 <= b <= 0xFF:
                        mismatch = _expected("u8", b)
                        mismatch.path.append(i)
                        raise mismatch
                data = bytes(v)
            else:
                raise _expected("list<u8> (bytes or a list of ints)", v)
            varint(out, len(data))
            out += data

        def read(r: _Reader) -> List[int]:
            # As the JSON rendering has them: a list of numbers.
            return list(r.take(r.length()))

        return _Codec(write, read)

    def tuple(self, items: List[_Codec]) -> _Codec:
        def write(out: bytearray, v: Any) -> None:
            if not isinstance(v, (list, tuple)) or len(v) != len(items):
                raise _expected(f"a tuple of {len(items)}", v)
            for i, (codec, item) in enumerate(zip(items, v)):
                try:
                    codec.write(out, item)
                except _Mismatch as m:
                    m.path.append(i)
                    raise

        def read(r: _Reader) -> List[Any]:
            return [codec.read(r) for codec in items]

        return _Codec(write, read)

    def result(self, ty: Mapping[str, Any]) -> _Codec:
        ok = None if ty["ok"] is None else self.of(ty["ok"])
        err = None if ty["err"] is None else self.of(ty["err"])

        def write(out: bytearray, v: Any) -> None:
            if not isinstance(v, Mapping) or len(v) != 1 or not ("Ok" in v or "Err" in v):
                raise _expected("{'Ok': ...} or {'Err': ...}", v)
            ((tag, payload),) = v.items()
            varint(out, 0 if tag == "Ok" else 1)
            _write_payload(ok if tag == "Ok" else err, out, payload, tag)

        def read(r: _Reader) -> Dict[str, Any]:
            tag = r.varint()
            if tag > 1:
                raise WireError(f"a result tag {tag}, neither Ok (0) nor Err (1)")
            codec = ok if tag == 0 else err
            return {"Ok" if tag == 0 else "Err": None if codec is None else codec.read(r)}

        return _Codec(write, read)


class WireCodec:
    """The codec of the reconciler's buffers, for the contract ``wit_types`` (the parsed ``wit-types.json``) describes."""

    def __init__(self, wit_types: Mapping[str, Any]) -> None:
        codecs = _Codecs(wit_types)
        records = AllocationRecords(wit_types, codecs.of)
        lists = {"allocation": _Codec(records.write, records.read)}
        input = {"ref": "reconcile-input"}
        self._inputs = {
            CONTENT_INPUT: codecs.of(input),
            CONTENT_RECORDS: _Codecs(wit_types, lists).of(input),
        }

        def generic(ty: Any) -> Writer:
            return codecs.of(ty).write

        self._fitted = {
            CONTENT_INPUT: FittedInput(wit_types, generic),
            CONTENT_RECORDS: FittedInput(wit_types, generic, {"allocation": records.write}),
        }
        self._outcome = codecs.of({"result": {"ok": {"ref": "plan"}, "err": {"ref": "input-error"}}})

    def encode_input(self, value: Mapping[str, Any]) -> bytes:
        """A reconcile input as a buffer of content 1, the one ``slotwise input --wire`` prints: every value in postcard's encoding.

        Raises :class:`InputError` naming the field of a value that does not fit the contract.
        """
        return self._written(CONTENT_INPUT, value)

    def encode_input_records(self, value: Mapping[str, Any]) -> bytes:
        """A reconcile input as a buffer of content 3, the one ``slotwise input --wire --records`` prints: each group's allocations as records the reconciler reads where they lie.

        A group too large for the records' four-byte offsets (tens of
        millions of allocations) is written in content 1 instead, as the
        reconciler's own writer does. Raises :class:`InputError` as
        :meth:`encode_input` does.
        """
        try:
            return self._written(CONTENT_RECORDS, value)
        except Oversized:
            return self.encode_input(value)

    def _written(self, content: int, value: Mapping[str, Any]) -> bytes:
        """``value`` as a buffer of ``content``, by the generated writer when it takes the value."""
        out = _header(content)
        try:
            self._fitted[content].write(out, value)
        except Oversized:
            raise
        except Exception:
            # Whatever the generated writer refuses, the generic codecs
            # write or name.
            return _encode(self._inputs[content], content, value)
        return bytes(out)

    def decode_input(self, data: bytes) -> Dict[str, Any]:
        """An encoded input of content 1 or 3, read back; raises :class:`WireError` when malformed."""
        value: Dict[str, Any] = _decode(self._inputs, data)
        return value

    def encode_outcome(self, value: Mapping[str, Any]) -> bytes:
        """``{"Ok": plan}`` or ``{"Err": input_error}`` as the buffer ``reconcile-encoded`` returns."""
        return _encode(self._outcome, CONTENT_OUTCOME, value)

    def decode_outcome(self, data: bytes) -> Dict[str, Any]:
        """The buffer ``reconcile-encoded`` returns, as ``{"Ok": plan}`` or ``{"Err": input_error}``."""
        value: Dict[str, Any] = _decode({CONTENT_OUTCOME: self._outcome}, data)
        return value


def _header(content: int) -> bytearray:
    """A buffer holding the four-byte header of a buffer of ``content``."""
    return bytearray((*_MAGIC, WIRE_VERSION, content))


def _encode(codec: _Codec, content: int, value: Any) -> bytes:
    out = _header(content)
    try:
        codec.write(out, value)
    except _Mismatch as m:
        raise InputError(m.field(), m.message) from None
    return bytes(out)


def _decode(codecs: Mapping[int, _Codec], data: bytes) -> Any:
    """The value of a buffer, read by the codec of the content its header names."""
    if not isinstance(data, (bytes, bytearray, memoryview)):
        raise TypeError(f"expected bytes, got {_describe(data)}")
    data = bytes(data)
    if len(data) < 4 or data[:2] != _MAGIC:
        raise WireError("not a slotwise buffer: it does not start with the header `SW`")
    if data[2] != WIRE_VERSION:
        raise WireError(f"wire format version {data[2]}; this codec reads version {WIRE_VERSION}")
    codec = codecs.get(data[3])
    if codec is None:
        raise WireError(f"the buffer holds content {data[3]}, not {' or '.join(map(str, codecs))}")
    reader = _Reader(data, 4)
    value = codec.read(reader)
    if reader.pos != len(data):
        raise WireError(f"{len(data) - reader.pos} bytes follow the encoded value")
    return value
