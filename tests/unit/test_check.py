"""`check`: the engine's numbers against the status and metrics the cluster reported, one test (or more)
per likely cause, each with a dump that agrees and one that does not."""

from __future__ import annotations

import copy
import json

import pytest
import yaml

from capacity.analysis.check import compare
from capacity.cli import main

NODE = {"apiVersion": "v1", "kind": "Node", "metadata": {"name": "n1"},
        "status": {"allocatable": {"cpu": "8", "memory": "16Gi", "pods": "110"},
                   "conditions": [{"type": "Ready", "status": "True"}]}}
CONF = "actions: \"enqueue, allocate\"\ntiers:\n- plugins:\n  - name: gang\n  - name: proportion\n"
CONFIGMAP = {"apiVersion": "v1", "kind": "ConfigMap",
             "metadata": {"name": "volcano-scheduler-configmap", "namespace": "volcano-system"},
             "data": {"volcano-scheduler.conf": CONF}}


def scheduler(image="docker.io/volcanosh/vc-scheduler:v1.12.1", configmap="volcano-scheduler-configmap",
              args=("--scheduler-conf=/volcano.scheduler/volcano-scheduler.conf",)):
    """The scheduler's Deployment as the Helm chart writes it (templates/scheduler.yaml @ed72c7c8)."""
    return {"apiVersion": "apps/v1", "kind": "Deployment",
            "metadata": {"name": "volcano-scheduler", "namespace": "volcano-system",
                         "labels": {"app": "volcano-scheduler"}},
            "spec": {"template": {"metadata": {"labels": {"app": "volcano-scheduler"}},
                                  "spec": {"containers": [{"name": "volcano-scheduler", "image": image,
                                                           "args": list(args)}],
                                           "volumes": [{"name": "scheduler-config",
                                                        "configMap": {"name": configmap}}]}}}}


def dump(queue_status=None, pg_phase="Running", pod_extra=None, pod_meta=None, pg_conditions=None,
         configmap=True, extra=(), pod_status=None, min_member=1):
    queue = {"apiVersion": "scheduling.volcano.sh/v1beta1", "kind": "Queue", "metadata": {"name": "q1"},
             "spec": {"weight": 1},
             "status": queue_status if queue_status is not None else
             {"allocated": {"cpu": "2", "memory": "1Gi", "pods": "1"}, "running": 1, "pending": 0, "inqueue": 0}}
    pg = {"apiVersion": "scheduling.volcano.sh/v1beta1", "kind": "PodGroup",
          "metadata": {"name": "job", "namespace": "ns"}, "spec": {"queue": "q1", "minMember": min_member},
          "status": {"phase": pg_phase, "conditions": pg_conditions or []}}
    pod = {"apiVersion": "v1", "kind": "Pod",
           "metadata": {"name": "job-0", "namespace": "ns", "creationTimestamp": "2026-01-01T00:00:00Z",
                        "annotations": {"scheduling.k8s.io/group-name": "job"}, **(pod_meta or {})},
           "spec": {"schedulerName": "volcano", "nodeName": "n1",
                    "containers": [{"name": "c", "resources": {"requests": {"cpu": "2", "memory": "1Gi"}}}],
                    **(pod_extra or {})},
           "status": pod_status or {"phase": "Running"}}
    return {"apiVersion": "v1", "kind": "List",
            "items": [NODE, queue, pg, pod, *([CONFIGMAP] if configmap else []), *extra]}


def run(tmp_path, doc, *extra):
    path = tmp_path / "dump.yaml"
    path.write_text(yaml.safe_dump(doc))
    return main(["check", str(path), *extra])


def report(doc, **kw):
    return compare(yaml.safe_dump(doc), **kw)


def causes(rep, field):
    return [c for d in rep.differences if d.field == field for c in d.causes]


# ---- agreeing ------------------------------------------------------------------------------------
def test_agreeing_status_exits_0(tmp_path, capsys):
    assert run(tmp_path, dump()) == 0
    out = capsys.readouterr().out
    assert out.startswith("agree: the engine's numbers match the cluster's (7 figures compared)")


def test_nothing_to_compare_is_said(tmp_path, capsys):
    doc = dump(queue_status={})
    del doc["items"][2]["status"]
    assert run(tmp_path, doc) == 0
    assert "nothing to compare" in capsys.readouterr().out


# ---- terminating pods ----------------------------------------------------------------------------
def test_allocated_differs_and_names_terminating_pod(tmp_path, capsys):
    doc = dump(queue_status={"allocated": {"cpu": "4", "memory": "1Gi", "pods": "1"}, "running": 1},
               pod_meta={"deletionTimestamp": "2026-01-01T00:05:00Z"})
    assert run(tmp_path, doc) == 1
    out = capsys.readouterr().out
    assert "Queue/q1 status.allocated.cpu: engine 0, cluster 4 (likely: " in out
    assert "terminating pods (metadata.deletionTimestamp): ns/job-0" in out


def test_terminating_pod_whose_release_the_status_shows_agrees():
    doc = dump(queue_status={"allocated": {"cpu": "0", "memory": "0", "pods": "0"}},
               pod_meta={"deletionTimestamp": "2026-01-01T00:05:00Z"})
    assert report(doc).differences == []


# ---- pods bound by another scheduler -------------------------------------------------------------
def test_phase_differs_pod_of_another_scheduler(tmp_path, capsys):
    doc = dump(pg_phase="Pending", pod_extra={"schedulerName": "default-scheduler"})
    assert run(tmp_path, doc, "--format", "json") == 1
    out = json.loads(capsys.readouterr().out)
    assert out["agree"] is False
    phase = [d for d in out["differences"] if d["field"] == "status.phase"][0]
    assert phase["obj"] == "PodGroup/ns/job" and phase["reported"] == "Pending" and phase["engine"] == "Running"
    assert any("another scheduler (spec.schedulerName): ns/job-0" in c for c in phase["causes"])


def test_scheduler_name_from_the_deployment_args_is_not_another_scheduler():
    """A scheduler started with --scheduler-name=batch answers to `batch`: its own pods are not the cause."""
    ours = dump(pg_phase="Pending", pod_extra={"schedulerName": "batch"},
                extra=[scheduler(args=("--scheduler-name=batch",))])
    assert not any("another scheduler" in c for c in causes(report(ours), "status.phase"))
    theirs = dump(pg_phase="Pending", pod_extra={"schedulerName": "volcano"},
                  extra=[scheduler(args=("--scheduler-name", "batch"))])
    assert any("another scheduler" in c for c in causes(report(theirs), "status.phase"))


def test_pod_of_another_scheduler_with_agreeing_status():
    doc = dump(pod_extra={"schedulerName": "default-scheduler"})
    assert report(doc).differences == []


# ---- status stale --------------------------------------------------------------------------------
def test_running_count_differs_with_stale_status(tmp_path, capsys):
    doc = dump(queue_status={"allocated": {"cpu": "2", "memory": "1Gi", "pods": "1"}, "running": 0},
               pg_conditions=[{"type": "Scheduled", "lastTransitionTime": "2025-12-31T00:00:00Z"}])
    assert run(tmp_path, doc) == 1
    out = capsys.readouterr().out
    assert "Queue/q1 status.running: engine 1, cluster 0" in out
    assert ("status stale: pod ns/job-0 was created at 2026-01-01T00:00:00Z, after the last status update "
            "2025-12-31T00:00:00Z") in out


def test_status_newer_than_the_pods_is_not_called_stale():
    doc = dump(queue_status={"running": 0},
               pg_conditions=[{"type": "Scheduled", "lastTransitionTime": "2026-01-02T00:00:00Z"}])
    rep = report(doc)
    assert [d.field for d in rep.differences] == ["status.running"]
    assert not any("stale" in c for c in causes(rep, "status.running"))


def test_pod_scheduled_after_the_queue_status_write_is_stale():
    doc = dump(queue_status={"allocated": {"cpu": "0", "memory": "0", "pods": "0"}},
               pod_status={"phase": "Running", "conditions": [
                   {"type": "PodScheduled", "status": "True", "lastTransitionTime": "2026-01-01T00:10:00Z"}]})
    doc["items"][1]["metadata"]["managedFields"] = [
        {"manager": "vc-scheduler", "operation": "Update", "subresource": "status", "time": "2026-01-01T00:05:00Z"}]
    assert any("pod ns/job-0 was scheduled at 2026-01-01T00:10:00Z" in c
               for c in causes(report(doc), "status.allocated.cpu"))


# ---- phases after enqueue ------------------------------------------------------------------------
def _waiting(phase):
    """A PodGroup whose pod is not bound yet, which fits: the session's enqueue admits it."""
    return dump(queue_status={"allocated": {"cpu": "0", "memory": "0", "pods": "0"}, "pending": 0, "inqueue": 1},
                pg_phase=phase, pod_extra={"nodeName": None}, pod_status={"phase": "Pending"})


def test_phase_after_enqueue_agrees_with_an_inqueue_podgroup():
    assert report(_waiting("Inqueue")).differences == []


def test_podgroup_left_pending_that_enqueue_admits_differs():
    rep = report(_waiting("Pending"))
    diffs = {(d.obj, d.field): (d.engine, d.reported) for d in rep.differences}
    assert diffs == {("PodGroup/ns/job", "status.phase"): ("Inqueue", "Pending")}


def test_without_enqueue_in_the_configuration_a_pending_podgroup_stays_pending():
    doc = _waiting("Pending")
    doc["items"][4] = copy.deepcopy(CONFIGMAP)
    doc["items"][4]["data"]["volcano-scheduler.conf"] = CONF.replace("enqueue, ", "")
    doc["items"][1]["status"]["inqueue"] = 0
    doc["items"][1]["status"]["pending"] = 1
    assert report(doc).differences == []


# ---- a scheduler configuration different from the one in the dump --------------------------------
SCRAPE = """# HELP volcano_queue_deserved_milli_cpu Deserved CPU count for one queue
# TYPE volcano_queue_deserved_milli_cpu gauge
volcano_queue_deserved_milli_cpu{queue_name="q1"} %s
volcano_queue_allocated_milli_cpu{queue_name="q1"} 2000
volcano_queue_allocated_memory_bytes{queue_name="q1"} 1.073741824e+09
volcano_queue_allocated_scalar_resources{queue_name="q1",resource="pods"} 1
volcano_queue_share{queue_name="q1"} 1
volcano_queue_real_capacity_milli_cpu{queue_name="q1"} 8000
volcano_queue_weight{queue_name="q1"} 1
go_goroutines 42
"""


def test_metrics_agree(tmp_path, capsys):
    (tmp_path / "m.txt").write_text(SCRAPE % "2000")
    assert run(tmp_path, dump(), "--metrics", str(tmp_path / "m.txt")) == 0, capsys.readouterr().out


def test_metrics_deserved_differs_without_configmap(tmp_path, capsys):
    (tmp_path / "m.txt").write_text(SCRAPE % "4000")
    assert run(tmp_path, dump(configmap=False), "--metrics", str(tmp_path / "m.txt")) == 1
    out = capsys.readouterr().out
    assert "Queue/q1 metric deserved.cpu: engine 2, cluster 4 (likely: a scheduler configuration different " \
           "from the one in the dump: the dump has no volcano-scheduler-configmap" in out


def test_configuration_in_the_dump_and_mounted_by_the_scheduler_is_no_cause(tmp_path):
    rep = compare(yaml.safe_dump(dump(extra=[scheduler()])), metrics={"q1": {("deserved", "cpu"): 4000.0}},
                  volcano_version="1.12.1")
    assert [d.field for d in rep.differences] == ["metric deserved.cpu"]
    assert causes(rep, "metric deserved.cpu") == []
    assert rep.differences[0].line().endswith("(likely: no cause found in the dump)")


def test_scheduler_mounting_another_configmap_is_named():
    rep = compare(yaml.safe_dump(dump(extra=[scheduler(configmap="my-scheduler-conf")])),
                  metrics={"q1": {("deserved", "cpu"): 4000.0}}, volcano_version="1.12.1")
    assert any("the scheduler mounts ConfigMap my-scheduler-conf, not the volcano-scheduler-configmap" in c
               for c in causes(rep, "metric deserved.cpu"))


def test_configuration_given_apart_replaces_the_dumps():
    rep = compare(yaml.safe_dump(_waiting("Pending")), conf_text=CONF.replace("enqueue, ", ""))
    assert rep.differences  # without enqueue the PodGroup stays Pending, the queue's inqueue count differs
    assert any("given apart from the dump replaced" in c for c in causes(rep, "status.inqueue"))


# ---- a different Volcano version -----------------------------------------------------------------
def test_version_difference_is_named_on_every_difference(tmp_path, capsys):
    doc = dump(queue_status={"running": 0}, extra=[scheduler(image="volcanosh/vc-scheduler:v1.12.1")])
    assert run(tmp_path, doc) == 1
    out = capsys.readouterr().out
    assert ("a different Volcano version: the cluster's scheduler runs 1.12.1 (image volcanosh/vc-scheduler:v1.12.1)"
            ", the engine simulates HEAD (ed72c7c8)") in out


def test_same_version_selected_is_no_cause_and_agreeing_dump_still_agrees():
    doc = dump(queue_status={"running": 0}, extra=[scheduler(image="volcanosh/vc-scheduler:v1.12.1")])
    assert not any("version" in c for c in causes(report(doc, volcano_version="v1.12.1"), "status.running"))
    agreeing = report(dump(extra=[scheduler()]))
    assert agreeing.differences == [] and agreeing.cluster_version == "1.12.1"


def test_version_not_in_the_dump_is_a_note(tmp_path, capsys):
    run(tmp_path, dump(extra=[scheduler(image="volcanosh/vc-scheduler:latest")]))
    assert "note: version not checked: the dump has no vc-scheduler Deployment or Pod with a version tag " \
           "(image volcanosh/vc-scheduler:latest)" in capsys.readouterr().out


# ---- resources the engine does not model ---------------------------------------------------------
def test_unmodelled_resource(tmp_path, capsys):
    doc = dump(queue_status={"allocated": {"cpu": "2", "memory": "1Gi", "pods": "1", "example.com/foo": "3"}})
    assert run(tmp_path, doc) == 1
    assert "status.allocated.example.com/foo: engine 0, cluster 3 (likely: a resource the engine does not " \
           "model (example.com/foo)" in capsys.readouterr().out


def test_dra_claims_and_sharable_devices_are_named():
    doc = dump(queue_status={"allocated": {"cpu": "2", "memory": "1Gi", "pods": "1", "volcano.sh/vgpu-memory": "1"}},
               pod_extra={"resourceClaims": [{"name": "gpu", "resourceClaimName": "gpu-claim"}],
                          "containers": [{"name": "c", "resources": {
                              "requests": {"cpu": "2", "memory": "1Gi"},
                              "limits": {"volcano.sh/vgpu-memory": "1024"}}}]})
    found = causes(report(doc), "status.allocated.volcano.sh/vgpu-memory")
    assert any("DRA claims (spec.resourceClaims) of ns/job-0" in c for c in found)
    assert any("Volcano's sharable devices (volcano.sh/vgpu-memory)" in c for c in found)


def test_pod_with_a_dra_claim_and_agreeing_status():
    assert report(dump(pod_extra={"resourceClaims": [{"name": "x", "resourceClaimName": "c"}]})).differences == []


# ---- hierarchy, input, output --------------------------------------------------------------------
def test_parent_queue_allocated_includes_its_children():
    """With a root queue, the close adds each task to every ancestor (session.go:L501-540 @ed72c7c8)."""
    doc = dump()
    root = {"apiVersion": "scheduling.volcano.sh/v1beta1", "kind": "Queue", "metadata": {"name": "root"},
            "spec": {"weight": 1}, "status": {"allocated": {"cpu": "2", "memory": "1Gi", "pods": "1"}}}
    doc["items"].append(root)
    assert report(doc).differences == []
    root["status"]["allocated"]["cpu"] = "0"
    assert [d.obj for d in report(doc).differences] == ["Queue/root"]


def test_bad_input_exits_2(tmp_path, capsys):
    path = tmp_path / "bad.yaml"
    path.write_text("kind: Queue\nmetadata: [1]\n")
    assert main(["check", str(path)]) == 2


def test_non_integer_status_count_is_one_error_line(tmp_path, capsys):
    assert run(tmp_path, dump(queue_status={"running": "many"})) == 2
    err = capsys.readouterr().err
    assert "Queue/q1: status.running: must be an integer" in err and len(err.strip().splitlines()) == 1


def test_names_with_control_characters_are_shown_as_text(tmp_path, capsys):
    doc = dump(pg_phase="Pending", pod_meta={"name": "job-\x1b[31m0"},
               pod_extra={"schedulerName": "default-scheduler"})
    assert run(tmp_path, doc) == 1
    out = capsys.readouterr().out
    assert "\x1b" not in out and "ns/job-\\x1b[31m0" in out


@pytest.mark.parametrize("text", [
    'volcano_queue_share{queue_name="q\\"1"} 0.5\n',
    'volcano_queue_share{queue_name="q1"} NaN\n',
    'volcano_queue_share{queue_name="q1"} abc\n',
])
def test_metrics_lines_that_do_not_name_q1_or_are_not_numbers_are_not_compared(text):
    from capacity.io.prometheus import parse_text
    assert "q1" not in parse_text(text)


def test_scalar_and_request_gauges_are_read():
    from capacity.io.prometheus import parse_text
    got = parse_text('volcano_queue_request_scalar_resources{queue_name="q1",resource="nvidia.com/gpu"} 2000\n'
                     'volcano_queue_request_milli_cpu{queue_name="q1"} 2000\n')
    assert got == {"q1": {("request", "nvidia.com/gpu"): 2000.0, ("request", "cpu"): 2000.0}}


@pytest.mark.parametrize("garbage", [
    {"apiVersion": "apps/v1", "kind": "Deployment", "metadata": {"name": "volcano-scheduler"}, "spec": "x"},
    {"apiVersion": "apps/v1", "kind": "Deployment", "metadata": {"name": "volcano-scheduler", "labels": ["a"]},
     "spec": {"template": {"metadata": {"labels": {"app": "volcano-scheduler"}},
                           "spec": {"containers": {"a": 1}, "volumes": 5}}}},
    {"apiVersion": "apps/v1", "kind": "Deployment", "metadata": {"name": "volcano-scheduler"},
     "spec": {"template": {"metadata": {"labels": {"app": "volcano-scheduler"}},
                           "spec": {"containers": [{"image": 7, "args": "--scheduler-name=x"}, "c"],
                                    "volumes": [{"configMap": "x"}, 3]}}}},
])
def test_odd_objects_the_engine_does_not_read_are_no_evidence_and_no_traceback(garbage):
    rep = report(dump(extra=[garbage]))
    assert rep.differences == [] and rep.cluster_version is None


def test_the_command_passes_a_selected_release_on(tmp_path, capsys):
    """`check --volcano-version 1.12` simulates that release, so a 1.12 scheduler is no version difference."""
    from capacity.cli import main
    path = tmp_path / "dump.yaml"
    path.write_text(yaml.safe_dump(dump(queue_status={"running": 0}, extra=[scheduler()])))
    assert main(["check", str(path), "--volcano-version", "1.12"]) == 1
    assert "different Volcano version" not in capsys.readouterr().out
    assert main(["check", str(path)]) == 1
    assert "different Volcano version" in capsys.readouterr().out
