"""The wire format's fast input encoder: straight-line Python generated once from the contract's description, for values that fit; a value that does not is encoded again by the generic codecs of ``wire``, which name its field.

The generic codecs call a closure per field inside a ``try`` that records
the field's path. For 10,000 allocations that was most of the encoding's
time. The code generated here reads a record's fields into locals and writes
strings, integers, bools, enums, floats, options, records and lists of them
inline, with the output's ``append`` held in a local. Variants, results,
tuples, byte lists and ``f32`` are calls of their generic writers, and a
list laid out otherwise (content 3's allocations) a call of its own writer.

It accepts exactly what the generic codecs accept, or less: a ``dict`` for a
record (not any ``Mapping``), exact ``int``, ``float`` and ``str`` types. At
the first value it cannot write it raises, and :class:`FittedInput`'s caller
encodes the whole value again with the generic codecs, which either write it
or raise the error naming the field. Both write the same bytes for a value
both take; the tests compare them on every bundled scenario.
"""

from __future__ import annotations

import struct
from typing import Any, Callable, Dict, List, Mapping, Optional

from .wire_numbers import RANGES, varint
from .wire_parts import _named

class Unfit(Exception):
    """A value the generated code does not write; the generic codecs take the whole value again."""


#: What writes a value of a type the generated code does not inline: the generic codec's writer.
GenericWriter = Callable[[bytearray, Any], None]


class FittedInput:
    """The generated writer of ``reconcile-input``, for the contract ``wit_types`` describes.

    ``generic(ty)`` gives the generic writer of a type description, for the
    types the generated code calls out to. ``lists`` maps the name of a type
    to the writer of a whole list of it, for a list laid out otherwise than
    item after item (content 3's allocations).
    """

    def __init__(
        self,
        wit_types: Mapping[str, Any],
        generic: Callable[[Any], GenericWriter],
        lists: Optional[Mapping[str, GenericWriter]] = None,
    ) -> None:
        self._types: Mapping[str, Any] = wit_types["types"]
        self._generic = generic
        self._lists = lists or {}
        self._lines: List[str] = []
        self._env: Dict[str, Any] = {
            "Unfit": Unfit,
            "_varint": varint,
            "_pack_f64": struct.Struct("<d").pack,
            "_NAN": float("nan"),
        }
        self._count = 0
        self._line(1, "ap = out.append")
        self._value({"ref": "reconcile-input"}, "v", 1)
        source = "def write(out, v):\n" + "\n".join(self._lines) + "\n"
        exec(compile(source, "<slotwise fitted input writer>", "exec"), self._env)
        self.write: Callable[[bytearray, Any], None] = self._env["write"]

    def _line(self, depth: int, text: str) -> None:
        self._lines.append("    " * depth + text)

    def _local(self, stem: str) -> str:
        self._count += 1
        return f"{stem}{self._count}"

    def _constant(self, value: Any, stem: str) -> str:
        name = self._local("_" + stem)
        self._env[name] = value
        return name

    def _resolved(self, ty: Any) -> Any:
        """The type description behind aliases."""
        while isinstance(ty, dict) and "ref" in ty:
            definition = self._types[ty["ref"]]
            if definition["kind"] != "alias":
                return definition
            ty = definition["type"]
        return ty

    def _value(self, ty: Any, var: str, depth: int) -> None:
        """The lines writing the local ``var``, of the type ``ty``."""
        resolved = self._resolved(ty)
        kind = resolved.get("kind") if isinstance(resolved, dict) else None
        if isinstance(resolved, str):
            self._primitive(resolved, var, depth)
        elif kind == "record":
            self._record(resolved["fields"], var, depth)
        elif kind == "enum" and len(resolved["cases"]) < 0x80:
            index = self._constant({case: i for i, case in enumerate(resolved["cases"])}, "cases")
            self._line(depth, f"ap({index}[{var}])")
        elif kind is None and "option" in resolved:
            self._line(depth, f"if {var} is None:")
            self._line(depth + 1, "ap(0)")
            self._line(depth, "else:")
            self._line(depth + 1, "ap(1)")
            self._value(resolved["option"], var, depth + 1)
        elif kind is None and "list" in resolved and _named(resolved["list"]) in self._lists:
            writer = self._constant(self._lists[_named(resolved["list"])], "write")
            self._line(depth, f"{writer}(out, {var})")
        elif kind is None and "list" in resolved and resolved["list"] != "u8":
            item = self._local("item")
            self._line(depth, f"if type({var}) is not list and type({var}) is not tuple:")
            self._line(depth + 1, "raise Unfit")
            self._length(f"len({var})", depth)
            self._line(depth, f"for {item} in {var}:")
            self._value(resolved["list"], item, depth + 1)
        else:
            # Variants, results, tuples, byte lists, large enums: the generic writer.
            writer = self._constant(self._generic(ty), "write")
            self._line(depth, f"{writer}(out, {var})")

    def _record(self, fields: List[Mapping[str, Any]], var: str, depth: int) -> None:
        self._line(depth, f"if type({var}) is not dict:")
        self._line(depth + 1, "raise Unfit")
        for f in fields:
            local = self._local("f")
            resolved = self._resolved(f["type"])
            # An absent optional field is none, as the generic codecs read it.
            optional = isinstance(resolved, dict) and "option" in resolved
            read = f"{var}.get({f['name']!r})" if optional else f"{var}[{f['name']!r}]"
            self._line(depth, f"{local} = {read}")
            self._value(f["type"], local, depth)

    def _length(self, expr: str, depth: int) -> None:
        n = self._local("n")
        self._line(depth, f"{n} = {expr}")
        self._line(depth, f"if {n} < 0x80:")
        self._line(depth + 1, f"ap({n})")
        self._line(depth, "else:")
        self._line(depth + 1, f"_varint(out, {n})")

    def _primitive(self, prim: str, var: str, depth: int) -> None:
        if prim == "bool":
            self._line(depth, f"if {var} is True:")
            self._line(depth + 1, "ap(1)")
            self._line(depth, f"elif {var} is False:")
            self._line(depth + 1, "ap(0)")
            self._line(depth, "else:")
            self._line(depth + 1, "raise Unfit")
        elif prim == "string":
            encoded = self._local("s")
            self._line(depth, f"if type({var}) is not str:")
            self._line(depth + 1, "raise Unfit")
            self._line(depth, f"{encoded} = {var}.encode()")
            self._length(f"len({encoded})", depth)
            self._line(depth, f"out += {encoded}")
        elif prim in RANGES and prim[0] == "u" and prim != "u8":
            # Most unsigned integers are below 128: one test for those.
            high = RANGES[prim][1]
            self._line(depth, f"if type({var}) is int and 0 <= {var} < 0x80:")
            self._line(depth + 1, f"ap({var})")
            self._line(depth, f"elif type({var}) is int and 0x80 <= {var} <= {high}:")
            self._line(depth + 1, f"_varint(out, {var})")
            self._line(depth, "else:")
            self._line(depth + 1, "raise Unfit")
        elif prim in RANGES:
            low, high = RANGES[prim]
            self._line(depth, f"if type({var}) is not int or not {low} <= {var} <= {high}:")
            self._line(depth + 1, "raise Unfit")
            if prim in ("u8", "s8"):
                self._line(depth, f"ap({var} & 0xFF)")
            else:
                self._length(f"{var} << 1 if {var} >= 0 else (-{var} << 1) - 1", depth)
        elif prim == "f64":
            self._line(depth, f"if {var} is None:")
            self._line(depth + 1, "out += _pack_f64(_NAN)")
            self._line(depth, f"elif type({var}) is float or type({var}) is int:")
            self._line(depth + 1, f"out += _pack_f64({var})")
            self._line(depth, "else:")
            self._line(depth + 1, "raise Unfit")
        else:
            writer = self._constant(self._generic(prim), "write")
            self._line(depth, f"{writer}(out, {var})")
