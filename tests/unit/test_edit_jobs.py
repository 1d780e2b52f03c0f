"""capacity.authoring.jobform + capacity.authoring.edit.add_job: synthetic jobs from a form or the seeded generator."""

from __future__ import annotations

from pathlib import Path

import pytest

from capacity.authoring import edit
from capacity.authoring.jobform import JobForm, build_job, generated_jobs, job_objects, leaf_queues
from capacity.core.cluster import Cluster
from capacity.core.errors import InputError
from capacity.io.k8s import load_cluster
from capacity.scheduler import run_cycle

DEFAULT = Path(__file__).resolve().parents[2] / "fixtures" / "default.yaml"


@pytest.fixture
def cluster() -> Cluster:
    return load_cluster(DEFAULT.read_text(encoding="utf-8"), source="default.yaml")


def test_form_builds_what_the_job_controller_would(cluster):
    form = JobForm("train-1", "research-dev", namespace="research", replicas=3, min_available=2,
                   requests={"cpu": "500m", "memory": "1Gi", "nvidia.com/gpu": "1"}, priority_class="batch-low",
                   preemptable=False, service_type="training")
    pg, pods = build_job(form, cluster)
    assert (pg.uid, pg.queue, pg.min_member, pg.priority_class_name) == ("research/train-1", "research-dev", 2,
                                                                         "batch-low")
    assert pg.min_resources.cpu == 1000 and pg.min_resources.get("nvidia.com/gpu") == 2000
    assert pg.annotations["volcano.sh/service.type"] == "training"
    assert [p.key for p in pods] == ["research/train-1-0", "research/train-1-1", "research/train-1-2"]
    pod = pods[0]
    assert pod.resreq.cpu == 500 and pod.resreq.get("nvidia.com/gpu") == 1000 and pod.resreq.get("pods") == 1
    assert pod.priority == cluster.priority_classes["batch-low"] and not pod.preemptable
    assert pod.spec.owner_kind == "Job" and pod.role == "worker" and pod.group == "train-1"


def test_submitted_job_gets_scheduled(cluster):
    added = edit.add_queue(cluster, "team-new", "research", capability={"cpu": "4", "memory": "8Gi"}).cluster
    pg, pods = build_job(JobForm("hello", "team-new", requests={"cpu": "1", "memory": "1Gi"}), added)
    out = edit.add_job(added, pg, pods).cluster
    result = run_cycle(out)
    assert "default/hello-0" in result.binds


@pytest.mark.parametrize(("form", "field"), [
    (JobForm("j", "research-dev", replicas=2, min_available=3), "spec.minMember"),
    (JobForm("J!", "research-dev"), "metadata.name"),
    (JobForm("j", "research-dev", requests={"cpu": "lots"}), "spec.containers[0].resources.requests.cpu"),
    (JobForm("j", "research-dev", priority_class="nope"), "spec.priorityClassName"),
    (JobForm("j", "research-dev", replicas=0), "replicas"),
])
def test_form_refusals_name_the_field(cluster, form, field):
    with pytest.raises(InputError) as info:
        job_objects(form, cluster)
    assert info.value.field == field


@pytest.mark.parametrize(("queue", "words"), [("nowhere", "does not exist"), ("research", "leaf"),
                                              ("closed", "Open")])
def test_add_job_refuses_what_the_webhook_refuses(cluster, queue, words):
    closed = edit.add_queue(cluster, "closed", "research", state="Closed").cluster
    pg, pods = build_job(JobForm("j", queue), closed)
    with pytest.raises(InputError) as info:
        edit.add_job(closed, pg, pods)
    assert info.value.field == "spec.queue" and words in info.value.message


def test_duplicates_are_refused(cluster):
    pg, pods = build_job(JobForm("j", "research-dev"), cluster)
    once = edit.add_job(cluster, pg, pods).cluster
    with pytest.raises(InputError, match="already exists"):
        edit.add_job(once, pg, pods)


def test_leaf_queues(cluster):
    leaves = leaf_queues(cluster)
    assert "research-dev" in leaves and "research" not in leaves and "root" not in leaves


def test_generator_is_seeded_and_spreads_over_leaves(cluster):
    a = generated_jobs(cluster, seed=7, jobs=6)
    b = generated_jobs(cluster, seed=7, jobs=6)
    assert [(pg.uid, pg.queue, len(p)) for pg, p in a] == [(pg.uid, pg.queue, len(p)) for pg, p in b]
    assert {pg.namespace for pg, _ in a} == {"gen-7"} and {pg.queue for pg, _ in a} <= set(leaf_queues(cluster))
    out = edit.add_jobs(cluster, a).cluster
    assert len(out.podgroups) == len(cluster.podgroups) + 6
    only = generated_jobs(cluster, seed=1, jobs=3, queues=["research-dev"])
    assert {pg.queue for pg, _ in only} == {"research-dev"}
