"""A session with a SnapshotCache works out close's answers (phases, gang's conditions, pipelined tasks) only
for the jobs that can have new ones, and clears what the last session wrote on the jobs it hands on
(fit errors, order keys): every decision and record is that of a cache-less session."""

from __future__ import annotations

import json
from typing import Any

import pytest
import yaml

from capacity.accel.snapshot_cache import SnapshotCache
from capacity.core.cluster import Cluster
from capacity.core.trace import Trace
from capacity.io.k8s import load_cluster
from capacity.scheduler import run_cycle
from capacity.simulation.sim import SimOptions, Simulator
from tests.builders import conf, node, pod, podgroup, queue
from tests.unit.test_sim import RECLAIM, job

WITH_GANG = conf("enqueue, allocate", [{"name": "priority"}, {"name": "gang"}],
                 [{"name": "predicates"}, {"name": "capacity"}, {"name": "nodeorder"}])
WITHOUT_GANG = conf("enqueue, allocate", [{"name": "predicates"}, {"name": "capacity"}, {"name": "nodeorder"}])


def _history(cached: bool, *objs: dict[str, Any]) -> list[str]:
    trace = Trace(enabled=True)
    sim = Simulator(load_cluster(yaml.safe_dump_all(list(objs))), SimOptions(period=10), trace=trace)
    if not cached:
        sim._cache = None  # type: ignore[assignment]
    sim.run_to_end(max_cycles=20)
    return [json.dumps([r.cycle, r.result.binds, r.result.podgroup_phases], sort_keys=True) for r in sim.history] \
        + [json.dumps(rec.as_dict(), sort_keys=True, default=str) for rec in trace.records]


@pytest.mark.parametrize("scheduler_conf", [RECLAIM, WITHOUT_GANG], ids=["priority-gang", "no-job-order"])
def test_a_job_that_found_no_node_binds_once_room_frees(scheduler_conf: dict[str, Any]) -> None:
    """b (3 cpu) finds no node while a runs and waits, untouched, from cycle to cycle (its job handed on by
    the cache with the fit errors of the session before cleared); once a ends it binds."""
    objs = [scheduler_conf, node("n1", cpu="4", memory="16Gi"), node("n2", cpu="2", memory="16Gi"),
            queue("q", deserved={"cpu": "8", "memory": "32Gi"}),
            *job("a", "q", 1, cpu="3", arrival=10, duration=30), *job("b", "q", 1, cpu="3", arrival=20)]
    objs[-1]["metadata"]["annotations"]["volcano.sh/task-spec"] = "worker"  # (a failed role's tasks are passed over)
    cached, plain = _history(True, *objs), _history(False, *objs)
    assert cached == plain
    assert any('"ns1/b-worker-0": "n1"' in line for line in plain)


def _objects(conf_obj: dict[str, Any]) -> list[dict[str, Any]]:
    """n1 (4 cpu) holds g's first pod (3 cpu); g's second and the single pods of x (high priority, created
    last) and y find no room: nothing moves, cycle after cycle. Gang finds g not ready (Unknown)."""
    objs: list[dict[str, Any]] = [
        conf_obj, node("n1", cpu="4", memory="16Gi"),
        {"apiVersion": "scheduling.k8s.io/v1", "kind": "PriorityClass", "metadata": {"name": "high"}, "value": 1000},
        queue("q", deserved={"cpu": "8", "memory": "32Gi"}, capability={"cpu": "16", "memory": "64Gi"}),
        podgroup("g", "q", min_member=2, phase="Running"),
        pod("g-0", "g", {"cpu": "3"}, node_name="n1"), pod("g-1", "g", {"cpu": "3"})]
    for name, created in (("y", "2024-01-01T00:00:00Z"), ("x", "2024-01-02T00:00:00Z")):
        pg = podgroup(name, "q")
        pg["metadata"]["creationTimestamp"] = created
        if name == "x":
            pg["spec"]["priorityClassName"] = "high"
        objs += [pg, pod(f"{name}-0", name, {"cpu": "2"})]
    return objs


def _cycles(cluster: Cluster, cache: SnapshotCache | None, confs: list[Any]) -> list[str]:
    out = []
    for c in confs:
        cluster.conf = c
        trace = Trace(enabled=True)
        r = run_cycle(cluster, trace, cache=cache)
        out.append(json.dumps([r.binds, r.pipelined, r.podgroup_phases, r.nominated], sort_keys=True))
        out.extend(json.dumps(rec.as_dict(), sort_keys=True, default=str) for rec in trace.records)
    return out


def test_the_plugins_changing_between_sessions_works_the_answers_out_again() -> None:
    """Jobs nothing happened to, handed on by the cache: when the plugins change (gang, priority gone), their
    phases and their order are worked out under the new ones (g: Unknown with gang, Pending without; x no
    longer first), as a cache-less session does."""
    with_gang = load_cluster(yaml.safe_dump_all(_objects(WITH_GANG)))
    without = load_cluster(yaml.safe_dump_all(_objects(WITHOUT_GANG))).conf
    confs = [with_gang.conf, with_gang.conf, with_gang.conf, without, without, with_gang.conf]
    plain = _cycles(load_cluster(yaml.safe_dump_all(_objects(WITH_GANG))), None, confs)
    assert _cycles(with_gang, SnapshotCache(), confs) == plain
    phases = [json.loads(line)[2]["ns1/g"] for line in plain if line.startswith("[")]
    assert phases == ["Unknown", "Unknown", "Unknown", "Pending", "Inqueue", "Unknown"]  # (Inqueue: enqueue)


def test_a_job_admitted_without_a_task_moving_reports_its_new_phase() -> None:
    """b's minResources exceed its queue's capability: Pending. With the capability raised, enqueue admits it
    (Inqueue) but no node can hold its pod: its phase moves while none of its tasks does."""
    objs = [RECLAIM, node("n1", cpu="4", memory="16Gi"),
            queue("q", deserved={"cpu": "2", "memory": "32Gi"}, capability={"cpu": "2", "memory": "32Gi"}),
            podgroup("b", "q", phase="Pending", min_resources={"cpu": "3"}), pod("b-0", "b", {"cpu": "5"})]
    runs = []
    for cache in (SnapshotCache(), None):
        cluster = load_cluster(yaml.safe_dump_all(objs))
        out = _cycles(cluster, cache, [cluster.conf])
        raised = load_cluster(yaml.safe_dump_all([*objs[:2], queue("q", deserved={"cpu": "2", "memory": "32Gi"},
                                                                      capability={"cpu": "8", "memory": "32Gi"})]))
        cluster.queues["q"] = raised.queues["q"]
        out += _cycles(cluster, cache, [cluster.conf, cluster.conf])
        runs.append(out)
    assert runs[0] == runs[1]
    phases = [json.loads(line)[2]["ns1/b"] for line in runs[1] if line.startswith("[")]
    assert phases == ["Pending", "Inqueue", "Inqueue"]


@pytest.mark.parametrize("scheduler_conf", [RECLAIM, WITHOUT_GANG], ids=["priority-gang", "no-job-order"])
def test_a_task_refused_before_the_node_loop_is_tried_again_next_session(monkeypatch: Any,
                                                                         scheduler_conf: dict[str, Any]) -> None:
    """A PrePredicate refusal is a fit error of the session: the next session, with nothing refusing, binds
    the task, the job handed on by the cache as by a fresh snapshot."""
    from capacity.framework.session import Session
    real = Session.pre_predicate
    refusing = [True]

    def pre_predicate(self: Session, task: Any) -> str | None:
        return "refused for the test" if refusing[0] and task.name == "b-0" else real(self, task)

    monkeypatch.setattr(Session, "pre_predicate", pre_predicate)
    worker = pod("b-0", "b", {"cpu": "1"})
    worker["metadata"]["annotations"]["volcano.sh/task-spec"] = "worker"  # (a failed role's tasks are passed over)
    objs = [scheduler_conf, node("n1", cpu="4", memory="16Gi"), queue("q", deserved={"cpu": "8", "memory": "32Gi"}),
            podgroup("b", "q"), worker]
    runs = []
    for cache in (SnapshotCache(), None):
        cluster = load_cluster(yaml.safe_dump_all(objs))
        refusing[0] = True
        out = _cycles(cluster, cache, [cluster.conf])
        refusing[0] = False
        runs.append(out + _cycles(cluster, cache, [cluster.conf]))
    assert runs[0] == runs[1]
    binds = [json.loads(line)[0] for line in runs[1] if line.startswith("[")]
    assert binds == [{}, {"ns1/b-0": "n1"}]


def test_a_job_gone_and_another_come_between_sessions_closes_as_without_a_cache() -> None:
    """As many jobs as before, not the same ones: the last close's phases are not this session's."""
    objs = [RECLAIM, node("n1", cpu="1", memory="16Gi"), queue("q", deserved={"cpu": "8", "memory": "32Gi"}),
            podgroup("a", "q"), pod("a-0", "a", {"cpu": "2"}), podgroup("b", "q"), pod("b-0", "b", {"cpu": "2"})]
    runs = []
    for cache in (SnapshotCache(), None):
        cluster = load_cluster(yaml.safe_dump_all(objs))
        other = load_cluster(yaml.safe_dump_all([*objs[:3], podgroup("c", "q", phase="Pending"),
                                                 pod("c-0", "c", {"cpu": "2"})]))
        out = _cycles(cluster, cache, [cluster.conf])
        del cluster.podgroups["ns1/a"], cluster.pods["ns1/a-0"]
        cluster.podgroups["ns1/c"] = other.podgroups["ns1/c"]
        cluster.pods["ns1/c-0"] = other.pods["ns1/c-0"]
        runs.append(out + _cycles(cluster, cache, [cluster.conf]))
    assert runs[0] == runs[1]
    phases = [json.loads(line)[2] for line in runs[1] if line.startswith("[")]
    assert phases == [{"ns1/a": "Inqueue", "ns1/b": "Inqueue"}, {"ns1/b": "Inqueue", "ns1/c": "Inqueue"}]


def test_the_job_order_changing_between_sessions_orders_the_kept_jobs_anew() -> None:
    """x (high priority, created last) and y wait Pending, their queue too small to admit either. Then the
    priority plugin goes and the queue grows to admit one: enqueue takes y, the older, as a cache-less
    session does (x's order key of the session before, priority first, is not reused)."""
    with_priority = conf("enqueue, allocate", [{"name": "priority"}, {"name": "gang"}],
                         [{"name": "predicates"}, {"name": "capacity"}, {"name": "nodeorder"}])
    objs: list[dict[str, Any]] = [
        with_priority, node("n1", cpu="8", memory="16Gi"),
        {"apiVersion": "scheduling.k8s.io/v1", "kind": "PriorityClass", "metadata": {"name": "high"}, "value": 1000},
        queue("q", deserved={"cpu": "1", "memory": "32Gi"}, capability={"cpu": "1", "memory": "32Gi"})]
    for name, created in (("y", "2024-01-01T00:00:00Z"), ("x", "2024-01-02T00:00:00Z")):
        pg = podgroup(name, "q", phase="Pending", min_resources={"cpu": "2"})
        pg["metadata"]["creationTimestamp"] = created
        if name == "x":
            pg["spec"]["priorityClassName"] = "high"
        objs += [pg, pod(f"{name}-0", name, {"cpu": "2"})]
    grown = load_cluster(yaml.safe_dump_all([
        conf("enqueue, allocate", [{"name": "gang"}], [{"name": "predicates"}, {"name": "capacity"},
                                                       {"name": "nodeorder"}]),
        queue("q", deserved={"cpu": "1", "memory": "32Gi"}, capability={"cpu": "3", "memory": "32Gi"})]))
    runs = []
    for cache in (SnapshotCache(), None):
        cluster = load_cluster(yaml.safe_dump_all(objs))
        out = _cycles(cluster, cache, [cluster.conf, cluster.conf])
        cluster.queues["q"] = grown.queues["q"]
        runs.append(out + _cycles(cluster, cache, [grown.conf]))
    assert runs[0] == runs[1]
    phases = [json.loads(line)[2] for line in runs[1] if line.startswith("[")]
    assert phases[-1] == {"ns1/x": "Pending", "ns1/y": "Inqueue"}
