"""The bad-input corpus (issue 8): every input gets one clear message naming object and field.

`corpus/` holds one file per bad input; `CORPUS` below says what each must produce:

* ``("error", needle)``: input Volcano cannot schedule from. The CLI (`python -m capacity simulate FILE
  --format json`) exits 2 and prints exactly one line, ``error: <obj>: <field>: <message>``, which
  starts with ``needle`` (object and field); no traceback. The library raises `InputError` with the
  same text, which is what the dashboard shows next to the input (keeping the previous valid state).
* ``("warning", needle)``: input Volcano tolerates. It is kept with Volcano's behaviour (exit 0, JSON on
  stdout) and one ``warning: <obj>: <field>: <message>`` line on stderr starts with ``needle``.

Inputs too big or too binary to commit (a 10 MB file, random bytes, a 200,000-level nesting, a file over
the size limit) are generated at run time by the tests further down.
"""

from __future__ import annotations

import json
import os
import random
import subprocess
import sys
import time
from pathlib import Path

import pytest
import yaml

from capacity import cli
from capacity.core import limits
from capacity.core.errors import InputError
from capacity.io.k8s import load_cluster, load_cluster_file

ROOT = Path(__file__).resolve().parents[2]
CORPUS_DIR = Path(__file__).resolve().parent / "corpus"

CORPUS: dict[str, tuple[str, str]] = {
    # malformed YAML: the source, then line and column
    "malformed-unclosed-flow.yaml": ("error", "{src}: line 5, column 7: malformed YAML"),
    "malformed-indentation.yaml": ("error", "{src}: line 6, column 2: malformed YAML"),
    "malformed-tab-indent.yaml": ("error", "{src}: line 5, column 1: malformed YAML"),
    # wrong kinds
    "not-an-object-scalar.yaml": ("error", "{src}: document 1: is not a Kubernetes object"),
    "not-an-object-list.yaml": ("error", "{src}: document 1: is not a Kubernetes object"),
    "kind-missing.yaml": ("error", "{src}: kind: an object has no kind"),
    "kind-not-a-string.yaml": ("error", "{src}: kind: an object has kind the number 5"),
    "list-items-not-a-list.yaml": ("error", "{src}: document 1.items: must be a list"),
    "kind-unknown.yaml": ("warning", "Deployment/web: kind: kind not used by the scheduler"),
    "kind-misspelled.yaml": ("warning", "queue/team-a: kind: kind not used by the scheduler; ignored (did you "
                             "mean 'Queue'?)"),
    # missing names
    "metadata-missing.yaml": ("error", "Node: metadata: is missing"),
    "name-missing.yaml": ("error", "Queue: metadata.name: is missing"),
    "name-empty.yaml": ("error", "Pod: metadata.name: is missing or empty"),
    "name-not-a-string.yaml": ("error", "PodGroup: metadata.name: must be a string"),
    # duplicates
    "duplicate-node.yaml": ("error", "Node/node-1: metadata.name: duplicate"),
    "duplicate-queue.yaml": ("error", "Queue/team-a: metadata.name: duplicate"),
    "duplicate-podgroup.yaml": ("error", "PodGroup/ns1/job-1: metadata.name: duplicate"),
    "duplicate-pod.yaml": ("error", "Pod/ns1/p-0: metadata.name: duplicate"),
    "duplicate-key.yaml": ("error", "{src}: line 9, column 5: mapping key 'cpu' appears more than once"),
    # the queue tree
    "queue-cycle.yaml": ("error", "Queue/a: spec.parent: queue parents form a cycle: a -> c -> b -> a"),
    "queue-self-parent.yaml": ("error", "Queue/team-a: spec.parent: a queue cannot be its own parent"),
    "queue-unknown-parent.yaml": ("warning", "Queue/team-a: spec.parent: parent queue 'ghost' does not exist"),
    "queue-priority-negative.yaml": ("error", "Queue/team-a: spec.priority: must be between 0 and"),
    # jobs and pods pointing nowhere (Volcano tolerates all of these)
    "job-on-non-leaf-queue.yaml": ("warning", "PodGroup/ns1/job-1: spec.queue: queue 'team-a' has child queues"),
    "podgroup-missing-queue.yaml": ("warning", "PodGroup/ns1/job-1: spec.queue: queue 'ghost' does not exist"),
    "pod-missing-podgroup.yaml": ("warning", "Pod/ns1/orphan-0: metadata.annotations.scheduling.k8s.io/"
                                  "group-name: PodGroup ns1/no-such-group does not exist"),
    "pod-on-missing-node.yaml": ("warning", "Pod/ns1/p-0: spec.nodeName: node 'node-9' does not exist"),
    "pod-phase-unknown.yaml": ("error", "Pod/ns1/p-0: status.phase: unknown pod phase 'Sleeping'"),
    # quantities
    "quantity-negative.yaml": ("error", "Queue/team-a: spec.capability.memory: must not be negative"),
    "quantity-huge.yaml": ("error", "Node/node-1: status.allocatable.cpu: quantity '1e40' is too large"),
    "quantity-huge-digits.yaml": ("error", "Node/node-1: status.allocatable.memory: quantity '9999"),
    "quantity-unparsable.yaml": ("error", "Pod/ns1/p-0: spec.containers[0].resources.requests.cpu: invalid "
                                 "quantity 'lots'"),
    "quantity-bad-suffix.yaml": ("error", "Node/node-1: status.allocatable.memory: invalid quantity '16GB'"),
    "quantity-boolean.yaml": ("error", "Queue/team-a: spec.deserved.cpu: expected a quantity"),
    "quantity-nan.yaml": ("error", "Node/node-1: status.allocatable.cpu: invalid quantity nan"),
    "quantity-unitless-memory.yaml": ("warning", "Node/node-1: status.allocatable.memory: 16 has no unit, so it "
                                      "is 16 bytes"),
    "resource-unknown-name.yaml": ("warning", "Pod/ns1/job-1-0: spec.containers[0].resources.requests.cpus: "
                                   "not a resource name Volcano parses; Volcano does not count it (did you "
                                   "mean 'cpu'?)"),
    # empty input
    "empty.yaml": ("error", "{src}: contains no Kubernetes objects"),
    "only-comments.yaml": ("error", "{src}: contains no Kubernetes objects"),
    # hostile YAML
    "anchor-bomb-lists.yaml": ("error", "{src}: line 13, column 12: YAML aliases expand to more than"),
    "anchor-bomb-merge.yaml": ("error", "{src}: line 22, column 19: YAML aliases expand to more than"),
    "anchor-recursive.yaml": ("error", "{src}: line 6, column 18: alias *meta refers to a collection that "
                              "contains it"),
    "deep-nesting.yaml": ("error", "{src}: line 4, column 106: YAML nested more than 100 levels deep"),
    "python-object-tag.yaml": ("error", "{src}: line 5, column 9: malformed YAML: "
                               "'tag:yaml.org,2002:python/object/apply:os.system' is not allowed"),
    "custom-tag.yaml": ("error", "{src}: line 4, column 18: malformed YAML: '!Ref' is not allowed"),
    # wrong types where the engine would otherwise trip
    "wrong-type-spec.yaml": ("error", "Node/node-1: spec: must be a mapping, got a list"),
    "wrong-type-containers.yaml": ("error", "Pod/ns1/p-0: spec.containers: must be a list, got a mapping"),
    "wrong-type-affinity.yaml": ("error", "Pod/ns1/p-0: spec.affinity.nodeAffinity."
                                 "requiredDuringSchedulingIgnoredDuringExecution.nodeSelectorTerms[0]."
                                 "matchExpressions[0].key: must be a string"),
    "wrong-type-null-affinity-term.yaml": ("error", "Pod/ns1/p-0: spec.affinity.podAntiAffinity."
                                           "requiredDuringSchedulingIgnoredDuringExecution[0]: must not be null"),
    "wrong-type-toleration.yaml": ("error", "Pod/ns1/p-0: spec.tolerations[0]: must be a mapping"),
    "wrong-type-boolean.yaml": ("error", "Queue/team-a: spec.reclaimable: must be true or false, got the string"),
    "wrong-type-integer.yaml": ("error", "PodGroup/ns1/job-1: spec.minMember: must be an integer"),
    # the scheduler configuration
    # Volcano refuses these files whole and keeps its previous (at start: default) configuration (issue 26)
    "conf-malformed.yaml": ("warning", "ConfigMap/volcano-scheduler-configmap: data.volcano-scheduler.conf: line 4, "
                            "column 1: malformed YAML"),
    "conf-unknown-action.yaml": ("warning", "ConfigMap/volcano-scheduler-configmap: data.volcano-scheduler.conf: "
                                 "actions[1]: unknown action 'allocte'"),
    "conf-wrong-type.yaml": ("warning", "ConfigMap/volcano-scheduler-configmap: data.volcano-scheduler.conf: "
                             "configurations: must be a list"),
    "conf-misspelled-switch.yaml": ("warning", "volcano-scheduler.conf: tiers[0].plugins[1].enabledHierarchy: "
                                    "unknown switch"),
}


def _cli(capsys: pytest.CaptureFixture[str], path: Path | str, *extra: str) -> tuple[int, str, str]:
    """`python -m capacity simulate PATH --format json`, in process (the same `main` the module runs)."""
    code = cli.main(["simulate", str(path), "--format", "json", *extra])
    out, err = capsys.readouterr()
    return code, out, err


def _expect_error(code: int, out: str, err: str, needle: str) -> None:
    lines = err.splitlines()
    assert code == 2, err
    assert out == ""
    assert len(lines) == 1, f"expected one message, got:\n{err}"
    assert lines[0].startswith(f"error: {needle}"), lines[0]
    assert "Traceback" not in err
    obj_field_message = lines[0].removeprefix("error: ").split(": ")
    assert len(obj_field_message) >= 2 and all(obj_field_message[:2]), "names neither object nor field"


def test_corpus_and_manifest_agree() -> None:
    files = sorted(p.name for p in CORPUS_DIR.iterdir())
    assert files == sorted(CORPUS), "every corpus file needs an expectation, and every expectation a file"


@pytest.mark.parametrize("name", sorted(CORPUS))
def test_corpus_cli(name: str, capsys: pytest.CaptureFixture[str]) -> None:
    path = CORPUS_DIR / name
    outcome, needle = CORPUS[name]
    needle = needle.format(src=path)
    started = time.perf_counter()
    code, out, err = _cli(capsys, path)
    assert time.perf_counter() - started < 10, "bad input must be refused quickly"
    if outcome == "error":
        _expect_error(code, out, err, needle)
    else:
        assert code == 0, err
        json.loads(out)
        warnings = [line.removeprefix("warning: ") for line in err.splitlines()]
        assert all(line.startswith("warning: ") for line in err.splitlines()), err
        assert any(w.startswith(needle) for w in warnings), f"no warning starting {needle!r} in:\n{err}"


@pytest.mark.parametrize("name", sorted(n for n, (outcome, _) in CORPUS.items() if outcome == "error"))
def test_corpus_library_raises_input_error(name: str) -> None:
    """What the dashboard calls: `load_cluster(text)` raises InputError with the CLI's very text."""
    path = CORPUS_DIR / name
    with pytest.raises(InputError) as info:
        load_cluster(path.read_text(encoding="utf-8"), source=str(path))
    assert str(info.value).startswith(CORPUS[name][1].format(src=path))
    assert info.value.obj, "an InputError must name the object (or the source)"


def test_the_real_cli_exits_2_without_traceback() -> None:
    """One end-to-end run of `python -m capacity` per outcome (the rest run in process)."""
    for name, code in (("queue-cycle.yaml", 2), ("anchor-bomb-lists.yaml", 2), ("pod-missing-podgroup.yaml", 0)):
        proc = subprocess.run([sys.executable, "-m", "capacity", "simulate", str(CORPUS_DIR / name), "--format",
                               "json"], capture_output=True, text=True, cwd=ROOT, timeout=60, check=False)
        assert proc.returncode == code, proc.stderr
        assert "Traceback" not in proc.stderr
        if code == 0:
            json.loads(proc.stdout)


def test_python_tags_are_never_executed(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    marker = tmp_path / "owned"
    f = tmp_path / "evil.yaml"
    f.write_text(f"kind: Node\nmetadata: {{name: n}}\nstatus: !!python/object/apply:os.system ['touch {marker}']\n")
    code, _, err = _cli(capsys, f)
    assert code == 2 and "is not allowed" in err
    assert not marker.exists()


# ---- generated at run time ------------------------------------------------------------------------

def _valid_cluster() -> str:
    return (CORPUS_DIR / "pod-missing-podgroup.yaml").read_text(encoding="utf-8")


@pytest.fixture(scope="module")
def ten_mb_file(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A valid cluster padded to 10 MB: a long annotation and a large comment block."""
    path = tmp_path_factory.mktemp("big") / "ten-mb.yaml"
    pad = "x" * 4_000_000
    text = (_valid_cluster() + "\n---\napiVersion: v1\nkind: Node\nmetadata:\n  name: padded\n  annotations:\n"
            f"    note: \"{pad}\"\nstatus:\n  allocatable: {{cpu: '1', memory: 1Gi}}\n")
    text += "# padding\n" * ((10_000_000 - len(text)) // 10 + 1)
    path.write_text(text, encoding="utf-8")
    assert path.stat().st_size >= 10_000_000
    return path


def test_ten_mb_file_within_the_limit_is_read(ten_mb_file: Path, capsys: pytest.CaptureFixture[str]) -> None:
    started = time.perf_counter()
    code, out, err = _cli(capsys, ten_mb_file)
    assert code == 0, err
    assert "Traceback" not in err
    json.loads(out)
    assert time.perf_counter() - started < 30


def test_ten_mb_file_over_a_lower_limit_is_refused(ten_mb_file: Path, capsys: pytest.CaptureFixture[str],
                                                  monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(limits.MAX_INPUT_ENV, "5")
    code, out, err = _cli(capsys, ten_mb_file)
    _expect_error(code, out, err, f"{ten_mb_file}: is 10.0 MB, larger than the 5.0 MB input limit "
                  f"(set {limits.MAX_INPUT_ENV} to raise it)")
    # The dashboard path: the same limit on text.
    with pytest.raises(InputError, match="larger than the 5.0 MB input limit"):
        load_cluster(ten_mb_file.read_text(encoding="utf-8"), source="upload")


def test_default_limit_is_50_mb(tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv(limits.MAX_INPUT_ENV, raising=False)
    assert limits.max_input_bytes() == 50_000_000
    f = tmp_path / "huge.yaml"
    with open(f, "wb") as fh:
        fh.truncate(60_000_000)  # sparse: 60 MB of NUL bytes without writing them
    started = time.perf_counter()
    code, out, err = _cli(capsys, f)
    _expect_error(code, out, err, f"{f}: is 60.0 MB, larger than the 50.0 MB input limit")
    assert time.perf_counter() - started < 10


def test_bad_limit_setting_is_reported(monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.setenv(limits.MAX_INPUT_ENV, "lots")
    code, out, err = _cli(capsys, CORPUS_DIR / "kind-unknown.yaml")
    _expect_error(code, out, err, f"{limits.MAX_INPUT_ENV}: must be a positive number of megabytes")


@pytest.mark.parametrize("seed", range(5))
def test_binary_garbage(seed: int, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    rng = random.Random(seed)
    f = tmp_path / "garbage.bin"
    f.write_bytes(bytes(rng.randrange(256) for _ in range(4096)))
    code, out, err = _cli(capsys, f)
    _expect_error(code, out, err, f"{f}: ")
    assert "binary" in err or "UTF-8" in err


def test_binary_garbage_without_nul_bytes(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    rng = random.Random(7)
    f = tmp_path / "garbage.bin"
    f.write_bytes(bytes(rng.randrange(1, 256) for _ in range(4096)))
    code, out, err = _cli(capsys, f)
    _expect_error(code, out, err, f"{f}: byte ")
    assert "is not a UTF-8 text file" in err


def test_control_characters_in_utf8(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    f = tmp_path / "control.yaml"
    f.write_text("kind: Node\nmetadata: {name: n\x01}\n", encoding="utf-8")
    code, out, err = _cli(capsys, f)
    _expect_error(code, out, err, f"{f}: line 2, column 19: malformed YAML: control characters are not allowed "
                  "(#x0001)")


def test_latin1_file(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    f = tmp_path / "latin1.yaml"
    f.write_bytes("kind: Node\nmetadata: {name: n\u00e9}\n".encode("latin-1"))
    code, out, err = _cli(capsys, f)
    _expect_error(code, out, err, f"{f}: byte 30: is not a UTF-8 text file")


def test_a_directory_and_a_missing_file(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = _cli(capsys, tmp_path)
    _expect_error(code, out, err, f"{tmp_path}: cannot be read")
    code, out, err = _cli(capsys, tmp_path / "nope.yaml")
    _expect_error(code, out, err, f"{tmp_path / 'nope.yaml'}: cannot be read")


@pytest.mark.skipif(not os.path.exists("/dev/zero"), reason="needs /dev/zero")
def test_an_endless_file_is_cut_at_the_limit(capsys: pytest.CaptureFixture[str],
                                              monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(limits.MAX_INPUT_ENV, "1")
    code, out, err = _cli(capsys, "/dev/zero")
    _expect_error(code, out, err, "/dev/zero: is more than 1.0 MB, larger than the 1.0 MB input limit")


def test_deep_nesting_does_not_crash_the_process(tmp_path: Path) -> None:
    """200,000 nested flow lists: libyaml's C composer used to overflow the C stack (segmentation fault)."""
    f = tmp_path / "deep.yaml"
    f.write_text("[" * 200_000 + "]" * 200_000)
    proc = subprocess.run([sys.executable, "-m", "capacity", "simulate", str(f), "--format", "json"],
                          capture_output=True, text=True, cwd=ROOT, timeout=60, check=False)
    assert proc.returncode == 2, (proc.returncode, proc.stderr)
    # Where: column 101 (the 101st '['), or column 1001 with PyYAML >= 6.0.4, whose own limit of 1,000 levels
    # trips first as its scanner reads ahead.
    head, _, message = proc.stderr.strip().partition(": line 1, column ")
    assert head == f"error: {f}"
    column, _, message = message.partition(": ")
    assert column in ("101", "1001")
    # `[[[...` is JSON as much as YAML: read as JSON (first character `[`), refused with the same words.
    assert message == "JSON nested more than 100 levels deep; refused (Kubernetes objects need far fewer)"


def test_deep_block_nesting_and_compact_sequences() -> None:
    block = "".join("  " * i + f"k{i}:\n" for i in range(150)) + "  " * 150 + "leaf: 1\n"
    with pytest.raises(InputError, match="nested more than 100 levels"):
        load_cluster(block)
    with pytest.raises(InputError, match="nested more than 100 levels"):
        load_cluster("- " * 50_000 + "x\n")


def test_many_aliases_in_a_large_legitimate_file_are_fine() -> None:
    """Anchors reused linearly (one per node) are not a bomb: the allowance grows with the file."""
    items = ["- {kind: Node, metadata: {name: n}, status: {allocatable: &alloc {cpu: '64', memory: 256Gi}}}"]
    items += [f"- {{kind: Node, metadata: {{name: n{i}}}, status: {{allocatable: *alloc}}}}" for i in range(2000)]
    text = "kind: List\nitems:\n" + "\n".join(items)
    # 2,000 aliases of 5 nodes each = 10,000 expanded nodes: over a 1,000 base allowance, but the file
    # itself has ~30,000 events, which allow ten times that.
    limits._one_pass(text, "input", limits.MAX_DEPTH, 1000, build=False)  # the guard alone
    assert len(load_cluster(text).nodes) == 2001
    bomb = (CORPUS_DIR / "anchor-bomb-lists.yaml").read_text(encoding="utf-8")
    with pytest.raises(InputError, match="expand to more than 1,000 nodes"):
        limits._one_pass(bomb, "input", limits.MAX_DEPTH, 1000, build=False)


def test_a_huge_name_gives_a_short_message() -> None:
    text = yaml.safe_dump_all([{"kind": "Queue", "metadata": {"name": "q" * 1_000_000}, "spec": {"priority": -1}}])
    with pytest.raises(InputError) as info:
        load_cluster(text)
    assert len(str(info.value)) < 2000


def test_a_deep_queue_chain_is_refused_in_linear_time() -> None:
    """A parent chain 5,000 queues long (the webhook allows 5): refused at once, not after O(n^2) walks."""
    objs = [{"kind": "Queue", "metadata": {"name": "q0"}, "spec": {}}]
    objs += [{"kind": "Queue", "metadata": {"name": f"q{i}"}, "spec": {"parent": f"q{i - 1}"}} for i in range(1, 5000)]
    started = time.perf_counter()
    from capacity.io.k8s import load_objects
    with pytest.raises(InputError, match=r"Queue/q100: spec\.parent: the queue is 101 levels below the root"):
        load_objects(objs)
    assert time.perf_counter() - started < 5


def test_unquoted_timestamps_read_like_quoted_ones() -> None:
    """kubectl quotes creationTimestamp; a hand-written file may not. Both must order jobs the same way."""
    quoted = load_cluster("kind: Queue\nmetadata: {name: q, creationTimestamp: '2024-01-02T03:04:05Z'}\n")
    bare = load_cluster("kind: Queue\nmetadata: {name: q, creationTimestamp: 2024-01-02T03:04:05Z}\n")
    assert quoted.queues["q"].creation == bare.queues["q"].creation == "2024-01-02T03:04:05Z"


def test_a_file_over_the_limit_is_not_read_whole(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(limits.MAX_INPUT_ENV, "0.001")
    f = tmp_path / "big.yaml"
    f.write_text("# " + "x" * 5000 + "\n")
    with pytest.raises(InputError, match="is 5.0 KB|is 5003 bytes, larger than the 1000 bytes input limit"):
        load_cluster_file(str(f))


def test_binary_conf_file_is_refused_cleanly(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    garbage = tmp_path / "conf.bin"
    garbage.write_bytes(bytes(random.Random(3).randrange(128, 256) for _ in range(512)))
    code, out, err = _cli(capsys, CORPUS_DIR / "kind-unknown.yaml", "--conf", str(garbage))
    _expect_error(code, out, err, f"{garbage}: byte 1: is not a UTF-8 text file")
