"""Which form of each extension point a session holds (capacity.framework.extension_points): the reference
loops, or their accelerated forms, as the session's Acceleration allows."""

from __future__ import annotations

from typing import TYPE_CHECKING

from capacity.accel.allocate_fit import AcceleratedPlacement
from capacity.accel.victim_paths import AcceleratedVictims
from capacity.framework.extension_points import NodePlacement, ReferencePlacement, ReferenceVictims, VictimPaths

if TYPE_CHECKING:
    from capacity.framework.session import Session


def open_extension_points(ssn: Session) -> tuple[NodePlacement, VictimPaths]:
    """ssn.placement and ssn.victims, chosen once at session open (after SessionFast._open_fast)."""
    placement = AcceleratedPlacement(ssn) if ssn.vectorised else ReferencePlacement(ssn)
    victims = AcceleratedVictims(ssn) if ssn.accel.victim_bounds else ReferenceVictims(ssn)
    return placement, victims
