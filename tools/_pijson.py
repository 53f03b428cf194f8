"""JSON text exactly as pi writes it (``JSON.stringify``), for the data generators in tools/.

Python's ``json.dumps`` differs from JavaScript in two places that matter for byte-exact files:
floats (``5e-05`` vs ``0.00005``, ``3.0`` vs ``3``) and lone surrogates (raw vs ``\\udXXX``).
Keys are written in insertion order; leave a key out of the dict to get JavaScript's ``undefined``.
"""

from __future__ import annotations

import json
import math
import re
from decimal import Decimal
from typing import Any

_LONE_SURROGATE = re.compile("[\ud800-\udfff]")


def js_number(x: float | int) -> str:
    """``Number.prototype.toString`` for the values JSON can hold (NaN/Infinity become null)."""
    if isinstance(x, bool):
        raise TypeError("bool is not a number here")
    if isinstance(x, int):
        return str(x)
    if math.isnan(x) or math.isinf(x):
        return "null"
    if x == 0:
        return "0"
    sign = "-" if x < 0 else ""
    # repr() gives the shortest round-tripping digits, as JavaScript does; only the layout differs.
    t = Decimal(repr(abs(x))).as_tuple()
    digits = "".join(map(str, t.digits)).rstrip("0") or "0"
    k = len(digits)
    n = len(t.digits) + t.exponent  # value = 0.<digits> * 10**n
    if k <= n <= 21:
        out = digits + "0" * (n - k)
    elif 0 < n <= 21:
        out = digits[:n] + "." + digits[n:]
    elif -6 < n <= 0:
        out = "0." + "0" * (-n) + digits
    else:
        e = n - 1
        mant = digits[0] + ("." + digits[1:] if k > 1 else "")
        out = f"{mant}e{'+' if e >= 0 else '-'}{abs(e)}"
    return sign + out


def _string(s: str) -> str:
    out = json.dumps(s, ensure_ascii=False)
    if _LONE_SURROGATE.search(out):
        out = _LONE_SURROGATE.sub(lambda m: f"\\u{ord(m.group()):04x}", out)
    return out


def dumps(obj: Any) -> str:
    """``JSON.stringify(obj)``: compact, non-ASCII kept, keys in insertion order."""
    if obj is None:
        return "null"
    if obj is True:
        return "true"
    if obj is False:
        return "false"
    if isinstance(obj, str):
        return _string(obj)
    if isinstance(obj, int | float):
        return js_number(obj)
    if isinstance(obj, list | tuple):
        return "[" + ",".join(dumps(v) for v in obj) + "]"
    if isinstance(obj, dict):
        return "{" + ",".join(_string(str(k)) + ":" + dumps(v) for k, v in obj.items()) + "}"
    raise TypeError(f"cannot serialise {type(obj).__name__}")


def line(obj: Any) -> bytes:
    """One JSONL line as pi appends it: the JSON text, UTF-8, and a newline."""
    return (dumps(obj) + "\n").encode("utf-8", "surrogatepass")
