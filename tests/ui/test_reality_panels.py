"""AppTest: the Queues page shows what the cluster reported beside what the engine computes (when the dump carries
Queue status), and the Scenario page takes a read-only snapshot of a (loopback) cluster, refreshes it, and says
a refusal in one line."""

from __future__ import annotations

import copy
from pathlib import Path

import pytest
import yaml
from streamlit.testing.v1 import AppTest

from tests.unit.test_check import SCRAPE, dump
from tests.unit.test_snapshot import Server, kubeconfig, recorded, routes
from ui.state import WORKSPACE_KEY, Workspace

ROOT = Path(__file__).resolve().parents[2]


def _app() -> AppTest:
    return AppTest.from_file(str(ROOT / "app.py"), default_timeout=60).run()


def _ws(at: AppTest) -> Workspace:
    return at.session_state[WORKSPACE_KEY]


def _queues_with(doc: dict) -> AppTest:
    at = _app()
    at.switch_page("pages/scenario.py").run()
    at.file_uploader(key="upload_cluster").upload("cluster.yaml", yaml.safe_dump(doc).encode(),
                                                  "application/yaml").run()
    assert _ws(at).scenario == "cluster.yaml"
    return at.switch_page("pages/queues.py").run()


def _table(at: AppTest) -> list[dict]:
    """The comparison table (AppTest does not expose st.dataframe keys: found by its columns)."""
    return next(d.value for d in at.dataframe if "reported (cluster)" in d.value.columns).to_dict("records")


def test_disagreeing_dump_shows_reported_beside_computed_with_causes():
    doc = dump(queue_status={"allocated": {"cpu": "4", "memory": "1Gi", "pods": "1"}, "running": 1},
               pod_meta={"deletionTimestamp": "2026-01-01T00:05:00Z"})
    at = _queues_with(doc)
    assert not at.exception
    assert any(w.value == "3 of 5 figures differ." for w in at.warning)
    said = " ".join(m.value for m in at.markdown)
    assert "**Queue/q1** status.allocated.cpu: computed **0**, reported **4**" in said
    assert "likely: terminating pods \\(metadata.deletionTimestamp\\)\\: ns/job-0" in said
    table = _table(at)
    assert table[0][""] == "differs" and table[0]["computed (engine)"] == "0" and table[0]["reported (cluster)"] == "4"
    assert [r[""] for r in table].count("agrees") == 2


def test_agreeing_dump_says_so_and_metrics_can_be_added():
    at = _queues_with(dump())
    assert any(s.value == "The engine agrees with the cluster on all 7 figures." for s in at.success)
    at.file_uploader(key="reality_metrics").upload("metrics.txt", (SCRAPE % "4000").encode(), "text/plain").run()
    assert any(w.value == "1 of 13 figures differ." for w in at.warning)
    assert any("metric deserved.cpu" in m.value for m in at.markdown)


def test_a_scenario_without_queue_status_shows_no_comparison():
    at = _app().switch_page("pages/queues.py").run()
    assert not at.exception
    assert not any("Reported by the cluster" in h.value for h in at.subheader)


def test_names_from_the_dump_stay_text():
    doc = dump(queue_status={"allocated": {"cpu": "4", "memory": "1Gi", "pods": "1"}, "running": 1},
               pod_meta={"deletionTimestamp": "2026-01-01T00:05:00Z", "name": "job-*[x](http://e.example)*"})
    said = " ".join(m.value for m in _queues_with(doc).markdown)
    assert "job-\\*\\[x\\]\\(http\\:\u2060//e.example\\)\\*" in said


@pytest.fixture
def cluster(tmp_path):
    server = Server(routes(recorded()))
    yield server, kubeconfig(tmp_path, server.url)
    server.close()


def _scenario(path: str) -> AppTest:
    at = _app()
    at.switch_page("pages/scenario.py").run()
    at.text_input(key="snapshot_kubeconfig").set_value(path).run()
    return at


def test_take_a_snapshot_then_refresh(cluster):
    server, kc = cluster
    at = _scenario(kc)
    assert at.selectbox(key="snapshot_context").options == ["lab", "prod"]
    assert at.selectbox(key="snapshot_context").value == "lab"
    at.button(key="snapshot_take").click().run()
    assert not at.exception and not at.error
    ws = _ws(at)
    assert ws.scenario == "snapshot of lab" and len(ws.cluster.nodes) == 5 and len(ws.cluster.podgroups) == 7
    assert any(s.value.startswith("Loaded **snapshot of lab** taken at ") and "17 pods, 11 queues" in s.value
               for s in at.success)
    asked = len(server.requests)
    cluster_before = ws.cluster
    at.button(key="snapshot_refresh").click().run()
    assert len(server.requests) > asked and _ws(at).cluster is not cluster_before
    assert all(method == "GET" for method, _ in server.requests)


def test_a_refusal_is_one_line_and_keeps_the_scenario(tmp_path):
    server = Server(routes(recorded(), forbid="/api/v1/pods"))
    try:
        at = _scenario(kubeconfig(tmp_path, server.url))
        before = _ws(at).scenario
        at.button(key="snapshot_take").click().run()
        assert _ws(at).scenario == before
        assert len(at.error) == 1
        err = at.error[0].value
        assert err.startswith("`snapshot`: list pods \\(all namespaces\\)\\: forbidden \\(403\\)\\: pods is forbidden")
        assert "\n" not in err.split("\n\n")[0] and err.endswith("The previous scenario **default** is kept.")
    finally:
        server.close()


def test_unreachable_context_and_a_missing_kubeconfig(tmp_path, cluster):
    _, kc = cluster
    at = _scenario(kc)
    at.selectbox(key="snapshot_context").set_value("prod").run()
    at.button(key="snapshot_take").click().run()
    assert "API server unreachable" in at.error[0].value
    at.text_input(key="snapshot_kubeconfig").set_value(str(tmp_path / "nope")).run()
    assert at.button(key="snapshot_take").disabled
    assert any("kubeconfig" in e.value for e in at.error)


def test_snapshot_panel_is_read_only_with_a_hostile_context_name(tmp_path, cluster):
    server, _ = cluster
    path = tmp_path / "hostile"
    doc = yaml.safe_load(Path(kubeconfig(tmp_path, server.url)).read_text())
    doc = copy.deepcopy(doc)
    doc["contexts"][0]["name"] = doc["current-context"] = "**bold** [x](http://e.example)"
    path.write_text(yaml.safe_dump(doc))
    at = _scenario(str(path))
    at.button(key="snapshot_take").click().run()
    assert any("snapshot of \\*\\*bold\\*\\* \\[x\\]" in s.value for s in at.success)
