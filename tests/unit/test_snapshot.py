"""`snapshot` with the real Kubernetes client against a loopback API server serving recorded responses in the
API server's JSON format: lists paged with `continue` tokens, Status bodies for refusals, discovery for the
Volcano group; the written dump round-trips through `simulate` and `check`."""

from __future__ import annotations

import copy
import json
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from urllib.parse import parse_qs, urlparse

import pytest
import yaml

from capacity.analysis.check import compare
from capacity.cli import main
from capacity.io.k8s import load_objects
from capacity.io.snapshot import SnapshotError, contexts, snapshot
from capacity.scheduler import simulate

FIXTURE = Path(__file__).resolve().parents[2] / "fixtures" / "default.yaml"
GROUP = "scheduling.volcano.sh"
#: kind -> (list path, list kind, apiVersion, resource as RBAC names it)
LISTS = {"Node": ("/api/v1/nodes", "NodeList", "v1", "nodes"),
         "Pod": ("/api/v1/pods", "PodList", "v1", "pods"),
         "PriorityClass": ("/apis/scheduling.k8s.io/v1/priorityclasses", "PriorityClassList", "scheduling.k8s.io/v1",
                           "priorityclasses"),
         "Queue": (f"/apis/{GROUP}/v1beta1/queues", "QueueList", f"{GROUP}/v1beta1", "queues"),
         "PodGroup": (f"/apis/{GROUP}/v1beta1/podgroups", "PodGroupList", f"{GROUP}/v1beta1", "podgroups")}
CM_PATH = "/api/v1/namespaces/volcano-system/configmaps/volcano-scheduler-configmap"
DISCOVERY = {"kind": "APIGroup", "apiVersion": "v1", "name": GROUP,
             "versions": [{"groupVersion": f"{GROUP}/v1beta1", "version": "v1beta1"}],
             "preferredVersion": {"groupVersion": f"{GROUP}/v1beta1", "version": "v1beta1"}}
#: The scheduler's own Pod, as the API server lists it (Helm chart's Deployment, templates/scheduler.yaml).
SCHEDULER_POD = {
    "apiVersion": "v1", "kind": "Pod",
    "metadata": {"name": "volcano-scheduler-6f9d8c7b5-x2x9k", "namespace": "volcano-system",
                 "labels": {"app": "volcano-scheduler", "pod-template-hash": "6f9d8c7b5"},
                 "ownerReferences": [{"apiVersion": "apps/v1", "kind": "ReplicaSet",
                                      "name": "volcano-scheduler-6f9d8c7b5", "uid": "0b7c", "controller": True,
                                      "blockOwnerDeletion": True}]},
    "spec": {"schedulerName": "default-scheduler", "nodeName": "cpu-1", "serviceAccountName": "volcano-scheduler",
             "containers": [{"name": "volcano-scheduler", "image": "docker.io/volcanosh/vc-scheduler:v1.12.1",
                             "args": ["--scheduler-conf=/volcano.scheduler/volcano-scheduler.conf", "-v=3"],
                             "resources": {"requests": {"cpu": "100m", "memory": "128Mi"}},
                             "volumeMounts": [{"name": "scheduler-config", "mountPath": "/volcano.scheduler"}]}],
             "volumes": [{"name": "scheduler-config", "configMap": {"name": "volcano-scheduler-configmap"}}],
             "someFieldTheClientDoesNotKnow": {"kept": True}},
    "status": {"phase": "Running", "startTime": "2026-01-01T00:00:00Z",
               "conditions": [{"type": "PodScheduled", "status": "True",
                               "lastTransitionTime": "2026-01-01T00:00:00Z"}]}}


def recorded() -> list[dict]:
    """The fixture's objects plus the scheduler's Pod, with the metadata an API server adds."""
    items = []
    for d in yaml.safe_load_all(FIXTURE.read_text()):
        if d:
            items.extend(d["items"] if d.get("kind") == "List" else [d])
    items.append(copy.deepcopy(SCHEDULER_POD))
    for n, obj in enumerate(items):
        meta = obj.setdefault("metadata", {})
        meta.setdefault("uid", f"6c1f2a3e-0000-4000-8000-{n:012d}")
        meta.setdefault("resourceVersion", str(1000 + n))
        meta.setdefault("creationTimestamp", "2026-01-01T00:00:00Z")
        meta.setdefault("managedFields", [{"manager": "kubectl-client-side-apply", "operation": "Update",
                                           "apiVersion": obj["apiVersion"], "time": "2026-01-01T00:00:00Z",
                                           "fieldsType": "FieldsV1", "fieldsV1": {"f:metadata": {}}}])
    return items


EXPIRED = ("The provided continue parameter is too old to display a consistent list result. You can start a new "
           "list without the continue parameter, or use the continue token in this response to retrieve the "
           "remainder of the results. Continuing with the provided token results in an inconsistent list - objects "
           "that were created, modified, or deleted between the time the first chunk was returned and now may show "
           "up in the list.")


def status(code: int, reason: str, message: str, details: dict | None = None) -> dict:
    return {"kind": "Status", "apiVersion": "v1", "metadata": {}, "status": "Failure", "message": message,
            "reason": reason, **({"details": details} if details else {}), "code": code}


def forbidden(resource: str, group: str = "") -> dict:
    """The API server's RBAC refusal, word for word (staging/src/k8s.io/apiserver/.../authorization.go)."""
    return status(403, "Forbidden", f'{resource}{"." + group if group else ""} is forbidden: User '
                  f'"system:serviceaccount:ops:reader" cannot list resource "{resource}" in API group "{group}" at '
                  "the cluster scope", {"kind": resource, **({"group": group} if group else {})})


def routes(items: list[dict], forbid: str = "", no_crd: bool = False, page: int = 2) -> dict[str, list[dict]]:
    """Path -> pages (each a full list document as the API server sends it), `page` items a page."""
    out: dict[str, list[dict]] = {}
    for kind, (path, list_kind, api_version, _) in LISTS.items():
        # Built-in kinds come without kind/apiVersion per item; custom resources keep theirs.
        objs = [{k: v for k, v in o.items() if kind in ("Queue", "PodGroup") or k not in ("kind", "apiVersion")}
                for o in items if o.get("kind") == kind]
        chunks = [objs[i:i + page] for i in range(0, len(objs), page)] or [[]]
        out[path] = [{"kind": list_kind, "apiVersion": api_version,
                      "metadata": {"resourceVersion": "4711",
                                   **({"continue": f"eyJ2IjoibWV0YS5rOHMuaW8vdjEiLCJydiI6NDcxMSwic3RhcnQiOi{n + 1}"}
                                      if n + 1 < len(chunks) else {})}, "items": c}
                     for n, c in enumerate(chunks)]
    out[f"/apis/{GROUP}"] = [DISCOVERY]
    cms = [o for o in items if o.get("kind") == "ConfigMap"]
    if cms:
        out[CM_PATH] = [cms[0]]
    if no_crd:
        for p in [p for p in out if p.startswith(f"/apis/{GROUP}")]:
            del out[p]
    if forbid:
        out[forbid] = []
    return out


class Server:
    """A loopback API server: GETs answered from `table`, a refusal for an empty entry, 404 for no entry;
    with `hang` it never answers (until the test ends)."""

    def __init__(self, table: dict[str, list[dict]], hang: bool = False, expire: bool = False) -> None:
        self.requests: list[tuple[str, str]] = []
        self.release = threading.Event()
        outer = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *a):  # quiet
                pass

            def do_GET(self):
                url = urlparse(self.path)
                outer.requests.append(("GET", self.path))
                if hang:
                    outer.release.wait(30)
                    return
                pages = table.get(url.path)
                if pages == []:
                    resource = next((r for p, _, _, r in LISTS.values() if p == url.path), url.path)
                    group = GROUP if url.path.startswith(f"/apis/{GROUP}") else ""
                    return self.send(403, forbidden(resource, group))
                if pages is None:
                    return self.send(404, status(404, "NotFound", "the server could not find the requested resource"))
                query = parse_qs(url.query)
                token = query.get("continue", [""])[0]
                if token and expire:
                    return self.send(410, status(410, "Expired", EXPIRED))
                n = int(token.rsplit("Oi", 1)[1]) if token else 0
                if "limit" not in query and len(pages) > 1:
                    return self.send(500, status(500, "InternalError", "the test server expects paged lists"))
                self.send(200, pages[n])

            def do_POST(self):  # never expected: the snapshot is read-only
                outer.requests.append(("POST", self.path))
                self.send(405, {})

            do_PUT = do_PATCH = do_DELETE = do_POST

            def send(self, code, body):
                data = json.dumps(body).encode()
                self.send_response(code)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.httpd.daemon_threads = True
        self.thread = threading.Thread(target=self.httpd.serve_forever, kwargs={"poll_interval": 0.05},
                                       daemon=True)
        self.thread.start()

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.httpd.server_address[1]}"

    def close(self) -> None:
        self.release.set()
        self.httpd.shutdown()
        self.httpd.server_close()


def kubeconfig(tmp_path: Path, url: str, other: str = "http://127.0.0.1:1") -> str:
    """Two contexts: `lab` (the test server, current) and `prod` (nothing listens there)."""
    path = tmp_path / "kubeconfig"
    path.write_text(yaml.safe_dump({
        "apiVersion": "v1", "kind": "Config", "current-context": "lab",
        "clusters": [{"name": "lab", "cluster": {"server": url}}, {"name": "prod", "cluster": {"server": other}}],
        "contexts": [{"name": "lab", "context": {"cluster": "lab", "user": "u"}},
                     {"name": "prod", "context": {"cluster": "prod", "user": "u"}}],
        "users": [{"name": "u", "user": {"token": "t"}}]}))
    return str(path)


@pytest.fixture
def serve(tmp_path):
    servers = []

    def start(table, hang=False):
        s = Server(table, hang)
        servers.append(s)
        return s, kubeconfig(tmp_path, s.url)
    yield start
    for s in servers:
        s.close()


def test_snapshot_pages_keeps_the_servers_json_and_round_trips_through_simulate(tmp_path, serve, capsys):
    items = recorded()
    server, kc = serve(routes(items))
    out = tmp_path / "dump.yaml"
    assert main(["snapshot", "--kubeconfig", kc, "-o", str(out), "--timeout", "5"]) == 0, capsys.readouterr().err
    assert capsys.readouterr().out == (f"wrote {out}: 5 nodes, 17 pods, 11 queues, 7 PodGroups, 2 PriorityClasses, "
                                       "the scheduler ConfigMap\n")
    assert all(m == "GET" for m, _ in server.requests)
    pod_pages = [p for _, p in server.requests if p.startswith("/api/v1/pods")]
    assert len(pod_pages) == 9 and all("limit=500" in p for p in pod_pages)  # 17 pods, 2 a page
    assert sum("continue=" in p for p in pod_pages) == 8
    dump = yaml.safe_load(out.read_text())
    assert dump["kind"] == "List"
    wanted = [i for i in items if i["kind"] in (*LISTS, "ConfigMap")]
    key = lambda o: (o["kind"], o["metadata"].get("namespace", ""), o["metadata"]["name"])  # noqa: E731
    # Every object as the server sent it (timestamps as written, fields the client has no model for kept).
    assert sorted(dump["items"], key=key) == sorted(wanted, key=key)
    direct = simulate(load_objects(copy.deepcopy(wanted))).as_json()
    via = simulate(load_objects(dump["items"])).as_json()
    assert via == direct
    assert main(["simulate", str(out)]) == 0


def test_check_reads_the_scheduler_version_and_configmap_from_the_snapshot(tmp_path, serve):
    _, kc = serve(routes(recorded()))
    doc = snapshot(kc, timeout=5)
    rep = compare(yaml.safe_dump(doc), volcano_version="1.12.1")
    assert rep.cluster_version == "1.12.1"
    assert not any("version" in n or "configuration" in n for n in rep.notes)


def test_403_names_verb_and_resource(tmp_path, serve, capsys):
    _, kc = serve(routes(recorded(), forbid="/api/v1/pods"))
    assert main(["snapshot", "--kubeconfig", kc, "-o", str(tmp_path / "d.yaml")]) == 2
    err = capsys.readouterr().err
    assert err == ('error: snapshot: list pods (all namespaces): forbidden (403): pods is forbidden: User '
                   '"system:serviceaccount:ops:reader" cannot list resource "pods" in API group "" at the cluster '
                   'scope\n')
    assert not (tmp_path / "d.yaml").exists()


def test_403_on_a_volcano_resource(tmp_path, serve, capsys):
    _, kc = serve(routes(recorded(), forbid=f"/apis/{GROUP}/v1beta1/podgroups"))
    assert main(["snapshot", "--kubeconfig", kc, "-o", str(tmp_path / "d.yaml")]) == 2
    assert capsys.readouterr().err.startswith(
        f'error: snapshot: list podgroups.{GROUP}: forbidden (403): podgroups.{GROUP} is forbidden')


def test_missing_crd(tmp_path, serve, capsys):
    _, kc = serve(routes(recorded(), no_crd=True))
    assert main(["snapshot", "--kubeconfig", kc, "-o", str(tmp_path / "d.yaml")]) == 2
    assert capsys.readouterr().err == f"error: snapshot: Volcano's CRDs are not installed (no API group {GROUP})\n"


def test_one_crd_missing(tmp_path, serve, capsys):
    table = routes(recorded())
    del table[f"/apis/{GROUP}/v1beta1/queues"]
    _, kc = serve(table)
    assert main(["snapshot", "--kubeconfig", kc, "-o", str(tmp_path / "d.yaml")]) == 2
    assert f"Volcano's CRD queues.{GROUP} is not installed" in capsys.readouterr().err


def test_no_scheduler_configmap_is_a_dump_without_one(tmp_path, serve):
    table = routes(recorded())
    del table[CM_PATH]
    _, kc = serve(table)
    kinds = {i["kind"] for i in snapshot(kc, timeout=5)["items"]}
    assert "ConfigMap" not in kinds and "Queue" in kinds


def test_configmap_namespace_and_name_are_configurable(tmp_path, serve):
    table = routes(recorded())
    table["/api/v1/namespaces/kube-batch/configmaps/sched"] = table.pop(CM_PATH)
    server, kc = serve(table)
    doc = snapshot(kc, configmap="kube-batch/sched", timeout=5)
    assert any(i["kind"] == "ConfigMap" for i in doc["items"])
    assert ("GET", "/api/v1/namespaces/kube-batch/configmaps/sched") in server.requests


def test_server_that_never_answers_times_out(tmp_path, serve, capsys):
    _, kc = serve({}, hang=True)
    assert main(["snapshot", "--kubeconfig", kc, "-o", str(tmp_path / "d.yaml"), "--timeout", "0.3"]) == 2
    assert capsys.readouterr().err == ("error: snapshot: list nodes: the API server did not answer within 0.3s "
                                       "(--timeout)\n")


def test_unreachable_server_through_the_chosen_context(tmp_path, serve, capsys):
    _, kc = serve(routes(recorded()))
    assert main(["snapshot", "--kubeconfig", kc, "--context", "prod", "-o", str(tmp_path / "d.yaml"),
                 "--timeout", "2"]) == 2
    assert capsys.readouterr().err == "error: snapshot: list nodes: API server unreachable (connection refused)\n"


def test_contexts_of_a_kubeconfig_and_bad_kubeconfigs(tmp_path):
    kc = kubeconfig(tmp_path, "http://127.0.0.1:2")
    assert contexts(kc) == (["lab", "prod"], "lab")
    with pytest.raises(SnapshotError, match="kubeconfig .*missing"):
        contexts(str(tmp_path / "missing"))
    with pytest.raises(SnapshotError) as err:
        snapshot(kc, context="nope")
    assert "nope" in str(err.value) and "\n" not in str(err.value)


def test_bad_configmap_option_is_one_line(tmp_path, capsys):
    kc = kubeconfig(tmp_path, "http://127.0.0.1:2")
    assert main(["snapshot", "--kubeconfig", kc, "--scheduler-configmap", "nameonly", "-o",
                 str(tmp_path / "d.yaml")]) == 2
    assert "must be NAMESPACE/NAME" in capsys.readouterr().err


def test_an_expired_continue_token_is_one_line(tmp_path, capsys):
    server = Server(routes(recorded()), expire=True)
    try:
        kc = kubeconfig(tmp_path, server.url)
        assert main(["snapshot", "--kubeconfig", kc, "-o", str(tmp_path / "d.yaml"), "--timeout", "5"]) == 2
        assert capsys.readouterr().err == ("error: snapshot: list nodes: expired (410): the cluster changed too much "
                                           "while its pages were read; take the snapshot again\n")
    finally:
        server.close()
