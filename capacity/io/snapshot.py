"""A read-only snapshot of a live cluster, written in the dump format `kubectl get -o yaml` gives.

Only list/get calls are made, with the official Kubernetes client; every other command reads the result
unchanged. Objects are kept exactly as the API server sent them (its JSON, not the client's typed models,
which would rewrite timestamps and drop fields the client does not know), each given its `kind` and
`apiVersion` as kubectl does. Volcano's CRDs (group scheduling.volcano.sh) are read in the version the API
server serves, v1beta1 preferred (discovered through the group's APIGroup document). The scheduler's own Pod
comes with all the others, so its image (the Volcano version) and the ConfigMap it mounts are in the dump.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

from capacity.core.errors import InputError
from capacity.core.text import safe

GROUP = "scheduling.volcano.sh"
PAGE = 500
DEFAULT_CONFIGMAP = "volcano-system/volcano-scheduler-configmap"


class SnapshotError(InputError):
    def __init__(self, msg: str, status: int | None = None) -> None:
        Exception.__init__(self, msg)
        self.obj, self.field, self.message = "snapshot", "", msg
        self.msg = msg
        self.status = status  # the HTTP status of the API server's refusal, when there was one

    def __str__(self) -> str:
        return f"snapshot: {self.msg}"


def _one_line(text: str, limit: int = 200) -> str:
    flat = " ".join(str(text).split())
    return safe(flat if len(flat) <= limit else flat[:limit] + "...")


def contexts(kubeconfig: str) -> tuple[list[str], str | None]:
    """The context names of a kubeconfig and its current one (for a choice in the dashboard)."""
    from kubernetes import config
    try:
        found, current = config.list_kube_config_contexts(config_file=kubeconfig)
    except Exception as exc:  # a missing file, no contexts, malformed YAML: what the library says, on one line
        raise SnapshotError(f"kubeconfig {_one_line(kubeconfig)}: {_one_line(str(exc))}") from None
    names = [str(c.get("name")) for c in found or [] if isinstance(c, dict) and c.get("name")]
    return names, (str(current.get("name")) if isinstance(current, dict) and current.get("name") else None)


def _client(kubeconfig: str, context: str | None) -> Any:
    from kubernetes import client, config
    cfg = client.Configuration()
    try:
        config.load_kube_config(config_file=kubeconfig, context=context, client_configuration=cfg)
    except Exception as exc:  # a missing file, an unknown context, a malformed kubeconfig
        raise SnapshotError(f"kubeconfig {_one_line(kubeconfig)}: {_one_line(str(exc))}") from None
    cfg.retries = False  # one attempt: a timeout is reported after --timeout, not after urllib3's retries
    return client.ApiClient(cfg)


def _status_message(exc: Any) -> str:
    """The API server's own words (Status.message), else the raw body, on one line."""
    try:
        body = json.loads(exc.body or "")
        return _one_line(body.get("message") or "")
    except (ValueError, AttributeError, TypeError):
        return _one_line(str(exc.body or ""))


def _call(what: str, fn: Callable[..., Any], timeout: float, **kw: Any) -> Any:
    """One GET, its answer as the JSON the API server sent; every failure one SnapshotError naming `what`
    (the verb and the resource, as kubectl's RBAC messages do)."""
    from kubernetes.client.exceptions import ApiException
    from urllib3.exceptions import HTTPError, NewConnectionError, ReadTimeoutError
    from urllib3.exceptions import TimeoutError as UrllibTimeout
    try:
        resp = fn(_request_timeout=timeout, _preload_content=False, **kw)
        return json.loads(resp.data)
    except ApiException as exc:
        reason = {401: "unauthorized", 403: "forbidden", 404: "not found"}.get(exc.status, exc.reason or "error")
        message = _status_message(exc)
        if exc.status == 410:  # the list changed past what the server keeps between two pages
            reason = "expired"
            message = "the cluster changed too much while its pages were read; take the snapshot again"
        raise SnapshotError(f"{what}: {reason} ({exc.status}){': ' + message if message else ''}",
                            exc.status) from None
    except NewConnectionError:  # (a subclass of urllib3's TimeoutError: refused is not a timeout)
        raise SnapshotError(f"{what}: API server unreachable (connection refused)") from None
    except (ReadTimeoutError, UrllibTimeout):
        raise SnapshotError(f"{what}: the API server did not answer within {timeout:g}s (--timeout)") from None
    except HTTPError as exc:
        raise SnapshotError(f"{what}: API server unreachable ({type(exc).__name__})") from None
    except ValueError:
        raise SnapshotError(f"{what}: the API server's answer is not JSON") from None


def _pages(what: str, fn: Callable[..., Any], timeout: float, **kw: Any) -> list[dict[str, Any]]:
    """Every item of a list, page by page (`limit`, then the `continue` token of each page)."""
    items: list[dict[str, Any]] = []
    token: str | None = None
    while True:
        extra = {"_continue": token} if token else {}
        res = _call(what, fn, timeout, limit=PAGE, **kw, **extra)
        if not isinstance(res, dict):
            raise SnapshotError(f"{what}: the API server's answer is not a list")
        items.extend(i for i in res.get("items") or [] if isinstance(i, dict))
        token = (res.get("metadata") or {}).get("continue")
        if not token:
            return items


def _raw_get(api: Any, path: str) -> Callable[..., Any]:
    """A GET of `path` through the client (its auth, TLS and proxy settings) for `_call`."""
    from kubernetes.client.exceptions import ApiException

    def get(_request_timeout: float, _preload_content: bool = False) -> Any:
        method, url, headers, _, _ = api.param_serialize("GET", path, auth_settings=["BearerToken"])
        resp = api.call_api(method, url, header_params=headers, _request_timeout=_request_timeout)
        resp.read()
        if resp.status >= 400:
            raise ApiException(http_resp=resp)
        return resp
    return get


def _volcano_version(api: Any, timeout: float) -> str:
    try:
        doc = _call(f"get apigroup {GROUP}", _raw_get(api, f"/apis/{GROUP}"), timeout)
    except SnapshotError as err:
        if err.status == 404:
            raise SnapshotError(f"Volcano's CRDs are not installed (no API group {GROUP})") from None
        raise
    versions = [v.get("version") for v in (doc or {}).get("versions") or [] if isinstance(v, dict)]
    if "v1beta1" in versions:
        return "v1beta1"
    preferred = ((doc or {}).get("preferredVersion") or {}).get("version")
    if preferred or versions:
        return str(preferred or versions[0])
    raise SnapshotError(f"Volcano's CRDs are not installed (API group {GROUP} serves no version)")


def _with_kind(kind: str, api_version: str, objs: list[dict[str, Any]]) -> list[dict[str, Any]]:
    return [{"apiVersion": api_version, "kind": kind, **{k: v for k, v in o.items() if k not in ("apiVersion", "kind")}}
            for o in objs]


def snapshot(kubeconfig: str, context: str | None = None, configmap: str = DEFAULT_CONFIGMAP,
             timeout: float = 10) -> dict[str, Any]:
    """The cluster's Nodes, Pods, Queues, PodGroups, PriorityClasses and scheduler ConfigMap as a `kind: List`."""
    from kubernetes import client
    if configmap:
        ns, _, name = configmap.partition("/")
        if not ns or not name:
            raise InputError("--scheduler-configmap", "", f"must be NAMESPACE/NAME, got {safe(configmap)!r}")
    api = _client(kubeconfig, context)
    core, sched, custom = client.CoreV1Api(api), client.SchedulingV1Api(api), client.CustomObjectsApi(api)
    items = _with_kind("Node", "v1", _pages("list nodes", core.list_node, timeout))
    items += _with_kind("Pod", "v1", _pages("list pods (all namespaces)", core.list_pod_for_all_namespaces, timeout))
    version = _volcano_version(api, timeout)
    for kind, plural in (("Queue", "queues"), ("PodGroup", "podgroups")):
        try:
            objs = _pages(f"list {plural}.{GROUP}", custom.list_cluster_custom_object, timeout,
                          group=GROUP, version=version, plural=plural)
        except SnapshotError as err:
            if err.status == 404:
                raise SnapshotError(f"Volcano's CRD {plural}.{GROUP} is not installed (list {plural}.{GROUP}: "
                                    "not found (404))") from None
            raise
        items += _with_kind(kind, f"{GROUP}/{version}", objs)
    items += _with_kind("PriorityClass", "scheduling.k8s.io/v1",
                        _pages("list priorityclasses.scheduling.k8s.io", sched.list_priority_class, timeout))
    if configmap:
        ns, _, name = configmap.partition("/")
        try:
            cm = _call(f"get configmaps {configmap}", core.read_namespaced_config_map, timeout, name=name, namespace=ns)
            items += _with_kind("ConfigMap", "v1", [cm])
        except SnapshotError as err:
            if err.status != 404:  # no ConfigMap: the dump goes without one (Volcano's defaults)
                raise
    return {"apiVersion": "v1", "kind": "List", "items": items, "metadata": {"resourceVersion": ""}}


def summary(doc: dict[str, Any]) -> str:
    """One line saying what a snapshot holds: '5 nodes, 17 pods, 11 queues, 7 PodGroups, ...'."""
    counts: dict[str, int] = {}
    for item in doc.get("items") or []:
        counts[str(item.get("kind"))] = counts.get(str(item.get("kind")), 0) + 1
    words = [("Node", "node"), ("Pod", "pod"), ("Queue", "queue"), ("PodGroup", "PodGroup"),
             ("PriorityClass", "PriorityClass")]
    parts = [f"{counts.get(k, 0)} {w}{'' if counts.get(k, 0) == 1 else ('es' if w.endswith('s') else 's')}"
             for k, w in words]
    parts.append("the scheduler ConfigMap" if counts.get("ConfigMap") else "no scheduler ConfigMap")
    return ", ".join(parts)
