"""Accelerator card types: discovered from node labels, requested and capped through annotations.

The capacity-card plugin of seed 001 (spec actions-framework §13.4) does not count `nvidia.com/gpu`;
it counts *card types* such as `NVIDIA-H200` or the MIG slice `NVIDIA-H200/mig-1g.18gb-mixed`.
This module is that vocabulary, free of any session state:

* **Discovery.** A node label matching `^((.+?)/(\\w+))\\.product$` (e.g. `nvidia.com/gpu.product:
  NVIDIA-H200`) names the node's card product; `<prefix>/<type>.memory` (MB) and `.replicas` are read
  for MPS names, `.count` is informational. From the node's allocatable resources:
  - `nvidia.com/mig-<profile>` -> card `<product>/mig-<profile>-mixed`;
  - `nvidia.com/gpu.shared` -> card `<product>/mps-<round(memoryMB/1024)>g*1/<replicas>` (replicas > 0);
  - any other resource under the label's vendor prefix (`nvidia.com`) -> card `<product>` (whole cards),
    `<prefix>/<type>` itself (`nvidia.com/gpu`) preferred when several match.
  Only the `.product` label is required here. One published version of the plugin also insists on the
  `.count` and `.memory` labels and discovers nothing without them, so fixtures should set all three.
* **Quantities** are Volcano scalars: cards x 1000 (`cardCountQuantityMultiplier`), so 2 cards = 2000.
* **Annotations** hold JSON objects of card name -> integer count (`volcano.sh/card.quota` on a Queue,
  `volcano.sh/card.request` on a PodGroup). Go unmarshals them into `map[string]int`, so one
  malformed value (a string, a fraction) voids the *whole* annotation: the quota becomes 0 for every card.
* **Multi-card names** `A|B|C` (priority left to right) on `volcano.sh/card.name` and in requests.
"""

from __future__ import annotations

import json
import math
import re
from dataclasses import dataclass, field

from capacity.core.quantity import INT64_MAX, INT64_MIN, go_atoi
from capacity.core.resources import Resource
from capacity.core.text import safe

QUOTA_KEY = "volcano.sh/card.quota"
REQUEST_KEY = "volcano.sh/card.request"
CARD_NAME_KEY = "volcano.sh/card.name"
MULTI_CARD_SEPARATOR = "|"
CARD_MULTIPLIER = 1000
MIG_PREFIX = "nvidia.com/mig-"
MPS_RESOURCE = "nvidia.com/gpu.shared"
MPS_REPLICAS_LABEL = "nvidia.com/gpu.replicas"
MIG_NAME = "{product}/mig-{profile}-mixed"
MPS_NAME = "{product}/mps-{memory_gb}g*1/{replicas}"
PRODUCT_LABEL_RE = re.compile(r"^((.+?)/(\w+))\.product$")


@dataclass(slots=True)
class NodeCards:
    """What one node offers, in card types: name -> (Kubernetes resource name, quantity in milli)."""

    node: str
    product: str = ""
    label_prefix: str = ""      # nvidia.com/gpu
    resource_prefix: str = ""   # nvidia.com
    count: str = ""
    memory_mb: int = 0
    cards: dict[str, tuple[str, float]] = field(default_factory=dict)
    problems: list[str] = field(default_factory=list)

def _int_label(labels: dict[str, str], key: str) -> int | None:
    raw = labels.get(key)
    if raw is None or raw == "":
        return None
    return go_atoi(raw)


def label_problems(labels: dict[str, str]) -> list[tuple[str, str]]:
    """(label, problem) for the integer labels discovery reads that Go's strconv.Atoi refuses."""
    out: list[tuple[str, str]] = []
    for key in sorted(labels):
        m = PRODUCT_LABEL_RE.match(key)
        if m is None or MIG_PREFIX in key:
            continue
        for sub in (f"{m.group(1)}.memory", MPS_REPLICAS_LABEL):
            raw = labels.get(sub)
            if raw and go_atoi(raw) is None:
                out.append((sub, "not an integer Go's strconv.Atoi reads (ASCII digits within 64 bits); "
                            "capacity-card reads 0"))
        break
    return out


def discover(node: str, labels: dict[str, str], allocatable: Resource) -> NodeCards:
    """getCardResourceFromNode: the card types a node offers and how many of each (milli units)."""
    out = NodeCards(node)
    for key in sorted(labels):
        if MIG_PREFIX in key:
            continue
        m = PRODUCT_LABEL_RE.match(key)
        if m:
            out.product = labels[key]
            out.label_prefix = m.group(1)
            out.resource_prefix = m.group(2)
            out.count = labels.get(f"{m.group(1)}.count", "")
            out.memory_mb = _int_label(labels, f"{m.group(1)}.memory") or 0
            break
    if not out.product:
        return out
    whole: list[tuple[str, float]] = []
    for res, amount in sorted((allocatable.scalars or {}).items()):
        if amount <= 0:  # Go: Quantity.Value() <= 0
            continue
        if res == MPS_RESOURCE:
            replicas = _int_label(labels, MPS_REPLICAS_LABEL) or 0
            if replicas > 0:
                name = MPS_NAME.format(product=out.product, memory_gb=round(out.memory_mb / 1024),
                                       replicas=replicas)
                out.cards[name] = (res, whole_units(amount))
            else:
                out.problems.append(f"{res} without a positive {MPS_REPLICAS_LABEL} label: no MPS card type")
            continue
        if res.startswith(MIG_PREFIX):
            name = MIG_NAME.format(product=out.product, profile=res[len(MIG_PREFIX):])
            out.cards[name] = (res, whole_units(amount))
            continue
        if res.startswith(out.resource_prefix):
            whole.append((res, whole_units(amount)))
    if whole:
        exact = [w for w in whole if w[0] == out.label_prefix]
        out.cards[out.product] = (exact or whole)[0]
    if not out.cards:
        out.problems.append(f"label {out.label_prefix}.product={out.product} but no card resource in "
                            "status.allocatable")
    return out


def whole_units(milli: float) -> float:
    """Quantity.Value() x 1000: whole units, rounded up as Kubernetes does."""
    return float(math.ceil(milli / CARD_MULTIPLIER - 1e-9) * CARD_MULTIPLIER)


def split(name: str) -> list[str]:
    """`A|B|C` -> [A, B, C]; a single name -> [name]."""
    return name.split(MULTI_CARD_SEPARATOR)


def parse_card_json(text: str | None) -> tuple[dict[str, float], str]:
    """A card annotation as Go reads it into map[string]int: (card -> milli, problem or "")."""
    if text is None or text == "":
        return {}, ""
    try:
        data = json.loads(text)
    except RecursionError:
        return {}, "nested too deeply to be a JSON object of card name -> count; the whole annotation is ignored"
    except ValueError as exc:
        why = exc.msg if isinstance(exc, json.JSONDecodeError) else "a number too long to read"
        return {}, f"not valid JSON ({why}); the whole annotation is ignored"
    if not isinstance(data, dict):
        return {}, "must be a JSON object of card name -> count; the whole annotation is ignored"
    out: dict[str, float] = {}
    for name, count in data.items():
        if isinstance(count, bool) or not isinstance(count, int):
            shown = repr(count) if isinstance(count, int | float | str) else type(count).__name__
            return {}, (f"count of {safe(repr(name))[:60]} must be a JSON integer, got {safe(shown)[:60]}; Go's "
                        "json.Unmarshal into map[string]int fails, so the whole annotation is ignored")
        if not INT64_MIN <= count <= INT64_MAX:
            return {}, (f"count of {safe(repr(name))[:60]} has {len(str(abs(count)))} digits, beyond Go's int "
                        "(64 bits); json.Unmarshal into map[string]int fails, so the whole annotation is ignored")
        out[str(name)] = float(count * CARD_MULTIPLIER)
    return out, ""


def card_resource(cards: dict[str, float]) -> Resource:
    """Card milli amounts as a Resource whose scalars are card names (no cpu, memory or pods)."""
    return Resource(0.0, 0.0, dict(cards))
