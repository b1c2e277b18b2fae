"""Differential test: `vap_lsp.golang` agrees with Go's standard library.

The same inputs go through a small Go program (`differential/main.go`, standard library only,
built here with the `go` on PATH — Debian's `golang-go` in CI, installed by `.ci/run` when there is
no `go` — or with the one `VAP_LSP_GO` names) and through the Python module; the answers must be
equal. Inputs are hand-picked edge cases (unicode, lone surrogates, invalid escapes, opaque URLs,
zone offsets, leap years, huge values) plus seeded random strings over an alphabet of the
characters that matter.

vap-lsp behaves as the Go each Kubernetes version is built with (`vap_lsp.golang.toolchain`),
which is seldom exactly the Go at hand. So:

* `net/url` and `net/netip` are modelled per Go release: the Python side answers as the Go here
  would (`Go(<version here>, <GODEBUG>)`), and the URL tests run once per GODEBUG setting some
  supported Kubernetes runs with (passed to the program in the GODEBUG variable). Where the Go
  here answers differently from the Go of the Kubernetes versions with that setting, the cases
  are counted and named in a warning: a known difference, expected of this Go, not a skip.
* Elsewhere, where an older Go than Kubernetes' behaves differently and vap-lsp does not model
  it, `pinned` says from which Go on the case holds, and the case is skipped on an older Go —
  with a warning that says how many and why.

A Go newer than any supported Kubernetes' may have changed again: a disagreement then says so.
"""

from __future__ import annotations

import json
import math
import os
import random
import re
import shutil
import subprocess
import warnings
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from vap_lsp.golang import fmt, jsonenc, netip, neturl, regexp, strconv, strings, timefmt
from vap_lsp.golang.toolchain import GODEBUG_CHANGED, KUBERNETES_GO, NEWEST, Go

SOURCE = Path(__file__).resolve().parent / "differential"

# --- the Go oracle ---------------------------------------------------------------------------


class GoOracle:
    def __init__(self, binary: Path, version: tuple[int, int, int]) -> None:
        self.binary = binary
        self.version = version

    @property
    def name(self) -> str:
        return "go" + ".".join(map(str, self.version))

    def ask(self, requests: list[dict[str, str]], godebug: str = "") -> list[dict[str, Any]]:
        """The program's answers; `godebug` is its GODEBUG (the module's defaults are Go 1.19's)."""
        text = "".join(json.dumps(r) + "\n" for r in requests)
        env = {**os.environ, "GODEBUG": godebug}
        done = subprocess.run(
            [str(self.binary)], input=text.encode(), capture_output=True, timeout=120, check=True, env=env
        )
        answers = [json.loads(line) for line in done.stdout.decode().split("\n") if line]
        assert len(answers) == len(requests)
        return answers


def _go_version(go: str) -> tuple[int, int, int]:
    out = subprocess.run([go, "env", "GOVERSION"], capture_output=True, text=True, check=True).stdout
    found = re.match(r"go(\d+)\.(\d+)(?:\.(\d+))?", out.strip())
    if found is None:
        pytest.skip(f"{go} names no release ({out.strip()!r}): which Go behaviour to expect is unknown")
    major, minor, patch = found.groups()
    return int(major), int(minor), int(patch or 0)


@pytest.fixture(scope="session")
def go(tmp_path_factory: pytest.TempPathFactory) -> GoOracle:
    """The Go program, built once per test session (no network: standard library only)."""
    exe = os.environ.get("VAP_LSP_GO") or shutil.which("go")
    if exe is None:
        pytest.skip("no Go toolchain on PATH (CI installs Debian's golang-go in .ci/run)")
    out = tmp_path_factory.mktemp("go-differential")
    env = {
        **os.environ,
        "GOFLAGS": "-mod=mod",
        "GOPROXY": "off",
        "GOTOOLCHAIN": "local",
        "GOCACHE": str(out / "cache"),
        "GOPATH": str(out / "gopath"),
    }
    built = subprocess.run(
        [exe, "build", "-o", str(out / "differential"), "."],
        cwd=SOURCE,
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
    )
    if built.returncode != 0:
        pytest.skip(f"the Go program did not build with {exe}: {built.stderr.strip()[:500]}")
    return GoOracle(out / "differential", _go_version(exe))


Pin = Callable[[str, str], tuple[tuple[int, int], str] | None]


def compare(
    go: GoOracle,
    op: str,
    inputs: list[str] | list[tuple[str, str]],
    python: Callable[..., dict[str, Any]],
    pinned: Pin = lambda i, a: None,
    godebug: str = "",
    any_error: bool = False,
) -> None:
    """Ask Go and Python the same questions; list every disagreement. A case `pinned` to a Go
    newer than the one here is skipped, and a warning says how many and why. With `any_error`,
    Go's error texts are compared as "an error" (`*`)."""
    pairs = bool(inputs) and not isinstance(inputs[0], str)
    cases = [(i, "") if isinstance(i, str) else i for i in inputs]
    answers = go.ask([{"op": op, "in": i, "arg": a} for i, a in cases], godebug)
    wrong = []
    skipped: dict[str, int] = {}
    for (i, a), want in zip(cases, answers, strict=True):
        pin = pinned(i, a)
        if pin is not None and go.version[:2] < pin[0]:
            skipped[pin[1]] = skipped.get(pin[1], 0) + 1
            continue
        if any_error and "err" in want:
            want = {"err": "*"}
        i = _paired(i)
        got = python(i, a) if pairs else python(i)
        if got != want:
            wrong.append(f"{op}({i!r}, {a!r}):\n   go:     {want}\n   python: {got}")
    for reason, count in skipped.items():
        warnings.warn(f"{op}: {count} cases skipped on {go.name}: {reason}", stacklevel=2)
    assert not wrong, f"{len(wrong)} of {len(cases)} disagree on {go.name}{_newer_note(go)}:\n" + "\n".join(
        wrong[:20]
    )


def _newer_note(go: GoOracle) -> str:
    newest = max(KUBERNETES_GO.values(), key=lambda g: g.version)
    if go.version[:2] > newest.version[:2]:
        return (
            f" (newer than any Go a supported Kubernetes is built with, {newest}: a disagreement may be"
            " a change in Go that vap_lsp.golang does not know yet)"
        )
    return ""


def _paired(s: str) -> str:
    """`s` as Go's JSON decoder reads it: a high and a low surrogate next to each other are one
    character (lone ones stay, for the module under test to handle)."""
    return s.encode("utf-16", "surrogatepass").decode("utf-16", "surrogatepass")


# --- inputs -----------------------------------------------------------------------------------

ALPHABET = (
    "aZ09 \t\n\r\v\f\a\b\x00\x1f\x7f\x80\x85\xa0\xad\u2028\u2029\u200b\u3000\ufeff\ufffd"
    "\U0001f600\U000e0001\ud800\udfff\\\"'<>&%+/:?#[]@.-_~;=!$()*,"
)


def random_strings(seed: int, count: int, alphabet: str = ALPHABET, max_len: int = 12) -> Iterator[str]:
    rnd = random.Random(seed)
    for _ in range(count):
        yield "".join(rnd.choice(alphabet) for _ in range(rnd.randint(0, max_len)))


def _go_string(s: str) -> str:
    """What a Go string built from `s` holds: JSON decoding turns a lone surrogate into U+FFFD."""
    return "".join("\ufffd" if 0xD800 <= ord(c) <= 0xDFFF else c for c in _paired(s))


def _go_strings(value: Any) -> Any:
    """Strings as Go's JSON encoder writes them: bytes that are not UTF-8 become U+FFFD."""
    if isinstance(value, str):
        return _go_string(value)
    if isinstance(value, dict):
        return {_go_string(k): _go_strings(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_go_strings(v) for v in value]
    return value


# --- strconv, strings, encoding/json, fmt ----------------------------------------------------------

QUOTE_CASES = [
    "",
    "plain",
    'say "hi"\\',
    "tab\there\nnew",
    "\x00\x01\x7f\x80\x9f",
    "nbsp\xa0soft\xadhyphen",
    "\u2028\u2029\u200b\ufeff",
    "emoji \U0001f600 tag \U000e0001",
    "lone \ud800 surrogate \udfff",
    "\ufffd",
    "Ω≈ç√ 日本語 עברית",
    "\U0010ffff\U000f0000",
]


def test_quote_is_strconv_quote(go: GoOracle) -> None:
    compare(go, "quote", QUOTE_CASES + list(random_strings(1, 400)), lambda s: {"out": strconv.quote(s)})


def _json_pinned(s: str, _: str) -> tuple[tuple[int, int], str] | None:
    if "\b" in s or "\f" in s:
        return (1, 22), "Go 1.22 writes \\b and \\f in their short form (earlier: \\u0008, \\u000c)"
    return None


def test_json_string_is_json_marshal(go: GoOracle) -> None:
    compare(
        go,
        "json_string",
        QUOTE_CASES + list(random_strings(2, 400)),
        lambda s: {"out": jsonenc.marshal_string(s)},
        _json_pinned,
    )


FLOATS = [
    "0", "-0", "1", "-1.5", "0.1", "1e-6", "9.99e-7", "1e-7", "123456789", "1e20", "1e21", "1.5e21",
    "1e100", "5e-324", "1.7976931348623157e308", "0.000001", "123.456", "1e16", "12345678901234567890",
    "3.0000000000000004", "2.5e-5",
]  # fmt: skip


def _json_float(text: str) -> dict[str, Any]:
    try:
        return {"out": jsonenc.marshal_float(float(text))}
    except ValueError as exc:
        return {"err": str(exc)}


def _random_floats(seed: int, count: int) -> list[str]:
    rnd = random.Random(seed)
    out = []
    for _ in range(count):
        x = rnd.uniform(-10, 10) * 10 ** rnd.randint(-30, 30)
        out.append(repr(x if rnd.random() < 0.7 else round(x, rnd.randint(0, 6))))
    return out


def test_json_float_is_json_marshal(go: GoOracle) -> None:
    compare(go, "json_float", FLOATS + _random_floats(3, 300), _json_float)


def test_fmt_g(go: GoOracle) -> None:
    compare(
        go,
        "fmt_g",
        [*FLOATS, "NaN", "+Inf", "-Inf", *_random_floats(4, 300)],
        lambda s: {"out": fmt.format_g(float(s))},
    )


def test_fmt_fixed_and_scientific(go: GoOracle) -> None:
    """The English printer groups thousands; Go's `fmt` does not, the digits are the same."""
    cases = [(f, str(p)) for f in FLOATS + _random_floats(5, 80) for p in (0, 1, 3, 6, 12)]
    compare(
        go,
        "fmt_f",
        cases,
        lambda s, p: {"out": fmt.format_fixed_grouped(float(s), int(p)).replace(",", "")},
    )
    compare(go, "fmt_e", cases, lambda s, w: {"out": fmt.format_e_width(float(s), int(w))})


NUMBERS = [
    "0", "1", "-1", "+1", "017", "0o17", "0O17", "0x1F", "0X1f", "0b101", "0B1", "08", "0x", "0b", "0o", "00",
    "1_000", "1__000", "_1", "1_", "0x_1F", "0_17", "-0x8000000000000000", "0x7fffffffffffffff",
    "9223372036854775807", "9223372036854775808", "-9223372036854775808", "-9223372036854775809",
    "18446744073709551615", "18446744073709551616", "", "+", "-", "1e3", "1.5", "1.", ".5", "-.5", "1e",
    "1e+3", "1E-3", "inf", "+Inf", "-INF", "infinity", "-Infinity", "nan", "NaN", "+nan", "-nan", "1e309",
    "-1e309", "1e-400", "0x1p-2", "0x1.8p1", "0x1", "0x.8p0", "0xp1", "0x1p", "1_000.5", "1_.5", "._5",
    " 1", "1 ", "0x1P+1_0", "1e1_0", "١", "0x1.fffffffffffff7p1023", "0x1p1024", "4.9e-324", "2e-324",
]  # fmt: skip


def _number_inputs(seed: int) -> list[str]:
    rnd = random.Random(seed)
    return (
        NUMBERS
        + list(random_strings(seed, 400, "0123456789abxoBXOpPeE._+-", 8))
        + [str(rnd.randint(-(2**70), 2**70)) for _ in range(100)]
    )


def _num(value: int | float | None) -> dict[str, Any]:
    if value is None:
        return {"err": "*"}
    if isinstance(value, float):
        return {"out": fmt.format_g(value)}
    return {"out": str(value)}


def test_parse_int_uint_float(go: GoOracle) -> None:
    """go-yaml v2 resolves plain scalars with these (after removing underscores)."""
    inputs = _number_inputs(13)
    compare(go, "parse_int", inputs, lambda s: _num(strconv.parse_int(s)))
    compare(go, "parse_uint", inputs, lambda s: _num(strconv.parse_uint(s)))
    compare(go, "parse_float", inputs, lambda s: _num(strconv.parse_float(s)))


def test_parse_bool(go: GoOracle) -> None:
    """The ServiceAccount admission plugin reads kubernetes.io/enforce-mountable-secrets with it."""
    cases = ["1", "0", "t", "f", "T", "F", "true", "false", "TRUE", "FALSE", "True", "False", "tRuE", "yes"]
    cases += ["", " true", "true ", "2", "on", "y", "TrUe", "FaLsE", "truE"]
    cases += list(random_strings(8, 200, "tTrRuUeE10fFaAlLsS", 5))

    def parsed(s: str) -> dict[str, Any]:
        value = strconv.parse_bool(s)
        return {"err": "*"} if value is None else {"out": "true" if value else "false"}

    compare(go, "parse_bool", cases, parsed)


def test_trim_space_is_strings_trim_space(go: GoOracle) -> None:
    spaces = "\t\n\v\f\r \x85\xa0\u1680\u2000\u200a\u2028\u2029\u202f\u205f\u3000\x1c\x1f\u200b\ufeff"
    cases = [" a ", "\x1c a \x1f", "\u3000x\u3000", "\u200bx\u200b", "", "   "]
    compare(
        go,
        "trim_space",
        cases + list(random_strings(6, 300, spaces + "ab", 8)),
        lambda s: {"out": strings.trim_space(_go_string(s))},
    )


# --- time -------------------------------------------------------------------------------------

TIMESTAMPS = [
    "2020-01-01T00:00:00Z", "2020-02-29T12:00:00Z", "2021-02-29T12:00:00Z", "1900-02-29T00:00:00Z",
    "2000-02-29T00:00:00Z", "0000-01-01T00:00:00Z", "0000-02-29T00:00:00Z", "0001-01-01T00:00:00Z",
    "9999-12-31T23:59:59.999999999Z", "2020-01-01T00:00:00.123456789123Z", "2020-01-01T00:00:00,5Z",
    "2020-01-01T00:00:00.Z", "2020-01-01T1:02:03Z", "2020-01-01T24:00:00Z", "2020-01-01T23:60:00Z",
    "2020-01-01T23:59:60Z", "2020-13-01T00:00:00Z", "2020-00-01T00:00:00Z", "2020-01-32T00:00:00Z",
    "2020-01-01T00:00:00+01:00", "2020-01-01T00:00:00-07:30", "2020-01-01T00:00:00+00:00",
    "2020-01-01T00:00:00-00:00", "2020-01-01T00:00:00+23:59", "2020-01-01T00:00:00+24:00",
    "2020-01-01T00:00:00+24:60", "2020-01-01T00:00:00+25:00", "2020-01-01T00:00:00+01:61",
    "2020-01-01T00:00:00+0100", "2020-01-01T00:00:00z", "2020-01-01t00:00:00Z", "2020-01-01 00:00:00Z",
    "2020-1-01T00:00:00Z", "20200-01-01T00:00:00Z", "2020-01-01T00:00:00", "2020-01-01T00:00:00ZZ",
    "2020-01-01T00:00:00.000Z", "2020-01-01T00:00:00.100+05:45", "1970-01-01T00:00:00-00:01",
    "", "T", "2020-01-01T00:00:00+1:00", "２０２０-01-01T00:00:00Z",
]  # fmt: skip


def _rfc3339(s: str) -> dict[str, Any]:
    parsed = timefmt.parse_rfc3339(s)
    if parsed is None:
        return {"err": "*"}
    nanos, offset = parsed
    secs, frac = divmod(nanos, timefmt.NANOS)
    return {
        "unix": secs,
        "nanos": frac,
        "offset": offset,
        "format": timefmt.format_rfc3339_nano(nanos, offset),
    }


def _random_timestamps(seed: int, count: int) -> list[str]:
    rnd = random.Random(seed)
    out = []
    for _ in range(count):
        y, mo, d = (
            rnd.choice([0, 1, 4, 100, 400, 1600, 1970, 2000, 2024, 9999]),
            rnd.randint(0, 13),
            rnd.randint(0, 32),
        )
        h, mi, s = rnd.randint(0, 25), rnd.randint(0, 61), rnd.randint(0, 61)
        frac = rnd.choice(["", ".5", ".000000001", ".123456789", ".1234567891"])
        zone = rnd.choice(["Z", "+00:00", "-00:00", "+05:30", "-12:00", "+14:00", "+24:00", "-23:59"])
        out.append(f"{y:04d}-{mo:02d}-{d:02d}T{h:02d}:{mi:02d}:{s:02d}{frac}{zone}")
    return out


def _rfc3339_pinned(s: str, _: str) -> tuple[tuple[int, int], str] | None:
    if len(s) >= 6 and s[-6] in "+-" and (s[-5:-3] > "24" or s[-2:] > "60"):
        return (1, 23), "Go 1.23 rejects zone offsets beyond 24 hours or 60 minutes (time/format.go, Parse)"
    return None


def test_rfc3339_is_time_parse(go: GoOracle) -> None:
    """Errors are compared as "an error" (`*`): Go's texts are not shown to users."""
    inputs = TIMESTAMPS + _random_timestamps(7, 400)
    compare(go, "rfc3339", inputs, _rfc3339, _rfc3339_pinned, any_error=True)


DURATIONS = [
    "0", "+0", "-0", "", "0s", "1h2m3s", "1.5h", ".5s", "5.s", ".s", "1", "1x", "1us", "1µs", "1μs",
    "1ns1ms", "-1.000000001s", "9223372036854775807ns", "9223372036854775808ns",
    "-9223372036854775808ns", "2562047h47m16.854775807s", "2562047h47m16.854775808s",
    "0.0000000000000000000000001s", "1.00000000000000000000000000001h", "100000000000000000000ns",
    "1h-1m", "+-1s", "1 s", "1S", "3m0.5s", "000000000000000000000001s", "1.9999999999s",
]  # fmt: skip


def _duration(s: str) -> dict[str, Any]:
    nanos = timefmt.parse_duration(s)
    if nanos is None:
        return {"err": "*"}
    return {
        "nanos": str(nanos),
        "string": timefmt.format_duration(nanos),
        "seconds": timefmt.format_seconds(nanos),
    }


def test_duration_is_time_parse_duration(go: GoOracle) -> None:
    rnd = random.Random(8)

    def part() -> str:
        sign = rnd.choice(["", "-"])
        frac = rnd.choice(["", "." + str(rnd.randint(0, 999999))])
        unit = rnd.choice(["ns", "us", "ms", "s", "m", "h"])
        return f"{sign}{rnd.randint(0, 10 ** rnd.randint(0, 12))}{frac}{unit}"

    generated = ["".join(part() for _ in range(rnd.randint(1, 3))) for _ in range(300)]
    inputs = DURATIONS + generated
    answers = go.ask([{"op": "duration", "in": s} for s in inputs])
    wrong = []
    for s, want in zip(inputs, answers, strict=True):
        if "err" in want:
            want = {"err": "*"}
        if _duration(s) != want:
            wrong.append(f"{s!r}: go {want} python {_duration(s)}")
    assert not wrong, "\n".join(wrong[:20])


def test_duration_strings(go: GoOracle) -> None:
    rnd = random.Random(9)
    values = [0, 1, -1, 999, 1000, 1_000_000, 1_500_000_000, -90_000_000_000, 2**63 - 1, -(2**63)]
    values += [rnd.randint(-(2**63), 2**63 - 1) // 10 ** rnd.randint(0, 18) for _ in range(300)]
    compare(
        go,
        "duration_string",
        [str(v) for v in values],
        lambda s: {"string": timefmt.format_duration(int(s)), "seconds": timefmt.format_seconds(int(s))},
    )


# --- regexp -----------------------------------------------------------------------------------

PATTERNS = [
    "a+", "^a.c$", "(?i)abc", "[[:alpha:]]+", r"\d+", r"\pL+", r"\p{Greek}+", "(?P<name>x)", "(?<name>x)",
    "a{2,3}", "a{1001}", "a**", "a++", "(a", "a)", "[a", "a]", r"\C", r"\\C", r"\8", r"(a)\1", "(?=a)",
    "(?!a)", "(?<=a)", r"\Q.*\E", "x{,3}", r"\z", r"\Z", "(?s).", "(?U)a+", "[^\\x00-\\x{10FFFF}]", "",
    r"\b\B", "(|a)", "a|*", "\\", r"[\d-z]", "[z-a]", r"\pX", "(?m)^a$", r"\x{110000}",
]  # fmt: skip
SUBJECTS = ["", "abc", "aaa", "ABC", "a\nc", "ααβ", "x", "123 456", "a.c", "aXc"]


def _regexp(pattern: str, subject: str) -> dict[str, Any]:
    try:
        compiled = regexp.compile(pattern)
    except regexp.RegexpError:
        return {"err": "*"}
    found = compiled.search(subject)
    return {
        "match": found is not None,
        "find": found.group(0) if found is not None else "",
        "all": regexp.find_all(compiled, subject) or None,
    }


def _regexp_pinned(pattern: str, _: str) -> tuple[tuple[int, int], str] | None:
    if "(?<" in pattern and "(?<=" not in pattern and "(?<!" not in pattern:
        return (1, 22), "Go 1.22 accepts the (?<name>…) group syntax"
    return None


def test_regexp_acceptance_and_matching(go: GoOracle) -> None:
    cases = [(p, s) for p in PATTERNS for s in SUBJECTS]
    compare(go, "regexp", cases, _regexp, _regexp_pinned, any_error=True)


# --- net/url ----------------------------------------------------------------------------------

URLS = [
    "https://example.com", "https://example.com/", "HTTPS://Example.COM/A/b", "https://user:pa%20ss@host:8080/p?q=1#f",
    "mailto:someone@example.com", "scheme:opaque/with/slash", "urn:isbn:0451450523", "http:host",
    "/absolute/path", "relative/path", "./a:b", "a:b/c", "//host/path", "///triple", "*", "",
    "http://[::1]:8080/x", "http://[fe80::1%25en0]/", "http://[::1", "http://host:port/", "http://host:/",
    "http://host:123abc", "http://a b/", "http://host/a b", "http://host/%zz", "http://host/%2f%2F/x",
    "http://host/a%2Fb?x=%20&y=+&z", "http://host/?a=1&a=2&b=%zz&c;d=1&=e", "http://h%41st/", "http://h%C3%A9/",
    "http://héllo/", "http://host/é?é=é", "http://host/a\x00", "http://host/\x7f", "http://[::1]x/",
    "http://user@@host/", "http://us er@host/", "http://host/#frag%20x", "http://host/path?", "http://host/p??",
    "1http://x", "+x:y", "x+y.z-w:rest", ":nothing", "http://[::1]:80:80/", "http://host/%", "http://host/%2",
    "foo://host/p;q", "http://host/a%2fb%2Fc", "http://user:@host", "http://:pw@host", "file:///etc/passwd",
    "http://host/$&'()*+,;=:@", "http://host/~a_b.c-d", "javascript:alert(1)", "http://host?q#f",
    # the host's IP literal and its colons, as they changed in Go 1.24.8-1.26.2 (vap_lsp.golang.neturl)
    "http://x[::1]/", "http://x[::1]:80/", "http://[1.2.3.4]/", "http://[::ffff:1.2.3.4]/", "http://[::1]]/",
    "http://]a[/", "http://a]b[c]/", "http://[::1%25en0]:80/", "http://[fe80::1%25%65n0]/", "http://[::1%25]/",
    "http://[v1.x]/", "http://[::1x]/", "http://[]/", "http://[%3A%3A1]/", "http://u@[::1]:8/", "http://[0::1.2.3]/",
    "http://a:1:2/", "http://::1/", "https://a::/", "HTTP://a:1:2/", "foo://a:1:2/", "postgres://a:1,b:2/",
    "postgresql://a:1:2/", "mongodb://a:1,b:2/", "http://a:/", "http://:80/", "http://a:1:/",
]  # fmt: skip


def _url(parse: Callable[[str], neturl.URL], s: str) -> dict[str, Any]:
    try:
        u = parse(s)
    except neturl.URLError as exc:
        return {"err": str(exc)}
    user = None
    if u.user is not None:
        name, password = u.user
        user = neturl._escape(name, neturl._USER_PASSWORD)
        if password is not None:
            user += ":" + neturl._escape(password, neturl._USER_PASSWORD)
    return {
        "scheme": u.scheme, "opaque": u.opaque, "user": user, "host": u.host, "hostname": u.hostname(),
        "port": u.port(), "path": u.path, "raw_path": u.raw_path, "escaped_path": u.escaped_path(),
        "raw_query": u.raw_query, "query": u.query(), "fragment": u.fragment, "string": str(u),
    }  # fmt: skip


def _godebug_groups() -> dict[tuple[tuple[str, str], ...], list[int]]:
    """The GODEBUG settings supported Kubernetes versions run with → those minors."""
    groups: dict[tuple[tuple[str, str], ...], list[int]] = {}
    for minor, kube_go in sorted(KUBERNETES_GO.items()):
        groups.setdefault(kube_go.godebug, []).append(minor)
    return groups


GODEBUG_GROUPS = _godebug_groups()


def _godebug_env(godebug: tuple[tuple[str, str], ...]) -> str:
    """GODEBUG for the program: every setting vap-lsp models, "" (the default) where not listed;
    a Go that does not know a setting ignores it."""
    values = dict(godebug)
    return ",".join(f"{name}={values.get(name, '')}" for name in GODEBUG_CHANGED)


def _kubernetes(minors: list[int]) -> str:
    return f"Kubernetes 1.{minors[0]}" + (f"-1.{minors[-1]}" if len(minors) > 1 else "")


def _known_differences(
    go: GoOracle, op: str, inputs: list[str], minors: list[int], python: Callable[[str, Go], Any]
) -> None:
    """Warn about the cases the Go here answers otherwise than the Go of `minors` does (known from
    vap_lsp.golang's model of both; the comparison expected the Go here)."""
    here = Go(go.version, KUBERNETES_GO[minors[0]].godebug)
    for minor in minors:
        theirs = KUBERNETES_GO[minor]
        if theirs.version == go.version:
            continue
        differ = [s for s in inputs if python(_paired(s), here) != python(_paired(s), theirs)]
        if differ:
            warnings.warn(
                f"{op}: {go.name} here, Kubernetes 1.{minor} is built with {theirs}: {len(differ)} of"
                f" {len(inputs)} cases answer differently there (compared as {go.name} answers): "
                + _examples(differ),
                stacklevel=2,
            )


def _examples(inputs: list[str]) -> str:
    return ", ".join(repr(s) if len(s) <= 40 else f"{s[:30]!r}… ({len(s)} characters)" for s in inputs[:5])


@pytest.fixture(params=list(GODEBUG_GROUPS), ids=lambda g: "godebug-" + _kubernetes(GODEBUG_GROUPS[g]))
def godebug(request: pytest.FixtureRequest) -> tuple[tuple[str, str], ...]:
    """Each GODEBUG setting a supported Kubernetes runs with (`toolchain.KUBERNETES_GO`)."""
    value: tuple[tuple[str, str], ...] = request.param
    return value


def _url_test(go: GoOracle, godebug: tuple[tuple[str, str], ...], op: str, inputs: list[str]) -> None:
    parse = neturl.parse_request_uri if op == "url_request" else neturl.parse

    def python(s: str, as_go: Go) -> dict[str, Any]:
        result: dict[str, Any] = _go_strings(_url(lambda text: parse(text, as_go), _go_string(s)))
        return result

    here = Go(go.version, godebug)
    compare(go, op, inputs, lambda s: python(s, here), godebug=_godebug_env(godebug))
    _known_differences(go, op, inputs, GODEBUG_GROUPS[godebug], python)


def test_parse_request_uri(go: GoOracle, godebug: tuple[tuple[str, str], ...]) -> None:
    url_chars = "ab:/?#[]@%2F5zé \x00+=&;"
    inputs = URLS + [f"http://{s}" for s in random_strings(10, 200, url_chars, 10)]
    inputs += [f"foo://{s}" for s in random_strings(14, 100, "ab:[]1%25", 8)]
    _url_test(go, godebug, "url_request", inputs)


def test_parse(go: GoOracle, godebug: tuple[tuple[str, str], ...]) -> None:
    url_chars = "ab:/?#[]@%2F5zé \x00+=&;"
    inputs = URLS + list(random_strings(11, 300, url_chars, 12))
    _url_test(go, godebug, "url", inputs)


def test_query_parameter_limit(go: GoOracle, godebug: tuple[tuple[str, str], ...]) -> None:
    """`URL.Query` of a query with more `&`-separated parameters than Go's limit (10,000 from
    go1.24.12/go1.25.6, GODEBUG `urlmaxqueryparams`) is empty: what `getQuery()` returns."""
    inputs = ["a=1" + "&b=2" * (n - 1) for n in (1, 9_999, 10_000, 10_001, 10_002)]
    inputs += ["&" * 10_000, "&" * 9_999, "a=%zz" + "&" * 10_000, ";" * 10_001]

    def python(s: str, as_go: Go) -> dict[str, Any]:
        return {"size": len(neturl.parse_query(s, as_go))}

    here = Go(go.version, godebug)
    compare(go, "query_size", inputs, lambda s: python(s, here), godebug=_godebug_env(godebug))
    _known_differences(go, "query_size", inputs, GODEBUG_GROUPS[godebug], python)


# --- net/netip --------------------------------------------------------------------------------

ADDRS = [
    "1.2.3.4", "0.0.0.0", "255.255.255.255", "256.1.1.1", "01.2.3.4", "1.2.3", "1.2.3.4.5", "1..2.3",
    ".1.2.3", "1.2.3.", "1.2.3.a", "", "x", "%", "::", "::1", "1::", "1::2::3", "::ffff:1.2.3.4", "::1.2.3.4",
    "1:2:3:4:5:6:1.2.3.4", "1:2:3:4:5:6:7:1.2.3.4", "1:2:3:4:5:6:7:8", "1:2:3:4:5:6:7:8:9", "1:2:3:4:5:6:7",
    "00000001::", "10000::", "fe80::1%eth0", "fe80::1%", "1:2:3:4:5:6:7::", "::1:2:3:4:5:6:7", "1:", ":1",
    "1:::2", "ABCD:EF::", "2001:db8:0:0:1:0:0:1", "2001:0:0:1:0:0:0:1", "1:0:0:0:1:0:0:0", "::ffff:0.0.0.0",
    "1.2.3.4%eth0", "::1.2.3", "::256.1.1.1", "1::2.3.4.5:6", "::1.2..3%z", "::01.2.3.4", "0001::", "00001::",
]  # fmt: skip


def _addr(s: str, as_go: Go) -> dict[str, Any]:
    try:
        a, zone = netip.parse_addr(s, as_go)
    except netip.NetipError as exc:
        return {"err": str(exc)}
    text = netip.addr_string(a)
    return {"string": text + (f"%{zone}" if zone else ""), "zone": zone, "is4in6": netip.is_4in6(a)}


def _netip_differences(go: GoOracle, op: str, inputs: list[str], python: Callable[[str, Go], Any]) -> None:
    """netip is one behaviour for every supported Kubernetes (vap_lsp.golang.netip); warn where
    the Go here is modelled otherwise than the newest Kubernetes' Go."""
    here = Go(go.version)
    differ = [s for s in inputs if python(s, here) != python(s, NEWEST)]
    if differ:
        warnings.warn(
            f"{op}: {go.name} here parses otherwise than {NEWEST} (every supported Kubernetes' Go parses"
            f" as it does): {len(differ)} of {len(inputs)} cases (compared as {go.name} answers): "
            + _examples(differ),
            stacklevel=2,
        )


def test_parse_addr(go: GoOracle) -> None:
    inputs = ADDRS + list(random_strings(12, 400, "0123456789abcdefABCDEFg:.%", 16))
    here = Go(go.version)
    compare(go, "addr", inputs, lambda s: _addr(s, here))
    _netip_differences(go, "addr", inputs, _addr)


def _prefix(s: str, as_go: Go) -> dict[str, Any]:
    try:
        a, bits = netip.parse_prefix(s, as_go)
    except netip.NetipError as exc:
        return {"err": str(exc)}
    return {"addr": netip.addr_string(a), "bits": bits}


def _prefix_pinned(s: str, _: str) -> tuple[tuple[int, int], str] | None:
    bits = s.rpartition("/")[2]
    if "%" in s.rpartition("/")[0] or (len(bits) > 1 and not "1" <= bits[0] <= "9"):
        return (1, 22), "Go 1.22 rejects zones and signed or zero-padded bits in a prefix"
    if bits.isdigit() and int(bits) > 128:
        return (1, 22), "Go 1.22 says `prefix length out of range`"
    return None


def test_parse_prefix(go: GoOracle) -> None:
    inputs = [
        f"{a}/{b}"
        for a in [*ADDRS[:25], "00000001::", "::1.2.3"]
        for b in ("0", "8", "32", "33", "64", "128", "129", "08", "+8", "-1", "", "x")
    ]
    inputs += ["1.2.3.4", "1.2.3.4//8", "/8", "fe80::1%eth0/64", "1.2.3.4/99999999999999999999"]
    inputs += ["1.2.3.4/9223372036854775807", "1.2.3.4/9223372036854775808", "::/١٢", "1.2.3.4/ 8"]
    here = Go(go.version)
    compare(go, "prefix", inputs, lambda s: _prefix(s, here), _prefix_pinned)
    _netip_differences(go, "prefix", inputs, _prefix)


def test_floats_are_finite_where_json_needs_it() -> None:
    """NaN has no JSON form: `json.Marshal` fails, and so does ours."""
    with pytest.raises(ValueError):
        jsonenc.marshal_float(math.nan)
