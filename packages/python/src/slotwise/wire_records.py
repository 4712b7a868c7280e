"""The wire format's content 3: each group's allocations as fixed records, which the reconciler reads where they lie, followed by a tail of their strings.

A group's ``allocations`` is its count (varint), the tail's length (four
bytes, little-endian), a record of 120 bytes per allocation, then the tail
(``docs/wire.md``, "Allocations as records"; the reconciler's side is
``guest-reconciler/src/allocation_record.rs``). A record places its
strings, and the rarely set rest of its observed state, as an offset from
its own first byte and a length. The tail is filled as the reconciler's own
writer fills it (``wire/record_writer.rs``), so that the bytes are those
``slotwise input --wire --records`` prints: each record's id, its deployment
unless it is the last one written (the record then places that one), its
previous and next allocation, then its rest.

A record is packed by one ``struct`` call from values read into locals. The
packing takes what the generic codecs take, testing for the exact types of
JSON's values first, so that a ``Mapping`` or a subclass of ``int``, ``str``
or ``float`` costs a plain input nothing. At a value that does not fit, the
generic codecs go over the group's allocations to name it.
"""

from __future__ import annotations

import struct
from typing import Any, Callable, Dict, List, Mapping, Optional, Sequence, Tuple

from .errors import WireError
from .wire_fitted import Unfit
from .wire_numbers import varint
from .wire_parts import _Codec, _expected, _is_int, _Mismatch, _Reader

#: The bytes of one record.
LEN = 120

# A record, in the order of its bytes: the id's offset and length,
# name-index, node, job-version, job-create-index, create-index, the
# fingerprint's destructive and in-place, placement-score, modify-time,
# changed-at, the offsets and lengths of deployment, previous-allocation,
# next-allocation and the rest, then a byte each for desired-status,
# client-status, desired-transition, health, update and which options of the
# spec are present, and two zero bytes.
_RECORD = struct.Struct("<IIIIQQQQQdqqIIIIIIIIBBBBBBH")
_TAIL_LEN = struct.Struct("<I")
# Where the placement score lies, checked whole when absent: -0.0 is not zeros.
_SCORE_AT = 56

# The presence flags of the spec's options.
_DEPLOYMENT, _PREVIOUS, _NEXT, _SCORE = 1, 2, 4, 8
# desired-transition's byte: present, then its four bools in WIT order.
_TRANSITION_BITS = (2, 4, 8, 16)
# health's byte.
_HEALTH, _HEALTHY_KNOWN, _HEALTHY, _CANARY, _CHANGED_AT = 1, 2, 4, 8, 16

#: Offsets are four bytes: a group whose records and tail would pass them is
#: written in content 1 instead.
_LIMIT = 0xFFFFFFFF

# The fields the layout places, by type, in the contract's order: a contract
# that adds, drops or reorders one needs a new layout, not a misread.
_FIELDS: Dict[str, Tuple[str, ...]] = {
    "allocation": ("spec", "observed", "update"),
    "allocation-spec": (
        "id", "name-index", "job-version", "job-create-index", "node", "deployment",
        "previous-allocation", "next-allocation", "create-index", "fingerprint", "placement-score",
    ),
    "observed-state": (
        "desired-status", "client-status", "desired-transition", "health", "reschedule",
        "followup-eval", "client-states", "tasks", "modify-time", "meta",
    ),
    "fingerprint": ("destructive", "in-place"),
    "desired-transition": ("migrate", "reschedule", "force-reschedule", "migrate-disable-placement"),
    "deployment-health": ("healthy", "canary", "changed-at"),
}
# The fields of observed-state that make up the rest, in the order it holds them.
_REST = ("reschedule", "followup-eval", "client-states", "tasks", "meta")
# The enums a record holds a case of, in the order of their bytes.
_ENUMS = ("desired-status", "client-status", "update-kind")


class Oversized(Exception):
    """A group whose records and tail pass the four-byte offsets; the input is written in content 1."""


class AllocationRecords:
    """The codec of a group's allocations as content 3 lays them out, for the contract ``wit_types`` describes.

    ``codec_of(ty)`` gives the generic codec of a type description: the
    rest is written and read by them, and they name a value that does not fit.
    """

    def __init__(self, wit_types: Mapping[str, Any], codec_of: Callable[[Any], _Codec]) -> None:
        types = wit_types["types"]
        for name, fields in _FIELDS.items():
            if tuple(f["name"] for f in types[name]["fields"]) != fields:
                raise TypeError(f"content 3's records lay out another {name} than wit-types.json describes")
        self._enums = {name: types[name]["cases"] for name in _ENUMS}
        self._desired, self._client, self._update = (
            {case: i for i, case in enumerate(cases)} for cases in self._enums.values()
        )
        self._allocation = codec_of({"ref": "allocation"})
        observed = {f["name"]: f["type"] for f in types["observed-state"]["fields"]}
        self._rest = [(key, codec_of(observed[key])) for key in _REST]

    def write(self, out: bytearray, allocations: Any) -> None:
        """Appends a group's ``allocations``; :class:`Oversized` for a group too large for its offsets."""
        if not isinstance(allocations, (list, tuple)):
            raise _expected("a list", allocations)
        records = bytearray(len(allocations) * LEN)
        try:
            tail = self._place(records, allocations)
        except Exception as refused:
            for i, allocation in enumerate(allocations):
                self._check(allocation, i)
            # Every value fits its field: only an offset can have overflowed.
            if isinstance(refused, struct.error):
                raise Oversized from None
            raise
        if len(records) + len(tail) > _LIMIT:
            raise Oversized
        varint(out, len(allocations))
        out += _TAIL_LEN.pack(len(tail))
        out += records
        out += tail

    def _check(self, allocation: Any, i: int) -> None:
        """Raises the misfit of allocation ``i``, naming its field, if it has one."""
        try:
            self._allocation.write(bytearray(), allocation)
        except _Mismatch as m:
            m.path.append(i)
            raise

    def _place(self, records: bytearray, allocations: Sequence[Any]) -> bytearray:
        """Packs the record of each of ``allocations`` into ``records``, giving the tail; raises at the first value that does not fit."""
        pack = _RECORD.pack_into
        desired, client, update, rest = self._desired, self._client, self._update, self._rest
        tail = bytearray()
        shared: Optional[str] = None
        shared_at = shared_len = 0
        first = 0
        for a in allocations:
            s, o = a["spec"], a["observed"]
            f = s["fingerprint"]
            if type(a) is not dict or type(s) is not dict or type(o) is not dict or type(f) is not dict:
                _records(a, s, o, f)
            # Strings are placed from the record's first byte; the tail starts after the last record.
            to_tail = len(records) - first
            id_at, id_len = _appended(tail, s["id"])
            present = 0
            deployment = s.get("deployment")
            if deployment is None:
                deployment_at = deployment_len = 0
            else:
                present = _DEPLOYMENT
                if deployment != shared:
                    shared_at, shared_len = _appended(tail, deployment)
                    shared = deployment
                deployment_at, deployment_len = to_tail + shared_at, shared_len
            previous = s.get("previous-allocation")
            if previous is None:
                previous_at = previous_len = 0
            else:
                present |= _PREVIOUS
                previous_at, previous_len = _appended(tail, previous)
                previous_at += to_tail
            following = s.get("next-allocation")
            if following is None:
                next_at = next_len = 0
            else:
                present |= _NEXT
                next_at, next_len = _appended(tail, following)
                next_at += to_tail
            score = s.get("placement-score")
            if score is None:
                score = 0.0
            elif type(score) is float or isinstance(score, float) or _is_int(score):
                present |= _SCORE
            else:
                raise Unfit
            ni, node, jv, jci, ci = (
                s["name-index"], s["node"], s["job-version"], s["job-create-index"], s["create-index"]
            )
            destructive, in_place, modified = f["destructive"], f["in-place"], o["modify-time"]
            # struct checks ranges, but takes a bool or anything with __index__ for an int.
            if not (
                type(ni) is int and type(node) is int and type(jv) is int and type(jci) is int
                and type(ci) is int and type(destructive) is int and type(in_place) is int
                and type(modified) is int
            ):
                _ints(ni, node, jv, jci, ci, destructive, in_place, modified)
            transition = o.get("desired-transition")
            health = o.get("health")
            health_bits, changed = (0, 0) if health is None else _health(health)
            kind = a.get("update")
            if (
                o.get("reschedule") is None and o.get("followup-eval") is None
                and o.get("client-states") is None and o.get("tasks") is None and o.get("meta") is None
            ):
                rest_at = rest_len = 0
            else:
                start = len(tail)
                for key, codec in rest:
                    codec.write(tail, o.get(key))
                rest_at, rest_len = to_tail + start, len(tail) - start
            pack(
                records, first,
                to_tail + id_at, id_len, ni, node, jv, jci, ci, destructive, in_place, score,
                modified, changed, deployment_at, deployment_len, previous_at, previous_len,
                next_at, next_len, rest_at, rest_len,
                desired[o["desired-status"]], client[o["client-status"]],
                0 if transition is None else _transition(transition), health_bits,
                0 if kind is None else update[kind] + 1, present, 0,
            )
            first += LEN
        return tail

    def read(self, r: _Reader) -> List[Dict[str, Any]]:
        """A group's allocations at ``r``, each record checked as the reconciler checks it."""
        n = r.varint()
        (tail_len,) = _TAIL_LEN.unpack(r.take(4))
        if n > (len(r.buf) - r.pos) // LEN:
            raise r.truncated()
        group = _Group(r.pos, r.take(n * LEN + tail_len), n * LEN)
        return [self._read(group, i) for i in range(n)]

    def _read(self, group: _Group, i: int) -> Dict[str, Any]:
        first = i * LEN
        (
            id_at, id_len, ni, node, jv, jci, ci, destructive, in_place, score, modified, changed,
            deployment_at, deployment_len, previous_at, previous_len, next_at, next_len,
            rest_at, rest_len, desired, client, transition, health, kind, present, reserved,
        ) = _RECORD.unpack_from(group.bytes, first)
        if present & ~(_DEPLOYMENT | _PREVIOUS | _NEXT | _SCORE) or reserved:
            raise group.fault(i, "unknown bits in the presence flags, or reserved bytes that are not zero")
        if not present & _SCORE and group.bytes[first + _SCORE_AT : first + _SCORE_AT + 8] != bytes(8):
            raise group.fault(i, "an absent placement score that is not zeros")
        if changed and not health & _CHANGED_AT:
            raise group.fault(i, "an absent changed-at that is not zero")
        # The update byte is one more than its case, zero when absent.
        for value, cases in zip((desired, client, kind - 1), self._enums.values()):
            if value >= len(cases):
                raise group.fault(i, "a case index beyond the type's cases")
        for bits in (transition, health):
            if bits & ~0x1F or (bits and not bits & 1):
                raise group.fault(i, "flags out of range, or set on an absent field")
        if health & _HEALTHY and not health & _HEALTHY_KNOWN:
            raise group.fault(i, "a health value without its presence flag")
        spec = (
            group.string(i, id_at, id_len, True),
            ni, jv, jci, node,
            group.string(i, deployment_at, deployment_len, present & _DEPLOYMENT),
            group.string(i, previous_at, previous_len, present & _PREVIOUS),
            group.string(i, next_at, next_len, present & _NEXT),
            ci,
            dict(zip(_FIELDS["fingerprint"], (destructive, in_place))),
            # As the generic codec reads an f64: JSON has no NaN or infinities.
            score if present & _SCORE and score - score == 0 else None,
        )
        rest = self._rest_of(group, i, rest_at, rest_len)
        observed = (
            self._enums["desired-status"][desired],
            self._enums["client-status"][client],
            None if not transition else dict(
                zip(_FIELDS["desired-transition"], (bool(transition & bit) for bit in _TRANSITION_BITS))
            ),
            None if not health else dict(zip(_FIELDS["deployment-health"], (
                bool(health & _HEALTHY) if health & _HEALTHY_KNOWN else None,
                bool(health & _CANARY),
                changed if health & _CHANGED_AT else None,
            ))),
            *rest[:4],
            modified,
            rest[4],
        )
        return dict(zip(_FIELDS["allocation"], (
            dict(zip(_FIELDS["allocation-spec"], spec)),
            dict(zip(_FIELDS["observed-state"], observed)),
            self._enums["update-kind"][kind - 1] if kind else None,
        )))

    def _rest_of(self, group: _Group, i: int, at: int, length: int) -> List[Any]:
        if not length:
            if at:
                raise group.fault(i, "an absent rest that is not zeros")
            return [None] * len(_REST)
        reader = _Reader(group.placed(i, at, length), 0)
        try:
            rest = [codec.read(reader) for _, codec in self._rest]
        except WireError as e:
            raise group.fault(i, f"the rest of the observed state does not decode: {e}") from None
        if reader.pos != length:
            raise group.fault(i, "the rest of the observed state does not decode: bytes follow it")
        return rest


class _Group:
    """The records and tail of one group being read, from byte ``at`` of the buffer."""

    __slots__ = ("at", "bytes", "tail_from")

    def __init__(self, at: int, region: bytes, tail_from: int) -> None:
        self.at = at
        self.bytes = region
        self.tail_from = tail_from

    def fault(self, i: int, message: str) -> WireError:
        return WireError(f"allocation record {i} at byte {self.at + i * LEN}: {message}")

    def placed(self, i: int, at: int, length: int) -> bytes:
        """The bytes record ``i`` places at its offset ``at``, which must lie in the tail."""
        start = i * LEN + at
        if start < self.tail_from or start + length > len(self.bytes):
            raise self.fault(i, "placed outside its group's tail")
        return self.bytes[start : start + length]

    def string(self, i: int, at: int, length: int, present: Any) -> Optional[str]:
        """The string record ``i`` places, or none when absent (its place then zeros)."""
        if not present:
            if at or length:
                raise self.fault(i, "an absent string that is not zeros")
            return None
        try:
            return self.placed(i, at, length).decode("utf-8")
        except UnicodeDecodeError:
            raise self.fault(i, "a string that is not UTF-8") from None


def _records(*values: Any) -> None:
    """Raises unless every one of ``values`` is a record as the generic codecs take one: a ``Mapping``."""
    if not all(isinstance(v, Mapping) for v in values):
        raise Unfit


def _ints(*values: Any) -> None:
    """Raises unless every one of ``values`` is an integer as the generic codecs take one: an ``int``, not a ``bool``."""
    if not all(_is_int(v) for v in values):
        raise Unfit


def _appended(tail: bytearray, text: Any) -> Tuple[int, int]:
    """Appends the string ``text`` to ``tail``: where it starts there, and its length in bytes."""
    if type(text) is not str and not isinstance(text, str):
        raise Unfit
    encoded = text.encode()
    at = len(tail)
    tail += encoded
    return at, len(encoded)


def _bit(value: Any, bit: int) -> int:
    """``bit`` for true, nothing for false."""
    if value is True:
        return bit
    if value is False:
        return 0
    raise Unfit


def _transition(t: Any) -> int:
    if type(t) is not dict:
        _records(t)
    bits = 1
    for key, bit in zip(_FIELDS["desired-transition"], _TRANSITION_BITS):
        bits |= _bit(t[key], bit)
    return bits


def _health(h: Any) -> Tuple[int, int]:
    """The health byte, and changed-at (zero when absent)."""
    if type(h) is not dict:
        _records(h)
    bits = _HEALTH | _bit(h["canary"], _CANARY)
    healthy = h.get("healthy")
    if healthy is not None:
        bits |= _HEALTHY_KNOWN | _bit(healthy, _HEALTHY)
    changed = h.get("changed-at")
    if changed is None:
        return bits, 0
    if type(changed) is not int:
        _ints(changed)
    return bits | _CHANGED_AT, changed
