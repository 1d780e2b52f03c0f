"""Numbers in reasons and records read in the units the input used (issue 27, gap 5)."""

from __future__ import annotations

import pytest

from capacity.core.quantity import (
    BINARY,
    CORES,
    DECIMAL,
    MILLI,
    PLAIN,
    UnitStyles,
    format_bytes,
    format_milli_cpu,
    format_resource_value,
    format_resources,
    quantity_style,
)
from capacity.io.k8s import load_cluster


@pytest.mark.parametrize(("amount", "style", "text"), [
    (2 * 10**9, None, "2G"),  # was "1953125Ki"
    (4 * 10**9, None, "4G"),  # was "3906250Ki"
    (2 * 10**9, BINARY, "2G"),  # no exact binary number is as short
    (4 * 2**30, DECIMAL, "4Gi"),  # no decimal suffix divides it
    (4 * 2**30, None, "4Gi"),
    (1024000, None, "1000Ki"),  # as many digits either way: binary first without a style
    (1024000, DECIMAL, "1024k"),
    (10 * 2**30 / 3, None, "3.33Gi"),  # a water-filled share is rounded, not 3579139413.3333335
    (10 * 10**9 / 3, DECIMAL, "3.33G"),
    (2 * 2**30, PLAIN, "2147483648"),
])
def test_bytes_in_the_input_style(amount: float, style: str | None, text: str) -> None:
    assert format_bytes(amount, style) == text


@pytest.mark.parametrize(("milli", "style", "text"), [
    (1500, CORES, "1.5"),
    (1500, None, "1500m"),
    (250, None, "250m"),
    (250, MILLI, "250m"),
    (4000, MILLI, "4"),
    (29833.333333333332, None, "29833.33m"),  # was "29833.333333333332m"
    (29833.333333333332, MILLI, "29833.33m"),
    (29833.333333333332, CORES, "29.83"),
    (0.5, None, "0.5m"),
])
def test_cpu_in_the_input_style(milli: float, style: str | None, text: str) -> None:
    assert format_milli_cpu(milli, style) == text


@pytest.mark.parametrize(("name", "raw", "style"), [
    ("cpu", "250m", MILLI), ("cpu", "2", CORES), ("cpu", 2, CORES), ("cpu", "1.5", CORES),
    ("memory", "2G", DECIMAL), ("memory", "8Gi", BINARY), ("memory", 1024, PLAIN), ("memory", "1e3", None),
    ("ephemeral-storage", "10Gi", BINARY), ("nvidia.com/gpu", "1", None),
])
def test_quantity_style(name: str, raw: object, style: str | None) -> None:
    assert quantity_style(name, raw) == style


def test_most_common_style_wins_and_ties_are_fixed() -> None:
    styles = UnitStyles()
    for raw in ("2G", "4G", "1Gi"):
        styles.note("memory", raw)
    for raw in ("500m", "2"):
        styles.note("cpu", raw)
    assert styles.chosen() == {"cpu": CORES, "memory": DECIMAL}


def test_format_resources_uses_the_styles() -> None:
    text = format_resources({"cpu": 1500, "memory": 4 * 10**9}, {"cpu": CORES, "memory": DECIMAL})
    assert text == "cpu 1.5, memory 4G"
    assert format_resource_value("memory", 2 * 10**9, {"memory": BINARY}) == "2G"


CLUSTER = """
apiVersion: v1
kind: Node
metadata: {name: n1}
status: {allocatable: {cpu: "8", memory: 16G, pods: "110"}}
---
apiVersion: scheduling.volcano.sh/v1beta1
kind: Queue
metadata: {name: q1}
spec: {weight: 1, capability: {cpu: "4", memory: 4G}}
"""


def test_loading_remembers_the_styles() -> None:
    cluster = load_cluster(CLUSTER)
    assert cluster.unit_styles == {"cpu": CORES, "memory": DECIMAL}
    assert cluster.copy_state().unit_styles == cluster.unit_styles


@pytest.mark.parametrize("name", ["cpu", "memory", "pods", "ephemeral-storage", "nvidia.com/gpu"])
@pytest.mark.parametrize("amount", [float("nan"), float("-inf"), -1.5, 0.25, 1e-12, 123456789.123])
@pytest.mark.parametrize("style", [None, CORES, MILLI, BINARY, DECIMAL, PLAIN])
def test_odd_amounts_never_raise(name: str, amount: float, style: str | None) -> None:
    assert format_resource_value(name, amount, {name: style} if style else None)
