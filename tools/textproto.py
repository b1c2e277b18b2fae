"""A reader for the protobuf text format subset the cel-spec conformance files use.

Why not `google.protobuf.text_format`: it needs generated message classes for `simple.proto`
and the `cel.expr` protos it imports (protoc or a descriptor pool built by hand) and a protobuf
runtime dependency, only to read test data. The files use a small, regular subset: `name: value`
scalars (strings with C escapes and adjacent-literal concatenation, numbers, identifiers),
`name { … }` / `name: { … }` / `name < … >` messages, `[type.url] { … }` Any expansions and `#`
comments. Without the schema every field is read as a list of values (repeated or not); string
literals stay `bytes` so that `bytes_value` keeps non-UTF-8 content, and callers decode.
"""

from __future__ import annotations

import re

__all__ = ["Message", "TextprotoError", "parse_textproto", "text"]

Scalar = bytes | int | float | str
"""bytes: a quoted string; int/float: a number; str: an identifier (enum, true, inf…)."""
Message = dict[str, list["Scalar | Message"]]


class TextprotoError(ValueError):
    pass


_TOKEN = re.compile(
    r"""
    (?P<space>(?:\s|\#[^\n]*)+)
  | (?P<string>"(?:[^"\\\n]|\\.)*"|'(?:[^'\\\n]|\\.)*')
  | (?P<number>[-+]?(?:0[xX][0-9a-fA-F]+|(?:\d+\.?\d*|\.\d+)(?:[eE][-+]?\d+)?)[fFuU]?)
  | (?P<ident>[-]?[A-Za-z_][A-Za-z0-9_]*)
  | (?P<url>\[[A-Za-z0-9_./]+\])
  | (?P<punct>[{}<>:;,\[\]])
    """,
    re.VERBOSE,
)

_SIMPLE_ESCAPES = {
    "a": 7,
    "b": 8,
    "f": 12,
    "n": 10,
    "r": 13,
    "t": 9,
    "v": 11,
    "\\": 92,
    "'": 39,
    '"': 34,
    "?": 63,
}


def _unescape(body: str) -> bytes:
    """C-style escapes of the text format: \\n, \\xHH, \\NNN (octal), \\uHHHH, \\UHHHHHHHH."""
    out = bytearray()
    i = 0
    while i < len(body):
        c = body[i]
        if c != "\\":
            out += c.encode("utf-8")
            i += 1
            continue
        n = body[i + 1]
        if n in _SIMPLE_ESCAPES:
            out.append(_SIMPLE_ESCAPES[n])
            i += 2
        elif n in "xX":
            m = re.match(r"[0-9a-fA-F]{1,2}", body[i + 2 :])
            if m is None:
                raise TextprotoError(f"bad \\x escape in {body!r}")
            out.append(int(m.group(), 16))
            i += 2 + len(m.group())
        elif n in "01234567":
            m = re.match(r"[0-7]{1,3}", body[i + 1 :])
            assert m is not None
            out.append(int(m.group(), 8) & 0xFF)
            i += 1 + len(m.group())
        elif n == "u":
            out += chr(int(body[i + 2 : i + 6], 16)).encode("utf-8", "surrogatepass")
            i += 6
        elif n == "U":
            out += chr(int(body[i + 2 : i + 10], 16)).encode("utf-8", "surrogatepass")
            i += 10
        else:
            raise TextprotoError(f"unknown escape \\{n} in {body!r}")
    return bytes(out)


def _tokens(source: str) -> list[tuple[str, str]]:
    out: list[tuple[str, str]] = []
    pos = 0
    while pos < len(source):
        m = _TOKEN.match(source, pos)
        if m is None:
            line = source.count("\n", 0, pos) + 1
            raise TextprotoError(f"line {line}: unexpected {source[pos : pos + 20]!r}")
        pos = m.end()
        kind = m.lastgroup
        assert kind is not None
        if kind != "space":
            out.append((kind, m.group()))
    return out


class _Parser:
    def __init__(self, source: str) -> None:
        self.toks = _tokens(source)
        self.i = 0

    def peek(self) -> tuple[str, str] | None:
        return self.toks[self.i] if self.i < len(self.toks) else None

    def next(self) -> tuple[str, str]:
        tok = self.peek()
        if tok is None:
            raise TextprotoError("unexpected end of input")
        self.i += 1
        return tok

    def message(self, close: str | None) -> Message:
        msg: Message = {}
        while True:
            tok = self.peek()
            if tok is None:
                if close is not None:
                    raise TextprotoError(f"missing {close!r}")
                return msg
            if tok == ("punct", close):
                self.i += 1
                return msg
            kind, name = self.next()
            if kind not in ("ident", "url"):
                raise TextprotoError(f"expected a field name, got {name!r}")
            tok = self.peek()
            if tok == ("punct", ":"):
                self.i += 1
                tok = self.peek()
            if tok == ("punct", "["):  # `name: [v1, v2]`: a repeated field's values
                self.i += 1
                values = msg.setdefault(name, [])
                while self.peek() != ("punct", "]"):
                    values.append(self.value())
                    if self.peek() == ("punct", ","):
                        self.i += 1
                self.i += 1
            else:
                msg.setdefault(name, []).append(self.value())
            if self.peek() in (("punct", ";"), ("punct", ",")):
                self.i += 1

    def value(self) -> Scalar | Message:
        tok = self.peek()
        if tok in (("punct", "{"), ("punct", "<")):
            self.i += 1
            return self.message("}" if tok[1] == "{" else ">")
        return self.scalar()

    def scalar(self) -> Scalar:
        kind, raw = self.next()
        if kind == "string":
            data = _unescape(raw[1:-1])
            while self.peek() is not None and self.peek()[0] == "string":  # type: ignore[index]
                data += _unescape(self.next()[1][1:-1])
            return data
        if kind == "number":
            body = raw.rstrip("uUfF") if not raw.lower().startswith(("0x", "-0x")) else raw
            if re.fullmatch(r"[-+]?(0[xX][0-9a-fA-F]+)", body):
                return int(body, 16)
            if re.fullmatch(r"[-+]?\d+", body) and not raw.endswith(("f", "F")):
                return int(body)
            return float(body)
        if kind == "ident":
            return raw
        raise TextprotoError(f"expected a value, got {raw!r}")


def parse_textproto(source: str) -> Message:
    """The top-level message of a text-format file."""
    return _Parser(source).message(None)


def text(value: Scalar | Message) -> str:
    """A string field's value (quoted strings are stored as UTF-8 bytes)."""
    if isinstance(value, bytes):
        return value.decode("utf-8", "surrogatepass")
    if isinstance(value, str):
        return value
    raise TextprotoError(f"expected a string, got {value!r}")
