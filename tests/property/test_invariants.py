"""Property-based tests (issue 8): invariants of the engine over random clusters, trees and workloads.

For random flat and hierarchical capacity configurations and proportion (see `scenarios.py`), over
several scheduling cycles with random pod completions in between:

* no node's used exceeds its allocatable, and a node's used is exactly the sum of the requests of the
  pods on it that have not completed (binds add, evictions keep until the pod is gone, completions
  remove: resources are conserved);
* every parent queue's allocated equals the sum of its children's, at session open and after the
  actions; a leaf's (or flat queue's) allocated equals the sum of its jobs' allocated tasks;
* a reclaim never takes a queue below its guarantee (capacity plugin; proportion has no such check,
  spec queue-plugins 5.7);
* decisions only touch pods that could take them, and no pod is lost or invented;
* the same input always gives the same decisions (also with the decision trace on);
* the JSON output round-trips (strict JSON, no NaN), and so does the exported cluster.

Examples are derandomized (a fixed seed per test): CI runs the very same examples every time. The
counts add up to more than a thousand; `PROPERTY_EXAMPLES_SCALE` multiplies them for a longer local run.
"""

from __future__ import annotations

import copy
import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, event, given, settings
from hypothesis import strategies as st

from capacity.core.cluster import Cluster
from capacity.core.model import ALLOCATED_STATUSES, TaskStatus
from capacity.core.resources import ZERO, Resource
from capacity.core.trace import Trace
from capacity.framework.session import Session
from capacity.io.export import export_objects
from capacity.io.k8s import load_objects
from capacity.scheduler import apply_cycle, open_session, run_actions, simulate
from tests.property.scenarios import Scenario, reclaim_scenarios, scenarios

ROOT = Path(__file__).resolve().parents[2]
SCALE = float(os.environ.get("PROPERTY_EXAMPLES_SCALE", "1"))


def _settings(examples: int) -> settings:
    return settings(max_examples=max(1, int(examples * SCALE)), deadline=None, derandomize=True, database=None,
                    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])


# ---- helpers ---------------------------------------------------------------------------------------

def _dims(r: Resource) -> dict[str, float]:
    out = {"cpu": r.cpu, "memory": r.memory}
    out.update(r.scalars or {})
    return out


def _same(a: Resource, b: Resource, what: str) -> None:
    da, db = _dims(a), _dims(b)
    for k in set(da) | set(db):
        assert abs(da.get(k, 0.0) - db.get(k, 0.0)) < 1e-6, f"{what}: {k} {da.get(k, 0.0)} != {db.get(k, 0.0)}"


def _within(a: Resource, b: Resource, what: str) -> None:
    da, db = _dims(a), _dims(b)
    for k, v in da.items():
        assert v <= db.get(k, 0.0) + 1e-6, f"{what}: {k} {v} > {db.get(k, 0.0)}"


def _sum(rs: list[Resource]) -> Resource:
    total = Resource.empty()
    for r in rs:
        total.add(r)
    return total


def _queue_plugin(ssn: Session) -> Any:
    return ssn.plugins.get("capacity") or ssn.plugins.get("proportion")


def _check_nodes(ssn: Session, cluster: Cluster, in_session: bool) -> None:
    """used <= allocatable; used + idle == allocatable; used == the pods on the node (conservation)."""
    for node in ssn.node_list:
        _within(node.used, node.allocatable, f"node {node.name} used within allocatable")
        _same(node.used.clone().add(node.idle), node.allocatable, f"node {node.name} used + idle")
        if in_session:
            expected = _sum([t.resreq for t in node.tasks.values() if t.status != TaskStatus.PIPELINED])
        else:
            expected = _sum([p.resreq for p in cluster.pods.values() if p.node_name == node.name
                             and p.phase not in ("Succeeded", "Failed")])
        _same(node.used, expected, f"node {node.name} used == its pods")


def _check_queues(ssn: Session) -> None:
    """Queue accounting. Within a session Volcano's Pipeline fires the allocate event too (statement.go),
    so a queue's allocated counts its pipelined tasks until the session closes."""
    plugin = _queue_plugin(ssn)
    if plugin is None or not getattr(plugin, "ready", True):
        return  # capacity stalled (readyToSchedule=false): Volcano builds no consistent attributes either
    attrs = plugin.attrs
    counted = ALLOCATED_STATUSES | TaskStatus.PIPELINED
    by_queue: dict[str, list[Resource]] = {}
    for job in ssn.jobs.values():
        by_queue.setdefault(job.queue, []).extend(t.resreq for t in job.tasks.values() if t.status & counted)
    for name, attr in attrs.items():
        children = getattr(attr, "children", {})
        if children:
            _same(attr.allocated, _sum([c.allocated for c in children.values()]),
                  f"parent {name} allocated == sum of its children's")
            if attr.allocated.cpu > 0:
                event("checked: a parent queue with allocated children")
        else:
            _same(attr.allocated, _sum(by_queue.get(name, [])), f"queue {name} allocated == its jobs' tasks")


def _state(cluster: Cluster) -> dict[str, tuple[str, str, bool]]:
    return {k: (p.phase, p.node_name, p.deleting) for k, p in cluster.pods.items()}


def _load(sc: Scenario) -> Cluster:
    return load_objects(copy.deepcopy(sc.objects))


# ---- the invariants over several cycles -------------------------------------------------------------

@_settings(500)
@given(st.one_of(scenarios(), reclaim_scenarios()), st.lists(st.integers(0, 2**20 - 1), min_size=3, max_size=3))
def test_cycle_invariants(sc: Scenario, completions: list[int]) -> None:
    cluster = _load(sc)
    for cycle, bits in enumerate(completions):
        before = _state(cluster)
        ssn = open_session(cluster)
        # At every session open, including after the completions below: accounting == the pods.
        _check_nodes(ssn, cluster, in_session=False)
        _check_queues(ssn)
        plugin = _queue_plugin(ssn)
        guarantees = {n: a.guarantee.clone() for n, a in plugin.attrs.items()} if plugin else {}
        queue_of = {t.key: j.queue for j in ssn.jobs.values() for t in j.tasks.values()}
        run_actions(ssn)
        _check_nodes(ssn, cluster, in_session=True)
        _check_queues(ssn)
        result = ssn.close()

        # decisions touch only pods that can take them
        for key, node_name in result.binds.items():
            phase, bound_to, deleting = before[key]
            assert phase == "Pending" and not bound_to and not deleting, f"bound {key} from {before[key]}"
            assert node_name in ssn.nodes
        for key in result.evicted:
            phase, bound_to, deleting = before[key]
            assert bound_to and not deleting and phase in ("Running", "Pending"), f"evicted {key} from {before[key]}"
        assert len(set(result.evicted)) == len(result.evicted)

        apply_cycle(cluster, result)
        after = _state(cluster)
        assert set(after) == {k for k, s in before.items() if not s[2]}, "pods lost or invented"
        for key, (phase, node_name, deleting) in after.items():
            if key in result.binds:
                assert (phase, node_name) == ("Running", result.binds[key])
            elif key in result.evicted:
                assert deleting and node_name == before[key][1]
            else:
                assert (phase, node_name, deleting) == before[key], f"{key} changed without a decision"

        # A reclaim never takes a queue below its guarantee. Capacity checks it for every victim
        # (spec 2.8) -- when it is the plugin that decides the victims: with gang/conformance in an
        # earlier tier their victims bypass it (Volcano issue #5896, spec 1.10; lint rule
        # victim-tier-order). Proportion has no such check (5.7); preempt evicts inside a queue.
        if (result.evicted and "preempt" not in sc.actions and sc.mode != "proportion"
                and sc.queue_plugin_decides_victims):
            fresh = open_session(cluster)
            fplugin = _queue_plugin(fresh)
            if fplugin is not None and fplugin.ready:
                event(f"checked: guarantees after a reclaim ({sc.mode})")
                for q in {queue_of[k] for k in result.evicted if k in queue_of}:
                    attr = fplugin.attrs.get(q)
                    allocated = attr.allocated if attr is not None else Resource.empty()
                    assert guarantees[q].less_equal(allocated, ZERO), (
                        f"cycle {cycle + 1}: reclaim took queue {q} to {allocated} below its guarantee "
                        f"{guarantees[q]}")

        # The kubelet completes some running pods between cycles: the next session open must find their
        # resources back on the node (the accounting check above), and nothing else changed.
        running = sorted(k for k, p in cluster.pods.items() if p.phase == "Running" and not p.deleting)
        for i, k in enumerate(running[:20]):
            if (bits >> i) & 1:
                cluster.pods[k].phase = "Succeeded"
                event("checked: resources come back when a pod completes")
        if result.binds:
            event("checked: a cycle that binds")
        if result.evicted:
            event("checked: a cycle that evicts")
    final = open_session(cluster)
    _check_nodes(final, cluster, in_session=False)
    _check_queues(final)


# ---- determinism -------------------------------------------------------------------------------------

@_settings(250)
@given(scenarios())
def test_same_input_same_decisions_and_json_round_trips(sc: Scenario) -> None:
    first = simulate(_load(sc), 2).as_json()
    traced = simulate(_load(sc), 2, Trace(enabled=True)).as_json()
    assert first == traced, "the same input (with the decision trace on) decided differently"
    text = json.dumps(first, allow_nan=False)  # strict JSON: no NaN or Infinity
    assert json.loads(text) == first
    from capacity.commands.simulate import render_text
    assert render_text(first)


_DRIVER = """
import json, sys, yaml
from capacity.io.k8s import load_objects
from capacity.scheduler import simulate
out = []
for objs in json.load(sys.stdin):
    out.append(simulate(load_objects(objs), 2).as_json())
print(json.dumps(out, sort_keys=True))
"""


def test_same_decisions_under_any_hash_seed() -> None:
    """Set and dict iteration must not leak into decisions: two interpreters with different string
    hashing (PYTHONHASHSEED) decide the same on the same 60 scenarios."""
    import hypothesis

    batch: list[list[dict[str, Any]]] = []

    @settings(max_examples=60, deadline=None, derandomize=True, database=None,
              suppress_health_check=list(HealthCheck))
    @given(scenarios())
    def collect(sc: Scenario) -> None:
        batch.append(sc.objects)

    collect()
    assert batch and hypothesis
    payload = json.dumps(batch)
    outs = []
    for seed in ("1", "4242"):
        env = {**os.environ, "PYTHONHASHSEED": seed}
        proc = subprocess.run([sys.executable, "-c", _DRIVER], input=payload, capture_output=True, text=True,
                              cwd=ROOT, env=env, timeout=300, check=False)
        assert proc.returncode == 0, proc.stderr
        outs.append(proc.stdout)
    assert outs[0] == outs[1]


# ---- export round trip ----------------------------------------------------------------

@_settings(150)
@given(scenarios())
def test_exported_cluster_decides_the_same(sc: Scenario) -> None:
    """Export (the dashboard's download) and read back: the same scheduling input, the same decisions."""
    cluster = _load(sc)
    simulate(cluster, 1)  # export a state with binds and phases in it, not just the input
    again = load_objects(copy.deepcopy(export_objects(cluster)))
    assert simulate(cluster, 2).as_json() == simulate(again, 2).as_json()


@pytest.mark.parametrize("mode", ["flat", "hierarchical", "proportion"])
def test_scenarios_cover_every_mode(mode: str) -> None:
    """Guard against a strategy that silently stops producing a mode (or never schedules anything)."""
    seen = {"binds": 0, "evicted": 0}

    @settings(max_examples=40, deadline=None, derandomize=True, database=None,
              suppress_health_check=list(HealthCheck))
    @given(scenarios(modes=(mode,)))
    def run(sc: Scenario) -> None:
        out = simulate(_load(sc), 2).as_json()
        seen["binds"] += len(out["binds"])
        seen["evicted"] += len(out["evicted"])

    run()
    assert seen["binds"] > 0


def test_documented_layout_lets_gang_bypass_the_guarantee() -> None:
    """Why the guarantee property is asserted only when the queue plugin decides the victims.

    Found by the property test: with Volcano's documented tiers (gang and conformance in tier 1,
    capacity in tier 2), tier 1 returns victims and capacity is never asked, so a reclaim can take a
    queue below its guarantee. That is Volcano at HEAD (open issue #5896, spec queue-plugins 1.10 and
    trap 12), reported by the linter as victim-tier-order, not an engine defect. With capacity last in
    tier 1 the same cluster keeps the guarantee.
    """
    from tests.builders import conf, node, pod, podgroup, queue

    def objects(layout: str) -> list[dict[str, Any]]:
        def p(name: str, group: str, node_name: str = "", cpu: str = "1") -> dict[str, Any]:
            return pod(name, group, {"cpu": cpu, "memory": "1Gi"}, node_name=node_name)
        first = [{"name": "priority"}, {"name": "gang"}, {"name": "conformance"}]
        second = [{"name": "drf"}, {"name": "predicates"}, {"name": "nodeorder"}]
        (first if layout == "last" else second).append({"name": "capacity"})
        return [conf("enqueue, allocate, backfill, reclaim", first, second), node("n0", cpu="4", memory="8Gi"),
                queue("busy", deserved={"cpu": "0"}, guarantee={"cpu": "500m"}), queue("hungry", deserved={"cpu": "2"}),
                queue("third", deserved={"cpu": "0"}),
                podgroup("busy-job", "busy", 1, phase="Running"), p("busy-0", "busy-job", "n0"),
                # a completed pod counts as ready for gang, so gang lets busy-0 go
                pod("busy-done", "busy-job", {"cpu": "1"}, node_name="n0", phase="Succeeded"),
                podgroup("other", "third", 2, phase="Running"), p("other-0", "other", "n0"),  # gang keeps both
                p("other-1", "other", "n0"),
                podgroup("hungry-job", "hungry", 1, phase="Inqueue"), p("hungry-0", "hungry-job", cpu="2")]

    documented = simulate(load_objects(objects("documented")), 1).as_json()
    assert documented["evicted"] == ["ns1/busy-0"]  # busy drops to 0 cpu, below its 500m guarantee
    last = simulate(load_objects(objects("last")), 1).as_json()
    assert last["evicted"] == []
