"""Plugin registry: Volcano plugin name -> implementation."""

from __future__ import annotations

from typing import Any

from capacity.plugins.binpack import BinpackPlugin
from capacity.plugins.capacity import CapacityPlugin
from capacity.plugins.capacity_card import CapacityCardPlugin
from capacity.plugins.conformance import ConformancePlugin
from capacity.plugins.drf import DrfPlugin
from capacity.plugins.gang import GangPlugin
from capacity.plugins.nodeorder import NodeOrderPlugin
from capacity.plugins.overcommit import OvercommitPlugin
from capacity.plugins.predicates import PredicatesPlugin
from capacity.plugins.priority import PriorityPlugin
from capacity.plugins.proportion import ProportionPlugin

REGISTRY: dict[str, type[Any]] = {
    p.name: p for p in (BinpackPlugin, CapacityPlugin, ConformancePlugin, DrfPlugin, GangPlugin, NodeOrderPlugin,
                        OvercommitPlugin, PredicatesPlugin, PriorityPlugin, ProportionPlugin, CapacityCardPlugin)
}
