"""AppTest: loading a dump is one step and says what came in; waiting jobs and pods say why in plain text;
queue numbers say "unset" for an unset capability; input strings stay text in Markdown."""

from __future__ import annotations

from pathlib import Path

from streamlit.testing.v1 import AppTest

from ui.state import WORKSPACE_KEY, Workspace
from ui.text import md_code, md_escape

ROOT = Path(__file__).resolve().parents[2]
WAITING = (ROOT / "tests" / "e2e" / "data" / "waiting.yaml").read_text()
ONLY_A_POD = """\
apiVersion: v1
kind: Pod
metadata: {name: lonely, namespace: ns}
spec:
  schedulerName: volcano
  containers: [{name: c, image: busybox, resources: {requests: {cpu: "1"}}}]
status: {phase: Pending}
"""
BAD = """\
apiVersion: scheduling.volcano.sh/v1beta1
kind: Queue
metadata: {name: broken}
spec: {capability: {cpu: lots}}
"""


def _scenario() -> AppTest:
    at = AppTest.from_file(str(ROOT / "app.py"), default_timeout=30).run()
    at.switch_page("pages/scenario.py").run()
    return at


def _ws(at: AppTest) -> Workspace:
    return at.session_state[WORKSPACE_KEY]


def _upload(at: AppTest, name: str, text: str) -> AppTest:
    return at.file_uploader(key="upload_cluster").upload(name, text.encode(), "application/yaml").run()


def test_choosing_a_file_loads_it_and_says_what_came_in_and_where_to_go():
    at = _upload(_scenario(), "cluster.yaml", WAITING)
    assert not at.exception
    assert _ws(at).scenario == "cluster.yaml" and len(_ws(at).cluster.pods) == 2
    told = [s.value for s in at.success]
    assert len(told) == 1
    assert told[0].startswith("Loaded **cluster.yaml** (2 KB, 1 node, 1 queue, 2 jobs, 2 pods), loaded at ")
    links = [p.proto.page for p in at.get("page_link")]
    assert "simulate" in links and "decisions" in links
    assert not at.warning


def test_a_file_with_only_a_pod_is_loaded_with_a_warning():
    at = _upload(_scenario(), "pod.yaml", ONLY_A_POD)
    assert _ws(at).scenario == "pod.yaml"
    warning = " ".join(w.value for w in at.warning)
    assert "no Node" in warning and "no Queue" in warning


def test_a_refused_file_keeps_the_scenario_and_does_not_confirm_it():
    at = _upload(_scenario(), "cluster.yaml", WAITING)
    before = _ws(at).cluster
    at = _upload(at, "bad.yaml", BAD)
    assert _ws(at).cluster is before and _ws(at).scenario == "cluster.yaml"
    assert "`Queue/broken`" in at.error[0].value and "previous scenario **cluster.yaml** is kept" in at.error[0].value
    assert all("bad.yaml" not in s.value for s in at.success)


def test_jobs_page_says_why_each_waiting_job_and_pod_waits():
    at = _upload(_scenario(), "waiting.yaml", WAITING)
    at.switch_page("pages/jobs.py").run()
    assert any("No cycle has run yet" in i.value for i in at.info)
    at.switch_page("pages/simulate.py").run()
    at.button(key="step_btn").click().run()
    at.switch_page("pages/jobs.py").run()
    assert not at.exception
    lines = [t.value for t in at.text]
    pod = next(t for t in lines if t.startswith("Pod work/wide-1 (pending): "))
    assert "queue team would exceed its deserved on cpu" in pod and "cpu 3 + 3 = 6 > 4 (2 over)" in pod
    job = next(t for t in lines if t.startswith("Job work/urgent (not admitted): "))
    assert "enqueue did not admit it" in job
    assert not any(t.startswith("Pod work/wide-0") for t in lines)  # bound: not waiting


def test_queue_numbers_say_unset_for_a_capability_the_spec_leaves_out():
    no_cap = WAITING.replace("  capability:\n    cpu: '4'\n    memory: 4G\n", "")
    assert no_cap != WAITING
    at = _upload(_scenario(), "no-cap.yaml", no_cap)
    at.switch_page("pages/queues.py").run()
    assert not at.exception
    table = at.dataframe[0].value  # All queues
    row = dict(zip(table["queue"], table["capability"], strict=True))
    assert row["team"] == "cpu unset (no limit), memory unset (no limit)"  # was "cpu 0, memory 0"
    detail = at.dataframe[1].value  # one queue, per resource
    caps = dict(zip(detail["resource"], detail["capability"], strict=True))
    assert caps == {"cpu": "unset (no limit)", "memory": "unset (no limit)"}
    assert any("at the opening of the next session" in c.value for c in at.caption)


def test_md_escape_keeps_bare_urls_and_addresses_from_becoming_links():
    out = md_escape("see http://127.0.0.2:9/x www.evil.example a@b.example")
    assert "://" not in out and "www." not in out and "a@" not in out
    assert out.replace("\u2060", "").replace("\\", "") == "see http://127.0.0.2:9/x www.evil.example a@b.example"


def test_md_code_cannot_be_closed_by_a_name():
    assert md_code("plain") == "`plain`"
    assert md_code("a`b") == "``a`b``"
    assert md_code("``x") == "``` ``x ```"
    assert md_code("two\nlines") == "`two lines`"


def test_an_engine_failure_while_loading_is_one_message_and_keeps_the_scenario(monkeypatch):
    import ui.state

    def broken(*_args, **_kwargs):
        raise RuntimeError("boom in the engine")

    at = _upload(_scenario(), "cluster.yaml", WAITING)
    before = _ws(at).cluster
    monkeypatch.setattr(ui.state, "load_cluster", broken)
    at = _upload(at, "other.yaml", ONLY_A_POD)
    assert not at.exception
    assert _ws(at).cluster is before and _ws(at).scenario == "cluster.yaml"
    assert len(at.error) == 1 and "`other.yaml`" in at.error[0].value
    assert "internal error" in at.error[0].value and "boom" not in at.error[0].value


def test_declared_capabilities_of_a_queue_without_scalars():
    """A queue added in the editor with cpu and memory only has no scalars at all (None): Queues crashed."""
    from capacity.authoring import edit
    from ui.state import new_workspace
    from ui.views import declared_capabilities

    ws = new_workspace()
    added = edit.add_queue(ws.cluster, "team-new", "research", capability={"cpu": "4", "memory": "8Gi"}).cluster
    assert declared_capabilities(added)["team-new"] == {"cpu", "memory"}
