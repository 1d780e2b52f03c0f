"""The seeded synthetic workload generator: the same jobs for the same seed, as the spec describes them."""

from __future__ import annotations

import json

import pytest

from capacity.core.errors import InputError
from capacity.simulation.sim import SimOptions, Simulator
from capacity.simulation.workload import WorkloadSpec, generate, synthetic_cluster

SPEC = WorkloadSpec(seed=3, jobs=60, arrival_rate=1 / 10, queues={"a": 1, "b": 3},
                    namespaces={"ns-x": 1, "ns-y": 1}, replicas={1: 1, 4: 1},
                    service_types={"training": 2, "inference": 1}, policies={"RestartJob": 1, "AbortJob": 1},
                    priority_classes={"high": (1000, 1), "low": (10, 1)}, duration_median=120)


def groups(objs: list[dict]) -> list[dict]:
    return [o for o in objs if o["kind"] == "PodGroup"]


def test_the_same_seed_generates_the_same_jobs() -> None:
    assert generate(SPEC) == generate(SPEC)
    other = generate(WorkloadSpec(**{**SPEC.__dict__, "seed": 4}))
    assert other != generate(SPEC)


def test_the_same_seed_gives_an_identical_run() -> None:
    spec = WorkloadSpec(**{**SPEC.__dict__, "jobs": 25})

    def run() -> Simulator:
        sim = Simulator(synthetic_cluster(spec, nodes=2), SimOptions(period=5))
        sim.run_to_end()
        return sim
    a, b = run(), run()
    assert a.summary() == b.summary() and a.summary()["binds"] > 0
    assert a.metrics().equals(b.metrics()) and a.metrics("cycle").equals(b.metrics("cycle"))
    assert [r.result.binds for r in a.history] == [r.result.binds for r in b.history]


def test_jobs_follow_the_spec() -> None:
    objs = generate(SPEC)
    pgs = groups(objs)
    assert len(pgs) == 60
    assert {g["spec"]["queue"] for g in pgs} == {"a", "b"}
    assert {g["metadata"]["namespace"] for g in pgs} == {"ns-x", "ns-y"}
    assert {g["spec"]["priorityClassName"] for g in pgs} == {"high", "low"}
    arrivals = [int(g["metadata"]["annotations"]["capacity-lab/arrival"]) for g in pgs]
    assert arrivals == sorted(arrivals) and 300 < arrivals[-1] < 1200  # ~60 jobs at one per 10 s
    pods = [o for o in objs if o["kind"] == "Pod"]
    owners = {p["metadata"]["ownerReferences"][0]["kind"] for p in pods}
    assert owners == {"Job", "ReplicaSet"}
    for g in pgs:
        members = [p for p in pods if p["metadata"]["annotations"]["scheduling.k8s.io/group-name"]
                   == g["metadata"]["name"]]
        assert len(members) in (1, 4)
        if g["metadata"]["annotations"]["volcano.sh/service.type"] == "training":
            assert g["spec"]["minMember"] == len(members)  # gang = 1.0
            policy = json.loads(g["metadata"]["annotations"]["capacity-lab/policies"])[0]
            assert policy["event"] == "PodEvicted" and policy["action"] in ("RestartJob", "AbortJob")
            assert all("capacity-lab/duration" in p["metadata"]["annotations"] for p in members)
        else:
            assert g["spec"]["minMember"] == 1
            assert all(p["metadata"]["annotations"]["volcano.sh/preemptable"] == "false" for p in members)
            assert not any("capacity-lab/duration" in p["metadata"]["annotations"] for p in members)


@pytest.mark.parametrize(("gang", "min_member", "min_resources"), [
    (0.0, 1, {"cpu": "2", "memory": "1Gi"}), (1.0, 4, {"cpu": "8", "memory": "4Gi"})])
def test_gang_probability_sets_min_member_and_min_resources(gang: float, min_member: int,
                                                             min_resources: dict) -> None:
    spec = WorkloadSpec(seed=1, jobs=20, replicas={4: 1}, gang=gang, pod_sizes=((1, {"cpu": "2", "memory": "1Gi"}),))
    pgs = groups(generate(spec))
    assert {g["spec"]["minMember"] for g in pgs} == {min_member}
    assert all(g["spec"]["minResources"] == min_resources for g in pgs)


def test_the_cluster_splits_deserved_by_queue_weight() -> None:
    c = synthetic_cluster(SPEC, nodes=4, node_cpu="10", node_memory="40Gi", node_gpu="8")
    assert c.queues["a"].deserved is not None and c.queues["b"].deserved is not None
    assert (c.queues["a"].deserved.cpu, c.queues["b"].deserved.cpu) == (10_000, 30_000)
    assert c.queues["b"].deserved.scalars == {"nvidia.com/gpu": 24_000}
    assert c.priority_classes == {"high": 1000, "low": 10}


@pytest.mark.parametrize(("change", "field"), [
    ({"arrival_rate": 0}, "arrival_rate"), ({"queues": {}}, "queues"), ({"gang": 2}, "gang"),
    ({"service_types": {"batch": 1}}, "service_types"), ({"replicas": {0: 1}}, "replicas"),
])
def test_a_bad_spec_names_the_field(change: dict, field: str) -> None:
    with pytest.raises(InputError) as err:
        generate(WorkloadSpec(**{**SPEC.__dict__, **change}))
    assert err.value.field == field
