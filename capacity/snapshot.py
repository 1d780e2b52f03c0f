"""A read-only snapshot of a live cluster, written in the dump format `kubectl get -o yaml` gives.

Only list/get calls are made, with the official Kubernetes client; every other command reads the result
unchanged. Volcano's CRDs (group scheduling.volcano.sh) are read in the version the API server serves,
v1beta1 preferred (discovered through the group's APIGroup document).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from capacity.errors import InputError

GROUP = "scheduling.volcano.sh"
PAGE = 500


class SnapshotError(InputError):
    def __init__(self, msg: str) -> None:
        Exception.__init__(self, msg)
        self.msg = msg

    def __str__(self) -> str:
        return f"snapshot: {self.msg}"


def _client(kubeconfig: str, context: str | None, timeout: float) -> Any:
    from kubernetes import client, config
    cfg = client.Configuration()
    try:
        config.load_kube_config(config_file=kubeconfig, context=context, client_configuration=cfg)
    except Exception as exc:  # a missing file, an unknown context, a malformed kubeconfig
        raise SnapshotError(f"kubeconfig {kubeconfig}: {exc}") from None
    cfg.retries = False  # one attempt: a timeout is reported after --timeout, not after urllib3's retries
    return client.ApiClient(cfg)


def _call(what: str, fn: Callable[..., Any], timeout: float, **kw: Any) -> Any:
    from kubernetes.client.exceptions import ApiException
    from urllib3.exceptions import HTTPError, NewConnectionError, ReadTimeoutError
    from urllib3.exceptions import TimeoutError as UrllibTimeout
    try:
        return fn(_request_timeout=timeout, **kw)
    except ApiException as exc:
        reason = {401: "unauthorized", 403: "forbidden", 404: "not found"}.get(exc.status, exc.reason or "error")
        raise SnapshotError(f"{what}: {reason} ({exc.status}) {str(exc.body or '')[:200]}".rstrip()) from None
    except NewConnectionError:  # (a subclass of urllib3's TimeoutError: refused is not a timeout)
        raise SnapshotError(f"{what}: API server unreachable (connection refused)") from None
    except (ReadTimeoutError, UrllibTimeout):
        raise SnapshotError(f"{what}: the API server did not answer within {timeout:g}s (--timeout)") from None
    except HTTPError as exc:
        raise SnapshotError(f"{what}: API server unreachable ({type(exc).__name__})") from None


def _pages(what: str, fn: Callable[..., Any], timeout: float, typed: bool, **kw: Any) -> list[Any]:
    items: list[Any] = []
    token: str | None = None
    while True:
        extra = {"_continue": token} if token else {}
        res = _call(what, fn, timeout, limit=PAGE, **kw, **extra)
        if typed:
            items.extend(res.items or [])
            token = res.metadata._continue if res.metadata else None
        else:
            items.extend(res.get("items") or [])
            token = (res.get("metadata") or {}).get("continue")
        if not token:
            return items


def _volcano_version(api: Any, timeout: float) -> str:
    from kubernetes.client.exceptions import ApiException

    def get(_request_timeout: float) -> Any:
        method, url, headers, _, _ = api.param_serialize("GET", f"/apis/{GROUP}", auth_settings=["BearerToken"])
        resp = api.call_api(method, url, header_params=headers, _request_timeout=_request_timeout)
        resp.read()
        return api.response_deserialize(resp, {"200": "object"}).data
    try:
        doc = get(_request_timeout=timeout)
    except ApiException as exc:
        if exc.status == 404:
            raise SnapshotError(f"Volcano's CRDs are not installed (no API group {GROUP})") from None
        doc = _call(f"get apigroup {GROUP}", get, timeout)
    except Exception:
        doc = _call(f"get apigroup {GROUP}", get, timeout)
    versions = [v.get("version") for v in (doc or {}).get("versions") or []]
    if "v1beta1" in versions:
        return "v1beta1"
    preferred = ((doc or {}).get("preferredVersion") or {}).get("version")
    if preferred or versions:
        return str(preferred or versions[0])
    raise SnapshotError(f"Volcano's CRDs are not installed (API group {GROUP} serves no version)")


def snapshot(kubeconfig: str, context: str | None = None,
             configmap: str = "volcano-system/volcano-scheduler-configmap", timeout: float = 10) -> dict[str, Any]:
    """The cluster's Nodes, Pods, Queues, PodGroups, PriorityClasses and scheduler ConfigMap as a `kind: List`."""
    from kubernetes import client
    api = _client(kubeconfig, context, timeout)
    core, sched, custom = client.CoreV1Api(api), client.SchedulingV1Api(api), client.CustomObjectsApi(api)
    ser = api.sanitize_for_serialization

    def typed(kind: str, api_version: str, objs: list[Any]) -> list[dict[str, Any]]:
        return [{"apiVersion": api_version, "kind": kind, **ser(o)} for o in objs]

    items = typed("Node", "v1", _pages("list nodes", core.list_node, timeout, True))
    items += typed("Pod", "v1", _pages("list pods", core.list_pod_for_all_namespaces, timeout, True))
    version = _volcano_version(api, timeout)
    for kind, plural in (("Queue", "queues"), ("PodGroup", "podgroups")):
        objs = _pages(f"list {plural}.{GROUP}", custom.list_cluster_custom_object, timeout, False,
                      group=GROUP, version=version, plural=plural)
        items += [{**o, "apiVersion": f"{GROUP}/{version}", "kind": kind} for o in objs]
    items += typed("PriorityClass", "scheduling.k8s.io/v1",
                   _pages("list priorityclasses", sched.list_priority_class, timeout, True))
    if configmap:
        ns, _, name = configmap.partition("/")
        if not name:
            raise InputError("--scheduler-configmap", "", "must be NAMESPACE/NAME")
        from kubernetes.client.exceptions import ApiException
        try:
            cm = core.read_namespaced_config_map(name, ns, _request_timeout=timeout)
            items.append({"apiVersion": "v1", "kind": "ConfigMap", **ser(cm)})
        except ApiException as exc:
            if exc.status != 404:  # no ConfigMap: the dump goes without one (Volcano's defaults)
                _call(f"get configmaps {configmap}", core.read_namespaced_config_map, timeout,
                      name=name, namespace=ns)
    return {"apiVersion": "v1", "kind": "List", "items": items, "metadata": {"resourceVersion": ""}}
