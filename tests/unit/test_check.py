"""`check`: the engine's numbers at session open against the status and metrics the cluster reported."""

from __future__ import annotations

import json

import yaml

from capacity.cli import main

NODE = {"apiVersion": "v1", "kind": "Node", "metadata": {"name": "n1"},
        "status": {"allocatable": {"cpu": "8", "memory": "16Gi", "pods": "110"},
                   "conditions": [{"type": "Ready", "status": "True"}]}}


def dump(queue_status=None, pg_phase="Running", pod_extra=None, pod_meta=None, pg_conditions=None,
         configmap=False):
    queue = {"apiVersion": "scheduling.volcano.sh/v1beta1", "kind": "Queue", "metadata": {"name": "q1"},
             "spec": {"weight": 1},
             "status": queue_status if queue_status is not None else
             {"allocated": {"cpu": "2", "memory": "1Gi"}, "running": 1, "pending": 0, "inqueue": 0}}
    pg = {"apiVersion": "scheduling.volcano.sh/v1beta1", "kind": "PodGroup",
          "metadata": {"name": "job", "namespace": "ns"}, "spec": {"queue": "q1", "minMember": 1},
          "status": {"phase": pg_phase, "conditions": pg_conditions or []}}
    pod = {"apiVersion": "v1", "kind": "Pod",
           "metadata": {"name": "job-0", "namespace": "ns", "creationTimestamp": "2026-01-01T00:00:00Z",
                        "annotations": {"scheduling.k8s.io/group-name": "job"}, **(pod_meta or {})},
           "spec": {"schedulerName": "volcano", "nodeName": "n1",
                    "containers": [{"name": "c", "resources": {"requests": {"cpu": "2", "memory": "1Gi"}}}],
                    **(pod_extra or {})},
           "status": {"phase": "Running"}}
    items = [NODE, queue, pg, pod]
    if configmap:
        items.append({"apiVersion": "v1", "kind": "ConfigMap",
                      "metadata": {"name": "volcano-scheduler-configmap", "namespace": "volcano-system"},
                      "data": {"volcano-scheduler.conf": "actions: \"enqueue, allocate\"\ntiers:\n- plugins:\n"
                               "  - name: gang\n  - name: proportion\n"}})
    return {"apiVersion": "v1", "kind": "List", "items": items}


def run(tmp_path, doc, *extra):
    path = tmp_path / "dump.yaml"
    path.write_text(yaml.safe_dump(doc))
    return main(["check", str(path), *extra])


def test_agreeing_status_exits_0(tmp_path, capsys):
    assert run(tmp_path, dump()) == 0
    assert "agree" in capsys.readouterr().out


def test_allocated_differs_and_names_terminating_pod(tmp_path, capsys):
    doc = dump(queue_status={"allocated": {"cpu": "4", "memory": "1Gi"}, "running": 1},
               pod_meta={"deletionTimestamp": "2026-01-01T00:05:00Z"})
    assert run(tmp_path, doc) == 1
    out = capsys.readouterr().out
    assert "Queue/q1 status.allocated.cpu: engine 0.0, cluster 4000.0" in out
    assert "terminating pods" in out and "ns/job-0" in out


def test_phase_differs_pod_of_another_scheduler(tmp_path, capsys):
    doc = dump(pg_phase="Pending", pod_extra={"schedulerName": "default-scheduler"})
    assert run(tmp_path, doc, "--format", "json") == 1
    out = json.loads(capsys.readouterr().out)
    assert out["agree"] is False
    phase = [d for d in out["differences"] if d["field"] == "status.phase"][0]
    assert phase["obj"] == "PodGroup/ns/job" and phase["reported"] == "Pending" and phase["engine"] == "Running"
    assert any("another scheduler" in c for c in phase["causes"])


def test_running_count_differs_with_stale_status(tmp_path, capsys):
    doc = dump(queue_status={"allocated": {"cpu": "2", "memory": "1Gi"}, "running": 0},
               pg_conditions=[{"type": "Scheduled", "lastTransitionTime": "2025-12-31T00:00:00Z"}])
    assert run(tmp_path, doc) == 1
    out = capsys.readouterr().out
    assert "Queue/q1 status.running: engine 1, cluster 0" in out
    assert "status stale" in out


def test_unmodelled_resource(tmp_path, capsys):
    doc = dump(queue_status={"allocated": {"cpu": "2", "memory": "1Gi", "example.com/foo": "3"}})
    assert run(tmp_path, doc) == 1
    assert "does not model (example.com/foo)" in capsys.readouterr().out


SCRAPE = """# HELP volcano_queue_deserved_milli_cpu Deserved CPU count for one queue
# TYPE volcano_queue_deserved_milli_cpu gauge
volcano_queue_deserved_milli_cpu{queue_name="q1"} %s
volcano_queue_allocated_milli_cpu{queue_name="q1"} 2000
volcano_queue_allocated_memory_bytes{queue_name="q1"} 1.073741824e+09
volcano_queue_share{queue_name="q1"} 1
volcano_queue_real_capacity_milli_cpu{queue_name="q1"} 8000
"""


def test_metrics_agree(tmp_path, capsys):
    (tmp_path / "m.txt").write_text(SCRAPE % "2000")
    assert run(tmp_path, dump(), "--metrics", str(tmp_path / "m.txt")) == 0, capsys.readouterr().out


def test_metrics_deserved_differs_without_configmap(tmp_path, capsys):
    (tmp_path / "m.txt").write_text(SCRAPE % "4000")
    assert run(tmp_path, dump(), "--metrics", str(tmp_path / "m.txt")) == 1
    out = capsys.readouterr().out
    assert "volcano_queue_deserved_milli_cpu: engine 2000.0, cluster 4000.0" in out
    assert "scheduler configuration different" in out


def test_bad_input_exits_2(tmp_path, capsys):
    path = tmp_path / "bad.yaml"
    path.write_text("kind: Queue\nmetadata: [1]\n")
    assert main(["check", str(path)]) == 2


def test_non_integer_status_count_is_one_error_line(tmp_path, capsys):
    assert run(tmp_path, dump(queue_status={"running": "many"})) == 2
    assert "Queue/q1" in capsys.readouterr().err
