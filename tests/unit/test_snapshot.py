"""`snapshot` with the real Kubernetes client against a local API server serving recorded JSON responses."""

from __future__ import annotations

import json
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from urllib.parse import parse_qs, urlparse

import pytest
import yaml

from capacity.cli import main
from capacity.k8s import load_cluster
from capacity.scheduler import simulate

FIXTURE = Path(__file__).resolve().parents[2] / "fixtures" / "default.yaml"
LISTS = {"Node": ("/api/v1/nodes", "NodeList", "v1"), "Pod": ("/api/v1/pods", "PodList", "v1"),
         "PriorityClass": ("/apis/scheduling.k8s.io/v1/priorityclasses", "PriorityClassList", "scheduling.k8s.io/v1"),
         "Queue": ("/apis/scheduling.volcano.sh/v1beta1/queues", "QueueList", "scheduling.volcano.sh/v1beta1"),
         "PodGroup": ("/apis/scheduling.volcano.sh/v1beta1/podgroups", "PodGroupList",
                      "scheduling.volcano.sh/v1beta1")}
CM_PATH = "/api/v1/namespaces/volcano-system/configmaps/volcano-scheduler-configmap"
DISCOVERY = {"kind": "APIGroup", "apiVersion": "v1", "name": "scheduling.volcano.sh",
             "versions": [{"groupVersion": "scheduling.volcano.sh/v1beta1", "version": "v1beta1"}],
             "preferredVersion": {"groupVersion": "scheduling.volcano.sh/v1beta1", "version": "v1beta1"}}


def recorded() -> list[dict]:
    docs = [d for d in yaml.safe_load_all(FIXTURE.read_text()) if d]
    items = []
    for d in docs:
        items.extend(d["items"] if d.get("kind") == "List" else [d])
    return items


def routes(items: list[dict], forbid: str = "", no_crd: bool = False) -> dict[str, list[dict]]:
    """Path -> pages (each a full list document as the API server sends it), lists paged 2 items a page."""
    out: dict[str, list[dict]] = {}
    for kind, (path, list_kind, api_version) in LISTS.items():
        objs = [{k: v for k, v in o.items() if kind in ("Queue", "PodGroup") or k not in ("kind", "apiVersion")}
                for o in items if o.get("kind") == kind]
        chunks = [objs[i:i + 2] for i in range(0, len(objs), 2)] or [[]]
        out[path] = [{"kind": list_kind, "apiVersion": api_version,
                      "metadata": {"resourceVersion": "7", **({"continue": f"tok{n + 1}"} if n + 1 < len(chunks)
                                                              else {})}, "items": c}
                     for n, c in enumerate(chunks)]
    out["/apis/scheduling.volcano.sh"] = [DISCOVERY]
    cms = [o for o in items if o.get("kind") == "ConfigMap"]
    if cms:
        out[CM_PATH] = [cms[0]]
    if no_crd:
        for p in [p for p in out if p.startswith("/apis/scheduling.volcano.sh")]:
            del out[p]
    if forbid:
        out[forbid] = []
    return out


class Server:
    def __init__(self, table: dict[str, list[dict]], hang: float = 0) -> None:
        self.requests: list[tuple[str, str]] = []
        outer = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *a):  # quiet
                pass

            def do_GET(self):
                url = urlparse(self.path)
                outer.requests.append(("GET", self.path))
                if hang:
                    time.sleep(hang)  # longer than the client's --timeout; the client gives up first
                    return
                pages = table.get(url.path)
                if pages == []:
                    return self.send(403, {"kind": "Status", "apiVersion": "v1", "status": "Failure",
                                           "reason": "Forbidden", "code": 403,
                                           "message": f"cannot list resource at {url.path}"})
                if pages is None:
                    return self.send(404, {"kind": "Status", "apiVersion": "v1", "status": "Failure",
                                           "reason": "NotFound", "code": 404, "message": "the server could not "
                                           "find the requested resource"})
                token = parse_qs(url.query).get("continue", ["tok0"])[0]
                self.send(200, pages[int(token[3:])])

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
        self.thread = threading.Thread(target=self.httpd.serve_forever, daemon=True)
        self.thread.start()

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.httpd.server_address[1]}"

    def close(self) -> None:
        self.httpd.shutdown()
        self.httpd.server_close()


def kubeconfig(tmp_path: Path, url: str) -> str:
    path = tmp_path / "kubeconfig"
    path.write_text(yaml.safe_dump({
        "apiVersion": "v1", "kind": "Config", "current-context": "lab",
        "clusters": [{"name": "lab", "cluster": {"server": url}}],
        "contexts": [{"name": "lab", "context": {"cluster": "lab", "user": "u"}}],
        "users": [{"name": "u", "user": {"token": "t"}}]}))
    return str(path)


@pytest.fixture
def serve(tmp_path):
    servers = []

    def start(table, hang=0):
        s = Server(table, hang)
        servers.append(s)
        return s, kubeconfig(tmp_path, s.url)
    yield start
    for s in servers:
        s.close()


def test_snapshot_pages_and_round_trips_through_simulate(tmp_path, serve, capsys):
    items = recorded()
    server, kc = serve(routes(items))
    out = tmp_path / "dump.yaml"
    assert main(["snapshot", "--kubeconfig", kc, "-o", str(out), "--timeout", "5"]) == 0, capsys.readouterr().err
    assert all(m == "GET" for m, _ in server.requests)
    assert any("continue=tok1" in p for _, p in server.requests)  # pods came in pages
    dump = yaml.safe_load(out.read_text())
    assert dump["kind"] == "List" and all(i["apiVersion"] and i["kind"] for i in dump["items"])
    kinds = sorted(i["kind"] for i in dump["items"])
    assert kinds == sorted(i["kind"] for i in items if i["kind"] in (*LISTS, "ConfigMap"))
    direct = simulate(load_cluster(FIXTURE.read_text())).as_json()
    via = simulate(load_cluster(out.read_text())).as_json()
    assert via == direct


def test_403_names_verb_and_resource(tmp_path, serve, capsys):
    _, kc = serve(routes(recorded(), forbid="/api/v1/pods"))
    assert main(["snapshot", "--kubeconfig", kc, "-o", str(tmp_path / "d.yaml")]) == 2
    err = capsys.readouterr().err
    assert err.startswith("error: snapshot: list pods: forbidden (403)")
    assert len(err.strip().splitlines()) == 1


def test_missing_crd(tmp_path, serve, capsys):
    _, kc = serve(routes(recorded(), no_crd=True))
    assert main(["snapshot", "--kubeconfig", kc, "-o", str(tmp_path / "d.yaml")]) == 2
    assert "Volcano's CRDs are not installed" in capsys.readouterr().err


def test_server_that_never_answers_times_out(tmp_path, serve, capsys):
    _, kc = serve({}, hang=3)
    assert main(["snapshot", "--kubeconfig", kc, "-o", str(tmp_path / "d.yaml"), "--timeout", "0.3"]) == 2
    assert "did not answer within 0.3s" in capsys.readouterr().err


def test_unreachable_server(tmp_path, capsys):
    kc = kubeconfig(tmp_path, "http://127.0.0.1:1")
    assert main(["snapshot", "--kubeconfig", kc, "-o", str(tmp_path / "d.yaml"), "--timeout", "2"]) == 2
    assert "unreachable" in capsys.readouterr().err
