"""The plugins' accelerated forms reach the Session through one channel (Session.add_fast), attached at
session open only where the engine allows them; the plugin files register Volcano's functions only."""

from __future__ import annotations

import ast
from dataclasses import replace
from pathlib import Path

import pytest
import yaml

from capacity.accel import ACCELERATED, REFERENCE, Acceleration
from capacity.accel.session import AcceleratedSession
from capacity.core.cluster import Cluster
from capacity.core.trace import Trace
from capacity.framework.fast_forms import NodeVector, OrderFn, OrderKey, PossibleVictims
from capacity.framework.session import Session
from capacity.io.k8s import load_objects
from capacity.scheduler import open_session

PLUGINS = Path(__file__).resolve().parents[2] / "capacity" / "plugins"

CONF = {"actions": "enqueue, allocate, reclaim, preempt",
        "tiers": [{"plugins": [{"name": "priority"}, {"name": "gang"}, {"name": "conformance"}]},
                  {"plugins": [{"name": "predicates"}, {"name": "capacity"}, {"name": "nodeorder"},
                               {"name": "binpack"}]}]}


def _cluster() -> Cluster:
    objs = [
        {"kind": "ConfigMap", "metadata": {"name": "volcano-scheduler-configmap"},
         "data": {"volcano-scheduler.conf": yaml.safe_dump(CONF)}},
        {"kind": "Node", "metadata": {"name": "n0"}, "status": {"allocatable": {"cpu": "4", "memory": "8Gi",
                                                                                 "pods": "110"}}},
        {"kind": "Queue", "metadata": {"name": "q"}, "spec": {"weight": 1}},
        {"kind": "PodGroup", "metadata": {"name": "pg", "namespace": "ns"},
         "spec": {"queue": "q", "minMember": 1}},
        {"kind": "Pod", "metadata": {"name": "p0", "namespace": "ns",
                                     "annotations": {"scheduling.k8s.io/group-name": "pg"}},
         "spec": {"schedulerName": "volcano", "containers": [{"name": "c", "resources": {
             "requests": {"cpu": "1", "memory": "1Gi"}}}]}},
    ]
    return load_objects(objs)


def _session(monkeypatch: pytest.MonkeyPatch, accel: Acceleration) -> Session:
    monkeypatch.setenv("CAPACITY_LAB_ENGINE", accel.name)
    return open_session(_cluster(), Trace(enabled=False))


def test_the_reference_engine_is_handed_no_form(monkeypatch: pytest.MonkeyPatch) -> None:
    ssn = _session(monkeypatch, REFERENCE)
    assert set(ssn.plugins) >= {"priority", "gang", "conformance", "predicates", "capacity", "nodeorder", "binpack"}
    assert (ssn.order_keys, ssn.order_lesses, ssn.order_heaps, ssn.order_fns) == ({}, {}, {}, {})
    assert ssn.possible_fns == {}
    assert type(ssn) is Session  # the reference Session: no vector-form registries, no NodeFit at all
    assert not hasattr(ssn, "vector_fns") and not hasattr(ssn, "_node_fit")
    # the queue order the heaps compare with is capacity's as written
    assert ssn.flat("queueOrder")[0][1].__func__ is type(ssn.plugins["capacity"])._queue_order


def test_the_accelerated_engine_gets_every_plugins_forms(monkeypatch: pytest.MonkeyPatch) -> None:
    ssn = _session(monkeypatch, ACCELERATED)
    assert set(ssn.order_keys["jobOrder"]) == {"priority", "gang"}
    assert set(ssn.order_lesses["queueOrder"]) == set(ssn.order_heaps["queueOrder"]) == {"capacity"}
    assert ssn.flat("queueOrder")[0][1].__func__ is type(ssn.plugins["capacity"]).queue_order
    assert set(ssn.possible_fns) == {("preemptable", "priority"), ("preemptable", "gang"),
                                     ("reclaimable", "gang"), ("preemptable", "conformance"),
                                     ("reclaimable", "conformance"), ("reclaimable", "capacity")}
    assert set(ssn.vector_fns) == {("predicate", "predicates"), ("nodeOrder", "nodeorder"),
                                   ("nodeOrder", "binpack")}
    assert ssn.job_key() is not None  # every jobOrder plugin has a key: the heaps compare kept tuples


def test_add_fast_keeps_a_form_only_where_the_engine_allows_its_kind() -> None:
    ssn = AcceleratedSession(_cluster(), trace=Trace(enabled=False), accel=replace(ACCELERATED, order_keys=False))
    ssn.add_fast("jobOrder", "priority", OrderKey(lambda job: 0))
    ssn.add_fast("queueOrder", "capacity", OrderFn(lambda l, r: 0))
    ssn.add_fast("preemptable", "priority", PossibleVictims(lambda task: (None, lambda t: True)))
    ssn.add_fast("nodeOrder", "nodeorder", NodeVector(lambda task, idx: None))
    assert ssn.order_keys == {} and ssn.order_fns == {}
    assert set(ssn.possible_fns) == {("preemptable", "priority")}
    assert set(ssn.vector_fns) == {("nodeOrder", "nodeorder")}


@pytest.mark.parametrize("path", sorted(PLUGINS.glob("*.py")), ids=lambda p: p.name)
def test_plugin_files_register_volcanos_functions_only(path: Path) -> None:
    """A plugin file calls the Session's add_fn and add_event_handler only, and imports no fast form
    (capacity.py keeps its accel mixins, whose forms plugin_forms registers)."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    calls = {node.func.attr for node in ast.walk(tree)
             if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute)
             and node.func.attr.startswith("add_") and isinstance(node.func.value, ast.Name)
             and node.func.value.id == "ssn"}
    assert calls <= {"add_fn", "add_event_handler"}
    imported = {node.module for node in ast.walk(tree) if isinstance(node, ast.ImportFrom) and node.module}
    allowed = {"capacity.accel.capacity_bounds", "capacity.accel.capacity_open", "capacity.accel.capacity_order"}
    assert {m for m in imported if m.startswith("capacity.accel")} <= allowed
