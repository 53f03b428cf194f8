"""The JavaScript semantics pi depends on, for the JSON values of session files.

``undefined`` (:data:`MISSING`), ``String.prototype.trim`` and JavaScript's whitespace (on text,
and on the UTF-8 bytes of a file), truthiness, ``new Date(x).getTime()``, ``Date.toISOString()``,
``String(x)``, ``Array.join`` and ``Number(text)``.
"""

from __future__ import annotations

import math
import re
import sys
import time
import unicodedata
from typing import Any

# --------------------------------------------------------------------------------------------
# undefined, whitespace and truthiness


class Missing:
    """A key that is absent (JavaScript ``undefined``), as opposed to ``null``."""

    _instance: Missing | None = None

    def __new__(cls) -> Missing:
        if cls._instance is None:
            cls._instance = super().__new__(cls)
        return cls._instance

    def __repr__(self) -> str:
        return "MISSING"

    def __bool__(self) -> bool:
        return False


MISSING: Any = Missing()

# JavaScript's String.prototype.trim() strips these (WhiteSpace and LineTerminator).
JS_WHITESPACE = (
    "\t\n\x0b\x0c\r \u00a0\u1680\u2000\u2001\u2002\u2003\u2004\u2005\u2006\u2007\u2008\u2009\u200a"
    "\u2028\u2029\u202f\u205f\u3000\ufeff"
)
_JS_WHITESPACE_BYTES = tuple(sorted({c.encode() for c in JS_WHITESPACE}, key=len, reverse=True))

# The first bytes of the UTF-8 of JavaScript's whitespace: a line starting with any other byte
# is not blank, and is not decoded to find that out.
JS_SPACE_LEADS = frozenset(c.encode()[0] for c in JS_WHITESPACE)


class Opaque:
    """An id that is a JSON array or object. JavaScript's Map compares such keys by identity,
    so it equals nothing but itself; Python could not hash it at all. Written back as the value
    it stands for (a label's parent when such an entry is the leaf, say), as pi writes it."""

    __slots__ = ("value",)

    def __init__(self, value: Any) -> None:
        self.value = value

    def __repr__(self) -> str:
        return f"Opaque({self.value!r})"


def as_key(value: Any) -> Any:
    """``value`` usable as a dict key with JavaScript Map semantics."""
    return Opaque(value) if type(value) is list or type(value) is dict else value


def js_trim(text: str) -> str:
    """``String.prototype.trim``: Python's ``str.strip`` knows a different set of spaces."""
    return text.strip(JS_WHITESPACE)


def is_js_blank(line: bytes) -> bool:
    """Whether the UTF-8 ``line`` is empty once trimmed as ``String.prototype.trim`` trims."""
    if line and line[0] not in JS_SPACE_LEADS:
        return False
    return not line.strip() or js_trim(line.decode("utf-8", errors="replace")) == ""


def js_lstrip_bytes(data: bytes) -> bytes:
    """``data`` without the JavaScript whitespace it starts with (``trimStart`` on bytes)."""
    return data[strip_js_whitespace(data, start=True) :]


def js_rstrip_bytes(data: bytes) -> bytes:
    """``data`` without the JavaScript whitespace it ends with (``trimEnd`` on bytes)."""
    return data[: len(data) - strip_js_whitespace(data, start=False)]


def strip_js_whitespace(data: bytes, *, start: bool, end: int | None = None) -> int:
    """How many bytes of JavaScript whitespace ``data`` starts (or ends, at ``end``) with."""
    count = 0
    size = len(data) if end is None else end
    while True:
        for ws in _JS_WHITESPACE_BYTES:
            if start and data.startswith(ws, count):
                count += len(ws)
                break
            if not start and data.endswith(ws, 0, size - count):
                count += len(ws)
                break
        else:
            return count


def js_truthy(value: Any) -> bool:
    """JavaScript truthiness: ``[]`` and ``{}`` are true, ``""``, ``0``, ``NaN``, null are false."""
    if value is None or value is MISSING or value is False:
        return False
    if isinstance(value, str):
        return value != ""
    if isinstance(value, bool):
        return value
    if isinstance(value, int | float):
        return value != 0 and not (isinstance(value, float) and math.isnan(value))
    return True


MAX_TIME = 8.64e15  # the largest time a JavaScript Date can hold, in ms either side of 1970


# --------------------------------------------------------------------------------------------
# JavaScript dates


_ISO_RE = re.compile(
    r"([+-]\d{6}|\d{4})(?:-(\d{2})(?:-(\d{2}))?)?"
    r"(?:[Tt ](\d{2}):(\d{2})(?::(\d{2})(?:\.(\d+))?)?"
    r"([Zz]|[+-]\d{2}:?\d{2})?)?"
)


def js_date_parse(text: str) -> float | None:
    """``new Date(text).getTime()`` for the date strings found in session files, None if invalid.

    Covers the ISO forms V8 accepts (``toISOString`` output and its shorter variants, any number
    of fraction digits, ``+HH:MM``/``+HHMM`` offsets, a space instead of ``T``); date-only forms
    are UTC and date-times without an offset are local time, as in JavaScript. V8's legacy
    formats (``Jan 2 2025``, ``2025/01/02``) are not recognised and count as invalid.
    """
    m = _ISO_RE.fullmatch(text)
    if m is None:
        return None
    year_s, mon_s, day_s, hh_s, mm_s, ss_s, frac_s, zone = m.groups()
    if year_s == "-000000":
        return None
    year = int(year_s)
    month = int(mon_s) if mon_s else 1
    day = int(day_s) if day_s else 1
    if not 1 <= month <= 12 or not 1 <= day <= 31:
        return None
    hour = int(hh_s) if hh_s else 0
    minute = int(mm_s) if mm_s else 0
    second = int(ss_s) if ss_s else 0
    ms = int((frac_s or "0")[:3].ljust(3, "0"))
    if hour == 24:
        if minute or second or ms:
            return None
    elif hour > 23 or minute > 59 or second > 59:
        return None
    # MakeDay: days past the end of the month roll over (Feb 30 is Mar 2).
    days = _days_from_civil(year, month, 1) + day - 1
    value = ((days * 24 + hour) * 60 + minute) * 60_000 + second * 1000 + ms
    if zone is None and hh_s is not None:
        value -= _local_offset_ms(value)
    elif zone and zone not in "Zz":
        sign = -1 if zone[0] == "-" else 1
        digits = zone[1:].replace(":", "")
        offset = int(digits[:2]) * 60 + (int(digits[2:4]) if len(digits) > 2 else 0)
        value -= sign * offset * 60_000
    if abs(value) > MAX_TIME:
        return None
    return float(value)


def _days_from_civil(y: int, m: int, d: int) -> int:
    y -= m <= 2
    era = y // 400
    yoe = y - era * 400
    doy = (153 * (m + (-3 if m > 2 else 9)) + 2) // 5 + d - 1
    doe = yoe * 365 + yoe // 4 - yoe // 100 + doy
    return era * 146097 + doe - 719468


def _local_offset_ms(local_ms: int) -> int:
    """The local UTC offset (ms) that applies to a wall-clock time, as JavaScript picks it."""
    try:
        guess = local_ms / 1000
        lt = time.localtime(guess)
        offset = lt.tm_gmtoff
        lt2 = time.localtime(guess - offset)
        return lt2.tm_gmtoff * 1000
    except (OverflowError, OSError, ValueError):
        return 0


def js_date_value(value: Any) -> float | None:
    """``new Date(value).getTime()`` for a JSON value (None when the Date is invalid)."""
    if value is MISSING:
        return None
    if value is None or value is False:
        return 0.0
    if value is True:
        return 1.0
    if isinstance(value, int | float):
        return time_clip(value)
    if isinstance(value, str):
        return js_date_parse(value)
    if isinstance(value, list):
        return js_date_parse(js_join_value(value))
    return None  # "[object Object]"


def time_clip(value: float) -> float | None:
    if isinstance(value, float) and (math.isnan(value) or math.isinf(value)):
        return None
    if abs(value) > MAX_TIME:
        return None
    return float(math.trunc(value)) + 0.0


_YEAR_10000_MS = 253_402_300_800_000  # 10000-01-01T00:00:00.000Z


def iso_ms(ms: float | None) -> str | None:
    """``Date.prototype.toISOString`` (``2025-01-02T03:04:05.678Z``), None for an invalid date."""
    if ms is None or math.isnan(ms) or abs(ms) > MAX_TIME:
        return None
    whole = int(ms)
    if 0 <= whole < _YEAR_10000_MS:  # (the C library's calendar: a third faster, same text)
        seconds, msec = divmod(whole, 1000)
        return time.strftime("%Y-%m-%dT%H:%M:%S", time.gmtime(seconds)) + f".{msec:03d}Z"
    days, rest = divmod(whole, 86_400_000)
    year, month, day = _civil_from_days(days)
    hh, rest = divmod(rest, 3_600_000)
    mm, rest = divmod(rest, 60_000)
    ss, msec = divmod(rest, 1000)
    head = f"{year:04d}" if 0 <= year <= 9999 else f"{'+' if year > 0 else '-'}{abs(year):06d}"
    return f"{head}-{month:02d}-{day:02d}T{hh:02d}:{mm:02d}:{ss:02d}.{msec:03d}Z"


def _civil_from_days(z: int) -> tuple[int, int, int]:
    z += 719468
    era = z // 146097
    doe = z - era * 146097
    yoe = (doe - doe // 1460 + doe // 36524 - doe // 146096) // 365
    y = yoe + era * 400
    doy = doe - (365 * yoe + yoe // 4 - yoe // 100)
    mp = (5 * doy + 2) // 153
    d = doy - (153 * mp + 2) // 5 + 1
    m = mp + (3 if mp < 10 else -9)
    return y + (m <= 2), m, d


# --------------------------------------------------------------------------------------------
# JavaScript string conversion (for ids that are not strings and for Array.prototype.join)


def js_double(value: int | float) -> float:
    """The double JavaScript holds for a JSON number: the nearest one, or Infinity for an
    integer literal beyond every double (where Python's ``float`` raises)."""
    try:
        return float(value)
    except OverflowError:
        return math.inf if value > 0 else -math.inf


def js_number_string(x: float | int) -> str:
    """``String(x)`` for a number."""
    if isinstance(x, int) and not isinstance(x, bool):
        if abs(x) < 2**53:
            return str(x)
        x = js_double(x)
    if math.isnan(x):
        return "NaN"
    if math.isinf(x):
        return "Infinity" if x > 0 else "-Infinity"
    if x == 0:
        return "0"
    sign = "-" if x < 0 else ""
    r = repr(abs(x))
    mant, _, exp_s = r.partition("e")
    exp = int(exp_s) if exp_s else 0
    int_part, _, frac_part = mant.partition(".")
    if frac_part == "0":
        frac_part = ""
    digits = (int_part + frac_part).lstrip("0")
    # position of the decimal point relative to the start of `digits`
    n = len(int_part.lstrip("0")) + exp if int_part.strip("0") else exp - (len(frac_part) - len(digits))
    digits = digits.rstrip("0") or "0"
    k = len(digits)
    if k <= n <= 21:
        out = digits + "0" * (n - k)
    elif 0 < n <= 21:
        out = digits[:n] + "." + digits[n:]
    elif -6 < n <= 0:
        out = "0." + "0" * (-n) + digits
    else:
        e = n - 1
        out = digits[0] + ("." + digits[1:] if k > 1 else "") + ("e+" if e >= 0 else "e-") + str(abs(e))
    return sign + out


def js_string(value: Any) -> str:
    """``String(value)`` / template-literal conversion of a JSON value."""
    if isinstance(value, str):
        return value
    if value is MISSING:
        return "undefined"
    if value is None:
        return "null"
    if value is True:
        return "true"
    if value is False:
        return "false"
    if isinstance(value, int | float):
        return js_number_string(value)
    if isinstance(value, list):
        return js_join_value(value)
    return "[object Object]"


def js_join_value(items: list[Any], sep: str = ",") -> str:
    """``items.join(sep)``: null and undefined become empty strings."""
    return sep.join("" if v is None or v is MISSING else js_string(v) for v in items)


_DECIMAL = re.compile(r"[+-]?(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?")
_RADIX = {"0x": 16, "0o": 8, "0b": 2}


def js_string_to_number(text: str) -> float:
    """``Number(text)``: JavaScript's whitespace trimmed, decimal, ``0x``/``0o``/``0b``,
    ``Infinity``; anything else (``1_0``, ``inf``, ``nan``, which Python's float takes) is NaN."""
    text = js_trim(text)
    if not text:
        return 0.0
    if _DECIMAL.fullmatch(text):
        return float(text)
    if text in ("Infinity", "+Infinity", "-Infinity"):
        return -math.inf if text[0] == "-" else math.inf
    radix = _RADIX.get(text[:2].lower())
    if radix is not None:
        try:
            return float(int(text[2:], radix)) if "_" not in text else math.nan
        except ValueError:
            return math.nan
    return math.nan


# --------------------------------------------------------------------------------------------
# JavaScript strings: UTF-16 length, index, lower case
#
# JavaScript strings are UTF-16: a character outside the BMP is two units, which every index,
# length and single-character comparison counts.

_ASTRAL = re.compile("[\U00010000-\U0010ffff]")


def js_lower(text: str) -> str:
    """``toLowerCase`` (Python's lower uses the same Unicode full mappings)."""
    return text.lower()


def utf16(text: str) -> str:
    """``text`` with every character outside the BMP split into its two surrogates, so that
    indexes and single-character comparisons work on UTF-16 code units as in JavaScript."""
    if text.isascii() or not _ASTRAL.search(text):
        return text
    return _ASTRAL.sub(_surrogates, text)


def _surrogates(m: re.Match[str]) -> str:
    c = ord(m.group()) - 0x10000
    return chr(0xD800 + (c >> 10)) + chr(0xDC00 + (c & 0x3FF))


def utf16_index(text: str, index: int) -> int:
    """The UTF-16 index of the character at Python index ``index``."""
    if text.isascii():
        return index
    return index + len(_ASTRAL.findall(text, 0, index))


# --------------------------------------------------------------------------------------------
# JavaScript numbers and string length, for the tree's row text


def js_len(text: str) -> int:
    """``text.length`` in JavaScript (UTF-16 code units)."""
    if text.isascii():
        return len(text)
    # Counted by the codec, in C: each code point is 2 bytes, or 4 beyond the BMP (a lone
    # surrogate, which a JSON string can hold, is one unit, as in JavaScript).
    return len(text.encode("utf-16-le", "surrogatepass")) >> 1


def js_head(text: str, count: int) -> str:
    """``text.slice(0, count)`` in JavaScript: counted in UTF-16 units, so a cut may split a
    surrogate pair, as in pi."""
    if len(text) <= count // 2 or text.isascii():
        return text[:count]
    units = text.encode("utf-16-le", "surrogatepass")[: 2 * count]
    return units.decode("utf-16-le", "surrogatepass")


def js_number(value: Any) -> float:
    """JavaScript's ``Number(value)`` for a JSON value."""
    if value is None or value is False:
        return 0.0
    if value is True:
        return 1.0
    if isinstance(value, int | float):
        return js_double(value)
    if isinstance(value, str):
        return js_string_to_number(value)
    if isinstance(value, list):
        return js_string_to_number(js_string(value))
    return math.nan


def js_round(value: float) -> float:
    """``Math.round(value)``: halves go up, NaN and the infinities stay."""
    if math.isnan(value) or math.isinf(value):
        return value
    return float(math.floor(value + 0.5))


def js_or(*values: Any) -> Any:
    """``a || b || ...``: the first truthy value, else the last."""
    from pitui.store.js import js_truthy

    for value in values:
        if js_truthy(value):
            return value
    return values[-1]


def js_plus(left: Any, right: Any) -> Any:
    """JavaScript's ``+`` on two JSON values: string concatenation if either side is a string
    (or converts to one), else numeric addition."""
    if isinstance(left, str | list | dict) or isinstance(right, str | list | dict):
        return js_string(left) + js_string(right)
    return js_number(left) + js_number(right)


def js_minus(left: Any, right: Any) -> float:
    """JavaScript's ``-`` on two JSON values."""
    return js_number(left) - js_number(right)


# --------------------------------------------------------------------------------------------
# String.prototype.localeCompare (ICU's root collation), for the order of file names

# ASCII in the order ICU's root collation gives its primary weights (Node's localeCompare with
# full ICU, measured): whitespace and punctuation, symbols, digits, then letters, each letter
# one weight for both cases.
_COLLATION_ORDER = " _-,;:!?.'\"()[]{}@*/\\&#%`^+<=>|~$0123456789abcdefghijklmnopqrstuvwxyz"
_PRIMARY = {c: n for n, c in enumerate(_COLLATION_ORDER)}
_PRIMARY.update({c.upper(): n for c, n in list(_PRIMARY.items()) if c.isalpha()})
_OTHER = len(_COLLATION_ORDER)
# js_locale_key of ASCII text through bytes.translate: a character's primary weight and its
# case, as characters; control characters (which have neither) are dropped.
_ASCII_CONTROLS = bytes(c for c in range(128) if chr(c) not in _PRIMARY)
_ASCII_PRIMARY = bytes(_PRIMARY.get(chr(c), 0) for c in range(256))
_ASCII_CASE = bytes(1 if chr(c).isupper() else 0 for c in range(256))


def js_locale_key(text: str) -> tuple[str, str, str]:
    """A sort key that orders strings as ``a.localeCompare(b)`` does (ICU root collation):
    first by letters and digits with case and accents ignored, then by accents, then by case
    (lower before upper, the first difference deciding). Each part is a string of weights, one
    character each, which compares as the list of weights would, and costs far less to make.

    Exact for ASCII (the names pi and pitui write). Elsewhere an approximation: characters are
    compared without their accents (NFD, combining marks dropped), those outside ASCII after
    every ASCII one by code point (ICU orders scripts in roughly that order, but puts non-ASCII
    punctuation among the punctuation), and control characters are ignored.
    """
    if text.isascii():
        raw = text.encode("ascii")
        weights = raw.translate(_ASCII_PRIMARY, _ASCII_CONTROLS).decode("ascii")
        return weights, "\0" * len(weights), raw.translate(_ASCII_CASE, _ASCII_CONTROLS).decode("ascii")
    primary: list[str] = []
    secondary: list[str] = []
    tertiary: list[str] = []
    for ch in unicodedata.normalize("NFD", text):
        weight = _PRIMARY.get(ch)
        if weight is None:
            if unicodedata.combining(ch):
                secondary.append(ch)
                continue
            if unicodedata.category(ch) == "Cc":
                continue
            weight = min(_OTHER + ord(ch.lower()), sys.maxunicode)
        primary.append(chr(weight))
        secondary.append("\0")
        tertiary.append("\1" if ch.isupper() else "\0")
    return "".join(primary), "".join(secondary), "".join(tertiary)
