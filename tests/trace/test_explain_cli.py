"""`python -m capacity explain` tells why, ending in one sentence; `--what-if` proves its suggestions."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from capacity.analysis.whatif import what_would_change
from capacity.io.k8s import load_cluster_file

ROOT = Path(__file__).resolve().parents[2]
CORPUS = ROOT / "tests/acceptance/volcano"


def _explain(case: str, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "capacity", "explain", str(CORPUS / case / "cluster.yaml"), *args],
                          capture_output=True, text=True, cwd=ROOT, check=False)


def test_pending_pod_ends_in_the_capability_sentence() -> None:
    proc = _explain("capacity-flat-allocate-blocked-by-capability", "--pod", "ns1/p4")
    assert proc.returncode == 0
    sentence = proc.stdout.splitlines()[1].strip()  # the answer's one sentence, under its heading
    assert sentence.startswith("pending because queue q2 would exceed its realCapability on cpu, memory at level q2: "
                               "cpu 1 + 1 = 2 > 1.5 (0.5 over)")  # the input wrote cpu: '1.5'


def test_json_for_a_job_lists_every_pod() -> None:
    proc = _explain("capacity-flat-reclaim-reclaimer-dimensions-only", "--queue", "queue17", "--format", "json")
    out = json.loads(proc.stdout)
    assert out["kind"] == "queue"
    by_pod = {p["subject"]: p for job in out["parts"] for p in job["parts"]}
    assert by_pod["Pod/ns1/p28"]["outcome"] == "evicted"
    assert by_pod["Pod/ns1/p28"]["rule"] == "capacity.immediateVictim"
    assert by_pod["Pod/ns1/p27"]["outcome"] == "running"
    assert by_pod["Pod/ns1/p27"]["rule"] == "capacity.notOverDeserved"


def test_unknown_pod_is_exit_2() -> None:
    proc = _explain("capacity-flat-allocate-blocked-by-capability", "--pod", "ns1/nope")
    assert proc.returncode == 2 and "Pod/ns1/nope" in proc.stderr


def test_what_if_raises_the_blocking_capability_and_proves_it() -> None:
    cluster = load_cluster_file(str(CORPUS / "capacity-flat-allocate-blocked-by-capability" / "cluster.yaml"))
    changes = what_would_change(cluster, "ns1/pg4")
    assert changes[0].description == "raise capability of queue q2: cpu 1500m -> 2, memory 1536Mi -> 2Gi"
    assert changes[0].placed == ["ns1/p4"]


def test_what_if_finds_the_ancestor_that_blocks() -> None:
    cluster = load_cluster_file(str(CORPUS / "capacity-hier-ancestor-capability-blocks-allocate" / "cluster.yaml"))
    descriptions = [c.description for c in what_would_change(cluster, "ns1/pg8")]
    assert "raise capability of queue q3: cpu 4 -> 7, memory 4Gi -> 7Gi" in descriptions


def test_what_if_is_empty_for_a_job_that_is_placed_anyway() -> None:
    cluster = load_cluster_file(str(CORPUS / "capacity-flat-allocate-under-capability" / "cluster.yaml"))
    pg = next(iter(p for p in cluster.podgroups if any(
        pod.group == cluster.podgroups[p].name and not pod.node_name for pod in cluster.pods.values())))
    assert what_would_change(cluster, pg) == []


def test_victim_table_shows_each_plugins_verdict() -> None:
    import copy

    from capacity.analysis.explain import victim_table
    from capacity.core.trace import Trace
    from capacity.scheduler import simulate
    cluster = load_cluster_file(str(CORPUS / "capacity-flat-reclaim-reclaimer-dimensions-only" / "cluster.yaml"))
    trace = Trace(enabled=True)
    simulate(copy.deepcopy(cluster), 1, trace)
    rows = {r["candidate"]: r for r in victim_table(trace.records)}
    assert rows["ns1/p28"]["victim"] and rows["ns1/p28"]["evicted"]
    capacity_col = next(k for k in rows["ns1/p28"] if k.endswith(":capacity"))
    assert rows["ns1/p28"][capacity_col] == "victim: immediateVictim"
    assert rows["ns1/p27"][capacity_col] == "kept: notOverDeserved"
    assert rows["ns1/p26"][capacity_col] == "kept: noSharedDimension"
    assert not rows["ns1/p27"]["evicted"]
