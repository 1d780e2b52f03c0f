"""The capacity plugin's victim bound (PossibleVictims, Session.add_fast): which reclaimees `reclaimable` could name,
from the queues' counters, for every candidate at once (capacity.accel; the rule: CapacityPlugin.reclaimable).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from capacity.core.model import Task
from capacity.core.resources import MIN_RESOURCE, ZERO, intersection
from capacity.plugins.capacity_attrs import (
    CapacityBase,
    _reclaimee_ancestor_to_check,
    _shares_ancestor,
)


def _never(t: Task) -> bool:
    return False


class CapacityVictimBounds(CapacityBase):
    """CapacityPlugin's bound on its `reclaimable` answers (capacity.accel)."""

    def reclaimable_possible(self, reclaimer: Task) -> tuple[Any, ...]:
        """The PossibleVictims bound on `reclaimable`: the checks above against the queues' counters
        as they are, before any victim of this call is taken off. Within a call the counters only go
        down, and every check that keeps a task fails the more for it (guarantee, deserved, ancestors),
        so a task kept here is kept by every call until the counters change."""
        ssn = self.ssn
        rjob = ssn.jobs.get(reclaimer.job)
        rattr = self.attrs.get(rjob.queue) if rjob is not None else None
        if not self.ready or rattr is None:
            return ("none",), _never
        level = self.ancestor_level if self.hierarchy else 0
        req = reclaimer.init_resreq
        names = frozenset(req.resource_names()) - {"pods"}
        contended = True
        if level > 0:
            contended = bool(intersection(reclaimer.resreq, rattr.deserved))
            key: Any = (names, rattr.name, contended)
        else:
            key = (names,)
        jobs = ssn.jobs
        facts = self._victim_facts()
        names_of = self._task_names  # (a task's requests never change)

        def test(t: Task) -> bool:
            job = jobs.get(t.job)
            f = facts(job.queue) if job is not None else None
            if f is None:
                return False
            attr, deserved_names, zero_guarantee, cpu_over, mem_over, over_scalars = f
            r = t.resreq
            tnames = names_of.get(t.uid)
            if tnames is None:
                tnames = names_of[t.uid] = frozenset(r.resource_names())
            if tnames.isdisjoint(names):  # IntersectionWithIgnoredScalarResources is empty
                return False
            a = attr.allocated
            if zero_guarantee:  # guarantee.LessEqual(allocated - r, Zero) with an all-zero guarantee
                if not (a.cpu - r.cpu > -MIN_RESOURCE and a.memory - r.memory > -MIN_RESOURCE):
                    return False
            elif not attr.guarantee.less_equal(a.clone().sub_without_assert(r), ZERO):
                return False
            if tnames.isdisjoint(deserved_names):  # immediate
                if level > 0 and not contended and _shares_ancestor(rattr, attr, level):
                    return False
            elif not ((cpu_over and r.cpu > 0) or (mem_over and r.memory > 0)
                      or (over_scalars and r.scalars
                          and any(q > 0 and k in over_scalars for k, q in r.scalars.items()))):
                return False  # GreaterPartlyWithRelevantDimensions(deserved, r) is false
            for d in range(1, level + 1):
                anc = _reclaimee_ancestor_to_check(rattr, attr, d)
                if anc is None or not intersection(r, anc.deserved):
                    continue
                if not anc.allocated.greater_partly_with_relevant_dimensions(anc.deserved, r)[0]:
                    return False
            return True

        if level > 0:
            return key, test
        return key, test, self._reclaimable_vector(names, test)

    def _reclaimable_vector(self, names: frozenset[str], test: Any) -> Any:
        """`reclaimable_possible`'s test (without ancestor levels) for many VictimTable rows at once: per
        row, its queue's facts (`_queue_facts`) against its request columns. Rows of a queue with a
        guarantee other than zero are asked one by one (`guarantee.LessEqual` reads every dimension)."""

        def vector(table: Any, rows: np.ndarray) -> np.ndarray:
            known, zero_guarantee, a_cpu, a_mem, deserved_has, over = self._queue_facts(table)
            dims = table.fit.dims
            asked = np.array([d in names for d in dims], dtype=bool)
            q = table.queue[rows]
            req = table.req[:, rows]
            has = req >= MIN_RESOURCE  # ResourceNames, per dimension
            out = (known[q] & (has & asked[:, None]).any(axis=0)  # shares a name with the reclaimer
                   & (a_cpu[q] - req[0] > -MIN_RESOURCE) & (a_mem[q] - req[1] > -MIN_RESOURCE)
                   & (~(has & deserved_has[:, q]).any(axis=0)  # immediate: none of its deserved names
                      | ((req > 0) & over[:, q]).any(axis=0)))  # or above deserved where it asks
            other = (known & ~zero_guarantee)[q]
            if other.any():
                tasks = table.tasks
                picked = rows[other]
                out[other] = [test(tasks[k]) for k in picked.tolist()]
            return out

        return vector

    def _queue_facts(self, table: Any) -> tuple[np.ndarray, ...]:
        """`_victim_facts` as arrays over a VictimTable's queue ids and dimensions (cached until the next
        allocate / deallocate event, or more queue ids; a table's dimensions never change): whether the
        queue has an attribute, whether its guarantee is all zero, its allocated cpu and memory, which
        dimensions its deserved names, and on which it is above its deserved."""
        key = (self.ssn.version, table, len(table.queue_ids))
        got = getattr(self, "_facts_arrays", None)
        if got is not None and got[0] == key:
            return got[1]
        facts = self._victim_facts()
        dims = table.fit.dims
        n = len(table.queue_ids)
        known = np.zeros(n, dtype=bool)
        zero_guarantee = np.zeros(n, dtype=bool)
        a_cpu = np.zeros(n)
        a_mem = np.zeros(n)
        deserved_has = np.zeros((len(dims), n), dtype=bool)
        over = np.zeros((len(dims), n), dtype=bool)
        for name, k in table.queue_ids.items():
            f = facts(name)
            if f is None:
                continue
            attr, deserved_names, zero, cpu_over, mem_over, over_scalars = f
            known[k] = True
            zero_guarantee[k] = zero
            a_cpu[k] = attr.allocated.cpu
            a_mem[k] = attr.allocated.memory
            deserved_has[:, k] = [d in deserved_names for d in dims]
            over[:, k] = [cpu_over, mem_over, *[d in over_scalars for d in dims[2:]]]
        arrays = (known, zero_guarantee, a_cpu, a_mem, deserved_has, over)
        self._facts_arrays = (key, arrays)
        return arrays

    def _victim_facts(self) -> Any:
        """Per queue, as of now (cached until the next allocate / deallocate event): the attribute, the
        names of its deserved, whether its guarantee is all zero, and where its allocation is above its
        deserved as GreaterPartlyWithRelevantDimensions reads it (cpu, memory, scalar names)."""
        version = self.ssn.version
        cache: tuple[int, dict[str, Any]] | None = getattr(self, "_facts_cache", None)
        if cache is None or cache[0] != version:
            cache = self._facts_cache = (version, {})  # type: ignore[var-annotated]
        table: dict[str, Any] = cache[1]
        attrs = self.attrs

        def facts(queue: str) -> Any:
            got = table.get(queue, False)
            if got is not False:
                return got
            attr = attrs.get(queue)
            if attr is None:
                table[queue] = None
                return None
            d, a, g = attr.deserved, attr.allocated, attr.guarantee
            ds = d.scalars
            over_scalars = frozenset(k for k, v in ds.items() if k != "pods" and (a.scalars or {}).get(k, 0.0) > v) \
                if ds else frozenset()
            got = table[queue] = (attr, frozenset(d.resource_names()), g.cpu == 0 and g.memory == 0 and not g.scalars,
                                  not d.cpu < MIN_RESOURCE and a.cpu > d.cpu,
                                  not d.memory < MIN_RESOURCE and a.memory > d.memory, over_scalars)
            return got

        return facts
