"""`check --prometheus URL`: the volcano_queue_* series read from a Prometheus server's HTTP API (a loopback
server answering with responses in Prometheus' own JSON format)."""

from __future__ import annotations

import json
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from urllib.parse import parse_qs, urlparse

import pytest
import yaml

from capacity.cli import main
from capacity.io.prometheus import QUERY
from tests.unit.test_check import dump


def series(name, value, stamp=1767225600.123, **labels):
    return {"metric": {"__name__": name, "instance": "10.0.0.7:8080", "job": "volcano-scheduler",
                       "queue_name": "q1", **labels}, "value": [stamp, str(value)]}


def answer(*result):
    return {"status": "success", "data": {"resultType": "vector", "result": list(result)}}


AGREEING = answer(series("volcano_queue_allocated_milli_cpu", 2000),
                  series("volcano_queue_allocated_memory_bytes", 1073741824),
                  series("volcano_queue_allocated_scalar_resources", 1, resource="pods"),
                  series("volcano_queue_deserved_milli_cpu", 2000), series("volcano_queue_share", 1),
                  series("volcano_queue_weight", 1))


class Prometheus:
    """Answers GET /api/v1/query with a recorded body; `hang` never answers (the client must time out)."""

    def __init__(self, body, code=200, content_type="application/json", hang=False):
        self.queries: list[str] = []
        self.release = threading.Event()
        outer = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *a):
                pass

            def do_GET(self):
                url = urlparse(self.path)
                outer.queries += parse_qs(url.query).get("query", [])
                if hang:
                    outer.release.wait(30)
                    return
                data = body if isinstance(body, bytes) else json.dumps(body).encode()
                self.send_response(code if url.path == "/api/v1/query" else 404)
                self.send_header("Content-Type", content_type)
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.httpd.daemon_threads = True
        threading.Thread(target=self.httpd.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True).start()
        self.url = f"http://127.0.0.1:{self.httpd.server_address[1]}"

    def close(self):
        self.release.set()
        self.httpd.shutdown()
        self.httpd.server_close()


@pytest.fixture
def prometheus():
    servers = []

    def start(*a, **kw):
        servers.append(Prometheus(*a, **kw))
        return servers[-1]
    yield start
    for s in servers:
        s.close()


def check(tmp_path, url, *extra):
    path = tmp_path / "dump.yaml"
    path.write_text(yaml.safe_dump(dump()))
    return main(["check", str(path), "--prometheus", url, *extra])


def test_agreeing_series_exit_0_and_the_query_selects_the_queue_gauges(tmp_path, prometheus, capsys):
    server = prometheus(AGREEING)
    assert check(tmp_path, server.url) == 0, capsys.readouterr().out
    assert server.queries == [QUERY]
    assert "(12 figures compared)" in capsys.readouterr().out  # 7 from the status, 5 gauges (weight not)


def test_differing_series_are_named_with_the_gauge(tmp_path, prometheus, capsys):
    body = answer(series("volcano_queue_deserved_milli_cpu", 6000), series("volcano_queue_share", "0.3333"))
    server = prometheus(body)
    assert check(tmp_path, server.url + "/", "--format", "json") == 1
    out = json.loads(capsys.readouterr().out)
    got = {d["field"]: (d["engine"], d["reported"]) for d in out["differences"]}
    assert got == {"metric deserved.cpu": (2000.0, 6000.0), "metric share": (1.0, 0.3333)}


def test_the_latest_sample_of_two_replicas_wins(tmp_path, prometheus, capsys):
    body = answer(series("volcano_queue_deserved_milli_cpu", 2000, stamp=200.0),
                  series("volcano_queue_deserved_milli_cpu", 9000, stamp=100.0, instance="old"))
    assert check(tmp_path, prometheus(body).url) == 0, capsys.readouterr().out


@pytest.mark.parametrize(("server_kw", "message"), [
    ({"body": {"status": "error", "errorType": "bad_data", "error": "parse error at char 3"}, "code": 400},
     "answered 400 Bad Request: 'parse error at char 3'"),
    ({"body": b"<html>Grafana</html>", "content_type": "text/html"}, "did not answer with JSON"),
    ({"body": {"status": "success", "data": {"resultType": "matrix", "result": []}}}, "not an instant vector"),
])
def test_a_bad_answer_is_one_line(tmp_path, prometheus, capsys, server_kw, message):
    server = prometheus(**server_kw)
    assert check(tmp_path, server.url) == 2
    err = capsys.readouterr().err
    assert message in err and len(err.strip().splitlines()) == 1


def test_a_server_that_never_answers_times_out(tmp_path, prometheus, capsys):
    server = prometheus({}, hang=True)
    assert check(tmp_path, server.url, "--timeout", "0.3") == 2
    assert "did not answer within 0.3s" in capsys.readouterr().err


def test_unreachable_and_non_http_urls(tmp_path, capsys):
    assert check(tmp_path, "http://127.0.0.1:1") == 2
    assert "is unreachable" in capsys.readouterr().err
    assert check(tmp_path, "file:///etc/passwd") == 2
    assert "is not an http(s) URL" in capsys.readouterr().err


def test_metrics_and_prometheus_are_exclusive(tmp_path, capsys):
    with pytest.raises(SystemExit):
        check(tmp_path, "http://127.0.0.1:1", "--metrics", "m.txt")
