"""The scheduler's Volcano version read from the dump's image tag (used by check and the version selector)."""

from __future__ import annotations

import pytest

from capacity.io.volcano_image import image_version, scheduler_version


def _deployment(image: str, name: str = "volcano-scheduler") -> dict:
    return {"apiVersion": "apps/v1", "kind": "Deployment",
            "metadata": {"name": name, "namespace": "volcano-system", "labels": {"app": "volcano-scheduler"}},
            "spec": {"template": {"metadata": {"labels": {"app": "volcano-scheduler"}},
                                  "spec": {"containers": [{"name": "volcano-scheduler", "image": image}]}}}}


def _pod(image: str, labels: dict | None = None) -> dict:
    return {"apiVersion": "v1", "kind": "Pod",
            "metadata": {"name": "volcano-scheduler-7d9f", "namespace": "volcano-system", "labels": labels or {}},
            "spec": {"containers": [{"name": "c", "image": image}]}}


@pytest.mark.parametrize(("image", "version"), [
    ("docker.io/volcanosh/vc-scheduler:v1.13.2", "1.13.2"),
    ("volcanosh/vc-scheduler:1.10.0", "1.10.0"),
    ("registry.local:5000/volcanosh/vc-scheduler:v1.9.0-alpha.0", "1.9.0-alpha.0"),
    ("volcanosh/vc-scheduler:v1.12.1-amd64", "1.12.1"),
    ("volcanosh/vc-scheduler:v1.11.0@sha256:" + "a" * 64, "1.11.0"),
    ("volcanosh/vc-scheduler:latest", None),
    ("volcanosh/vc-scheduler@sha256:" + "b" * 64, None),
    ("registry.local:5000/volcanosh/vc-scheduler", None),
])
def test_image_tag_to_version(image: str, version: str | None) -> None:
    assert image_version(image) == version


def test_version_from_the_scheduler_deployment_before_a_pod() -> None:
    docs = [_pod("volcanosh/vc-scheduler:v1.12.0", {"app": "volcano-scheduler"}),
            _deployment("volcanosh/vc-scheduler:v1.13.2")]
    assert scheduler_version(docs) == "1.13.2"


def test_version_from_a_scheduler_pod_alone() -> None:
    assert scheduler_version([_pod("docker.io/volcanosh/vc-scheduler:v1.12.1")]) == "1.12.1"


def test_no_scheduler_or_no_version_tag_is_none() -> None:
    assert scheduler_version([]) is None
    assert scheduler_version([_pod("nginx:1.25.3")]) is None
    assert scheduler_version([_pod("volcanosh/vc-agent-scheduler:v1.13.0")]) is None
    assert scheduler_version([_deployment("volcanosh/vc-scheduler:latest")]) is None
    assert scheduler_version([{"kind": "Pod", "metadata": None, "spec": "x"}]) is None


@pytest.mark.parametrize(("cluster", "selected", "same"), [
    ("1.13.2", "1.13", True), ("1.13.2", "v1.13.2", True), ("1.13.2", "1.13.1", False),
    ("1.13.2", "1.12", False), ("1.13.2", None, False), ("1.13.2", "head", False), ("1.9.0-alpha.0", "1.9", True),
])
def test_same_release_at_the_precision_selected(cluster: str, selected: str | None, same: bool) -> None:
    from capacity.io.volcano_image import same_release
    assert same_release(cluster, selected) is same


def test_version_label() -> None:
    from capacity.io.volcano_image import version_label
    assert version_label(None) == version_label("head") == "HEAD (ed72c7c8)"
    assert version_label("v1.13") == "1.13"


_DUMP = """\
apiVersion: v1
kind: Node
metadata: {name: n1}
status: {allocatable: {cpu: "4", memory: 8Gi, pods: "110"}}
---
apiVersion: scheduling.volcano.sh/v1beta1
kind: Queue
metadata: {name: q}
spec: {weight: 1}
---
apiVersion: scheduling.volcano.sh/v1beta1
kind: PodGroup
metadata: {name: pg, namespace: default}
spec: {queue: q, minMember: 1}
---
apiVersion: v1
kind: Pod
metadata: {name: p, namespace: default, annotations: {scheduling.k8s.io/group-name: pg}}
spec:
  schedulerName: volcano
  containers: [{name: c, image: busybox, resources: {requests: {cpu: "1"}}}]
"""

_SCHEDULER = """\
---
apiVersion: apps/v1
kind: Deployment
metadata: {name: volcano-scheduler, namespace: volcano-system, labels: {app: volcano-scheduler}}
spec:
  template:
    metadata: {labels: {app: volcano-scheduler}}
    spec: {containers: [{name: volcano-scheduler, image: "volcanosh/vc-scheduler:v1.13.2"}]}
"""


def test_a_loaded_dump_knows_its_scheduler_version() -> None:
    from capacity.io.k8s import load_cluster
    assert load_cluster(_DUMP + _SCHEDULER).scheduler_version == "1.13.2"
    assert load_cluster(_DUMP).scheduler_version is None
    assert load_cluster(_DUMP + _SCHEDULER).copy_state().scheduler_version == "1.13.2"


@pytest.mark.parametrize("with_scheduler", [False, True])
def test_simulate_reads_the_dump_once_even_when_it_names_a_scheduler(
        tmp_path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], with_scheduler: bool) -> None:
    """The version is noted while the dump is read: the text is not parsed a second time to find it (issue 33's
    one pass; pods naming `schedulerName` made every dump parse twice)."""
    from capacity.cli import main
    from capacity.core import limits
    path = tmp_path / "dump.yaml"
    path.write_text(_DUMP + (_SCHEDULER if with_scheduler else ""), encoding="utf-8")
    parsed: list[int] = []
    real = limits.read_yaml_all

    def counting(text, *a, **kw):  # type: ignore[no-untyped-def]
        parsed.append(len(text))
        return real(text, *a, **kw)
    monkeypatch.setattr(limits, "read_yaml_all", counting)
    assert main(["simulate", str(path)]) == 0
    whole = len(path.read_text(encoding="utf-8"))
    assert parsed.count(whole) == 1
    err = capsys.readouterr().err
    assert ("simulating v1.13" in err) == with_scheduler
