"""The capacity and hierarchy changes of issue 29 as switches: PRs #4347 (a 0 scalar of deserved kept), #4504
(scalar capability inherited), #4865 (best-effort share 1), #5130 (an Inqueue job's allocated pods counted
once). Each: the older release decides the old way, the trace names the change, `explain` names it as the
difference from HEAD, and both engines agree."""

from __future__ import annotations

import random
from pathlib import Path
from typing import Any

import pytest

from capacity.accel import kernels
from capacity.accel.capacity_heap import CapacityQueueHeap
from capacity.analysis.answer import answer_pod, answer_queue, explain_run, render_text
from capacity.core.trace import Trace
from capacity.framework.heap import PriorityQueue
from capacity.framework.session import SessionOptions, _queue_tie
from capacity.io.k8s import load_cluster_file, load_objects
from capacity.scheduler import open_session, simulate
from capacity.versions import version
from capacity.versions.diff import version_diff

ROOT = Path(__file__).resolve().parents[2]
CASES = ROOT / "tests" / "acceptance" / "versions" / "cases"
EXAMPLE_3914 = ROOT / "tests" / "unit" / "data" / "versions" / "3914-child-capability-missing-cpu.yaml"

# (switch, the old-release case, its release, a decision the release makes differently from HEAD)
OLD_CASES = [
    ("pr4347", "pr4347-flat-zero-gpu-deserved-unlimited-v1.12", "1.12", ("evict", "ns1/holder-0")),
    ("pr4347", "pr4347-zero-scalar-deserved-dropped-v1.12", "1.12", ("bind", "ns1/p13")),
    ("pr4504", "pr4504-scalar-capability-not-inherited-v1.12", "1.12", ("bind", "ns1/p14")),
    ("pr4865", "pr4865-best-effort-queue-first-v1.13", "1.13", ("bind", "ns1/wants-deserved-0")),
    ("pr5130", "pr5130-capacity-inqueue-counted-twice-v1.14", "1.14", ("bind", "ns1/pb1")),
]


def _run(case: str, release: str, traced: bool = False) -> Any:
    v = version(release)
    return simulate(load_cluster_file(str(CASES / case / "cluster.yaml")), 1, Trace(enabled=traced),
                    SessionOptions(lacking=v.lacking, version=v.label))


@pytest.mark.parametrize("switch,case,release,decision", OLD_CASES)
def test_explain_names_the_change_behind_the_difference_from_head(switch: str, case: str, release: str,
                                                                  decision: tuple[str, str]) -> None:
    cluster = load_cluster_file(str(CASES / case / "cluster.yaml"))
    diff = version_diff(cluster, 1, version(release))
    found = {(d.kind, d.subject): d for d in diff.differences}
    assert decision in found, diff.lines()
    assert switch in found[decision].switches
    assert any(f"because of PR #{switch[2:]} ({switch})" in line for line in diff.lines())


@pytest.mark.parametrize("switch,case,release,decision", OLD_CASES)
def test_the_trace_names_the_change_where_it_decided(switch: str, case: str, release: str,
                                                     decision: tuple[str, str]) -> None:
    out = _run(case, release, traced=True)
    words = f"(before PR #{switch[2:]}, "
    texts = [r.text for c in out.cycles for rec in c.records for r in rec.reasons]
    texts += [n for c in out.cycles for n in c.notes]
    texts += [str(rec.detail.get("shareHow", "")) for c in out.cycles for rec in c.records]
    assert any(words in t for t in texts), switch


def test_v114_enqueue_refusal_says_the_allocated_pods_are_counted_twice() -> None:
    out = _run("pr5130-capacity-inqueue-counted-twice-v1.14", "1.14", traced=True)
    refusal = [r for c in out.cycles for rec in c.records for r in rec.reasons if r.rule == "enqueueRealCapability"]
    assert refusal and refusal[0].values.get("switch") == "pr5130"
    assert "cpu 1 + 3 + 3 - 0 = 7 > 4" in refusal[0].text
    assert "what ns1/pga already allocated is counted in allocated and again in inqueue" in refusal[0].text
    assert out.as_json()["queues"]["q1"]["inqueue"]["cpu"] == 3000  # pga's whole minResources
    head = _run("pr5130-capacity-inqueue-counted-twice-v1.14", "head", traced=True)
    assert head.as_json()["queues"]["q1"]["inqueue"]["cpu"] == 1000  # pgb's, admitted; pga holds its 3 already


def test_v113_best_effort_share_is_0_whatever_it_holds_and_head_1() -> None:
    old = _run("pr4865-best-effort-queue-first-v1.13", "1.13").as_json()["queues"]
    new = _run("pr4865-best-effort-queue-first-v1.13", "head").as_json()["queues"]
    assert old["best-effort"]["allocated"]["cpu"] == 1000 and old["best-effort"]["share"] == 0.0
    assert new["best-effort"]["share"] == 1.0


def test_v113_queue_answer_says_why_the_best_effort_share_is_0() -> None:
    cluster = load_cluster_file(str(CASES / "pr4865-best-effort-queue-first-v1.13" / "cluster.yaml"))
    v = version("1.13")
    run = explain_run(cluster, 1, SessionOptions(lacking=v.lacking, version=v.label))
    text = render_text(answer_queue(run, "best-effort"))
    assert "share 0, because the queue has no deserved: v1.13: a best-effort queue's share was 0" in text


def test_v112_flat_deserved_loses_its_0_scalar_and_v113_keeps_it() -> None:
    case = "pr4347-flat-zero-gpu-deserved-unlimited-v1.12"
    assert "nvidia.com/gpu" not in _run(case, "1.12").as_json()["queues"]["no-gpu"]["deserved"]
    assert _run(case, "1.13").as_json()["queues"]["no-gpu"]["deserved"]["nvidia.com/gpu"] == 0


def test_v112_stall_names_the_dropped_zero_and_the_numbers() -> None:
    notes = _run("pr4347-zero-scalar-deserved-dropped-v1.12", "1.12").cycles[0].notes
    stall = next(n for n in notes if "readyToSchedule=false" in n)
    assert "children of q9 deserve more than it does: their deserved adds up to" in stall
    assert "q9's deserved sets hugepages-1Gi to 0, which was dropped" in stall and "(before PR #4347" in stall


def test_v112_stall_says_the_parent_did_not_take_the_scalar() -> None:
    notes = _run("pr4504-scalar-capability-not-inherited-v1.12", "1.12").cycles[0].notes
    stall = next(n for n in notes if "readyToSchedule=false" in n)
    assert "nvidia.com/gpu 4 > unset" in stall
    assert "case11-queue1's capability did not take nvidia.com/gpu from root's" in stall
    assert "(before PR #4504, v1.13.0)" in stall


@pytest.mark.parametrize("switch,case,release,decision", OLD_CASES)
def test_both_engines_decide_the_old_release_alike(switch: str, case: str, release: str,
                                                   decision: tuple[str, str], monkeypatch: pytest.MonkeyPatch
                                                   ) -> None:
    got = []
    for engine in ("reference", "accelerated"):
        monkeypatch.setenv("CAPACITY_LAB_ENGINE", engine)
        v = version(release)
        out = simulate(load_cluster_file(str(CASES / case / "cluster.yaml")), 3, Trace(enabled=True),
                       SessionOptions(lacking=v.lacking, version=v.label))
        got.append((out.as_json(), [r.as_dict() for c in out.cycles for r in c.records]))
    assert got[0] == got[1]


def _best_effort_tree(rnd: random.Random) -> list[dict[str, Any]]:
    """Flat capacity over many queues, a third best-effort, shares that tie often."""
    import yaml
    conf = {"actions": "allocate", "tiers": [{"plugins": [{"name": "capacity"}]}]}
    objs: list[dict[str, Any]] = [
        {"kind": "ConfigMap", "metadata": {"name": "volcano-scheduler-configmap"},
         "data": {"volcano-scheduler.conf": yaml.safe_dump(conf)}},
        {"kind": "Node", "metadata": {"name": "n1"}, "status": {"allocatable": {"cpu": "1000", "memory": "1Ti"}}}]
    for i in range(40):
        spec: dict[str, Any] = {}
        if rnd.random() < 0.66:
            spec["deserved"] = {"cpu": str(rnd.choice([1, 2])), "memory": "1Gi"}
        objs.append({"kind": "Queue", "metadata": {"name": f"q{i:02d}", "creationTimestamp": "2024-01-01T00:00:00Z"},
                     "spec": spec})
        objs.append({"kind": "PodGroup", "metadata": {"name": f"j{i}", "namespace": "t"},
                     "spec": {"queue": f"q{i:02d}", "minMember": 1}, "status": {"phase": "Inqueue"}})
        objs.append({"kind": "Pod", "metadata": {"name": f"p{i}", "namespace": "t",
                                                 "annotations": {"scheduling.k8s.io/group-name": f"j{i}"}},
                     "spec": {"containers": [{"name": "c", "resources": {"requests": {"cpu": "1"}}}]},
                     "status": {"phase": "Pending"}})
    return objs


@pytest.mark.usefixtures("accelerated_engine")  # (the compiled heap is the accelerated plugin's)
@pytest.mark.parametrize("release", ["1.13", "head"])
@pytest.mark.parametrize("seed", range(3))
def test_compiled_queue_heap_pops_as_the_python_heap_on_either_share_rule(release: str, seed: int) -> None:
    """Before PR #4865 equal shares tie: the compiled heap (capacity.accel.capacity_heap) keeps no
    deserved-first rule then, as capacity's queue order does."""
    if kernels.queue_heap_loops() is None:
        pytest.skip("numba is not installed")
    rnd = random.Random(seed)
    v = version(release)
    ssn = open_session(load_objects(_best_effort_tree(rnd)), Trace(enabled=False),
                       SessionOptions(lacking=v.lacking, version=v.label))
    plugin = ssn.plugins["capacity"]
    python = PriorityQueue(plugin.queue_less(_queue_tie))
    compiled = CapacityQueueHeap(plugin, list(ssn.queues.values()), _queue_tie, kernels.queue_heap_loops())
    queues = list(ssn.queues.values())
    rnd.shuffle(queues)
    for q in queues:
        python.push(q)
        compiled.push(q)
    for _ in range(3 * len(queues)):
        a = python.pop()
        assert compiled.pop() is a
        attr = plugin.attrs.get(a.name)
        if attr is not None:
            attr.share = rnd.choice([0.0, 0.5, 1.0, 1.0])
        python.push(a)
        compiled.push(a)


def test_3914_on_v111_names_the_capabilities_that_stop_capacity() -> None:
    """Issue 3914's tree on one 16-cpu node: v1.11 (which has PR #3917) stops at root-sub1, whose cpu 100
    exceeds root's capability, then the cluster total: the answer gives both numbers, and the queue answer
    does not show realCapability numbers the stopped build never worked out."""
    cluster = load_cluster_file(str(EXAMPLE_3914))
    v = version("1.11")
    opts = SessionOptions(lacking=v.lacking, version=v.label)
    run = explain_run(cluster, 1, opts)
    pod = render_text(answer_pod(run, "default/vcjob-1-task-0"))
    assert "queue root-sub1 capability exceeds its parent root's on cpu: cpu 100 > 16 (root's capability is the " \
           "cluster total" in pod
    queue = render_text(answer_queue(run, "root-sub1-sub1"))
    assert "realCapability not worked out: capacity stopped at session open" in queue
    assert "realCapability cpu 0" not in queue


def test_3917_is_in_every_release_an_unset_child_cpu_is_inherited_on_v111(tmp_path: Path) -> None:
    """PR #3917 (a child's unset cpu or memory capability taken from its parent) is in v1.11.0: on a node large
    enough for root-sub1's 100 cpu, v1.11 binds the pod and root-sub1-sub1's capability is cpu 100."""
    big = tmp_path / "big.yaml"
    big.write_text(EXAMPLE_3914.read_text().replace("cpu: '16'", "cpu: '200'"))
    v = version("1.11")
    out = simulate(load_cluster_file(str(big)), 1, None, SessionOptions(lacking=v.lacking, version=v.label)).as_json()
    assert out["binds"] == {"default/vcjob-1-task-0": "n1"}
    assert out["queues"]["root-sub1-sub1"]["capability"]["cpu"] == 100000


OLD_RELEASES = ["1.11", "1.12", "1.13", "1.14", "1.15"]


def _random_confs() -> dict[str, Any]:
    from tests.unit.test_capacity_heap import FLAT
    from tests.unit.test_nodefit import CONFS
    return {"hierarchy": CONFS["hierarchy"], "flat": FLAT, "proportion": CONFS["proportion"]}


@pytest.mark.parametrize("release", OLD_RELEASES)
@pytest.mark.parametrize("conf", ["hierarchy", "flat", "proportion"])
def test_engines_agree_on_random_clusters_through_the_simulator_on_older_releases(
        release: str, conf: str, monkeypatch: pytest.MonkeyPatch) -> None:
    """An older release through the Simulator (the accelerated engine's SnapshotCache hands its queue tree and
    leaves from cycle to cycle, keyed by the switches) decides, cycle after cycle, as the reference engine."""
    from capacity.simulation.sim import SimOptions, Simulator
    from tests.unit.test_nodefit import random_cluster
    objs = random_cluster(21, _random_confs()[conf], nodes=10, jobs=40)
    v = version(release)
    got = []
    for engine in ("reference", "accelerated"):
        monkeypatch.setenv("CAPACITY_LAB_ENGINE", engine)
        sim = Simulator(load_objects(objs), SimOptions(event_driven=False,
                                                       session=SessionOptions(lacking=v.lacking, version=v.label)),
                        trace=Trace(enabled=True))
        rows = []
        for _ in range(4):
            rec = sim.step()
            if rec is None:
                break
            c = rec.result
            rows.append((c.binds, c.evicted, c.pipelined, c.podgroup_phases, c.queues, c.notes))
        got.append(rows)
    assert got[0] == got[1] and got[0]
    if conf != "hierarchy" or release >= "1.14":  # (before PR #4864 this random tree stops capacity)
        assert any(row[0] for row in got[0])


def _hierarchical_5130(tmp_path: Path) -> Path:
    """The PR #5130 case with q1 under a parent in a queue tree (buildHierarchicalQueueAttrs has the same rule,
    capacity.go:L594-596 @v1.14.0)."""
    text = (CASES / "pr5130-capacity-inqueue-counted-twice-v1.14" / "cluster.yaml").read_text()
    text = text.replace("      - name: capacity\n", "      - name: capacity\n        enableHierarchy: true\n")
    text = text.replace("spec: {weight: 1, reclaimable: true, capability: {cpu: \"4\", memory: 8Gi}}",
                        "spec: {weight: 1, reclaimable: true, parent: team, capability: {cpu: \"4\", memory: 8Gi}}")
    text += ("---\napiVersion: scheduling.volcano.sh/v1beta1\nkind: Queue\nmetadata: {name: root}\nspec: {weight: 1}\n"
             "status: {state: Open}\n---\napiVersion: scheduling.volcano.sh/v1beta1\nkind: Queue\n"
             "metadata: {name: team}\nspec: {weight: 1, parent: root, capability: {cpu: \"4\", memory: 8Gi}}\n"
             "status: {state: Open}\n")
    path = tmp_path / "hier.yaml"
    path.write_text(text)
    return path


@pytest.mark.parametrize("release,bound", [("1.14", False), ("1.15", True)])
def test_hierarchical_capacity_counts_the_inqueue_job_twice_until_v114(tmp_path: Path, release: str, bound: bool,
                                                                       monkeypatch: pytest.MonkeyPatch) -> None:
    path = _hierarchical_5130(tmp_path)
    v = version(release)
    got = []
    for engine in ("reference", "accelerated"):
        monkeypatch.setenv("CAPACITY_LAB_ENGINE", engine)
        out = simulate(load_cluster_file(str(path)), 1, Trace(enabled=True),
                       SessionOptions(lacking=v.lacking, version=v.label))
        got.append((out.as_json(), [r.as_dict() for c in out.cycles for r in c.records]))
    assert got[0] == got[1]
    assert ("ns1/pb1" in got[0][0]["binds"]) == bound
    assert got[0][0]["queues"]["team"]["inqueue"]["cpu"] == (1000 if bound else 3000)
