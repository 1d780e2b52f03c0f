"""Kubernetes quantity parsing, Value()/MilliValue() rounding (spec 1.2) and the human renderings.

Expected values come from Kubernetes' own table (apimachinery resource/quantity_test.go) where one
exists.
"""

from __future__ import annotations

from decimal import Decimal

import pytest
from hypothesis import given
from hypothesis import strategies as st

from capacity.core.errors import InputError
from capacity.core.quantity import (
    INT64_MAX,
    format_bytes,
    format_milli_count,
    format_milli_cpu,
    format_number,
    format_resource_value,
    milli_value,
    parse_quantity,
    value,
)

D = Decimal
MAX_FLOAT = 1.7976931348623157e308


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        # every decimal SI suffix
        ("5n", D("5e-9")),
        ("4u", D("4e-6")),
        ("3m", D("0.003")),
        ("9", D(9)),
        ("8k", D(8000)),
        ("7M", D(7 * 10**6)),
        ("6G", D(6 * 10**9)),
        ("5T", D(5 * 10**12)),
        ("2P", D(2 * 10**15)),
        ("1E", D(10**18)),  # "E" alone is exa, not an exponent
        # every binary suffix
        ("1Ki", D(1024)),
        ("7Mi", D(7 * 2**20)),
        ("6Gi", D(6 * 2**30)),
        ("5Ti", D(5 * 2**40)),
        ("4Pi", D(4 * 2**50)),
        ("3Ei", D(3 * 2**60)),
        # decimal exponents, both letter cases and signs
        ("1e3", D(1000)),
        ("1E3", D(1000)),
        ("1E-3", D("0.001")),
        ("1.3E+6", D(1300000)),
        ("0.5e-2", D("0.005")),
        ("1e003", D(1000)),
        # fractions and signs
        ("100.035k", D(100035)),
        ("10.035M", D(10035000)),
        ("0.5Mi", D(2**19)),
        ("100.035Ki", D("102435.84")),
        ("0.025Ti", D("27487790694.4")),
        ("+1.5", D("1.5")),
        ("-1.5", D("-1.5")),
        ("-500m", D("-0.5")),
        # Kubernetes' "things written by trolls", accepted as it accepts them
        ("1.", D(1)),
        ("1.G", D(10**9)),
        (".001", D("0.001")),
        (".", D(0)),
        ("-.", D(0)),
        ("Gi", D(0)),  # empty numerator reads as 0
        ("m", D(0)),
        ("0", D(0)),
        ("000", D(0)),
        ("0Mi", D(0)),
        ("-0", D(0)),
    ],
)
def test_parse_quantity_suffixes(text: str, expected: Decimal) -> None:
    assert parse_quantity(text) == expected


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("3.001n", D("4e-9")),
        ("1.1E-9", D("2e-9")),
        ("0.0000000001", D("1e-9")),
        ("0.0000000005", D("1e-9")),
        ("0.9n", D("1e-9")),
        ("0.00000012345", D("124e-9")),
        ("0.00000012354", D("124e-9")),
        ("-3.001n", D("-4e-9")),  # away from zero
        ("0.000000000001Ki", D("2e-9")),
        ("1e-300", D("1e-9")),
    ],
)
def test_parse_rounds_up_to_nano(text: str, expected: Decimal) -> None:
    assert parse_quantity(text) == expected


@pytest.mark.parametrize("text", ["9Ei", "9223372036854775807Ki", "1" * 5000 + "Ki"])
def test_parse_caps_binary_at_int64_max(text: str) -> None:
    # quantity.go caps only BinarySI: `if format == BinarySI && amount.Cmp(maxAllowed.Dec) > 0`.
    assert parse_quantity(text) == INT64_MAX
    assert parse_quantity("-" + text) == -INT64_MAX


@pytest.mark.parametrize("text", ["1e100", "12345678901234567890", "10E", "9" * 5000, "1e2147483647"])
def test_parse_refuses_decimal_beyond_int64(text: str) -> None:
    # Kubernetes keeps a decimal quantity exactly, but Value() of it overflows int64: refused.
    with pytest.raises(InputError, match="too large"):
        parse_quantity(text, obj="Node/n", field="status.allocatable.memory")


def test_parse_exponent_wraps_like_go_int32() -> None:
    # Kubernetes stores the exponent as int32(ParseInt(...)): 2^32 wraps to 0.
    assert parse_quantity("1e4294967296") == 1
    # Beyond int64 ParseInt itself fails.
    with pytest.raises(InputError, match="unknown suffix"):
        parse_quantity("1e9223372036854775808")


@pytest.mark.parametrize(
    ("raw", "expected"),
    [
        (2, D(2)),
        (-3, D(-3)),
        (0.5, D("0.5")),
        (1.0, D(1)),
        (1e-05, D("0.00001")),
        (1.5e3, D(1500)),
        (D("2.5"), D("2.5")),
        ("  250m\n", D("0.25")),  # Quantity.UnmarshalJSON trims white space
    ],
)
def test_parse_yaml_numbers(raw: object, expected: Decimal) -> None:
    assert parse_quantity(raw) == expected


@pytest.mark.parametrize(
    "raw",
    [
        "",
        "   ",
        "abc",
        "aoeu",
        "1.2.3",
        "1.1.M",
        "1+1.0M",
        "5 Gi",
        "0.1mi",
        "0.1am",
        ".5i",
        "1i",
        "-3.01i",
        "-3.01e-",
        "1K",
        "1e",
        "1eE3",
        "1Ki3",
        "1GB",
        "1gi",
        "1e1.5",
        "--1",
        "1_000",
        "１",
        True,
        False,
        None,
        [1],
        {"cpu": 1},
        float("nan"),
        float("inf"),
        D("NaN"),
        object(),
    ],
)
def test_parse_rejects(raw: object) -> None:
    with pytest.raises(InputError):
        parse_quantity(raw, obj="Queue/q1", field="spec.capability.cpu")


def test_parse_error_names_object_and_field() -> None:
    with pytest.raises(InputError) as info:
        parse_quantity("5 Gi", obj="Queue/team-a", field="spec.capability.memory")
    err = info.value
    assert (err.obj, err.field) == ("Queue/team-a", "spec.capability.memory")
    assert str(err).startswith("Queue/team-a: spec.capability.memory: invalid quantity '5 Gi'")


def test_parse_error_for_unknown_suffix_says_so() -> None:
    with pytest.raises(InputError, match=r"Pod/ns1/p1: spec.containers\[0\]: .*unknown suffix 'mi'"):
        parse_quantity("100mi", obj="Pod/ns1/p1", field="spec.containers[0]")


def test_parse_error_for_boolean_names_the_value() -> None:
    with pytest.raises(InputError, match="got True"):
        parse_quantity(True, obj="Queue/q", field="spec.deserved.cpu")


def test_input_error_omits_empty_parts() -> None:
    assert str(InputError("", "", "bad")) == "bad"
    assert str(InputError("Queue/q", "", "bad")) == "Queue/q: bad"
    assert str(InputError("", "spec.weight", "bad")) == "spec.weight: bad"


# --- Value() / MilliValue(): round up, away from zero (spec 1.2) --------------------------------


@pytest.mark.parametrize(
    ("text", "expected_value", "expected_milli"),
    [
        ("1.5m", 1, 2),  # spec: "1.5m" cpu -> 2 milli-cores
        ("100.5", 101, 100500),  # spec: "100.5" bytes -> 101
        ("1000m", 1, 1000),  # exact values are not bumped
        ("2", 2, 2000),
        ("0.1", 1, 100),
        ("1n", 1, 1),
        ("0", 0, 0),
        ("1Gi", 2**30, 2**30 * 1000),
        ("-1.5", -2, -1500),  # away from zero, not towards +inf
        ("-1.5m", -1, -2),
        ("-0.0001", -1, -1),
    ],
)
def test_value_and_milli_value_round_away_from_zero(
    text: str, expected_value: int, expected_milli: int
) -> None:
    q = parse_quantity(text)
    assert value(q) == expected_value
    assert milli_value(q) == expected_milli


def test_value_accepts_int() -> None:
    assert value(7) == 7
    assert milli_value(7) == 7000


# --- rendering -----------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("milli", "text"),
    [(500, "500m"), (2000, "2"), (1500, "1500m"), (0, "0"), (0.5, "0.5m"), (-250, "-250m"), (MAX_FLOAT, "∞")],
)
def test_format_milli_cpu(milli: float, text: str) -> None:
    assert format_milli_cpu(milli) == text


@pytest.mark.parametrize(
    ("amount", "text"),
    [
        (4 * 2**30, "4Gi"),
        (2**20, "1Mi"),
        (1536, "1536"),
        (10**9, "1G"),
        (1500, "1500"),
        (3 * 2**60, "3Ei"),
        (0, "0"),
        (100.5, "100.5"),
        (MAX_FLOAT, "∞"),
    ],
)
def test_format_bytes(amount: float, text: str) -> None:
    assert format_bytes(amount) == text


@pytest.mark.parametrize(("milli", "text"), [(1000, "1"), (1500, "1.5"), (1, "0.001"), (0, "0"), (8000, "8")])
def test_format_milli_count(milli: float, text: str) -> None:
    assert format_milli_count(milli) == text


@pytest.mark.parametrize(
    ("name", "amount", "text"),
    [
        ("cpu", 2500, "2500m"),
        ("memory", 2**31, "2Gi"),
        ("pods", 110, "110"),
        ("ephemeral-storage", 2**30 * 1000, "1Gi"),
        ("hugepages-2Mi", 2**21 * 1000, "2Mi"),
        ("nvidia.com/gpu", 2000, "2"),
        ("example.com/foo", 250, "0.25"),
    ],
)
def test_format_resource_value_uses_volcano_units(name: str, amount: float, text: str) -> None:
    assert format_resource_value(name, amount) == text


def test_format_number() -> None:
    assert format_number(2000.0) == "2000"
    assert format_number(0.25) == "0.25"
    assert format_number(-MAX_FLOAT) == "-∞"


@given(st.integers(min_value=-(10**12), max_value=10**12))
def test_format_milli_cpu_round_trips(milli: int) -> None:
    assert milli_value(parse_quantity(format_milli_cpu(milli))) == milli


@given(st.integers(min_value=0, max_value=2**62))
def test_format_bytes_round_trips(amount: int) -> None:
    assert value(parse_quantity(format_bytes(amount))) == amount


@given(st.integers(min_value=0, max_value=10**15))
def test_format_milli_count_round_trips(milli: int) -> None:
    assert milli_value(parse_quantity(format_milli_count(milli))) == milli


# --- the caches: parsed strings and Value()/MilliValue() results are reused, errors never ---------

@given(st.from_regex(r"[+-]?[0-9]{0,4}(\.[0-9]{0,4})?(m|k|M|G|Ki|Mi|Gi|e3|E|n|u)?", fullmatch=True))
def test_cached_parses_equal_fresh_ones(text: str) -> None:
    from capacity.core import quantity
    try:
        fresh = quantity._parse_quantity(text, "", "")
    except InputError:
        with pytest.raises(InputError):
            parse_quantity(text)
        return
    assert parse_quantity(text) == fresh and parse_quantity(text) == fresh  # the second from the cache
    assert value(parse_quantity(text)) == value(fresh)
    assert milli_value(parse_quantity(text)) == milli_value(fresh)


def test_errors_are_not_cached_and_name_each_caller() -> None:
    for obj in ("Pod/a", "Pod/b"):
        with pytest.raises(InputError) as info:
            parse_quantity("1K", obj=obj, field="spec.cpu")
        assert info.value.obj == obj


def test_value_caches_agree_across_equal_numbers() -> None:
    assert milli_value(D("1.0")) == milli_value(D("1")) == milli_value(1) == 1000
    assert value(D("1.5")) == value(D("1.50")) == 2
    assert milli_value(D("-0.0005")) == -1 and milli_value(D("-0.0005")) == -1
    with pytest.raises(ValueError):
        value(D("NaN"))


def test_one_resource_formatter_writes_exact_quantities_or_reading_ones() -> None:
    """format_resources is the one resource formatter: exact quantities by default, human_value's for reading,
    pods slots skipped where asked, a 0 that means "not set" said so, and a chosen text when nothing is left."""
    from capacity.core.human_units import human_describe, human_value
    from capacity.core.quantity import format_resources

    values = {"cpu": 627570.0, "memory": 4 * 2**30, "pods": 110.0, "nvidia.com/gpu": 0.0}
    assert format_resources(values) == "cpu 627570m, memory 4Gi, pods 110, nvidia.com/gpu 0"
    assert format_resources(values, skip=("pods",), unset=("nvidia.com/gpu",), unset_text="unset",
                            value=human_value) == "cpu 627.57, memory 4Gi, nvidia.com/gpu unset"
    assert human_describe(values) == "cpu 627.57, memory 4Gi, nvidia.com/gpu 0"
    assert format_resources({}) == "nothing" and format_resources({"pods": 1.0}, skip=("pods",), empty="-") == "-"
