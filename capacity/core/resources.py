"""Volcano's resource vector and its comparison helpers, rule for rule.

Mirrors ``pkg/scheduler/api/resource_info.go`` and ``pkg/scheduler/api/helpers/helpers.go`` at Volcano
HEAD ed72c7c8 as described in shared/spec/queue-plugins.md section 1. Method names are the Go names in
snake_case so the two files can be read side by side. Quirks are kept on purpose (spec section 7):

* ``scalars is None`` is Go's nil map and differs from ``{}`` (``sub``, ``add``, the WithDimension
  family and ``min_dimension_resource`` all branch on it);
* ``MIN_RESOURCE`` (0.1) is both the "zero" threshold and the tolerance of the ε comparisons, while
  the WithDimension family compares strictly;
* ``pods`` is a plain count, ignored by some helpers and counted by others.

This module is the engine's hot path: plain ``__slots__`` attributes, no dataclass machinery, and all
arithmetic kept here so the representation can later be vectorised without touching the plugins.
"""

from __future__ import annotations

import sys
from collections.abc import Collection, Mapping
from typing import overload

from capacity.core.errors import InputError, ResourceUnderflow
from capacity.core.quantity import (
    INT64_MAX,
    UnitStyles,
    format_bytes,
    format_number,
    milli_value,
    parse_quantity,
    value,
)
from capacity.core.resource_names import is_scalar_resource_name
from capacity.core.resource_values import to_dict

__all__ = [
    "IGNORED_SCALAR_RESOURCES",
    "INFINITY",
    "MAX_FLOAT",
    "MIN_RESOURCE",
    "SCALAR_INFINITY",
    "ZERO",
    "Resource",
    "exceeded_part",
    "from_resource_list",
    "intersection",
    "intersection_with_ignored_scalar_resources",
    "is_count_quota",
    "is_scalar_resource_name",
    "res_max",
    "share",
    "to_dict",
]

MIN_RESOURCE = 0.1
"""``minResource``: values below it count as zero, and it is the tolerance of ``less_equal`` & co."""

ZERO = 0
"""``DimensionDefaultValue`` Zero: a scalar missing on one side reads as 0."""

INFINITY = -1
"""``DimensionDefaultValue`` Infinity: a scalar missing on one side reads as unlimited (Go fills -1)."""

MAX_FLOAT = sys.float_info.max
"""``math.MaxFloat64``, Volcano's "unlimited" cpu/memory. ``MAX_FLOAT - x == MAX_FLOAT`` as in Go."""

SCALAR_INFINITY = float(2**63 - 1)
"""The hierarchy's "unlimited" scalar value (spec 3.3); equals 2^63 as a float."""

IGNORED_SCALAR_RESOURCES = frozenset({"pods"})
"""Scalars skipped by IsEmpty, the WithDimension family and IntersectionWithIgnoredScalarResources."""

_PODS = "pods"


class Resource:
    """A Volcano ``Resource``: cpu in milli-cores, memory in bytes, scalars in their own units.

    ``scalars`` is ``None`` for Go's nil map and a dict otherwise (possibly empty); the two behave
    differently. ``max_task_num`` is only carried along (predicates use it, arithmetic does not).
    Methods that Go defines on ``*Resource`` and that modify it (``add``, ``sub``, ``multi``,
    ``min_dimension_resource``) work in place and return ``self``.
    """

    __slots__ = ("cpu", "memory", "scalars", "max_task_num")

    cpu: float
    memory: float
    scalars: dict[str, float] | None
    max_task_num: int

    def __init__(
        self,
        cpu: float = 0.0,
        memory: float = 0.0,
        scalars: Mapping[str, float] | None = None,
        max_task_num: int = 0,
    ) -> None:
        """Build from internal units; ``scalars`` is copied (None stays None, i.e. no map)."""
        self.cpu = float(cpu)
        self.memory = float(memory)
        self.scalars = None if scalars is None else {k: float(v) for k, v in scalars.items()}
        self.max_task_num = max_task_num

    # --- constructors ----------------------------------------------------------------------------

    @classmethod
    def empty(cls) -> Resource:
        """``EmptyResource()``: all zero, no scalar map (what ``cls()`` builds, without its conversions)."""
        r = cls.__new__(cls)
        r.cpu = 0.0
        r.memory = 0.0
        r.scalars = None
        r.max_task_num = 0
        return r

    @classmethod
    def infinite(cls) -> Resource:
        """``InfiniteResource()``: cpu and memory MaxFloat64, MaxTaskNum MaxInt, no scalar map."""
        r = cls(MAX_FLOAT, MAX_FLOAT)
        r.max_task_num = sys.maxsize
        return r

    def clone(self) -> Resource:
        """``Clone()``: deep copy; an absent map stays absent, an empty map is copied."""
        r = Resource.__new__(Resource)
        r.cpu = self.cpu
        r.memory = self.memory
        s = self.scalars
        r.scalars = None if s is None else s.copy()
        r.max_task_num = self.max_task_num
        return r

    # --- accessors -------------------------------------------------------------------------------

    def get(self, name: str) -> float:
        """``Get(name)``: the value of a dimension, 0 for an absent scalar."""
        if name == "cpu":
            return self.cpu
        if name == "memory":
            return self.memory
        s = self.scalars
        if s is None:
            return 0.0
        return s.get(name, 0.0)

    def add_scalar(self, name: str, quantity: float) -> None:
        """``AddScalar``: add to one scalar, creating the map (and the key) if needed."""
        s = self.scalars
        if s is None:
            self.scalars = {name: 0.0 + quantity}
        else:
            s[name] = s.get(name, 0.0) + quantity

    def set_scalar(self, name: str, quantity: float) -> None:
        """``SetScalar``: set one scalar, creating the map if needed."""
        if self.scalars is None:
            self.scalars = {}
        self.scalars[name] = quantity

    def resource_names(self) -> list[str]:
        """``ResourceNames()``: every dimension >= 0.1, pods included (cpu, memory, then scalars)."""
        names = []
        if self.cpu >= MIN_RESOURCE:
            names.append("cpu")
        if self.memory >= MIN_RESOURCE:
            names.append("memory")
        s = self.scalars
        if s:
            names.extend(k for k, v in s.items() if v >= MIN_RESOURCE)
        return names

    def is_empty(self) -> bool:
        """``IsEmpty()``: every dimension below 0.1, ignoring pods (so ``{pods: 5}`` is empty)."""
        if not (self.cpu < MIN_RESOURCE and self.memory < MIN_RESOURCE):
            return False
        s = self.scalars
        if s:
            for k, v in s.items():
                if v >= MIN_RESOURCE and k != _PODS:
                    return False
        return True

    # --- in-place arithmetic ---------------------------------------------------------------------

    def add(self, rr: Resource) -> Resource:
        """``Add(rr)``: element-wise sum; every key of rr (zeros included) appears in self."""
        self.cpu += rr.cpu
        self.memory += rr.memory
        rs = rr.scalars
        if rs:
            s = self.scalars
            if s is None:
                s = self.scalars = {}
            for k, v in rs.items():
                s[k] = s.get(k, 0.0) + v
        return self

    def sub(self, rr: Resource) -> Resource:
        """``Sub(rr)``: raise ``ResourceUnderflow`` where Volcano's assertion panics, else subtract.

        The check is ``rr.LessEqual(self, Zero)`` (ε tolerance, pods included). Without a scalar map
        on self, rr's scalars are silently dropped; otherwise every key of rr is subtracted (keys
        self lacked become negative).
        """
        if not rr.less_equal(self, ZERO):
            _, failed = rr.less_equal_with_resources_name(self, ZERO)
            raise ResourceUnderflow(self.clone(), rr.clone(), failed)
        return self.sub_without_assert(rr)

    def sub_without_assert(self, rr: Resource) -> Resource:
        """``SubWithoutAssert(rr)``: the same subtraction without the check (Go only logs), used by
        node accounting such as ``FutureIdle``; results may go negative."""
        self.cpu -= rr.cpu
        self.memory -= rr.memory
        s = self.scalars
        if s is None:
            return self
        rs = rr.scalars
        if rs:
            for k, v in rs.items():
                s[k] = s.get(k, 0.0) - v
        return self

    def multi(self, ratio: float) -> Resource:
        """``Multi(ratio)``: scale cpu, memory and every scalar in place."""
        self.cpu *= ratio
        self.memory *= ratio
        s = self.scalars
        if s:
            for k, v in s.items():
                s[k] = v * ratio
        return self

    def min_dimension_resource(self, rr: Resource, dv: int) -> Resource:
        """``MinDimensionResource(rr, dv)``: clamp self down to rr in place.

        Only keys of self are touched, never added. A key missing in rr (or rr without a map) keeps
        its value under INFINITY and becomes 0 under ZERO.
        """
        if rr.cpu < self.cpu:
            self.cpu = rr.cpu
        if rr.memory < self.memory:
            self.memory = rr.memory
        s = self.scalars
        if s is None:
            return self
        rs = rr.scalars
        if rs is None:
            if dv != INFINITY:
                for k in s:
                    s[k] = 0.0
            return self
        for k, v in s.items():
            if k in rs:
                rv = rs[k]
                s[k] = rv if rv < v else v
            elif dv != INFINITY:
                s[k] = 0.0
        return self

    # --- comparisons -----------------------------------------------------------------------------

    def less_equal(self, rr: Resource, dv: int) -> bool:
        """``LessEqual(rr, dv)``: self fits in rr on every dimension, with ε tolerance.

        Under INFINITY a key present only in rr makes the result false (self's side reads as +∞) and
        a key present only in self is skipped; under ZERO missing keys read as 0 on the right and
        rr-only keys are not examined. pods is compared like any scalar.
        """
        a = self.cpu
        b = rr.cpu
        if not (a < b or abs(a - b) < MIN_RESOURCE):
            return False
        a = self.memory
        b = rr.memory
        if not (a < b or abs(a - b) < MIN_RESOURCE):
            return False
        ls = self.scalars
        rs = rr.scalars
        if not ls and not rs:
            return True  # (most resources: no scalar map to walk)
        infinity = dv == INFINITY
        if infinity and rs and (not ls or not rs.keys() <= ls.keys()):
            return False  # a key only rr has: self's side reads +inf
        return _scalars_within(ls, rs, infinity, MIN_RESOURCE)

    def less_equal_with_resources_name(self, rr: Resource, dv: int) -> tuple[bool, list[str]]:
        """``LessEqualWithResourcesName(rr, dv)``: like ``less_equal`` without its INFINITY rr-only
        check (keys only in rr are never examined); returns the failing dimension names too."""
        failed: list[str] = []
        a = self.cpu
        b = rr.cpu
        if not (a < b or abs(a - b) < MIN_RESOURCE):
            failed.append("cpu")
        a = self.memory
        b = rr.memory
        if not (a < b or abs(a - b) < MIN_RESOURCE):
            failed.append("memory")
        if self.scalars:
            _scalars_within(self.scalars, rr.scalars, dv == INFINITY, MIN_RESOURCE, failed)
        return not failed, failed

    def less_equal_with_dimension_and_resources_name(
        self, rr: Resource | None, req: Resource | None
    ) -> tuple[bool, list[str]]:
        """``LessEqualWithDimensionAndResourcesName(rr, req)``: self within the limit rr on the
        dimensions req asks for (> 0), strictly (no ε), skipping pods; returns the failing names.

        rr None -> false with all of self's names; req None -> ``less_equal_with_resources_name``
        with ZERO. If self has no scalar map, scalars are not checked at all. A scalar missing from
        rr reads as a limit of 0.
        """
        if rr is None:
            return False, self.resource_names()
        if req is None:
            return self.less_equal_with_resources_name(rr, ZERO)
        failed: list[str] = []
        if req.cpu > 0 and self.cpu > rr.cpu:
            failed.append("cpu")
        if req.memory > 0 and self.memory > rr.memory:
            failed.append("memory")
        ls = self.scalars
        if ls is None:
            return not failed, failed
        qs = req.scalars
        if qs:
            rs = rr.scalars
            if rs is None:
                rs = {}
            for k, q in qs.items():
                if k == _PODS:
                    continue
                if q > 0 and ls.get(k, 0.0) > rs.get(k, 0.0):
                    failed.append(k)
        return not failed, failed

    def less(self, rr: Resource, dv: int) -> bool:
        """``Less(rr, dv)``: strictly smaller on every dimension (0 vs 0 is false).

        Under INFINITY rr-only keys fail and self-only keys are skipped; under ZERO a key missing in
        rr reads as 0 and rr-only keys are not examined.
        """
        if not self.cpu < rr.cpu:
            return False
        if not self.memory < rr.memory:
            return False
        ls = self.scalars
        rs = rr.scalars
        if not ls and not rs:
            return True  # (most resources: no scalar map to walk)
        infinity = dv == INFINITY
        if infinity and rs and (not ls or not rs.keys() <= ls.keys()):
            return False  # a key only rr has: self's side reads +inf
        return _scalars_within(ls, rs, infinity, 0.0)

    def less_partly(self, rr: Resource, dv: int) -> bool:
        """``LessPartly(rr, dv)``: strictly smaller on at least one dimension.

        Under ZERO a key of rr missing from self counts as smaller; under INFINITY a key of self
        missing from rr counts as smaller; otherwise missing right keys read as 0.
        """
        if self.cpu < rr.cpu or self.memory < rr.memory:
            return True
        ls = self.scalars
        rs = rr.scalars
        infinity = dv == INFINITY
        if dv == ZERO and rs:
            if not ls:
                return True
            for k in rs:
                if k not in ls:
                    return True
        if ls:
            if rs is None:
                rs = {}
            for k, a in ls.items():
                if k in rs:
                    if a < rs[k]:
                        return True
                elif infinity or a < 0.0:
                    return True
        return False

    def less_equal_partly_with_dimension(self, rr: Resource, req: Resource | None) -> tuple[bool, list[str]]:
        """``LessEqualPartlyWithDimension(rr, req)``: within rr (ε tolerance) on at least one
        requested dimension (pods skipped, missing keys read 0); returns the dimensions that are."""
        return _within_where_requested(self, rr, req, False)

    def less_equal_partly_with_dimension_zero_filtered(
        self, rr: Resource, req: Resource | None
    ) -> tuple[bool, list[str]]:
        """``LessEqualPartlyWithDimensionZeroFiltered(rr, req)``: as
        ``less_equal_partly_with_dimension``, but a requested dimension on which both self and rr are
        below 0.1 is dropped first; if nothing is left the answer is false."""
        return _within_where_requested(self, rr, req, True)

    def greater_partly(self, rr: Resource, dv: int) -> tuple[bool, list[str]]:
        """``GreaterPartly(rr, dv)``: the negation of ``less_equal_with_resources_name``, with the
        names on which self exceeds rr."""
        fits, failed = self.less_equal_with_resources_name(rr, dv)
        return not fits, failed

    def greater_partly_with_dimension(
        self, rr: Resource | None, req: Resource | None
    ) -> tuple[bool, list[str]]:
        """``GreaterPartlyWithDimension(rr, req)``: strictly above rr (no ε) on at least one
        requested dimension, pods skipped, missing keys read 0; rr None reads as empty."""
        over: list[str] = []
        if req is None:
            return False, over
        if rr is None:
            rr = _EMPTY
        if req.cpu > 0 and self.cpu > rr.cpu:
            over.append("cpu")
        if req.memory > 0 and self.memory > rr.memory:
            over.append("memory")
        qs = req.scalars
        if qs:
            ls = self.scalars or {}
            rs = rr.scalars or {}
            for k, q in qs.items():
                if k == _PODS:
                    continue
                if q > 0 and ls.get(k, 0.0) > rs.get(k, 0.0):
                    over.append(k)
        return bool(over), over

    def greater_partly_with_relevant_dimensions(
        self, rr: Resource | None, req: Resource | None
    ) -> tuple[bool, list[str]]:
        """``GreaterPartlyWithRelevantDimensions(rr, req)``: ``greater_partly_with_dimension`` on the
        requested dimensions that rr defines: cpu/memory only if rr's value is >= 0.1, a scalar only
        if it is a key of rr (even with value 0)."""
        over: list[str] = []
        if req is None:
            return False, over
        if rr is None:
            rr = _EMPTY
        if req.cpu > 0 and not rr.cpu < MIN_RESOURCE and self.cpu > rr.cpu:
            over.append("cpu")
        if req.memory > 0 and not rr.memory < MIN_RESOURCE and self.memory > rr.memory:
            over.append("memory")
        qs = req.scalars
        rs = rr.scalars
        if qs and rs:
            ls = self.scalars or {}
            for k, q in qs.items():
                if k == _PODS or k not in rs:
                    continue
                if q > 0 and ls.get(k, 0.0) > rs[k]:
                    over.append(k)
        return bool(over), over

    def equal(self, rr: Resource, dv: int) -> bool:
        """``Equal(rr, dv)``: cpu, memory and self's scalars within ε of rr (missing = 0).

        ``dv`` is accepted for symmetry with Go and unused; keys only in rr are ignored.
        """
        a = self.cpu
        b = rr.cpu
        if not (a == b or abs(a - b) < MIN_RESOURCE):
            return False
        a = self.memory
        b = rr.memory
        if not (a == b or abs(a - b) < MIN_RESOURCE):
            return False
        ls = self.scalars
        if ls:
            rs = rr.scalars or {}
            for k, a in ls.items():
                b = rs.get(k, 0.0)
                if not (a == b or abs(a - b) < MIN_RESOURCE):
                    return False
        return True

    def diff(self, rr: Resource, dv: int) -> tuple[Resource, Resource]:
        """``Diff(rr, dv)``: (increased, decreased) parts going from rr to self.

        Missing scalar keys are first filled with ``float(dv)`` on either side. Both results always
        have a scalar map. A scalar value of exactly -1 is taken as "infinite": on the left it is
        copied to increased, on the right to decreased. Equal values put a 0 into decreased.
        """
        increased = Resource()
        decreased = Resource()
        if self.cpu > rr.cpu:
            increased.cpu = self.cpu - rr.cpu
        else:
            decreased.cpu = rr.cpu - self.cpu
        if self.memory > rr.memory:
            increased.memory = self.memory - rr.memory
        else:
            decreased.memory = rr.memory - self.memory
        inc: dict[str, float] = {}
        dec: dict[str, float] = {}
        increased.scalars = inc
        decreased.scalars = dec
        ls = self.scalars or {}
        rs = rr.scalars or {}
        fill = float(dv)
        for k, a in ls.items():
            _diff_scalar(k, a, rs.get(k, fill), inc, dec)
        for k, b in rs.items():
            if k not in ls:
                _diff_scalar(k, fill, b, inc, dec)
        return increased, decreased

    # --- rendering -------------------------------------------------------------------------------

    def describe(self) -> str:
        """Internal values for humans: ``"cpu 2000m, memory 4Gi, nvidia.com/gpu 1000"``.

        cpu keeps its milli unit, memory gets the largest exact byte suffix, scalars are shown raw
        (milli-units, pods a count) and sorted by name like Go's ``String()``.
        """
        cpu = format_number(self.cpu)
        parts = [f"cpu {cpu}" if "∞" in cpu else f"cpu {cpu}m", f"memory {format_bytes(self.memory)}"]
        s = self.scalars
        if s:
            parts.extend(f"{k} {format_number(s[k])}" for k in sorted(s))
        return ", ".join(parts)

    def __repr__(self) -> str:
        nil = ", no scalar map" if self.scalars is None else ""
        return f"Resource({self.describe()}{nil})"

    def __str__(self) -> str:
        return self.describe()


_EMPTY = Resource()
"""Read-only stand-in for a nil ``rr`` in the Greater* helpers; never returned or mutated."""


def _scalars_within(ls: dict[str, float] | None, rs: dict[str, float] | None, infinity: bool, tolerance: float,
                    failed: list[str] | None = None) -> bool:
    """The scalar loop of ``LessEqual``, ``LessEqualWithResourcesName`` (tolerance ``MIN_RESOURCE``) and
    ``Less`` (tolerance 0: strict), after their rr-only check (``resource_info.go:L403-563 @ed72c7c8``).

    A key of ls missing in rs is skipped under INFINITY and reads 0 under ZERO; keys only in rs are not
    examined. Without `failed` the answer stops at the first scalar out of bounds; with it, every such
    name is appended there.
    """
    if not ls:
        return True
    if rs is None:
        rs = {}
    for k, a in ls.items():
        if k in rs:
            b = rs[k]
        elif infinity:
            continue
        else:
            b = 0.0
        if not (a < b or abs(a - b) < tolerance):
            if failed is None:
                return False
            failed.append(k)
    return True


def _within_where_requested(r: Resource, rr: Resource, req: Resource | None,
                            zero_filtered: bool) -> tuple[bool, list[str]]:
    """``LessEqualPartlyWithDimension`` and its ``ZeroFiltered`` form: the dimensions req asks for (> 0,
    pods skipped, missing keys read 0) on which r is within rr (ε tolerance); ``zero_filtered`` drops a
    dimension on which both sides are below 0.1 (``resource_info.go:L636-711 @ed72c7c8``)."""
    ok: list[str] = []
    if req is None:
        return False, ok
    if req.cpu > 0:
        a = r.cpu
        b = rr.cpu
        if not (zero_filtered and a < MIN_RESOURCE and b < MIN_RESOURCE) and (a < b or abs(a - b) < MIN_RESOURCE):
            ok.append("cpu")
    if req.memory > 0:
        a = r.memory
        b = rr.memory
        if not (zero_filtered and a < MIN_RESOURCE and b < MIN_RESOURCE) and (a < b or abs(a - b) < MIN_RESOURCE):
            ok.append("memory")
    qs = req.scalars
    if qs:
        ls = r.scalars or {}
        rs = rr.scalars or {}
        for k, q in qs.items():
            if k == _PODS or not q > 0:
                continue
            a = ls.get(k, 0.0)
            b = rs.get(k, 0.0)
            if not (zero_filtered and a < MIN_RESOURCE and b < MIN_RESOURCE) and (a < b or abs(a - b) < MIN_RESOURCE):
                ok.append(k)
    return bool(ok), ok


def _diff_scalar(k: str, a: float, b: float, inc: dict[str, float], dec: dict[str, float]) -> None:
    if a == -1.0:
        inc[k] = a
    elif b == -1.0:
        dec[k] = b
    elif a > b:
        inc[k] = a - b
    else:
        dec[k] = b - a


# --- free helpers ------------------------------------------------------------------------------------


@overload
def exceeded_part(left: Resource, right: Resource | None) -> Resource: ...
@overload
def exceeded_part(left: None, right: Resource) -> Resource: ...
@overload
def exceeded_part(left: None, right: None) -> None: ...


def exceeded_part(left: Resource | None, right: Resource | None) -> Resource | None:
    """``ExceededPart(left, right)``: per dimension the part of left above right.

    right None -> left *itself* (not a copy, as in Go); left None -> empty. Otherwise
    ``left.diff(right, ZERO)[0]``: cpu/memory floored at 0, a scalar only where left is strictly
    larger; the map is always present.
    """
    if right is None:
        return left
    if left is None:
        return Resource()
    return left.diff(right, ZERO)[0]


def res_max(l: Resource, r: Resource) -> Resource:  # noqa: E741 - Go's parameter names
    """``helpers.Max(l, r)``: a new resource with the larger value per dimension.

    No map if neither side has one; otherwise the non-negative scalars of both sides (negative ones
    are dropped, zeros kept since Volcano PR #4347).
    """
    res = Resource(l.cpu if l.cpu >= r.cpu else r.cpu, l.memory if l.memory >= r.memory else r.memory)
    ls = l.scalars
    rs = r.scalars
    if ls is None and rs is None:
        return res
    out: dict[str, float] = {}
    if ls:
        for k, v in ls.items():
            if v >= 0:
                out[k] = v
    if rs:
        for k, v in rs.items():
            if v >= 0:
                cur = out.get(k, 0.0)
                out[k] = v if v >= cur else cur
    res.scalars = out
    return res


def share(l: float, r: float) -> float:  # noqa: E741 - Go's parameter names
    """``helpers.Share(l, r)``: l / r, except r == 0 gives 0 (l == 0) or 1."""
    if r == 0:
        return 0.0 if l == 0 else 1.0
    return l / r


def intersection(a: Resource, b: Resource) -> list[str]:
    """``Intersection(a, b)``: names in both ``resource_names()`` (so >= 0.1, pods included), in b's order."""
    names = set(a.resource_names())
    return [n for n in b.resource_names() if n in names]


def intersection_with_ignored_scalar_resources(a: Resource, b: Resource) -> list[str]:
    """``IntersectionWithIgnoredScalarResources(a, b)``: ``intersection`` without pods."""
    return [n for n in intersection(a, b) if n not in IGNORED_SCALAR_RESOURCES]


# --- NewResource -----------------------------------------------------------------------------------


def is_count_quota(name: str) -> bool:
    """``IsCountQuota``: ``count/<resource>`` object-count quota names, which Volcano skips."""
    return name.startswith("count/")


def from_resource_list(
    mapping: Mapping[str, object] | None,
    *,
    obj: str = "",
    field: str = "",
    skipped: list[str] | None = None,
    ignored_devices: Collection[str] = (),
    styles: UnitStyles | None = None,
) -> Resource:
    """``NewResource(ResourceList)`` (spec 1.2), with input errors naming object and field.

    cpu -> milli-cores, memory -> bytes (``Value()``), pods -> MaxTaskNum and scalar count,
    ephemeral-storage and other scalar names -> milli-units. Names Volcano drops (``count/*``,
    non-scalar names such as ``requests.cpu``, ``ignored_devices``) are appended to ``skipped`` so
    the caller can warn. Negative or unparsable quantities raise ``InputError``. `styles` notes how each
    quantity was written (for showing numbers in the input's units).
    """
    r = Resource()
    if mapping is None:
        return r
    if not isinstance(mapping, Mapping):
        raise InputError(obj, field, f"expected a mapping of resource name to quantity, got {mapping!r}")
    for name, raw in mapping.items():
        if not isinstance(name, str) or not name:
            raise InputError(obj, field, f"resource names must be non-empty strings, got {name!r}")
        where = f"{field}.{name}" if field else name
        q = parse_quantity(raw, obj=obj, field=where)
        if styles is not None:
            styles.note(name, raw)
        if q < 0:
            raise InputError(obj, where, f"must not be negative, got {raw!r}")
        if name == "cpu":
            r.cpu += float(_int64(milli_value(q), raw, obj, where))
        elif name == "memory":
            r.memory += float(_int64(value(q), raw, obj, where))
        elif name == _PODS:
            count = _int64(value(q), raw, obj, where)
            r.max_task_num += count
            r.add_scalar(name, float(count))
        elif name == "ephemeral-storage":
            r.add_scalar(name, float(_int64(milli_value(q), raw, obj, where)))
        elif is_count_quota(name) or not is_scalar_resource_name(name) or name in ignored_devices:
            if skipped is not None:
                skipped.append(name)
        else:
            r.add_scalar(name, float(_int64(milli_value(q), raw, obj, where)))
    return r


def _int64(v: int, raw: object, obj: str, field: str) -> int:
    """Go keeps Value()/MilliValue() in an int64; beyond that its result is garbage, so refuse."""
    if v > INT64_MAX:
        raise InputError(obj, field, f"quantity {raw!r} is too large: it overflows a 64-bit integer")
    return v
