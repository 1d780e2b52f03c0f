"""The simulator over time: pod lifecycles, the controllers' reactions to evictions, event-driven stepping."""

from __future__ import annotations

import json
from typing import Any

import pytest

from capacity.core.errors import InputError
from capacity.scheduler import simulate
from capacity.simulation.sim import SimOptions, Simulator
from tests.builders import cluster, conf, node, pod, podgroup, queue

#: Seed 001's configuration: reclaim across queues, and gangs may lose pods to it.
RECLAIM = conf("enqueue, allocate, backfill, reclaim",
               [{"name": "priority"}, {"name": "gang", "enableReclaimable": False},
                {"name": "conformance", "enableReclaimable": False}],
               [{"name": "predicates"}, {"name": "capacity"}, {"name": "nodeorder"}])
JOB_OWNER = {"apiVersion": "batch.volcano.sh/v1alpha1", "kind": "Job", "controller": True}


def job(name: str, queue_name: str, replicas: int, cpu: str = "1", *, owner: str | None = "Job",
        policy: str | None = None, max_retry: int | None = None, arrival: float | None = None,
        duration: float | None = None, running_on: str = "", min_member: int | None = None) -> list[dict[str, Any]]:
    """A PodGroup and its pods, owned like a vcjob (`Job`), a Deployment (`ReplicaSet`) or nothing."""
    pg = podgroup(name, queue_name, min_member=replicas if min_member is None else min_member,
                  phase="Running" if running_on else "Pending")
    annotations: dict[str, str] = {}
    if policy:
        annotations["capacity-lab/policies"] = json.dumps([{"event": "PodEvicted", "action": policy}])
    if max_retry is not None:
        annotations["capacity-lab/max-retry"] = str(max_retry)
    if arrival is not None:
        annotations["capacity-lab/arrival"] = str(arrival)
    pg["metadata"]["annotations"] = annotations
    objs = [pg]
    for i in range(replicas):
        meta: dict[str, Any] = {}
        if owner:
            meta["ownerReferences"] = [{**JOB_OWNER, "kind": owner, "name": name}]
        p = pod(f"{name}-worker-{i}", name, {"cpu": cpu}, node_name=running_on, **meta)
        if duration is not None:
            p["metadata"]["annotations"]["capacity-lab/duration"] = str(duration)
        objs.append(p)
    return objs


def tidal(policy: str | None = None, owner: str | None = "Job", max_retry: int | None = None) -> Any:
    """Seed 001 in miniature: training borrowed the whole 4-cpu node; inference arrives at t=10 and
    reclaims one cpu from it, which evicts one training pod."""
    return cluster(
        RECLAIM, node("n1", cpu="4", memory="16Gi"),
        queue("train", deserved={"cpu": "2", "memory": "8Gi"}, capability={"cpu": "4", "memory": "16Gi"}),
        queue("infer", deserved={"cpu": "2", "memory": "8Gi"}),
        *job("t", "train", 4, policy=policy, owner=owner, max_retry=max_retry, running_on="n1", duration=1000),
        *job("i", "infer", 1, arrival=10, duration=30))


def states(sim: Simulator, prefix: str = "") -> dict[str, str]:
    out = {}
    for key, p in sim.cluster.pods.items():
        if key.startswith(prefix):
            out[key] = "Releasing" if p.deleting else f"{p.phase}@{p.node_name or '-'}"
    return out


def run_to(sim: Simulator, cycle: int) -> None:
    sim.run(cycle - sim.cycle)


# ---- lifecycles ---------------------------------------------------------------------------------------
def test_bound_pods_run_for_their_duration_then_the_finished_job_is_removed() -> None:
    sim = Simulator(cluster(RECLAIM, node("n1"), queue("q", deserved={"cpu": "8"}),
                            *job("a", "q", 2, duration=60)), SimOptions(period=10))
    first = sim.step()
    assert first is not None and first.cycle == 1 and set(first.result.binds) == {"ns1/a-worker-0", "ns1/a-worker-1"}
    assert states(sim) == {"ns1/a-worker-0": "Running@n1", "ns1/a-worker-1": "Running@n1"}
    assert sim.cluster.podgroups["ns1/a"].phase == "Inqueue"  # binding tasks are not counted yet (§3.3)
    sim.step()
    assert sim.cluster.podgroups["ns1/a"].phase == "Running"
    quiet = sim.step()  # the cycle after a change always runs; this one changes nothing
    assert quiet is not None and quiet.cycle == 3 and not quiet.changed
    done = sim.step()  # bound at t=10, 60 s to run: done before the cycle at t=70; 4 to 6 skipped
    assert done is not None and (done.cycle, sorted(done.completed)) == (7, ["ns1/a-worker-0", "ns1/a-worker-1"])
    assert (done.skipped, sim.skipped) == (3, 3)
    assert "ns1/a" not in sim.cluster.podgroups and sim.cluster.pods == {}
    assert sim.step() is None  # nothing can change any more


def test_a_job_arrives_at_its_time() -> None:
    sim = Simulator(cluster(RECLAIM, node("n1"), queue("q", deserved={"cpu": "8"}),
                            *job("late", "q", 1, arrival=95)), SimOptions(period=10))
    assert "ns1/late" not in sim.cluster.podgroups and sim.arrivals_left == 1
    rec = sim.step()
    assert rec is not None and rec.cycle == 1 and rec.arrived == []
    rec = sim.step()
    assert rec is not None and (rec.cycle, rec.arrived) == (10, ["ns1/late"])  # t=100 is the first cycle >= 95
    assert rec.result.binds == {"ns1/late-worker-0": "n1"}


def test_an_evicted_pod_is_releasing_for_one_cycle_then_gone() -> None:
    sim = Simulator(tidal(owner=None))
    run_to(sim, 10)
    assert sim.history[-1].result.evicted == ["ns1/t-worker-3"]
    assert states(sim, "ns1/t")["ns1/t-worker-3"] == "Releasing"
    sim.run(1)
    assert "ns1/t-worker-3" not in states(sim)
    # A bare pod is simply gone: nothing recreates it, the rest of its group keeps running.
    assert sorted(states(sim, "ns1/t").values()) == ["Running@n1"] * 3


def test_restart_job_restarts_every_pod_pending() -> None:
    sim = Simulator(tidal("RestartJob"))
    run_to(sim, 11)  # the evicted pod is gone: the controller kills the rest of the job
    assert sim.jobs["ns1/t"].state == "Restarting" and sim.jobs["ns1/t"].retries == 1
    assert set(states(sim, "ns1/t").values()) == {"Releasing"}
    run_to(sim, 12)  # once they are gone: every pod recreated Pending, the PodGroup back to Pending
    assert states(sim, "ns1/t") == {f"ns1/t-worker-{i}": "Pending@-" for i in range(4)}
    assert sim.jobs["ns1/t"].state == ""
    assert sim.cluster.podgroups["ns1/t"].phase == "Pending"
    assert any("RestartJob: retry 1/3" in m for m in sim.record(11).controller)
    # The gang of 4 fits again only when inference (30 s from t=12) is done.
    run_to(sim, 41)
    assert set(states(sim, "ns1/t").values()) == {"Pending@-"}
    run_to(sim, 42)
    assert set(states(sim, "ns1/t").values()) == {"Running@n1"}


def test_abort_job_deletes_the_job() -> None:
    sim = Simulator(tidal("AbortJob"))
    run_to(sim, 11)
    assert sim.jobs["ns1/t"].state == "Aborting"
    run_to(sim, 12)
    assert sim.jobs["ns1/t"].state == "Aborted"
    assert states(sim, "ns1/t") == {} and "ns1/t" not in sim.cluster.podgroups
    sim.run_to_end()
    assert states(sim) == {} and sim.summary()["jobStates"] == {"Aborted": 1, "Completed": 1}


def test_restart_job_fails_the_job_at_max_retry() -> None:
    sim = Simulator(tidal("RestartJob", max_retry=1))
    run_to(sim, 12)
    assert sim.jobs["ns1/t"].state == "Failed" and sim.jobs["ns1/t"].retries == 1
    assert states(sim, "ns1/t") == {}


def test_a_vcjob_without_policy_recreates_only_the_evicted_pod() -> None:
    sim = Simulator(tidal(None))
    run_to(sim, 11)
    assert states(sim, "ns1/t") == {**{f"ns1/t-worker-{i}": "Running@n1" for i in range(3)},
                                    "ns1/t-worker-3": "Pending@-"}
    assert sim.jobs["ns1/t"].state == ""


def test_replicaset_pods_are_recreated_pending_at_once() -> None:
    sim = Simulator(tidal(owner="ReplicaSet"))
    rec = sim.run(10)[-1]
    assert rec.result.evicted == ["ns1/t-worker-3"]
    new = [k for k in states(sim, "ns1/t") if not k.startswith("ns1/t-worker-")]
    assert len(new) == 1 and states(sim)[new[0]] == "Pending@-"
    assert states(sim)["ns1/t-worker-3"] == "Releasing"  # the replacement does not wait for the victim
    assert "created" in rec.controller[0]


def test_a_gang_that_cannot_fit_stays_inqueue_and_the_run_settles() -> None:
    sim = Simulator(cluster(RECLAIM, node("n1", cpu="2"), queue("q", deserved={"cpu": "2"}),
                            *job("g", "q", 3)))
    sim.step()
    assert sim.cluster.podgroups["ns1/g"].phase == "Inqueue"  # admitted, but the gang of 3 cannot fit
    quiet = sim.step()
    assert quiet is not None and not quiet.changed
    assert sim.step() is None  # nothing will ever change that
    assert sim.run_to_end() == [] and sim.run(50) == [] and (sim.cycle, sim.skipped) == (52, 50)


# ---- event-driven stepping ----------------------------------------------------------------------------
def test_event_driven_stepping_skips_only_cycles_in_which_nothing_changes() -> None:
    fast = Simulator(tidal("RestartJob"))
    slow = Simulator(tidal("RestartJob"), SimOptions(event_driven=False))
    fast.run(1100)
    slow.run(1100)
    assert fast.executed + fast.skipped == slow.executed == 1100
    assert fast.skipped > 1000
    ran = {r.cycle: r for r in fast.history}
    for r in slow.history:
        if r.cycle in ran:
            assert (r.result.binds, r.result.evicted, r.controller) == (
                ran[r.cycle].result.binds, ran[r.cycle].result.evicted, ran[r.cycle].controller)
        else:
            assert not r.changed and not r.changes and not r.result.binds and not r.result.evicted
    assert states(fast) == states(slow) and list(fast.cluster.pods) == list(slow.cluster.pods)
    assert sum(r.skipped for r in fast.history) + (fast.cycle - fast.history[-1].cycle) == fast.skipped


def test_without_annotations_the_simulator_binds_what_simulate_binds() -> None:
    def build() -> Any:
        return cluster(RECLAIM, node("n1", cpu="4"), node("n2", cpu="4"),
                       queue("a", deserved={"cpu": "4"}), queue("b", deserved={"cpu": "4"}),
                       *job("x", "a", 3, owner=None), *job("y", "b", 2, "2", owner=None))
    sim = Simulator(build())
    sim.run(3)
    expected = simulate(build(), cycles=3).as_json()["binds"]
    assert {k: v for r in sim.history for k, v in r.result.binds.items()} == expected


# ---- input --------------------------------------------------------------------------------------------
@pytest.mark.parametrize(("annotation", "value", "field"), [
    ("capacity-lab/policies", "RestartJob", "capacity-lab/policies"),
    ("capacity-lab/policies", '[{"event": "PodEvicted", "action": "Reboot"}]', "capacity-lab/policies[0].action"),
    ("capacity-lab/arrival", "soon", "capacity-lab/arrival"),
    ("capacity-lab/max-retry", "three", "capacity-lab/max-retry"),
])
def test_bad_annotations_name_the_object_and_field(annotation: str, value: str, field: str) -> None:
    objs = job("a", "q", 1)
    objs[0]["metadata"]["annotations"][annotation] = value
    with pytest.raises(InputError) as err:
        Simulator(cluster(RECLAIM, node("n1"), queue("q"), *objs))
    assert err.value.obj == "PodGroup/ns1/a" and err.value.field == f"metadata.annotations.{field}"


def test_a_bad_duration_names_the_pod() -> None:
    objs = job("a", "q", 1)
    objs[1]["metadata"]["annotations"]["capacity-lab/duration"] = "-5"
    with pytest.raises(InputError, match="Pod/ns1/a-worker-0: metadata.annotations.capacity-lab/duration"):
        Simulator(cluster(RECLAIM, node("n1"), queue("q"), *objs))


def test_the_period_must_be_positive() -> None:
    with pytest.raises(InputError, match="period"):
        Simulator(tidal(), SimOptions(period=0))


def test_a_simulator_without_a_trace_does_not_trace_its_cycles(monkeypatch: pytest.MonkeyPatch) -> None:
    """Nobody can read the records of a simulator given no Trace, so its cycles run untraced (a replay
    spent a fifth of its time writing records it then threw away); one given a Trace keeps them."""
    import capacity.simulation.sim as sim_module

    seen: list[bool] = []
    real = sim_module.run_cycle

    def spy(cluster: Any, trace: Any = None, *args: Any, **kw: Any) -> Any:
        seen.append(trace is None or trace.enabled)  # run_cycle traces unless handed a disabled Trace
        return real(cluster, trace, *args, **kw)

    monkeypatch.setattr(sim_module, "run_cycle", spy)
    untraced = Simulator(tidal())
    untraced.run_to_end()
    assert len(seen) == untraced.executed > 1 and not any(seen)
    assert untraced.summary()["evictions"] == 1  # the cycles still decide
    from capacity.core.trace import Trace

    seen.clear()
    traced = Simulator(tidal(), trace=Trace(enabled=True))
    traced.run_to_end()
    assert len(seen) == traced.executed and all(seen)
    assert any(r.kind == "bind" for r in traced.trace.records)


def test_a_simulator_step_keeps_the_sessions_notes() -> None:
    """A cycle stepped by the Simulator (the dashboard's steps, replay) says what `simulate` says when capacity
    stops (its notes were dropped: the Decisions page and the answers then missed "capacity refuses every
    allocation this cycle")."""
    from pathlib import Path

    from capacity.framework.session import SessionOptions
    from capacity.io.k8s import load_cluster_file
    from capacity.scheduler import simulate as simulate_cycles
    from capacity.simulation.sim import SimOptions, Simulator
    from capacity.versions import version
    from capacity.versions.cli import session_kwargs
    path = Path(__file__).parent / "data" / "versions" / "3914-child-capability-missing-cpu.yaml"
    opts = SessionOptions(**session_kwargs(version("1.11")))
    said = simulate_cycles(load_cluster_file(str(path)), 1, None, opts).cycles[0].notes
    assert said and "capacity refuses every allocation" in said[0]
    rec = Simulator(load_cluster_file(str(path)), SimOptions(session=opts)).step()
    assert rec is not None and rec.result.notes == said
