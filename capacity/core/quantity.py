"""Kubernetes resource quantities: parsing exactly as ``k8s.io/apimachinery/pkg/api/resource`` does,
the ``Value()`` / ``MilliValue()`` roundings Volcano relies on, and short renderings for humans.

Why a hand-written parser: Volcano never sees the text, only what Kubernetes' ``ParseQuantity`` made of
it, and that parser has quirks a regular expression or ``float()`` would not reproduce ("1.G" and "."
are valid, "1K" is not, "1E" is 10^18 but "1E3" is 1000, values round *up* to 1n when parsed).
Numbers are kept as exact ``Decimal`` values; converting to float happens only when building a
``Resource`` (see ``capacity.core.resources.from_resource_list``).
"""

from __future__ import annotations

import math
import re
import sys
from collections.abc import Callable, Iterable, Mapping
from decimal import Decimal

from capacity.core.errors import InputError

__all__ = [
    "INT64_MAX",
    "INT64_MIN",
    "format_bytes",
    "format_milli_count",
    "format_milli_cpu",
    "format_number",
    "format_resource_value",
    "format_resources",
    "go_atoi",
    "quantity_style",
    "UnitStyles",
    "milli_value",
    "parse_quantity",
    "value",
]

INT64_MAX = 2**63 - 1
INT64_MIN = -(2**63)

# ParseQuantity caps binary-suffixed magnitudes here ("9Ei" -> 2^63 - 1, quantity.go: `format == BinarySI
# && amount.Cmp(maxAllowed) > 0`). Decimal ones are kept exactly, but Value()/MilliValue() then
# overflow int64 (big.Int.Int64 is undefined there), so the simulator refuses them.
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

_FORMAT_HELP = (
    "a quantity is a number with an optional suffix: n u m k M G T P E (decimal), "
    "Ki Mi Gi Ti Pi Ei (binary) or an exponent such as e3"
)


# Kubernetes' parseQuantityString as one regular expression (C speed on megabyte-long input): sign,
# leading zeros, numerator, optional "." and denominator, then suffix characters, an optional sign and
# digits. Any other character anywhere is ErrFormatWrong.
# Possessive quantifiers: the scan never backtracks (like Go's loop), so no input takes quadratic time.
_QUANTITY = re.compile(r"([+-]?+)0*+([0-9]*+)(?:\.([0-9]*+))?+([eEinumkKMGTP]*+[+-]?+[0-9]*+)")


def _split(text: str) -> tuple[bool, str, str, str] | None:
    """Split like Kubernetes' ``parseQuantityString``: (positive, numerator, denominator, suffix).

    Returns None where Kubernetes answers ErrFormatWrong. Keeps its leniencies: an empty numerator
    reads as 0 ("." and "Gi" are zero), "1." is 1, a lone sign is 0.
    """
    m = _QUANTITY.fullmatch(text)
    if m is None:
        return None
    sign, num, denom, suffix = m.groups()
    return sign != "-", num or "0", denom or "", suffix


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
        if len(unsigned.lstrip("0")) > 19:  # beyond int64 whatever the digits
            return None
        parsed = int(digits)
        if not INT64_MIN <= parsed <= INT64_MAX:  # strconv.ParseInt(..., 10, 64) fails
            return None
        # Go stores the exponent as int32(parsed): wrap around like the conversion does.
        return 10, (parsed + 2**31) % 2**32 - 2**31
    return None


_ATOI = re.compile(r"[+-]?[0-9]+", re.ASCII)


def go_atoi(text: str) -> int | None:
    """Go's strconv.Atoi / ParseInt(text, 10, 64): an optional sign and ASCII digits within int64, else None.

    Python's int() is wider: it takes '٣' (Arabic-Indic digits), '1_000', ' 12 ' and any length.
    """
    if len(text) > 20 or not _ATOI.fullmatch(text):
        return None
    n = int(text)
    return n if INT64_MIN <= n <= INT64_MAX else None


def _show(raw: object, limit: int = 40) -> str:
    """The offending value for an error message, shortened: it may be megabytes long."""
    text = repr(raw) if isinstance(raw, str | int | float | Decimal | bool) or raw is None else (
        f"<{type(raw).__name__}>")
    return text if len(text) <= limit else f"{text[:limit]}... ({len(text)} characters)"


def _to_text(raw: object, obj: str, field: str) -> str:
    """The text Kubernetes would parse for a YAML/JSON value (numbers are parsed from their text)."""
    if isinstance(raw, str):
        # Quantity.UnmarshalJSON trims surrounding white space before parsing.
        return raw.strip()
    if isinstance(raw, bool) or raw is None:
        raise InputError(obj, field, f"expected a quantity such as '500m' or '4Gi', got {_show(raw)}")
    if isinstance(raw, int):
        return str(raw)
    if isinstance(raw, float):
        if not math.isfinite(raw):
            raise InputError(obj, field, f"invalid quantity {_show(raw)}: must be a finite number")
        return repr(raw)
    if isinstance(raw, Decimal):
        if not raw.is_finite():
            raise InputError(obj, field, f"invalid quantity {_show(raw)}: must be a finite number")
        return str(raw)
    raise InputError(
        obj, field, f"expected a quantity such as '500m' or '4Gi', got {type(raw).__name__} {_show(raw)}"
    )


def parse_quantity(raw: object, *, obj: str = "", field: str = "") -> Decimal:
    """Parse a Kubernetes quantity (string, YAML int or float) into its exact value.

    Like ``resource.ParseQuantity``: non-zero values are rounded up (away from zero) to a multiple of
    1e-9 and binary-suffixed magnitudes are capped at 2^63 - 1; a decimal magnitude above 2^63 - 1
    (which no int64 read of it survives) is an InputError. Raises ``InputError`` naming ``obj`` and ``field`` for
    anything Kubernetes would reject, and for booleans, None and containers.
    """
    if type(raw) is str:  # the usual case: a cluster repeats a few dozen quantity strings
        cached = _PARSED.get(raw)
        if cached is not None:
            return cached
        q = _parse_quantity(raw, obj, field)
        if len(raw) <= _CACHE_KEY_MAX and len(_PARSED) < _CACHE_MAX:
            _PARSED[raw] = q
        return q
    return _parse_quantity(raw, obj, field)


#: Parsed quantity strings (successes only: errors name the object and field). ``Decimal`` values are
#: immutable, so sharing them is safe. Bounded, so hostile input cannot grow it without limit.
_PARSED: dict[str, Decimal] = {}
_CACHE_MAX = 1 << 16
_CACHE_KEY_MAX = 64


def _parse_quantity(raw: object, obj: str, field: str) -> Decimal:
    text = _to_text(raw, obj, field)
    if not text:
        raise InputError(obj, field, f"invalid quantity {_show(raw)}: empty; {_FORMAT_HELP}")
    parts = _split(text)
    if parts is None:
        raise InputError(obj, field, f"invalid quantity {_show(raw)}: {_FORMAT_HELP}")
    positive, num, denom, suffix = parts
    interpreted = _interpret_suffix(suffix)
    if interpreted is None:
        raise InputError(obj, field, f"invalid quantity {_show(raw)}: unknown suffix {suffix!r}; {_FORMAT_HELP}")
    base, exponent = interpreted
    denom = denom.rstrip("0")  # trailing zeros of the fraction change nothing
    digits = (num + denom).lstrip("0")
    if not digits:
        return Decimal(0)
    # Exact arithmetic in nano-units, rounded up. The digit strings can be arbitrarily long (Kubernetes
    # parses them with arbitrary precision): only short prefixes are ever turned into integers, so
    # Python's 4300-digit int() limit is never reached and a huge input costs linear time.
    if base == 2:
        nano = _binary_nano(num, denom, exponent)
    else:
        # value = int(digits) * 10^shift nano
        shift = exponent + 9 - len(denom)
        n = len(digits)
        if n + shift > 40:
            nano = _MAX_ALLOWED_NANO + 1  # at least 10^40 nano: far above the cap
        elif shift >= 0:
            nano = int(digits) * 10**shift
        elif n + shift <= 0:
            nano = 1  # below 1n: rounds up to 1n
        else:
            head, tail = digits[: n + shift], digits[n + shift :]
            nano = int(head) + (1 if tail.strip("0") else 0)
        if nano > _MAX_ALLOWED_NANO:
            raise InputError(obj, field, f"quantity {_show(raw)} is too large: Kubernetes keeps it, but as the "
                             "64-bit integer Volcano reads it overflows")
    nano = min(nano, _MAX_ALLOWED_NANO)
    return Decimal(f"{'' if positive else '-'}{nano}E-9")


_FRACTION_DIGITS = 200  # > 60 (largest binary exponent) and > 9: enough to round any fraction exactly


def _binary_nano(num: str, denom: str, exponent: int) -> int:
    """ceil(num.denom * 2^exponent * 10^9) for a binary suffix (exponent 10..60), capped.

    With F = the first 200 fraction digits, A = int(num F) * 2^e * 10^9 / 10^len(F) has a fractional
    part that is a multiple of 2^e * 10^9 / 10^200 when F is that long, which the remaining digits
    (worth less than that) can never carry over: ceil = floor(A) + 1 if A or the rest is non-zero.
    """
    if len(num.lstrip("0")) > 30:
        return _MAX_ALLOWED_NANO  # >= 10^29 * 2^10 * 10^9: far above the cap
    head, tail = denom[:_FRACTION_DIGITS], denom[_FRACTION_DIGITS:]
    q, r = divmod(int(num + head) * 2**exponent * 10**9, 10 ** len(head))
    return q + (1 if r or tail.strip("0") else 0)


def _ceil_div(numerator: int, denominator: int) -> int:
    """numerator / denominator rounded up, for numerator >= 0 and denominator > 0."""
    return -(-numerator // denominator)


def _ceil_away(numerator: int, denominator: int) -> int:
    """numerator / denominator rounded away from zero (denominator > 0), as Kubernetes rounds."""
    magnitude = _ceil_div(abs(numerator), denominator)
    return magnitude if numerator >= 0 else -magnitude


def value(q: Decimal | int) -> int:
    """Kubernetes ``Quantity.Value()``: the value rounded up, away from zero, to an integer."""
    out = _VALUES.get(q) if type(q) is not Decimal or q.is_finite() else None
    if out is None:
        numerator, denominator = Decimal(q).as_integer_ratio()
        out = _ceil_away(numerator, denominator)
        if len(_VALUES) < _CACHE_MAX:
            _VALUES[q] = out
    return out


def milli_value(q: Decimal | int) -> int:
    """Kubernetes ``Quantity.MilliValue()``: 1000 x value, rounded up away from zero ("1.5m" -> 2)."""
    out = _MILLI_VALUES.get(q) if type(q) is not Decimal or q.is_finite() else None
    if out is None:
        numerator, denominator = Decimal(q).as_integer_ratio()
        out = _ceil_away(numerator * 1000, denominator)
        if len(_MILLI_VALUES) < _CACHE_MAX:
            _MILLI_VALUES[q] = out
    return out


# Both results depend on the numeric value alone (equal Decimals and ints hash alike and agree here).
_VALUES: dict[Decimal | int, int] = {}
_MILLI_VALUES: dict[Decimal | int, int] = {}


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


def _rounded(x: float) -> str:
    """A non-integral amount rounded for reading: 2 decimals from 1 up ("29833.33", "29.83"), else 3
    significant digits ("0.5", "0.00152"); never an exponent."""
    if x == 0:
        return "0"
    if not math.isfinite(x) or abs(x) >= _MAX_FLOAT:
        return format_number(x)
    digits = 2 if abs(x) >= 1 else min(15, 2 - math.floor(math.log10(abs(x))))
    text = f"{x:.{digits}f}".rstrip("0").rstrip(".")
    return text if text not in ("", "-0") else "0"


def format_milli_cpu(milli: float, style: str | None = None) -> str:
    """Milli-cores as Kubernetes would write them: 2000 -> "2", 500 -> "500m", 0.5 -> "0.5m".

    `style` "cores" (the input wrote cpu in cores, UnitStyles) shows every amount in cores: 500 -> "0.5".
    A non-integral amount (a water-filled share) is rounded: 29833.333... -> "29833.33m" or "29.83".
    """
    n = _integral(milli)
    if n is None:
        if abs(milli) >= _MAX_FLOAT or not math.isfinite(milli):
            return format_number(milli)
        return _rounded(milli / 1000) if style == CORES else f"{_rounded(milli)}m"
    if style == CORES:
        return format(Decimal(n).scaleb(-3).normalize(), "f")
    if n % 1000 == 0:
        return str(n // 1000)
    return f"{n}m"


_ROUND_FROM = 2**20  # with a style (for reading), larger byte amounts without an exact suffix are rounded


def _exact_in(n: int, family: tuple[tuple[str, int], ...]) -> tuple[int, str] | None:
    """n in the largest suffix of `family` that divides it exactly: (mantissa, suffix), or None."""
    for suffix, size in family:
        if n % size == 0:
            return n // size, suffix
    return None


def format_bytes(amount: float, style: str | None = None) -> str:
    """Bytes with the largest exact suffix: 4 GiB -> "4Gi", 10^9 -> "1G", 1500 -> "1500".

    Where both a binary and a decimal suffix divide exactly, the shorter number wins (2 * 10^9 is "2G",
    not "1953125Ki"), on a tie the input's style (UnitStyles: BINARY, DECIMAL; binary without one). PLAIN
    keeps integral bytes as written. A non-integral amount is rounded in the style's suffixes
    ("3.33G", "3.1Gi"); so is, with a style given (a sentence, not an export), an integral one of 1Mi or
    more that no suffix divides (2221225472 -> "2.22G"). Without a style integral amounts stay exact.
    """
    n = _integral(amount)
    if n is None or n == 0:
        if n is None and math.isfinite(amount) and abs(amount) < _MAX_FLOAT:
            family = _DECIMAL_RENDER if style == DECIMAL else _BINARY_RENDER
            for suffix, size in family:
                if abs(amount) >= size and style != PLAIN:
                    return f"{_rounded(amount / size)}{suffix}"
            return _rounded(amount)
        return format_number(amount)
    if style == PLAIN:
        return str(n)
    binary, decimal = _exact_in(n, _BINARY_RENDER), _exact_in(n, _DECIMAL_RENDER)
    options = [o for o in ((decimal, binary) if style == DECIMAL else (binary, decimal)) if o is not None]
    if not options:
        if style is not None and abs(n) >= _ROUND_FROM:  # for reading: "2.22G", not 2221225472
            for suffix, size in _DECIMAL_RENDER if style == DECIMAL else _BINARY_RENDER:
                if abs(n) >= size:
                    return f"{_rounded(n / size)}{suffix}"
        return str(n)
    mantissa, suffix = min(options, key=lambda o: len(str(abs(o[0]))))  # min keeps the first of equals
    return f"{mantissa}{suffix}"


def format_milli_count(milli: float) -> str:
    """A milli-valued scalar (GPU cards, attachable volumes) in whole units: 1000 -> "1", 1500 -> "1.5"."""
    n = _integral(milli)
    if n is None:
        return format_number(milli) if abs(milli) >= _MAX_FLOAT or not math.isfinite(milli) else _rounded(
            milli / 1000)
    return format(Decimal(n).scaleb(-3).normalize(), "f")


def format_resource_value(name: str, amount: float, styles: Mapping[str, str] | None = None) -> str:
    """Render one dimension of a Volcano resource (internal units) the way a Kubernetes user writes it.

    cpu is milli-cores, memory bytes, ``pods`` a plain count, ``ephemeral-storage`` and
    ``hugepages-*`` milli-bytes, every other scalar milli-units (spec 1.2). `styles`: per resource name
    the style the input used (UnitStyles.chosen, Cluster.unit_styles); without one, the default style.
    """
    if amount >= _SCALAR_INFINITY:
        return "∞"  # Volcano's "unlimited": MaxFloat64 for cpu/memory, MaxInt64 for scalars (spec 3.3)
    style = styles.get(name) if styles else None
    if name == "cpu":
        return format_milli_cpu(amount, style)
    if name == "memory":
        return format_bytes(amount, style)
    if name == "pods":
        return format_number(amount) if _integral(amount) is not None else _rounded(amount)
    if name == "ephemeral-storage" or name.startswith("hugepages-"):
        n = _integral(amount)
        if n is not None and n % 1000 == 0:
            return format_bytes(n // 1000, style)
        return format_bytes(amount / 1000, style) if math.isfinite(amount) else format_number(amount / 1000)
    return format_milli_count(amount)


def format_resources(values: Mapping[str, float] | None, styles: Mapping[str, str] | None = None, *,
                     skip: Iterable[str] = (), unset: Iterable[str] = (), unset_text: str = "", empty: str = "nothing",
                     value: Callable[[str, float, Mapping[str, str] | None], str] = format_resource_value) -> str:
    """"cpu 4, memory 8Gi": the one formatter of a resource (a dict of internal units) for people.

    Each dimension is written by `value`: `format_resource_value` (exact quantities, the default) or
    `capacity.core.human_units.human_value` (for reading at any size). `skip`: dimensions left out (pods
    slots, usually); `unset`: dimensions whose 0 means "not set", written `unset_text`; `empty`: the text
    when nothing is left.
    """
    if not values:
        return empty
    skipped, blank = set(skip), set(unset)
    parts = [f"{k} {unset_text if k in blank and v == 0 and unset_text else value(k, v, styles)}"
             for k, v in values.items() if k not in skipped]
    return ", ".join(parts) or empty


# --- The units the input used --------------------------------------------------------------------

CORES = "cores"
MILLI = "milli"
BINARY = "binary"
DECIMAL = "decimal"
PLAIN = "plain"

_BINARY_SUFFIX_RE = re.compile(r"[0-9.]*[KMGTPE]i")
_DECIMAL_SUFFIX_RE = re.compile(r"[0-9.]*[kMGTPE]")
_PLAIN_RE = re.compile(r"[+]?[0-9]*\.?[0-9]*")
_BYTE_NAMES = ("memory", "ephemeral-storage")
_STYLE_ORDER = {CORES: 0, MILLI: 1, BINARY: 0, DECIMAL: 1, PLAIN: 2}  # ties: the first of these


def quantity_style(name: str, raw: object) -> str | None:
    """How a quantity of resource `name` was written: cpu in CORES or MILLI; memory and other byte amounts
    BINARY (Gi), DECIMAL (G) or PLAIN bytes; None for other names and other spellings (exponents)."""
    text = raw.strip() if isinstance(raw, str) else str(raw) if isinstance(raw, int | float) else ""
    if name == "cpu":
        if text.endswith("m"):
            return MILLI
        return CORES if _PLAIN_RE.fullmatch(text) else None
    if name in _BYTE_NAMES or name.startswith("hugepages-"):
        if _BINARY_SUFFIX_RE.fullmatch(text):
            return BINARY
        if _DECIMAL_SUFFIX_RE.fullmatch(text):
            return DECIMAL
        return PLAIN if _PLAIN_RE.fullmatch(text) else None
    return None


class UnitStyles:
    """Counts how the input wrote each resource's quantities, to show numbers back in the same units.

    Loading notes each (name, text) once more (one dict update per quantity); `chosen` classifies the
    distinct texts once and picks per name the most common style (ties: cores, binary, then the rest)."""

    __slots__ = ("seen",)

    def __init__(self) -> None:
        self.seen: dict[tuple[str, object], int] = {}

    def note(self, name: str, raw: object) -> None:
        key = (name, raw)
        self.seen[key] = self.seen.get(key, 0) + 1

    def chosen(self) -> dict[str, str]:
        counts: dict[str, dict[str, int]] = {}
        for (name, raw), n in self.seen.items():
            style = quantity_style(name, raw)
            if style is not None:
                per = counts.setdefault(name, {})
                per[style] = per.get(style, 0) + n
        return {name: min(per, key=lambda s: (-per[s], _STYLE_ORDER[s])) for name, per in sorted(counts.items())}
