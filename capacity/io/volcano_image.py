"""Which Volcano version a dump's scheduler runs, read from its container image tag.

The Helm chart and the release manifests deploy the scheduler as the Deployment `volcano-scheduler`
(label `app: volcano-scheduler`) with the image `<registry>/volcanosh/vc-scheduler:<tag>`
(installer/helm/chart/volcano/templates/scheduler.yaml:L153-198 @ed72c7c8); a release tag is `v1.13.2`.
The version is what `check` compares with the engine's, and what the version selector defaults to.
"""

from __future__ import annotations

import re
from typing import Any

#: The Volcano revision the engine is ported from (HEAD of the mirror), when no version is selected.
ENGINE_REVISION = "ed72c7c8"
ENGINE_VERSION = f"HEAD ({ENGINE_REVISION})"
#: The scheduler's image name (last path segment); vc-agent-scheduler is a different scheduler.
SCHEDULER_IMAGE = "vc-scheduler"
SCHEDULER_APP = "volcano-scheduler"
#: The kinds whose pods may run the scheduler (a Pod's own containers, or a controller's pod template).
WORKLOAD_KINDS = frozenset({"Pod", "Deployment", "ReplicaSet", "StatefulSet", "DaemonSet"})
_VERSION = re.compile(r"v?(\d+)\.(\d+)\.(\d+)(-(?:alpha|beta|rc)\.?\d+)?(?:[-+._].*)?")


def image_version(image: str) -> str | None:
    """'1.13.2' from 'docker.io/volcanosh/vc-scheduler:v1.13.2'; None for `latest`, a digest or no tag.

    A pre-release keeps its suffix ('1.9.0-alpha.0'); a build suffix such as '-amd64' is dropped.
    """
    ref = image.split("@", 1)[0]
    last = ref.rsplit("/", 1)[-1]
    if ":" not in last:
        return None
    tag = last.split(":", 1)[1]
    m = _VERSION.fullmatch(tag)
    if not m:
        return None
    return f"{int(m[1])}.{int(m[2])}.{int(m[3])}{m[4] or ''}"


def _image_name(image: str) -> str:
    return image.split("@", 1)[0].rsplit("/", 1)[-1].split(":", 1)[0]


def _items(value: Any) -> list[Any]:
    return value if isinstance(value, list) else []


def _mapping(value: Any) -> dict[str, Any]:
    return value if isinstance(value, dict) else {}


def _containers(doc: dict[str, Any]) -> tuple[dict[str, Any], list[Any]]:
    """(labels, containers) of a Pod, or of the pod template of a Deployment/ReplicaSet/StatefulSet."""
    kind = doc.get("kind")
    spec, meta = _mapping(doc.get("spec")), _mapping(doc.get("metadata"))
    if kind == "Pod":
        return _mapping(meta.get("labels")), _items(spec.get("containers"))
    if kind in ("Deployment", "ReplicaSet", "StatefulSet", "DaemonSet"):
        tmpl = _mapping(spec.get("template"))
        tmeta, tspec = _mapping(tmpl.get("metadata")), _mapping(tmpl.get("spec"))
        labels = {**_mapping(meta.get("labels")), **_mapping(tmeta.get("labels"))}
        return labels, _items(tspec.get("containers"))
    return {}, []


def scheduler_image(docs: list[dict[str, Any]]) -> str | None:
    """The image of the Volcano scheduler container found in the dump (a Deployment before a Pod)."""
    found: dict[int, str] = {}
    for doc in docs:
        if not isinstance(doc, dict):
            continue
        labels, containers = _containers(doc)
        if not isinstance(containers, list) or not isinstance(labels, dict):
            continue
        rank = 0 if doc.get("kind") != "Pod" else 1
        for c in containers:
            image = c.get("image") if isinstance(c, dict) else None
            if not isinstance(image, str):
                continue
            if _image_name(image) == SCHEDULER_IMAGE or (
                    labels.get("app") == SCHEDULER_APP and "scheduler" in _image_name(image)
                    and "agent" not in _image_name(image)):
                found.setdefault(rank, image)
    return found[min(found)] if found else None


def scheduler_version(docs: list[dict[str, Any]]) -> str | None:
    """The Volcano version of the dump's scheduler ('1.13.2'), or None when the dump has no scheduler
    Deployment/Pod or its tag is not a version (`latest`, a digest, a branch name)."""
    image = scheduler_image(docs)
    return image_version(image) if image else None


def _is_head(version: str | None) -> bool:
    return not version or version.strip().lower() in ("head", "main", "master", "latest")


def version_label(version: str | None) -> str:
    """How a message names the version the engine simulates: '1.13.2', or HEAD when none is selected."""
    return ENGINE_VERSION if _is_head(version) else str(version).strip().lstrip("vV")


def same_release(cluster: str, selected: str | None) -> bool:
    """Whether the cluster's version ('1.13.2') is the release the engine simulates: `selected` names it
    as precisely as it likes ('1.13' matches every 1.13.x); HEAD (None) matches no release."""
    if _is_head(selected):
        return False
    want = str(selected).strip().lstrip("vV").split(".")
    have = cluster.strip().lstrip("vV").split(".")
    return have[:len(want)] == want
