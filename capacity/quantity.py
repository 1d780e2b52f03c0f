"""Kubernetes resource quantities: parsing exactly as ``k8s.io/apimachinery/pkg/api/resource`` does,
the ``Value()`` / ``MilliValue()`` roundings Volcano relies on, and short renderings for humans.

Why a hand-written parser: Volcano never sees the text, only what Kubernetes' ``ParseQuantity`` made of
it, and that parser has quirks a regular expression or ``float()`` would not reproduce ("1.G" and "."
are valid, "1K" is not, "1E" is 10^18 but "1E3" is 1000, values round *up* to 1n when parsed).
Numbers are kept as exact ``Decimal`` values; converting to float happens only when building a
``Resource`` (see ``capacity.resources.from_resource_list``).
"""

from __future__ import annotations

import math
import sys
from decimal import Decimal

from capacity.errors import InputError

__all__ = [
    "INT64_MAX",
    "INT64_MIN",
    "format_bytes",
    "format_milli_count",
    "format_milli_cpu",
    "format_number",
    "format_resource_value",
    "milli_value",
    "parse_quantity",
    "value",
]

INT64_MAX = 2**63 - 1
INT64_MIN = -(2**63)

# Kubernetes refuses nothing beyond this: larger magnitudes are capped to it ("9Ei" -> 2^63 - 1).
_MAX_ALLOWED_NANO = INT64_MAX * 10**9

_DECIMAL_SUFFIXES: dict[str, int] = {
    "n": -9,
    "u": -6,
    "m": -3,
    "": 0,
    "k": 3,
    "M": 6,
    "G": 9,
    "T": 12,
    "P": 15,
    "E": 18,
}
_BINARY_SUFFIXES: dict[str, int] = {"Ki": 10, "Mi": 20, "Gi": 30, "Ti": 40, "Pi": 50, "Ei": 60}

_DIGITS = frozenset("0123456789")
_SUFFIX_CHARS = frozenset("eEinumkKMGTP")

_FORMAT_HELP = (
    "a quantity is a number with an optional suffix: n u m k M G T P E (decimal), "
    "Ki Mi Gi Ti Pi Ei (binary) or an exponent such as e3"
)


def _split(text: str) -> tuple[bool, str, str, str] | None:
    """Split like Kubernetes' ``parseQuantityString``: (positive, numerator, denominator, suffix).

    Returns None where Kubernetes answers ErrFormatWrong. Mirrors the Go state machine literally,
    including its leniencies: an empty numerator reads as 0 ("." and "Gi" are zero), "1." is 1.
    """
    positive = True
    pos = 0
    end = len(text)
    if end and text[0] in "+-":
        positive = text[0] == "+"
        pos = 1
    while pos < end and text[pos] == "0":
        pos += 1
    if pos >= end:
        return positive, "0", "", ""
    start = pos
    while pos < end and text[pos] in _DIGITS:
        pos += 1
    num = text[start:pos] or "0"
    if pos >= end:
        return positive, num, "", ""
    denom = ""
    if text[pos] == ".":
        pos += 1
        start = pos
        while pos < end and text[pos] in _DIGITS:
            pos += 1
        denom = text[start:pos]
        if pos >= end:
            return positive, num, denom, ""
    suffix_start = pos
    while pos < end and text[pos] in _SUFFIX_CHARS:
        pos += 1
    if pos < end and text[pos] in "+-":
        pos += 1
    while pos < end and text[pos] in _DIGITS:
        pos += 1
    if pos < end:
        return None
    return positive, num, denom, text[suffix_start:]


def _interpret_suffix(suffix: str) -> tuple[int, int] | None:
    """(base, exponent) for a suffix, as Kubernetes' ``suffixHandler.interpret``; None if unknown."""
    exponent = _DECIMAL_SUFFIXES.get(suffix)
    if exponent is not None:
        return 10, exponent
    exponent = _BINARY_SUFFIXES.get(suffix)
    if exponent is not None:
        return 2, exponent
    if len(suffix) > 1 and suffix[0] in "eE":
        digits = suffix[1:]
        unsigned = digits[1:] if digits[0] in "+-" else digits
        if not unsigned or not set(unsigned) <= _DIGITS:
            return None
        parsed = int(digits)
        if not INT64_MIN <= parsed <= INT64_MAX:  # strconv.ParseInt(..., 10, 64) fails
            return None
        # Go stores the exponent as int32(parsed): wrap around like the conversion does.
        return 10, (parsed + 2**31) % 2**32 - 2**31
    return None


def _to_text(raw: object, obj: str, field: str) -> str:
    """The text Kubernetes would parse for a YAML/JSON value (numbers are parsed from their text)."""
    if isinstance(raw, str):
        # Quantity.UnmarshalJSON trims surrounding white space before parsing.
        return raw.strip()
    if isinstance(raw, bool) or raw is None:
        raise InputError(obj, field, f"expected a quantity such as '500m' or '4Gi', got {raw!r}")
    if isinstance(raw, int):
        return str(raw)
    if isinstance(raw, float):
        if not math.isfinite(raw):
            raise InputError(obj, field, f"invalid quantity {raw!r}: must be a finite number")
        return repr(raw)
    if isinstance(raw, Decimal):
        if not raw.is_finite():
            raise InputError(obj, field, f"invalid quantity {raw!r}: must be a finite number")
        return str(raw)
    raise InputError(
        obj, field, f"expected a quantity such as '500m' or '4Gi', got {type(raw).__name__} {raw!r}"
    )


def parse_quantity(raw: object, *, obj: str = "", field: str = "") -> Decimal:
    """Parse a Kubernetes quantity (string, YAML int or float) into its exact value.

    Like ``resource.ParseQuantity``: non-zero values are rounded up (away from zero) to a multiple of
    1e-9 and magnitudes are capped at 2^63 - 1. Raises ``InputError`` naming ``obj`` and ``field`` for
    anything Kubernetes would reject, and for booleans, None and containers.
    """
    text = _to_text(raw, obj, field)
    if not text:
        raise InputError(obj, field, f"invalid quantity {raw!r}: empty; {_FORMAT_HELP}")
    parts = _split(text)
    if parts is None:
        raise InputError(obj, field, f"invalid quantity {raw!r}: {_FORMAT_HELP}")
    positive, num, denom, suffix = parts
    interpreted = _interpret_suffix(suffix)
    if interpreted is None:
        raise InputError(obj, field, f"invalid quantity {raw!r}: unknown suffix {suffix!r}; {_FORMAT_HELP}")
    base, exponent = interpreted
    digits = num + denom
    mantissa = int(digits)
    if mantissa == 0:
        return Decimal(0)
    # Exact integer arithmetic in nano-units: mantissa * base^exponent / 10^len(denom), rounded up.
    if base == 2:
        nano = _ceil_div(mantissa * 2**exponent * 10**9, 10 ** len(denom))
    else:
        shift = exponent + 9 - len(denom)
        if shift > 40:
            nano = _MAX_ALLOWED_NANO  # at least 10^40 nano: far above the cap
        elif shift >= 0:
            nano = mantissa * 10**shift
        elif -shift >= len(digits):
            nano = 1  # below 1n: rounds up to 1n
        else:
            nano = _ceil_div(mantissa, 10**-shift)
    nano = min(nano, _MAX_ALLOWED_NANO)
    return Decimal(f"{'' if positive else '-'}{nano}E-9")


def _ceil_div(numerator: int, denominator: int) -> int:
    """numerator / denominator rounded up, for numerator >= 0 and denominator > 0."""
    return -(-numerator // denominator)


def _ceil_away(numerator: int, denominator: int) -> int:
    """numerator / denominator rounded away from zero (denominator > 0), as Kubernetes rounds."""
    magnitude = _ceil_div(abs(numerator), denominator)
    return magnitude if numerator >= 0 else -magnitude


def value(q: Decimal | int) -> int:
    """Kubernetes ``Quantity.Value()``: the value rounded up, away from zero, to an integer."""
    numerator, denominator = Decimal(q).as_integer_ratio()
    return _ceil_away(numerator, denominator)


def milli_value(q: Decimal | int) -> int:
    """Kubernetes ``Quantity.MilliValue()``: 1000 x value, rounded up away from zero ("1.5m" -> 2)."""
    numerator, denominator = Decimal(q).as_integer_ratio()
    return _ceil_away(numerator * 1000, denominator)


# --- Rendering for humans -----------------------------------------------------------------------

_MAX_FLOAT = sys.float_info.max
_SCALAR_INFINITY = float(2**63 - 1)
_BINARY_RENDER = (("Ei", 2**60), ("Pi", 2**50), ("Ti", 2**40), ("Gi", 2**30), ("Mi", 2**20), ("Ki", 2**10))
_DECIMAL_RENDER = (("E", 10**18), ("P", 10**15), ("T", 10**12), ("G", 10**9), ("M", 10**6), ("k", 10**3))


def format_number(x: float) -> str:
    """A float without a spurious ".0": 2000.0 -> "2000", 0.5 -> "0.5", MaxFloat64 -> "∞"."""
    if x >= _MAX_FLOAT:
        return "∞"
    if x <= -_MAX_FLOAT:
        return "-∞"
    if math.isfinite(x) and x == int(x) and abs(x) < 2**63:
        return str(int(x))
    return repr(x)


def _integral(x: float) -> int | None:
    if math.isfinite(x) and x == int(x) and abs(x) < _MAX_FLOAT:
        return int(x)
    return None


def format_milli_cpu(milli: float) -> str:
    """Milli-cores as Kubernetes would write them: 2000 -> "2", 500 -> "500m", 0.5 -> "0.5m"."""
    n = _integral(milli)
    if n is None:
        return format_number(milli) if abs(milli) >= _MAX_FLOAT else f"{format_number(milli)}m"
    if n % 1000 == 0:
        return str(n // 1000)
    return f"{n}m"


def format_bytes(amount: float) -> str:
    """Bytes with the largest exact suffix: 4 GiB -> "4Gi", 10^9 -> "1G", 1500 -> "1500"."""
    n = _integral(amount)
    if n is None or n == 0:
        return format_number(amount)
    for suffix, size in _BINARY_RENDER + _DECIMAL_RENDER:
        if n % size == 0:
            return f"{n // size}{suffix}"
    return str(n)


def format_milli_count(milli: float) -> str:
    """A milli-valued scalar (GPU cards, attachable volumes) in whole units: 1000 -> "1", 1500 -> "1.5"."""
    n = _integral(milli)
    if n is None:
        return format_number(milli) if abs(milli) >= _MAX_FLOAT else format_number(milli / 1000)
    return format(Decimal(n).scaleb(-3).normalize(), "f")


def format_resource_value(name: str, amount: float) -> str:
    """Render one dimension of a Volcano resource (internal units) the way a Kubernetes user writes it.

    cpu is milli-cores, memory bytes, ``pods`` a plain count, ``ephemeral-storage`` and
    ``hugepages-*`` milli-bytes, every other scalar milli-units (spec 1.2).
    """
    if amount >= _SCALAR_INFINITY:
        return "∞"  # Volcano's "unlimited": MaxFloat64 for cpu/memory, MaxInt64 for scalars (spec 3.3)
    if name == "cpu":
        return format_milli_cpu(amount)
    if name == "memory":
        return format_bytes(amount)
    if name == "pods":
        return format_number(amount)
    if name == "ephemeral-storage" or name.startswith("hugepages-"):
        n = _integral(amount)
        if n is not None and n % 1000 == 0:
            return format_bytes(n // 1000)
        return format_number(amount / 1000)
    return format_milli_count(amount)
