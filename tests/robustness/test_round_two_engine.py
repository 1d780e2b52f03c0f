"""Hostile and odd input, round two, the engine half (issue 26): no crash, no hang, no silent divergence.

`corpus_round2/engine/` holds one input per case; `EXPECT` says what each must produce, by class:

1. no usable node with capacity's hierarchy on (crashed with "argmax of an empty sequence");
2. capacity-card annotations and node labels Go cannot read (crashed with OverflowError / RecursionError);
3. scheduler configurations Volcano refuses whole (ran as if accepted, or exited 2);
4. nodes already running more than they hold (accepted silently);
5. numbers and YAML scalars Python reads but Go / Kubernetes do not (`cpu: 1:30` read as 90, ...);
6. names the API server would refuse (accepted silently, control characters printed raw).

Outcomes: ``("warning", start)``: exit 0 with Volcano's result, and a ``warning: `` line on stderr starts with
``start``; ``("error", start)``: exit 2 and exactly one line ``error: <start>...`` naming object and field;
``("ok", "")``: exit 0 (what Volcano accepts silently). Never a traceback. Every input runs through
`simulate` and `explain` (in process, the `main` that `python -m capacity` runs); the entry points of class 1
also as real subprocesses, and the Simulator step the dashboard uses. What each class must decide is checked
further down against Volcano's rule (cited there and beside the code).
"""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path

import pytest

from capacity import cli
from capacity.core.text import safe
from capacity.io.k8s import load_cluster, load_cluster_file
from capacity.simulation.sim import Simulator

ROOT = Path(__file__).resolve().parents[2]
CORPUS_DIR = Path(__file__).resolve().parent / "corpus_round2" / "engine"
CM = "ConfigMap/volcano-scheduler-configmap: data.volcano-scheduler.conf: "
REFUSED = "Volcano refuses the whole configuration file"
NO_NODE = "Node: status.conditions: "
OVER = "status.allocatable: running pods request more than the node holds"

EXPECT: dict[str, tuple[str, str]] = {
    # 1. no usable node, hierarchy on
    "c1-hierarchy-no-nodes.yaml": ("warning", NO_NODE + "the input has no Node"),
    "c1-hierarchy-all-notready.yaml": ("warning", NO_NODE + "none of the 2 nodes is Ready"),
    "c1-hierarchy-notready-running-pods.yaml": ("warning", NO_NODE + "none of the 2 nodes is Ready"),
    "c1-hierarchy-notready-and-cordoned.yaml": ("warning", "Node/n1: status.conditions: node is not Ready"),
    "c1-hierarchy-deep-tree-no-nodes.yaml": ("warning", NO_NODE + "the input has no Node"),
    "c1-flat-capacity-no-nodes.yaml": ("warning", NO_NODE + "the input has no Node"),
    "c1-hierarchy-no-ready-node-gang.yaml": ("warning", NO_NODE + "the only node is not Ready"),
    # 2. capacity-card: Go's json.Unmarshal into map[string]int / strconv.Atoi fail -> ignored
    "c2-card-quota-400-digits.yaml": ("warning", "Queue/queue-inference: metadata.annotations.volcano.sh/card.quota: "
                                      "count of 'NVIDIA-GeForce-RTX-4090' has 400 digits, beyond Go's int"),
    "c2-card-quota-deep-nesting.yaml": ("warning", "Queue/queue-inference: metadata.annotations.volcano.sh/card.quota: "
                                        "nested too deeply"),
    "c2-card-quota-beyond-int64.yaml": ("warning", "Queue/queue-inference: metadata.annotations.volcano.sh/"
                                        "card.quota: count of 'NVIDIA-GeForce-RTX-4090' has 19 digits, beyond"),
    "c2-card-quota-below-int64.yaml": ("warning", "Queue/queue-inference: metadata.annotations.volcano.sh/"
                                       "card.quota: count of 'NVIDIA-GeForce-RTX-4090' has 19 digits, beyond"),
    "c2-card-quota-exponent.yaml": ("warning", "Queue/queue-inference: metadata.annotations.volcano.sh/card.quota: "
                                    "count of 'NVIDIA-GeForce-RTX-4090' must be a JSON integer"),
    "c2-card-request-400-digits.yaml": ("warning", "PodGroup/ai/training-low: metadata.annotations.volcano.sh/"
                                        "card.request: count of 'NVIDIA-GeForce-RTX-4090' has 400 digits"),
    "c2-card-request-deep-nesting.yaml": ("warning", "PodGroup/ai/training-low: metadata.annotations.volcano.sh/"
                                          "card.request: nested too deeply"),
    "c2-card-node-memory-400-digits.yaml": ("warning", "Node/gpu-node-1: metadata.labels.nvidia.com/gpu.memory: "
                                            "'9999999999"),
    "c2-card-node-memory-arabic-digits.yaml": ("warning", "Node/gpu-node-1: metadata.labels.nvidia.com/gpu.memory: "
                                               "'٢٤٥٦٤': not an integer Go's strconv.Atoi reads"),
    "c2-card-node-memory-underscore.yaml": ("warning", "Node/gpu-node-1: metadata.labels.nvidia.com/gpu.memory: "
                                            "'24_564': not an integer Go's strconv.Atoi reads"),
    # 3. configurations Volcano refuses: its default runs, one warning
    "c3-conf-actions-empty.yaml": ("warning", CM + "actions: is empty"),
    "c3-conf-actions-missing.yaml": ("warning", CM + "actions: is empty"),
    "c3-conf-empty-text.yaml": ("warning", CM + "actions: is empty"),
    "c3-conf-actions-empty-entry.yaml": ("warning", CM + "actions[1]: an empty entry"),
    "c3-conf-actions-trailing-comma.yaml": ("warning", CM + "actions[2]: an empty entry"),
    "c3-conf-actions-unknown.yaml": ("warning", CM + "actions[2]: unknown action 'backfil'"),
    "c3-conf-actions-boolean.yaml": ("warning", CM + "actions[0]: unknown action 'true'"),
    "c3-conf-actions-padded.yaml": ("ok", ""),
    "c3-conf-hierarchy-quoted-true.yaml": ("warning", CM + "tiers[1].plugins[1].enableHierarchy: must be true or "
                                           "false, got the string 'true'"),
    "c3-conf-switch-quoted-false.yaml": ("warning", CM + "tiers[0].plugins[1].enablePreemptable: must be true or "
                                         "false, got the string 'false'"),
    "c3-conf-switch-number.yaml": ("warning", CM + "tiers[1].plugins[1].enableHierarchy: must be true or false"),
    "c3-conf-proportion-drf-hierarchy.yaml": ("warning", CM + "tiers[0]: proportion together with drf"),
    "c3-conf-arguments-not-mapping.yaml": ("warning", CM + "tiers[1].plugins[1].arguments: must be a mapping"),
    "c3-conf-tiers-scalar.yaml": ("warning", CM + "tiers: must be a list"),
    "c3-conf-ancestor-level-beyond-int64.yaml": ("ok", ""),
    "c3-conf-ancestor-level-int64-max.yaml": ("ok", ""),
    # 4. over-committed nodes
    "c4-overcommit-cpu-reclaim.yaml": ("warning", f"Node/n1: {OVER} (cpu 6 > 4); Volcano logs 'Node out of sync'"),
    "c4-overcommit-capacity-plugin.yaml": ("warning", f"Node/n1: {OVER} (cpu 6 > 4)"),
    "c4-overcommit-pod-count.yaml": ("warning", f"Node/n1: {OVER} (pods 3 > 2)"),
    "c4-overcommit-allocate-elsewhere.yaml": ("warning", f"Node/n1: {OVER} (memory 3Gi > 2Gi)"),
    # 5. what Go / Kubernetes refuse where Python reads more
    "c5-yaml-sexagesimal-cpu.yaml": ("error", "Pod/ns1/p-0: spec.containers[0].resources.requests.cpu: invalid "
                                     "quantity '1:30'"),
    "c5-yaml-sexagesimal-float-memory.yaml": ("error", "Node/n1: status.allocatable.memory: invalid quantity "
                                              "'1:30.5'"),
    "c5-yaml-sexagesimal-deserved.yaml": ("error", "Queue/default: spec.deserved.cpu: invalid quantity '2:00'"),
    "c5-quantity-arabic-digits.yaml": ("error", "Node/n1: status.allocatable.cpu: invalid quantity '٣'"),
    "c5-quantity-underscore-quoted.yaml": ("error", "Node/n1: status.allocatable.cpu: invalid quantity '1_000'"),
    "c5-minmember-arabic-digits.yaml": ("error", "PodGroup/ns1/j1: spec.minMember: must be an integer"),
    "c5-task-priority-arabic-digits.yaml": ("warning", "Pod/ns1/p-0: metadata.annotations.volcano.sh/task-priority: "
                                            "not an integer; ignored"),
    "c5-node-affinity-gt-arabic-digits.yaml": ("warning", "Node/n1: metadata.labels.gpu-count: '٣' is not a valid "
                                               "Kubernetes label value"),
    # 6. names the API server would refuse
    "c6-name-uppercase-node.yaml": ("warning", "Node/Node-A: metadata.name: 'Node-A' is not a valid Kubernetes name "
                                    "(has uppercase letters"),
    "c6-name-too-long-pod.yaml": ("warning", "Pod/ns1/p-xxx"),
    "c6-name-control-characters-queue.yaml": ("warning", "Queue/evil\\x1b[31mred\\nq: metadata.name: "
                                              "'evil\\x1b[31mred\\nq' is not a valid Kubernetes name (holds control"),
    "c6-name-bidi-override-pod.yaml": ("warning", "Pod/ns1/p-0\\u202egnp.exe: metadata.name: 'p-0\\u202egnp.exe' is "
                                       "not a valid Kubernetes name"),
    "c6-namespace-invalid.yaml": ("warning", "Pod/Team_A/p-0: metadata.namespace: 'Team_A' is not a valid Kubernetes "
                                  "namespace name"),
    "c6-label-value-invalid.yaml": ("warning", "Node/n1: metadata.labels.zone: '-east' is not a valid Kubernetes "
                                    "label value"),
    "c6-label-key-invalid.yaml": ("warning", "Node/n1: metadata.labels.rack id: 'rack id' is not a valid Kubernetes "
                                  "label key"),
    "c6-name-dot-start-podgroup.yaml": ("warning", "PodGroup/ns1/.hidden: metadata.name: '.hidden' is not a valid "
                                        "Kubernetes name"),
}

#: What `explain` is asked about (default: the pod ns1/p-0).
EXPLAIN: dict[str, list[str]] = {
    **{n: ["--pod", "ai/training-urgent-worker-0"] for n in EXPECT if n.startswith("c2-")},
    **{n: ["--pod", "ns1/jb-0"] for n in EXPECT if n.startswith("c4-") and "pod" not in n and "elsewhere" not in n},
    "c1-hierarchy-notready-running-pods.yaml": ["--pod", "ns1/p-0", "--what-if"],
    "c6-name-too-long-pod.yaml": ["--job", "ns1/j1"],
    "c6-name-bidi-override-pod.yaml": ["--job", "ns1/j1"],
    "c6-namespace-invalid.yaml": ["--pod", "Team_A/p-0"],
    "c6-name-dot-start-podgroup.yaml": ["--job", "ns1/.hidden"],
}
_CONTROL = re.compile(r"[\x00-\x08\x0b-\x1f\x7f\u202a-\u202e\u2066-\u2069]")


def _run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = cli.main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def _check(name: str, code: int, out: str, err: str, warnings_shown: bool = True) -> None:
    """The outcome EXPECT names; `explain` prints no load warnings (only simulate does), so not checked there."""
    outcome, start = EXPECT[name]
    assert "Traceback" not in err
    assert not _CONTROL.search(err), f"a raw control character reached the terminal: {err!r}"
    if outcome == "error":
        lines = err.splitlines()
        assert code == 2 and out == "", err
        assert len(lines) == 1 and lines[0].startswith(f"error: {start}"), err
        return
    assert code == 0, err
    assert all(line.startswith("warning: ") for line in err.splitlines()), err
    if outcome == "warning" and warnings_shown:
        warnings = [line.removeprefix("warning: ") for line in err.splitlines()]
        assert any(w.startswith(start) for w in warnings), f"no warning starting {start!r} in:\n{err}"


def test_corpus_and_table_agree() -> None:
    assert sorted(p.name for p in CORPUS_DIR.iterdir()) == sorted(EXPECT)
    assert len(EXPECT) >= 35
    for cls in "123456":
        assert any(n.startswith(f"c{cls}-") for n in EXPECT), f"class {cls} has no input"


@pytest.mark.parametrize("name", sorted(EXPECT))
def test_simulate(name: str, capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = _run(capsys, "simulate", str(CORPUS_DIR / name), "--format", "json")
    _check(name, code, out, err)
    if code == 0:
        json.loads(out)


@pytest.mark.parametrize("name", sorted(EXPECT))
def test_explain(name: str, capsys: pytest.CaptureFixture[str]) -> None:
    what = EXPLAIN.get(name, ["--pod", "ns1/p-0"])
    code, out, err = _run(capsys, "explain", str(CORPUS_DIR / name), *what)
    _check(name, code, out, err, warnings_shown=False)
    if code == 0:
        assert out.strip() and not _CONTROL.search(out), out


def _result(path: Path | str, text: str | None = None) -> dict:
    """simulate's JSON for a file (or for `text` instead of its content), warnings discarded."""
    cluster = load_cluster(text, source=str(path)) if text is not None else load_cluster_file(str(path))
    from capacity.core.trace import Trace
    from capacity.scheduler import simulate
    return simulate(cluster, 1, Trace(enabled=False)).as_json()


# ---- 1. no usable node --------------------------------------------------------------------------------------

C1 = sorted(n for n in EXPECT if n.startswith("c1-"))


@pytest.mark.parametrize("name", C1)
def test_no_usable_node_places_nothing_and_evicts_nothing(name: str) -> None:
    """allocate.go:724-728 @ed72c7c8: no node under the cluster's top hyperNode -> no statement; reclaim and
    preempt find no node to work on. The PodGroups keep their phase."""
    out = _result(CORPUS_DIR / name)
    assert out["binds"] == {} and out["evicted"] == [] and out["pipelined"] == {}


@pytest.mark.parametrize("name", ["c1-hierarchy-no-nodes.yaml", "c1-hierarchy-all-notready.yaml"])
def test_every_entry_point_survives_no_usable_node(name: str) -> None:
    """The real `python -m capacity`: simulate, explain, explain --what-if and replay cluster."""
    path = str(CORPUS_DIR / name)
    for argv in (["simulate", path, "--format", "json"], ["explain", path, "--pod", "ns1/p-0"],
                 ["explain", path, "--pod", "ns1/p-0", "--what-if"], ["replay", "cluster", path]):
        proc = subprocess.run([sys.executable, "-m", "capacity", *argv], capture_output=True, text=True, cwd=ROOT,
                              timeout=120, check=False)
        assert proc.returncode == 0 and "Traceback" not in proc.stderr, (argv, proc.stderr)
    proc = subprocess.run([sys.executable, "-m", "capacity", "explain", path, "--pod", "ns1/p-0"],
                          capture_output=True, text=True, cwd=ROOT, timeout=120, check=False)
    assert "pending because the session has no node" in proc.stdout


@pytest.mark.parametrize("name", C1)
def test_the_dashboards_step_survives_no_usable_node(name: str) -> None:
    sim = Simulator(load_cluster_file(str(CORPUS_DIR / name)))
    for _ in range(3):
        sim.step()
    assert all(p.node_name == "" for k, p in sim.cluster.pods.items() if k.startswith("ns1/p-"))


# ---- 2. capacity-card: an annotation or label Go cannot read is ignored --------------------------------------

C2_LINES = {  # the line a Go reader ignores: the result must be that of the file without it
    "c2-card-quota-400-digits.yaml": "volcano.sh/card.quota:",
    "c2-card-quota-deep-nesting.yaml": "volcano.sh/card.quota:",
    "c2-card-quota-beyond-int64.yaml": "volcano.sh/card.quota:",
    "c2-card-quota-below-int64.yaml": "volcano.sh/card.quota:",
    "c2-card-quota-exponent.yaml": "volcano.sh/card.quota:",
    "c2-card-request-400-digits.yaml": "volcano.sh/card.request:",
    "c2-card-request-deep-nesting.yaml": "volcano.sh/card.request:",
    "c2-card-node-memory-400-digits.yaml": "nvidia.com/gpu.memory:",
    "c2-card-node-memory-arabic-digits.yaml": "nvidia.com/gpu.memory:",
    "c2-card-node-memory-underscore.yaml": "nvidia.com/gpu.memory:",
}


def test_every_card_case_is_compared() -> None:
    assert sorted(C2_LINES) == sorted(n for n in EXPECT if n.startswith("c2-"))


@pytest.mark.parametrize("name", sorted(C2_LINES))
def test_an_unreadable_card_annotation_decides_as_if_absent(name: str) -> None:
    """Go's json.Unmarshal into map[string]int fails on a count beyond int64, a non-integer or nesting, and
    strconv.Atoi on a label beyond int64 or not in ASCII digits: capacity-card then reads nothing (no quota,
    no request, memory 0). (The plugin is not in upstream Volcano at ed72c7c8: spec actions-framework
    §13.4 and seed 001 describe it; the Go rules are encoding/json's and strconv's.)"""
    path = CORPUS_DIR / name
    text = path.read_text(encoding="utf-8")
    first = next(i for i, line in enumerate(text.splitlines()) if C2_LINES[name] in line)
    without = "\n".join(line for i, line in enumerate(text.splitlines()) if i != first) + "\n"
    assert _result(path) == _result(path, without)


# ---- 3. a configuration Volcano refuses runs the default ------------------------------------------------------

C3_REFUSED = sorted(n for n, (o, _) in EXPECT.items() if n.startswith("c3-") and o == "warning")


@pytest.mark.parametrize("name", C3_REFUSED)
def test_a_refused_configuration_runs_the_default_with_one_warning(name: str) -> None:
    """scheduler.go:196-203 @ed72c7c8: UnmarshalSchedulerConf fails -> the previous configuration stays, at
    start DefaultSchedulerConf (scheduler.go:172-180). Exactly one warning says so."""
    path = CORPUS_DIR / name
    cluster = load_cluster_file(str(path))
    assert cluster.conf.actions == ["enqueue", "allocate", "backfill"]
    assert [t.name for tier in cluster.conf.tiers for t in tier] == [
        "priority", "gang", "conformance", "overcommit", "drf", "predicates", "proportion", "nodeorder"]
    said = [str(w) for w in [*cluster.warnings, *cluster.conf.warnings] if REFUSED in str(w)]
    assert len(said) == 1, said
    text = path.read_text(encoding="utf-8")
    no_conf = text[text.index("\n---\n") + 1:]  # the same objects, no ConfigMap: Volcano's default
    assert _result(path) == _result(path, no_conf)


def test_padded_action_names_are_trimmed_as_volcano_does() -> None:
    """util.go:83-90 @ed72c7c8: strings.TrimSpace on each name; accepted, no warning about it."""
    cluster = load_cluster_file(str(CORPUS_DIR / "c3-conf-actions-padded.yaml"))
    assert cluster.conf.actions == ["enqueue", "allocate"] and not cluster.conf.warnings
    assert _result(CORPUS_DIR / "c3-conf-actions-padded.yaml")["binds"] == {"ns1/p-0": "n1"}


def test_an_ancestor_level_beyond_int64_is_ignored_and_int64_max_does_not_hang() -> None:
    """Arguments.GetInt (framework/arguments.go:38-55 @ed72c7c8) keeps the default 0 for a value yaml.v2 does
    not decode as int; 2**63 - 1 is every level, which decides as the tree's depth (the loop past it only
    `continue`s, capacity.go:554-556, 685-687)."""
    beyond = _result(CORPUS_DIR / "c3-conf-ancestor-level-beyond-int64.yaml")
    most = _result(CORPUS_DIR / "c3-conf-ancestor-level-int64-max.yaml")
    assert beyond["evicted"] == most["evicted"] == ["ns1/jb-0"]
    assert beyond["pipelined"] == most["pipelined"] == {"ns1/j1": ["n1"]}
    from capacity.core.conf import get_int
    assert get_int({"ancestorReclaimLevel": 10**22}, "ancestorReclaimLevel", 0)[0] == 0


# ---- 4. over-committed nodes ------------------------------------------------------------------------------------

@pytest.mark.parametrize("name", ["c4-overcommit-cpu-reclaim.yaml", "c4-overcommit-capacity-plugin.yaml"])
def test_reclaim_on_an_over_committed_node_frees_the_deficit_too(name: str) -> None:
    """Volcano keeps the node Ready (setNodeState only logs 'Node out of sync', node_info.go:318-340) and adds
    every running task with allocateIdleResource (node_info.go:426-437, 441-487): n1's idle is 4 - 6 = -2 cpu.
    reclaim starts from FutureIdle = -2 and evicts until the 1-cpu request fits (reclaim.go:222-247):
    -2 -> -1 -> 0 -> 1, three pods, the youngest first; the reclaimer is pipelined onto n1."""
    out = _result(CORPUS_DIR / name)
    assert out["evicted"] == ["ns1/ja-5", "ns1/ja-4", "ns1/ja-3"]
    assert out["pipelined"] == {"ns1/jb": ["n1"]} and out["binds"] == {}


@pytest.mark.parametrize("name", ["c4-overcommit-pod-count.yaml", "c4-overcommit-allocate-elsewhere.yaml"])
def test_nothing_more_fits_on_an_over_committed_node(name: str) -> None:
    assert _result(CORPUS_DIR / name)["binds"] == {"ns1/p-0": "n2"}


def test_a_node_within_its_allocatable_is_not_warned_about() -> None:
    text = (CORPUS_DIR / "c4-overcommit-cpu-reclaim.yaml").read_text(encoding="utf-8").replace(
        "cpu: '4', memory: 8Gi", "cpu: '6', memory: 8Gi")
    assert not [w for w in load_cluster(text).warnings if OVER in str(w)]


# ---- 5. Go / Kubernetes parsing -------------------------------------------------------------------------------

def test_yaml_reads_scalars_as_kubernetes_does() -> None:
    """sigs.k8s.io/yaml -> goyaml.v2: no base-60 numbers; octal, hex, underscores and YAML 1.1 booleans as
    PyYAML; a 5,000-digit integer stays text (Python's int() refuses it past 4,300 digits)."""
    from capacity.core.limits import safe_load
    got = safe_load("a: 1:30\nb: 1:30.5\nc: 0755\nd: 1_000\ne: 0x1F\nf: yes\ng: 'on'\nh: " + "9" * 5000 + "\n")
    assert got["a"] == "1:30" and got["b"] == "1:30.5" and got["c"] == 493 and got["d"] == 1000
    assert got["e"] == 31 and got["f"] is True and got["g"] == "on" and got["h"] == "9" * 5000


def test_node_affinity_gt_reads_only_go_integers() -> None:
    """nodeaffinity's Gt/Lt parse with strconv.ParseInt(s, 10, 64): '٣' is no number, so the node does not
    match and the pod stays pending; written '3' it matches."""
    path = CORPUS_DIR / "c5-node-affinity-gt-arabic-digits.yaml"
    assert _result(path)["binds"] == {}
    assert _result(path, path.read_text(encoding="utf-8").replace('"\\u0663"', '"3"'))["binds"] == {"ns1/p-0": "n1"}


# ---- 6. names ------------------------------------------------------------------------------------------------

@pytest.mark.parametrize("name", sorted(n for n in EXPECT if n.startswith("c6-")))
def test_an_invalid_name_is_simulated_as_given(name: str) -> None:
    """The scheduler never sees such objects (the API server refuses them); kept, so the pod is placed."""
    out = _result(CORPUS_DIR / name)
    assert len(out["binds"]) == 1


def test_safe_shows_control_characters_escaped() -> None:
    assert safe("a\x1b[31mb\nc\u202ed") == "a\\x1b[31mb\\nc\\u202ed"
    assert safe("naïve ünïcode 名前") == "naïve ünïcode 名前"


def test_a_huge_name_gives_short_warnings() -> None:
    text = (CORPUS_DIR / "c6-name-too-long-pod.yaml").read_text(encoding="utf-8").replace("x" * 298, "x" * 100_000)
    lines = [str(w) for w in load_cluster(text).warnings]
    assert lines and all(len(line) < 1500 for line in lines)
