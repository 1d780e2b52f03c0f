"""The capacity plugin's session open, accelerated: the queue tree an earlier session built on the same specs
and total, taken from the SnapshotCache, and leaves summed in bulk where every sum is exact.

The reference is CapacityTree._accumulate_stepwise (capacity.go's job-by-job build);
tests/unit/test_capacity_open_fast.py and tests/unit/test_engines_agree.py hold both to the same numbers.
"""

from __future__ import annotations

from operator import is_, itemgetter
from typing import Any

from capacity.core.model import Job, QueueSpec
from capacity.core.resources import Resource
from capacity.framework.session import Session
from capacity.plugins.capacity_attrs import CapacityBase, FixedNumbers, QueueAttr, accumulate_job, update_share
from capacity.plugins.capacity_attrs import accumulated_parts as _parts


class FixedTree:
    """What `_build_hierarchical` derives from the queue specs, the cluster total and the options alone,
    kept in the session's SnapshotCache for the next session on the same queues: per queue its parent
    chain and FixedNumbers, and the notes `_check_hierarchical` wrote.

    It also keeps the last session's linked attributes once that session is released (`attrs`), with the
    queues whose job numbers it had (`busy`: the queues of its jobs and their ancestors, the only ones a
    session changes). The next session on the same specs starts from them: it resets the busy queues and
    its own jobs' queues to nothing allocated, and leaves the others, still empty, as they are."""

    __slots__ = ("key", "chains", "numbers", "notes", "attrs", "specs", "busy", "order_pairs", "closed", "leaves",
                 "leaves_of", "parents", "ancestor_parts")

    def __init__(self, key: tuple[Any, ...], chains: dict[str, list[str]], numbers: dict[str, FixedNumbers],
                 notes: list[str]) -> None:
        self.key = key
        self.chains = chains  # per queue in name order (the attributes' order): its ancestors' names
        self.numbers = numbers
        self.notes = notes
        self.attrs: dict[str, QueueAttr] | None = None  # a released session's attributes, else None
        self.specs: list[QueueSpec] = []  # the QueueSpec objects those attributes were made for
        self.busy: set[str] = set()
        self.order_pairs: dict[tuple[str, str], Any] = {}  # queue_order's pairs over those attributes
        # The last session's attributes and the queue numbers it reported at close (CycleResult.queues).
        self.closed: tuple[dict[str, QueueAttr], dict[str, Any]] | None = None
        # The leaves as the last exact build made them, for the next build to take (_accumulate_exact), and
        # the session jobs they were made of (Session.jobs, the dict itself).
        self.leaves: dict[str, LeafRecord] | None = None
        self.leaves_of: dict[str, Job] | None = None
        # With those leaves, when `_accumulate_carried` made them: per ancestor its allocated, request, inqueue
        # and elastic then (copies, never changed).
        self.ancestor_parts: dict[str, tuple[Resource, ...]] | None = None
        self.parents = {names[-1] for names in chains.values() if names}  # the queues with children


class LeafRecord:
    """A leaf queue as `_accumulate_exact` built it: its jobs in session order, its allocated, request,
    inqueue and elastic then (copies, never changed), and at which of its jobs which new scalar keys of
    which field reached its ancestors (job position -> [(field, keys)])."""

    __slots__ = ("jobs", "parts", "events", "facts")

    def __init__(self, jobs: list[Job], attr: QueueAttr, events: dict[int, list[tuple[int, list[str]]]]) -> None:
        self.jobs = jobs
        self.parts = _parts(attr)
        self.events = events
        self.facts: tuple[bool, float, float, float] | None = None  # _leaf_facts of `jobs`, once asked

    def with_jobs(self, jobs: list[Job]) -> LeafRecord:
        """The same record for other jobs that add the same values (built from the same inputs)."""
        rec = LeafRecord.__new__(LeafRecord)
        rec.jobs, rec.parts, rec.events, rec.facts = jobs, self.parts, self.events, self.facts
        return rec


def _set_parts(attr: QueueAttr, parts: tuple[Resource, ...]) -> None:
    """`attr`'s accumulated numbers set to copies of `parts` (`_parts`)."""
    attr.allocated, attr.request, attr.inqueue, attr.elastic = (r.clone() for r in parts)


def _leaf_facts(jobs: Any) -> tuple[bool, float, float, float]:
    """`_job_accum_facts` summed over jobs (a leaf's; integral only if every job is)."""
    return _sum_facts(map(_job_accum_facts, jobs))


def _sum_facts(facts: Any) -> tuple[bool, float, float, float]:
    """Facts (integral, cpu, memory, scalars: `_job_accum_facts`) summed: integral only if all are."""
    cpu = mem = scalars = 0.0
    for integral, c, m, sc in facts:
        if not integral:
            return _NOT_INTEGRAL
        cpu += c
        mem += m
        scalars += sc
    return True, cpu, mem, scalars


def _fresh_keys(attr: QueueAttr, seen: list[int]) -> list[tuple[int, list[str]]]:
    """The scalar keys a leaf's allocated, request, inqueue and elastic (fields 0-3) gained since their key
    counts were `seen` (updated): (field, new keys in order) per field that gained any."""
    out = []
    for fi, r in enumerate((attr.allocated, attr.request, attr.inqueue, attr.elastic)):
        sc = r.scalars
        if sc and len(sc) != seen[fi]:
            out.append((fi, list(sc)[seen[fi]:]))
            seen[fi] = len(sc)
    return out


def _carried_leaves(ssn: Session, fixed: FixedTree) -> dict[str, list[Job]] | None:
    """Each leaf's jobs in session order, worked out from the last build's leaves (FixedTree.leaves) without
    a pass over every job, when those were made of the last session's very jobs and this session's jobs have
    the same uids (Session.last_jobs): every job is the last one's but those built anew, so only the leaves
    a job built anew is in, or was in, differ (their jobs listed again, in uid order, the session's order).
    Where those are the same uids as in the leaf's record, and each job built anew was built alike
    (Session.rebuilt_alike: from the inputs of the job it replaces, at whose state the record was made),
    the record stands for them too: it is taken over with the new jobs (in `prev`).
    None when that does not hold, when such a leaf is not a leaf any more or is no queue, or when the
    exact accumulation does not apply (`_accumulation_exact`): the build then takes the whole path."""
    prev, last = fixed.leaves, ssn.last_jobs
    if prev is None or last is None or fixed.leaves_of is not last:
        return None
    fresh = ssn.fresh_jobs
    touched = {job.queue for job in fresh} | {last[job.uid].queue for job in fresh}
    members = {name: {j.uid for j in prev[name].jobs} if name in prev else set() for name in touched}
    for job in fresh:
        members[last[job.uid].queue].discard(job.uid)
        members[job.queue].add(job.uid)
    out = {name: rec.jobs for name, rec in prev.items() if name not in touched}
    jobs = ssn.jobs
    alike = ssn.rebuilt_alike
    for name, uids in members.items():
        if uids:
            if name not in fixed.chains or name in fixed.parents:
                return None
            leaf_jobs = out[name] = [jobs[uid] for uid in sorted(uids)]
            rec = prev.get(name)
            if rec is not None and len(rec.jobs) == len(leaf_jobs) and all(
                    a is b or (a.uid == b.uid and a.uid in alike) for a, b in zip(leaf_jobs, rec.jobs, strict=True)):
                prev[name] = rec.with_jobs(leaf_jobs)  # (its jobs built alike: the same numbers)

    def facts(name: str, leaf_jobs: list[Job]) -> tuple[bool, float, float, float]:
        rec = prev.get(name)
        if rec is None or rec.jobs is not leaf_jobs:
            return _leaf_facts(leaf_jobs)
        if rec.facts is None:
            rec.facts = _leaf_facts(leaf_jobs)
        return rec.facts

    # (Summed leaf by leaf: with integers the order cannot move the total across 2**52, _accumulation_exact.)
    return out if _exact(_sum_facts(facts(name, leaf_jobs) for name, leaf_jobs in out.items())) else None


def _busy_queues(names: Any, chains: dict[str, list[str]]) -> set[str]:
    """The queues a session's numbers can move: its jobs' queues (`names`) and their ancestors."""
    busy: set[str] = set()
    for name in names:
        names = chains.get(name)
        if names is not None:
            busy.add(name)
            busy.update(names)
    return busy


def _accumulation_exact(jobs: Any) -> bool:
    """Whether building the queue tree adds only integers whose sums stay exact: every request and
    minResources value an integer, and per dimension (cpu, memory, the scalars together) the sum of
    their magnitudes below 2**52. Every value the build adds or subtracts (allocated, request,
    inqueue, elastic, and the partial sums of each in leaves and ancestors) is then an integer no larger
    than that sum, so no operation rounds and the order of the additions cannot change a sum.

    Summed job by job (`_job_accum_facts`): with every value an integer the order of the additions cannot
    move the total across 2**52 (partial sums below 2**53 are exact, and adding magnitudes never lowers a
    rounded sum), so the answer is that of one sum over all the values."""
    return _exact(_leaf_facts(jobs))


def _exact(facts: tuple[bool, float, float, float]) -> bool:
    """`_accumulation_exact` from summed facts (`_leaf_facts`)."""
    integral, cpu, mem, scalars = facts
    return integral and cpu < 2**52 and mem < 2**52 and scalars < 2**52


def _job_accum_facts(job: Job) -> tuple[bool, float, float, float]:
    """Whether every cpu, memory and scalar value of a job's requests and minResources is an integer, and
    the sums of their magnitudes per dimension; kept on the job (Job.accum_facts) while no task is added."""
    got = job.accum_facts
    if got is None:
        got = job.accum_facts = _accum_facts(job)
    return got


_NOT_INTEGRAL = (False, 0.0, 0.0, 0.0)


def _accum_facts(job: Job) -> tuple[bool, float, float, float]:
    """(x % 1 is NaN for an infinite or NaN x, so neither is an integer.)"""
    cpu = mem = scalars = 0.0
    reqs = [t.resreq for t in job.tasks.values()]
    if job.min_resources is not None:
        reqs.append(job.min_resources)
    for r in reqs:
        c, m = r.cpu, r.memory
        if not (c % 1 == 0 and m % 1 == 0):
            return _NOT_INTEGRAL
        cpu += abs(c)
        mem += abs(m)
        sc = r.scalars
        if sc:
            for v in sc.values():
                if v % 1 != 0:  # (NaN too)
                    return _NOT_INTEGRAL
                scalars += abs(v)
    return True, cpu, mem, scalars


class CapacityOpenReuse(CapacityBase):
    """The accelerated tree builds of CapacityPlugin (capacity.accel; the reference: _accumulate_stepwise)."""


    def _build_from_kept(self) -> bool:
        """CapacityTree._build_from_kept: the tree an earlier session built on the same specs and total, if a
        SnapshotCache kept it (ssn.tree_reuse), its fixed numbers taken as they are and only the leaves whose
        jobs changed accumulated again. False (build from nothing) when none is kept or the build stalls."""
        ssn = self.ssn
        key, fixed = ssn.tree_reuse.kept_tree(self.name, ssn, self.total)
        self._tree_key = key
        if fixed is None:
            return False
        queues = ssn.queues
        kept = fixed.attrs
        fixed.attrs = None  # in use: a session that is never released leaves nothing to reuse
        self._closed = fixed.closed  # what the last session reported at close, if it did
        fixed.closed = None
        carried = _carried_leaves(ssn, fixed)
        busy = _busy_queues({job.queue for job in ssn.jobs.values()} if carried is None else carried, fixed.chains)
        if kept is not None and len(fixed.specs) == len(queues) and all(map(is_, queues.values(), fixed.specs)):
            attrs = self.attrs = kept
            for name in busy | fixed.busy:
                attrs[name].reset()
            self._order_pairs = fixed.order_pairs  # what they hold depends on the tree alone
        else:
            attrs = self.attrs
            numbers = fixed.numbers
            for name in fixed.chains:
                attrs[name] = QueueAttr.from_fixed(queues[name], numbers[name])
            for name, names in fixed.chains.items():
                if names:
                    chain = [attrs[a] for a in names]
                    attrs[name].ancestors = chain
                    chain[-1].children[name] = attrs[name]
        prev, ancestor_parts = fixed.leaves, fixed.ancestor_parts
        fixed.leaves = fixed.leaves_of = fixed.ancestor_parts = None
        notes_at = len(ssn.notes)
        if carried is not None:
            stalled = self._accumulate_carried(prev or {}, carried, ancestor_parts)
        else:
            stalled = self._accumulate_exact(prev) if _accumulation_exact(ssn.jobs.values()) else \
                self._accumulate_stepwise()
        if not stalled:
            fixed.leaves = getattr(self, "_leaves", None)
            fixed.leaves_of = ssn.jobs
            fixed.ancestor_parts = getattr(self, "_ancestor_parts", None)
            self._keep = (fixed, list(queues.values()), busy)  # handed to `fixed` at release
            ssn.notes.extend(fixed.notes)
            for name in busy:  # the others have nothing allocated: their share is FixedNumbers.idle_share
                update_share(attrs[name], self.best_effort_share)
            return True
        # Stalled (a job in a queue with children): a build without the kept tree stops there too, before
        # the root's and the checked numbers the kept tree starts from. Build so, for the same numbers
        # (it finds and notes the stall again).
        del ssn.notes[notes_at:]
        self.attrs = {}
        self._order_pairs = {}
        return False

    def _accumulate(self) -> bool:
        """CapacityTree._accumulate leaf by leaf where every sum is exact (Acceleration.exact_sums)."""
        ssn = self.ssn
        self._exact_build = exact = ssn.accel.exact_sums and _accumulation_exact(ssn.jobs.values())
        return self._accumulate_exact() if exact else self._accumulate_stepwise()

    def _keep_tree(self, notes_before: int) -> None:
        """CapacityTree._keep_tree: the tree's fixed parts (chains, FixedNumbers, the notes of its checks) and,
        after an exact build, its leaves, for a later session on the same specs and total (ssn.tree_reuse)."""
        ssn = self.ssn
        exact = self._exact_build

        def fixed_tree(key: Any) -> FixedTree:
            tree = FixedTree(
                key, {name: [a.name for a in attr.ancestors] for name, attr in self.attrs.items()},
                {name: FixedNumbers(attr, self.best_effort_share) for name, attr in self.attrs.items()},
                ssn.notes[notes_before:])
            tree.leaves = self._leaves if exact else None
            tree.leaves_of = ssn.jobs
            return tree

        ssn.tree_reuse.keep_tree(self.name, self._tree_key, fixed_tree)

    def _accumulate_exact(self, prev: dict[str, LeafRecord] | None = None) -> bool:
        """`_accumulate_stepwise` when every value it adds is an integer and every sum stays exact
        (`_accumulation_exact`): the leaves accumulate job by job as there, and each ancestor ends as the
        plain sum of its leaves, which is what the job-by-job deltas add up to when no addition rounds.
        The scalar keys of each ancestor take the order in which the deltas would have brought them
        (tests/unit/test_capacity_open_fast.py checks both against `_accumulate_stepwise`).

        `prev`: the last session's leaves as they were built (LeafRecord). A leaf holding the very same
        jobs in the same order takes their numbers from there instead of adding the jobs again: a job a
        SnapshotCache hands over is one no task of which moved, in the phase it was built with, so it adds
        the same values. Its scalar keys reach the ancestors at the same jobs as when it was recorded.
        Leaves the next session may take so are left in `self._leaves`."""
        attrs = self.attrs
        jobs = self.ssn.jobs.values()
        whole_inqueue = self.ssn.options.older("pr5130")  # (FixedTree's key holds the switches: no mixing)
        by_leaf: dict[str, list[Job]] = {}
        for job in jobs:
            got = by_leaf.get(job.queue)
            if got is None:
                by_leaf[job.queue] = [job]
            else:
                got.append(job)
        reused: dict[str, LeafRecord] = {}
        if prev:
            for name, now in by_leaf.items():
                rec = prev.get(name)
                attr = attrs.get(name)
                if rec is not None and attr is not None and not attr.children and len(rec.jobs) == len(now) \
                        and all(map(is_, now, rec.jobs)):
                    reused[name] = rec
                    _set_parts(attr, rec.parts)
        visited: dict[str, list[int]] = {}  # leaf -> scalar keys already passed up, per field
        orders: dict[str, tuple[dict[str, None], ...]] = {}  # ancestor -> its scalar keys, per field
        count: dict[str, int] = {}  # leaf -> its jobs so far
        events: dict[str, dict[int, list[tuple[int, list[str]]]]] = {}  # leaf -> at its k-th job, new keys
        stalled = False
        for job in jobs:
            attr = attrs.get(job.queue)
            if attr is None:
                continue
            if attr.children:
                self._stall(f"job {job.uid} is in queue {attr.name}, which has child queues "
                            "(jobs must be in leaf queues)", f"PodGroup/{job.uid}", "spec.queue")
                stalled = True
                break
            name = attr.name
            k = count.get(name, 0)
            count[name] = k + 1
            rec = reused.get(name)
            if rec is None:
                accumulate_job(attr, job, whole_inqueue)
            ancestors = attr.ancestors
            if not ancestors:
                continue
            seen = visited.get(name)
            if seen is None:
                seen = visited[name] = [0, 0, 0, 0]
                for anc in ancestors:
                    if anc.name not in orders:
                        orders[anc.name] = ({}, {}, {}, {})
            if rec is not None:
                for fi, fresh in rec.events.get(k, ()):
                    for anc in ancestors:
                        order = orders[anc.name][fi]
                        for key in fresh:
                            order.setdefault(key)
                continue
            new_keys = _fresh_keys(attr, seen)
            if new_keys:
                events.setdefault(name, {})[k] = new_keys
                for fi, fresh in new_keys:
                    for anc in ancestors:
                        order = orders[anc.name][fi]
                        for key in fresh:
                            order.setdefault(key)
        self._leaves = None if stalled else {
            name: reused.get(name) or LeafRecord(by_leaf[name], attrs[name], events.get(name, {})) for name in count}
        self._sum_ancestors(visited, orders)
        return stalled

    def _accumulate_carried(self, prev: dict[str, LeafRecord], by_leaf: dict[str, list[Job]],
                            ancestor_parts: dict[str, tuple[Resource, ...]] | None = None) -> bool:
        """`_accumulate_exact` over leaves whose jobs `_carried_leaves` worked out: leaf by leaf, a leaf with
        the very jobs of its last record taking its numbers from there, the others accumulating their jobs;
        then the ancestors' scalar keys in the order the job-by-job build brings them (the order of the
        jobs, which is their uids': Session._snapshot), and their sums. When every leaf of the last build
        took its record, the ancestors are those the last build made of the same numbers (`ancestor_parts`,
        if it recorded them): taken from there. The ancestors are left in `self._ancestor_parts`."""
        attrs = self.attrs
        whole_inqueue = self.ssn.options.older("pr5130")
        leaves: dict[str, LeafRecord] = {}
        every = len(by_leaf) == len(prev)  # (and each leaf takes its record: the same leaves, the same numbers)
        ranked: list[tuple[str, str, list[tuple[int, list[str]]]]] = []  # (job uid, leaf, new keys at that job)
        for name, jobs in by_leaf.items():
            attr = attrs[name]
            rec = prev.get(name)
            if rec is not None and rec.jobs is jobs:  # (`_carried_leaves` made it so where the jobs are alike)
                _set_parts(attr, rec.parts)
            else:
                every = False
                seen = [0, 0, 0, 0]
                events: dict[int, list[tuple[int, list[str]]]] = {}
                for k, job in enumerate(jobs):
                    accumulate_job(attr, job, whole_inqueue)
                    if attr.ancestors:
                        got = _fresh_keys(attr, seen)
                        if got:
                            events[k] = got
                rec = LeafRecord(jobs, attr, events)
            leaves[name] = rec
            if attr.ancestors:
                ranked.extend((jobs[k].uid, name, got) for k, got in rec.events.items())
        self._leaves = leaves
        if every and ancestor_parts is not None:
            for name, parts in ancestor_parts.items():
                _set_parts(attrs[name], parts)
            self._ancestor_parts = ancestor_parts
            return False
        ranked.sort(key=itemgetter(0))
        visited = [name for name in leaves if attrs[name].ancestors]
        orders: dict[str, tuple[dict[str, None], ...]] = {}
        for name in visited:
            for anc in attrs[name].ancestors:
                if anc.name not in orders:
                    orders[anc.name] = ({}, {}, {}, {})
        for _uid, name, got in ranked:
            ancestors = attrs[name].ancestors
            for fi, fresh in got:
                for anc in ancestors:
                    order = orders[anc.name][fi]
                    for key in fresh:
                        order.setdefault(key)
        self._sum_ancestors(visited, orders)
        self._ancestor_parts = {name: _parts(attrs[name]) for name in orders}
        return False  # (`_carried_leaves` found every job in a leaf)

    def _sum_ancestors(self, leaves: Any, orders: dict[str, tuple[dict[str, None], ...]]) -> None:
        """Each ancestor of `leaves` (leaf names) as the plain sum of their allocated, request, inqueue and
        elastic (exact: `_accumulation_exact`), its scalar keys in `orders`' order."""
        attrs = self.attrs
        # Per ancestor and field: cpu, memory and the scalar sums, added leaf by leaf in `leaves` order.
        sums: dict[str, tuple[list[float], list[float], list[dict[str, float]]]] = {}
        for name in leaves:
            leaf = attrs[name]
            parts = (leaf.allocated, leaf.request, leaf.inqueue, leaf.elastic)
            for anc in leaf.ancestors:
                acc = sums.get(anc.name)
                if acc is None:
                    acc = sums[anc.name] = ([0.0, 0.0, 0.0, 0.0], [0.0, 0.0, 0.0, 0.0], [{}, {}, {}, {}])
                cpu, mem, scalars = acc
                for fi, r in enumerate(parts):
                    cpu[fi] += r.cpu
                    mem[fi] += r.memory
                    sc = r.scalars
                    if sc:
                        into = scalars[fi]
                        for k, v in sc.items():
                            into[k] = into.get(k, 0.0) + v
        for anc_name, (cpu, mem, scalars) in sums.items():
            anc = attrs[anc_name]
            for fi, target in enumerate((anc.allocated, anc.request, anc.inqueue, anc.elastic)):
                target.cpu = cpu[fi]
                target.memory = mem[fi]
                order = orders[anc_name][fi]
                if order:
                    got = scalars[fi]
                    target.scalars = {k: got.get(k, 0.0) for k in order}
