"""Quantity parsing against exact rational arithmetic, including inputs thousands of digits long.

The parser works on digit strings so that it never builds huge integers (Python's int() refuses more
than 4300 digits, and a 10 MB quantity must not take quadratic time). This checks it against a
straightforward `Fraction` reference on random quantities: every sign, suffix and exponent form, and
fractions longer than the 200 digits the binary path keeps.
"""

from __future__ import annotations

import math
from decimal import Decimal
from fractions import Fraction

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from capacity.core.errors import InputError
from capacity.core.quantity import INT64_MAX, parse_quantity

DECIMAL = {"n": -9, "u": -6, "m": -3, "": 0, "k": 3, "M": 6, "G": 9, "T": 12, "P": 15, "E": 18}
BINARY = {"Ki": 10, "Mi": 20, "Gi": 30, "Ti": 40, "Pi": 50, "Ei": 60}
CAP_NANO = INT64_MAX * 10**9

_digits = st.one_of(st.text("0123456789", max_size=25), st.text("0123456789", min_size=190, max_size=260),
                    st.sampled_from(["", "0", "1", "9" * 30, "0" * 220 + "1", "5" + "0" * 230]))


@st.composite
def quantities(draw: st.DrawFn) -> tuple[str, Fraction, bool]:
    """(text, exact value, binary?)"""
    sign = draw(st.sampled_from(["", "+", "-"]))
    whole = draw(_digits)
    frac = draw(st.one_of(st.none(), _digits))
    kind = draw(st.sampled_from(["decimal", "binary", "exponent"]))
    if kind == "decimal":
        suffix = draw(st.sampled_from(sorted(DECIMAL)))
        scale = Fraction(10) ** DECIMAL[suffix]
    elif kind == "binary":
        suffix = draw(st.sampled_from(sorted(BINARY)))
        scale = Fraction(2) ** BINARY[suffix]
    else:
        e = draw(st.integers(-40, 40))
        suffix = draw(st.sampled_from(["e", "E"])) + (draw(st.sampled_from(["", "+"])) if e >= 0 else "") + str(e)
        scale = Fraction(10) ** e
    text = sign + whole + ("" if frac is None else "." + frac) + suffix
    frac = frac or ""
    mantissa = Fraction(int(whole or "0") * 10 ** len(frac) + int(frac or "0"), 10 ** len(frac))
    value = mantissa * scale * (-1 if sign == "-" else 1)
    return text, value, kind == "binary"


@settings(max_examples=400, deadline=None, derandomize=True, database=None)
@given(quantities())
def test_parse_quantity_is_exact(case: tuple[str, Fraction, bool]) -> None:
    text, value, binary = case
    if text in ("", "+", "-") or text[-1:] in "+-" and not text[:-1]:
        return
    nano = math.ceil(abs(value) * 10**9)
    if binary:
        nano = min(nano, CAP_NANO)
    elif nano > CAP_NANO:
        with pytest.raises(InputError, match="too large"):
            parse_quantity(text)
        return
    expected = Decimal(nano).scaleb(-9) * (-1 if value < 0 else 1)
    assert parse_quantity(text) == expected


def test_a_ten_megabyte_quantity_is_linear() -> None:
    import time
    started = time.perf_counter()
    assert parse_quantity("0." + "3" * 10_000_000 + "Ki") == Decimal("341.333333334")
    with pytest.raises(InputError, match="too large"):
        parse_quantity("7" * 10_000_000)
    assert parse_quantity("0." + "0" * 10_000_000 + "1") == Decimal("1e-9")
    assert time.perf_counter() - started < 5
