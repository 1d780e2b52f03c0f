"""Plugin registry: Volcano plugin name -> implementation."""

from __future__ import annotations

from typing import Any

from capacity.plugins.capacity import CapacityPlugin
from capacity.plugins.conformance import ConformancePlugin
from capacity.plugins.gang import GangPlugin
from capacity.plugins.nodeorder import NodeOrderPlugin
from capacity.plugins.predicates import PredicatesPlugin
from capacity.plugins.priority import PriorityPlugin

REGISTRY: dict[str, type[Any]] = {
    p.name: p for p in (CapacityPlugin, ConformancePlugin, GangPlugin, NodeOrderPlugin,
                        PredicatesPlugin, PriorityPlugin)
}


def register(cls: type[Any]) -> type[Any]:
    REGISTRY[cls.name] = cls
    return cls


def _load_optional() -> None:
    import importlib
    for mod in ("proportion", "drf", "overcommit", "binpack"):
        try:
            m = importlib.import_module(f"capacity.plugins.{mod}")
        except ModuleNotFoundError:
            continue
        for v in vars(m).values():
            if isinstance(v, type) and getattr(v, "name", "") == mod:
                REGISTRY[mod] = v


_load_optional()
