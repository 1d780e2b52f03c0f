"""Lessons: a scenario the user steps through, predicting each decision before the engine makes it.

A lesson is a folder `fixtures/lessons/<id>/` with `scenario.yaml` (Kubernetes objects and the scheduler
ConfigMap), `lesson.md` (a short text) and `checkpoints.yaml`:

    title: Deserved and share
    variants:                       # optional; default: one variant "main" on scenario.yaml
      head: {label: "Volcano HEAD"}
      seed003: {label: "leaf-only switch", options: {leaf_only_allocatable: true}}
      level1: {label: "level 1", conf: level1.conf, scenario: other.yaml}
    checkpoints:
      - variant: head               # default: the first variant
        cycle: 1                    # the question is asked before this cycle runs
        question: Which pod does cycle 1 bind?
        facts:                      # what the question states, checked against the scenario by the tests
          - {object: Pod/ns1/a, field: cpu, value: "2"}   # see scenario_value for objects and fields
        fact: {kind: binds}         # the engine fact the prediction is checked against
        choices: [ns1/a, ns1/b]     # multiple choice; a rule id shows as its RULE_WORDS
        answer: ns1/a               # the expected answer; the tests check that it equals the engine's
        explain: ns1/a              # the pod whose explain_pod sentence is shown as the reason
        note: >-                    # a block scalar: an unquoted " #" would cut the text (a YAML comment)
          In plain words, citing nothing a student does not have (no spec section, trap or issue number).
        seed: ...                   # optional: the value the seed's table gives, when it differs

Nothing here decides anything: every fact is read from `run_cycle`'s result, the decision records,
`explain_pod`, or the queue plugin's numbers as a session opens. Each variant runs from a fresh copy of
its scenario, one cycle at a time, and keeps every cycle for the questions that refer back to it.
"""

from __future__ import annotations

import copy
from dataclasses import dataclass, field, fields
from pathlib import Path
from typing import Any

import yaml

from capacity.analysis.charts import describe
from capacity.analysis.explain import Explanation, explain_pod
from capacity.core.cluster import Cluster
from capacity.core.errors import InputError
from capacity.core.trace import Record, Trace
from capacity.framework.session import CycleResult, SessionOptions
from capacity.io.k8s import load_cluster
from capacity.scheduler import run_cycle
from capacity.simulation.steps import queue_numbers  # (re-exported: capacity.analysis.compare reads it here)

LESSONS_DIR = Path(__file__).resolve().parents[2] / "fixtures" / "lessons"
#: Fact kinds a checkpoint may ask about, with what the value is.
FACT_KINDS: dict[str, str] = {
    "binds": "the pods bound in the cycle (sorted; `among` restricts to some pods)",
    "evicted": "the pods evicted in the cycle (sorted)",
    "evicted_count": "how many pods the cycle evicted (a number)",
    "bind_count": "how many pods the cycle bound (a number; `among` restricts to some pods)",
    "evicted_jobs": "the jobs that lost a pod to an eviction in the cycle (sorted)",
    "pipelined": "the jobs pipelined in the cycle (sorted)",
    "first": "of the jobs or pods in `among`, the one allocate served first (its allocateJob / nodeChosen record)",
    "share": "queue `queue`'s share: `when: end` as the cycle closes, `when: open` as the cycle's session opens",
    "outcome": "explain_pod's outcome for `pod` after the cycle: bound, evicted, pipelined, pending, running",
    "rule": "explain_pod's deciding rule for `pod` after the cycle (plugin.rule)",
    "phase": "the PodGroup phase of `job` after the cycle",
    "split": "how many pods the cycle bound per namespace (`by: namespace`) or per queue (`by: queue`)",
}
#: Each rule a lesson asks about, in the plain words the lessons teach it (choices and the "Why" show these).
RULE_WORDS: dict[str, str] = {
    "allocate.nodeFit": "no node has room for it",
    "capacity.realCapability": "its queue (or a parent) would go over its capacity limit",
    "capacity.overDeserved": "its queue holds more than its deserved",
    "capacity.notOverDeserved": "its queue is not over its deserved (after the other evictions)",
    "capacity.guarantee": "evicting it would take its queue below its guarantee",
    "capacity.noSharedDimension": "it uses no resource the reclaimer asks for",
    "capacity.immediateVictim": "it uses only resources its queue has no deserved for",
    "capacity.ancestorNotOverDeserved": "a parent queue is not over its deserved",
    "capacity.underDeserved": "the reclaiming queue stays within its deserved",
    "gang.gangMinAvailable": "its job would fall below minAvailable",
    "gang.gangSurplus": "its job keeps at least minAvailable running without it",
    "gang.minAvailable": "its job cannot reach minAvailable",
    "priority.lowerPriority": "it has a lower priority than the preemptor",
    "proportion.deserved": "its queue would go over the deserved proportion computed for it",
    "capacity-card.inferenceReclaimsTraining": "inference may take GPUs from training",
    "capacity-card.reclaimerCardQuota": "the inference queue stays within its card quota",
    "capacity-card.allocateCardQuota": "the queue stays within its card quota",
    "capacity.share": "share = the largest allocated / deserved over the deserved's dimensions",
    "allocate.queueOrder": "allocate serves the queue with the smaller share first",
    "preempt.pipelined": "preempt reserved the node while its victims terminate",
    "allocate.pipelined": "allocate reserved the node while the pods evicted for it terminate",
}
#: The same rules in words for a pod the rule let through (bound or pipelined): RULE_WORDS says why one waits.
RULE_WORDS_PASSED: dict[str, str] = {
    "allocate.nodeFit": "a node has room for it",
    "capacity.realCapability": "its queue and every parent stay within their capacity limits",
    "proportion.deserved": "its queue stays within the deserved proportion computed for it",
    "gang.minAvailable": "its job reaches minAvailable",
}
PLACED = ("bound", "pipelined")
SHARE_TOLERANCE = 5e-4
NONE = "none"


@dataclass(frozen=True)
class Variant:
    """One way of running the lesson's workload: a scenario file, an optional conf, compatibility switches."""

    name: str
    label: str
    scenario: str = "scenario.yaml"
    conf: str = ""
    options: SessionOptions = field(default_factory=SessionOptions)
    # run through capacity.simulation.sim (pod lifecycles, PodEvicted policies) instead of run_cycle
    simulator: bool = False


@dataclass(frozen=True)
class Checkpoint:
    index: int
    variant: str
    cycle: int
    question: str
    fact: dict[str, Any]
    answer: Any
    choices: tuple[str, ...] = ()
    explain: str = ""
    note: str = ""
    seed: str = ""
    #: what the question states about the scenario, each {object, field, value}, checked against it by the tests
    facts: tuple[dict[str, Any], ...] = ()


@dataclass(frozen=True)
class Lesson:
    id: str
    title: str
    markdown: str
    variants: dict[str, Variant]
    checkpoints: tuple[Checkpoint, ...]
    path: Path

    def scenario_text(self, variant: str) -> str:
        return (self.path / self.variants[variant].scenario).read_text(encoding="utf-8")

    def conf_text(self, variant: str) -> str | None:
        conf = self.variants[variant].conf
        return (self.path / conf).read_text(encoding="utf-8") if conf else None

    def cluster(self, variant: str) -> Cluster:
        """A fresh cluster of the variant's scenario (with the variant's conf, if any)."""
        v = self.variants[variant]
        return load_cluster(self.scenario_text(variant), source=f"fixtures/lessons/{self.id}/{v.scenario}",
                            conf_text=self.conf_text(variant))


# ---- loading ------------------------------------------------------------------------------------------------
def lesson_ids(root: Path = LESSONS_DIR) -> list[str]:
    """Every lesson folder (one with a checkpoints.yaml), in name order (names start with a number)."""
    return sorted(p.name for p in root.iterdir() if (p / "checkpoints.yaml").exists()) if root.exists() else []


def _options(raw: dict[str, Any] | None, where: str) -> SessionOptions:
    known = {f.name for f in fields(SessionOptions)}
    raw = raw or {}
    unknown = sorted(set(raw) - known)
    if unknown:
        raise InputError(where, "options", f"unknown compatibility switch(es) {unknown}; known: {sorted(known)}")
    return SessionOptions(**{k: bool(v) for k, v in raw.items()})


def load_lesson(lesson_id: str, root: Path = LESSONS_DIR) -> Lesson:
    path = root / lesson_id
    where = f"fixtures/lessons/{lesson_id}/checkpoints.yaml"
    if not (path / "checkpoints.yaml").exists():
        raise InputError(f"fixtures/lessons/{lesson_id}", "", "no such lesson (no checkpoints.yaml)")
    spec = yaml.safe_load((path / "checkpoints.yaml").read_text(encoding="utf-8")) or {}
    raw_variants = spec.get("variants") or {"main": {"label": "as configured"}}
    variants = {name: Variant(name, str(v.get("label", name)), str(v.get("scenario", "scenario.yaml")),
                              str(v.get("conf", "")), _options(v.get("options"), f"{where}: variants.{name}"),
                              bool(v.get("simulator", False)))
                for name, v in raw_variants.items()}
    first = next(iter(variants))
    checkpoints = []
    for i, c in enumerate(spec.get("checkpoints") or []):
        fact = dict(c.get("fact") or {})
        if fact.get("kind") not in FACT_KINDS:
            raise InputError(where, f"checkpoints[{i}].fact.kind", f"must be one of {sorted(FACT_KINDS)}")
        variant = str(c.get("variant", first))
        if variant not in variants:
            raise InputError(where, f"checkpoints[{i}].variant", f"unknown variant {variant!r}")
        checkpoints.append(Checkpoint(i, variant, int(c.get("cycle", 1)), str(c["question"]), fact, c["answer"],
                                      tuple(str(x) for x in c.get("choices") or ()), str(c.get("explain", "")),
                                      str(c.get("note", "")).strip(), str(c.get("seed", "")),
                                      tuple(dict(f) for f in c.get("facts") or ())))
    md = path / "lesson.md"
    return Lesson(lesson_id, str(spec.get("title", lesson_id)), md.read_text(encoding="utf-8") if md.exists() else "",
                  variants, tuple(checkpoints), path)


# ---- running ------------------------------------------------------------------------------------------------
@dataclass
class Cycle:
    """One cycle of one variant: the cluster before it, the numbers its session opened on, the outcome."""

    number: int
    before: Cluster
    opening: dict[str, dict[str, Any]]
    result: CycleResult
    records: list[Record]
    #: what the controllers did around the cycle (simulated variants only): "Job ns/j: PodEvicted (...) -> RestartJob"
    controller: list[str] = field(default_factory=list)


@dataclass(frozen=True)
class Reveal:
    """What the engine decided at a checkpoint, in words, and whether a prediction matched it."""

    actual: Any
    shown: str
    sentence: str
    rule: str = ""
    correct: bool | None = None


class LessonRun:
    """Runs a lesson's variants lazily, cycle by cycle, and answers its checkpoints from the engine."""

    def __init__(self, lesson: Lesson) -> None:
        self.lesson = lesson
        self._clusters: dict[str, Cluster] = {}
        self._cycles: dict[str, list[Cycle]] = {}
        self._sims: dict[str, Any] = {}
        self._sim_traces: dict[str, Trace] = {}

    def cycle(self, variant: str, number: int) -> Cycle:
        """Cycle `number` (1-based) of `variant`, running the cycles before it if needed."""
        if variant not in self._clusters:
            self._clusters[variant] = self.lesson.cluster(variant)
            self._cycles[variant] = []
        options = self.lesson.variants[variant].options
        done = self._cycles[variant]
        if self.lesson.variants[variant].simulator:
            return self._simulated(variant, number, options)
        while len(done) < number:
            cluster = self._clusters[variant]
            before = copy.deepcopy(cluster)
            opening = queue_numbers(cluster, options)
            trace = Trace(enabled=True)
            trace.cycle = len(done) + 1
            result = run_cycle(cluster, trace, options)
            done.append(Cycle(trace.cycle, before, opening, result, trace.records))
        return done[number - 1]

    def _simulated(self, variant: str, number: int, options: SessionOptions) -> Cycle:
        """Cycles through the simulator: pods run, evictions trigger the jobs' PodEvicted policies."""
        from capacity.simulation.sim import SimOptions, Simulator
        done = self._cycles[variant]
        if variant not in self._sims:
            self._sim_traces[variant] = Trace(enabled=True)
            self._sims[variant] = Simulator(self._clusters[variant], SimOptions(event_driven=False, session=options),
                                            trace=self._sim_traces[variant])
        sim, trace = self._sims[variant], self._sim_traces[variant]
        while len(done) < number:
            before = copy.deepcopy(sim.cluster)
            opening = queue_numbers(before, options)
            start = len(trace.records)
            rec = sim.step()
            if rec is None:
                raise InputError(f"lesson {self.lesson.id}", f"variants.{variant}", "the simulation ended before "
                                 f"cycle {number}")
            done.append(Cycle(rec.cycle, before, opening, rec.result, trace.records[start:], list(rec.controller)))
        return done[number - 1]

    def state_before(self, cp: Checkpoint) -> Cycle:
        """What the user sees when asked: the cycle about to run (its `before` and `opening`)."""
        return self.cycle(cp.variant, cp.cycle)

    def explanation(self, cp: Checkpoint) -> Explanation | None:
        if not cp.explain:
            return None
        c = self.cycle(cp.variant, cp.cycle)
        return explain_pod(c.records, c.before, cp.explain)

    def fact(self, cp: Checkpoint) -> Any:
        """The engine's value of the checkpoint's fact."""
        c = self.cycle(cp.variant, cp.cycle)
        f = cp.fact
        kind = f["kind"]
        if kind == "binds":
            among = set(f.get("among") or c.result.binds)
            return sorted(k for k in c.result.binds if k in among)
        if kind == "evicted":
            return sorted(c.result.evicted)
        if kind == "evicted_count":
            return str(len(c.result.evicted))
        if kind == "bind_count":
            among = set(f.get("among") or c.result.binds)
            return str(sum(1 for k in c.result.binds if k in among))
        if kind == "evicted_jobs":
            return sorted({_job_of(c.before, k) for k in c.result.evicted})
        if kind == "pipelined":
            return sorted(c.result.pipelined)
        if kind == "first":
            among = list(f["among"])
            hit = next((r.subject for r in c.records if r.kind in ("allocateJob", "nodeChosen")
                        and r.subject in among), NONE)
            return hit
        if kind == "share":
            numbers = c.opening if f.get("when", "end") == "open" else c.result.queues
            return float(numbers[f["queue"]]["share"])
        if kind in ("outcome", "rule"):
            exp = explain_pod(c.records, c.before, f["pod"])
            return exp.outcome if kind == "outcome" else exp.rule
        if kind == "phase":
            job = f["job"]
            return c.result.podgroup_phases.get(job) or c.before.podgroups[job].phase
        if kind == "split":
            return _split(c, f.get("by", "namespace"))
        raise InputError(f"lesson {self.lesson.id}", f"checkpoints[{cp.index}].fact.kind", f"unknown kind {kind!r}")

    def reveal(self, cp: Checkpoint, prediction: Any = None) -> Reveal:
        """The engine's answer, the reason (explain_pod's sentence or the share's numbers) and the verdict."""
        actual = self.fact(cp)
        exp = self.explanation(cp)
        if cp.fact["kind"] == "first":
            sentence, rule = self._first_sentence(cp), "allocate.queueOrder"
        elif exp is not None:
            sentence, rule = f"{cp.explain} — {exp.sentence}", exp.rule
        elif cp.fact["kind"] == "share":
            sentence, rule = self._share_sentence(cp), "capacity.share"
        else:
            sentence, rule = self._plain_sentence(cp, actual), ""
        correct = None if prediction is None else matches(prediction, actual)
        return Reveal(actual, show(actual), sentence, rule, correct)

    def check(self, cp: Checkpoint, prediction: Any) -> bool:
        return matches(prediction, self.fact(cp))

    def _plain_sentence(self, cp: Checkpoint, actual: Any) -> str:
        """The fact itself in words, for facts no single pod's reason explains (the note says why)."""
        f, n = cp.fact, cp.cycle
        if f["kind"] == "split":
            return f"the pods cycle {n} bound, counted per {f.get('by', 'namespace')}: {show(actual)}"
        if f["kind"] == "phase":
            said = [line for k in range(1, n + 1) for line in self.cycle(cp.variant, k).controller
                    if line.startswith(f"Job {f['job']}:")]
            how = f"; the job controller: {'; '.join(said)}" if said else ""
            return f"{f['job']}'s PodGroup phase after cycle {n}: {show(actual)}{how}"
        if f["kind"] == "evicted_count":
            return f"cycle {n} evicted {show(actual)} pod(s)"
        if f["kind"] == "bind_count":
            return f"cycle {n} bound {show(actual)} of the pods asked about"
        return f"cycle {n}: {show(actual)}"

    def _first_sentence(self, cp: Checkpoint) -> str:
        """Why allocate served one job before the other: the queue order it recorded as it picked each job
        (its allocateJob records: the leaf's share, and the ancestors' shares as the session opened)."""
        c = self.cycle(cp.variant, cp.cycle)
        picked: dict[str, dict[str, Any]] = {}
        for r in c.records:
            if r.kind == "allocateJob" and r.subject in cp.fact["among"] and r.subject not in picked:
                picked[r.subject] = dict(r.detail or {})
        if not picked:
            return "allocate served none of them"
        order = sorted(picked, key=lambda uid: next(i for i, r in enumerate(c.records) if r.subject == uid))
        parts = []
        paths = {uid: str(d.get("path", "")).split("/") for uid, d in picked.items()}
        for uid in order:
            d, pg = picked[uid], c.before.podgroups.get(uid)
            queue = pg.queue if pg else "?"
            text = f"{uid} (queue {queue}, share {show(float(d.get('share', 0.0)))}"
            if d.get("shareNote"):  # "1, because the queue has no deserved: ..."
                text += "; " + str(d["shareNote"]).split(", ", 1)[-1]
            parts.append(text + ")")
        sentence = "allocate takes the queue with the smallest share first: " + " went before ".join(parts)
        if len(order) == 2 and all(len(p) > 1 for p in paths.values()):
            a, b = (paths[u] for u in order)
            depth = next((i for i, (x, y) in enumerate(zip(a, b, strict=False)) if x != y), min(len(a), len(b)))
            if 0 < depth < min(len(a), len(b)) and depth < len(a) - 1:
                ca, cb = a[depth], b[depth]
                sa = picked[order[0]].get("ancestorShares", {}).get(ca)
                sb = picked[order[1]].get("ancestorShares", {}).get(cb)
                if sa is not None and sb is not None:
                    sentence = (f"the two queues meet at {a[depth - 1]}, so allocate compares the queues just "
                                f"below it: {ca} at share {show(float(sa))} against {cb} at {show(float(sb))} "
                                f"(as the session opened); the smaller goes first, so {order[0]} went before "
                                f"{order[1]}")
        return sentence

    def _share_sentence(self, cp: Checkpoint) -> str:
        c = self.cycle(cp.variant, cp.cycle)
        when = cp.fact.get("when", "end")
        numbers = (c.opening if when == "open" else c.result.queues)[cp.fact["queue"]]
        moment = f"as cycle {c.number}'s session opens" if when == "open" else f"as cycle {c.number} closes"
        return share_sentence(cp.fact["queue"], numbers, moment)


def share_sentence(queue: str, numbers: dict[str, Any], moment: str) -> str:
    """The share in words, from the plugin's own numbers: which dimension dominates, or best-effort."""
    share = float(numbers.get("share", 0.0))
    deserved = {k: v for k, v in (numbers.get("deserved") or {}).items() if v >= 0.1}
    allocated = numbers.get("allocated") or {}
    if not any(v for k, v in deserved.items() if k != "pods"):
        return (f"{queue} has no deserved ({moment}): a best-effort queue, share fixed at 1 whatever it uses "
                f"(allocated {describe(allocated)})")
    ratios = {k: (allocated.get(k, 0.0) / v if v else 0.0) for k, v in deserved.items()}
    dim = max(ratios, key=lambda k: ratios[k])
    if abs(ratios[dim] - share) > SHARE_TOLERANCE:
        # Not the value the next session computes: a later question may ask for exactly that.
        return (f"{queue} share {show(share)} {moment}: this is still the value computed as the session opened, "
                f"because within a cycle Volcano refreshes only a leaf queue's share; {queue}'s allocated has since "
                f"grown to {describe(allocated)} against deserved {describe(deserved)}, and only the next session "
                "computes its share from that")
    return (f"{queue} share {show(share)} {moment}: allocated {describe(allocated)} against deserved "
            f"{describe(deserved)}; the largest ratio, allocated / deserved, is on {dim}")


def _job_of(cluster: Cluster, pod_key: str) -> str:
    pod = cluster.pods[pod_key]
    return f"{pod.namespace}/{pod.group}"


# ---- what a question states about its scenario ------------------------------------------------------------
def _resource(r: Any, name: str) -> float | None:
    if r is None:
        return None
    if name == "cpu":
        return float(r.cpu)
    if name == "memory":
        return float(r.memory)
    return float((r.scalars or {}).get(name, 0.0))


def scenario_value(cluster: Cluster, obj: str, fld: str) -> Any:
    """The value of `fld` of `obj` in the scenario, as a question states it (resources in internal units).

    obj: `Pod/ns/name` (a resource name: its request; `priority`, `node`), `PodGroup/ns/name` (`minMember`,
    `queue`, `pods`: how many pods it has, `running`: how many have a node), `Queue/name` (`deserved.<res>`,
    `capability.<res>`, `guarantee.<res>`, `weight`, `parent`), `Node/name` (a resource: allocatable),
    `Cluster` (a resource: every node's allocatable together; `nodes`), `Namespace/ns` (`weight`)."""
    kind, _, name = obj.partition("/")
    if kind == "Pod":
        pod = cluster.pods[name]
        return {"priority": pod.priority, "node": pod.node_name}.get(fld) if fld in ("priority", "node") \
            else _resource(pod.resreq, fld)
    if kind == "PodGroup":
        pg = cluster.podgroups[name]
        pods = [p for p in cluster.pods.values() if f"{p.namespace}/{p.group}" == name]
        return {"minMember": pg.min_member, "queue": pg.queue, "pods": len(pods),
                "running": sum(1 for p in pods if p.node_name),
                "priority": cluster.priority_classes.get(pg.priority_class_name)}[fld]
    if kind == "Namespace":
        return cluster.namespace_weights.get(name, 1) if fld == "weight" else None
    if kind == "Queue":
        q = cluster.queues[name]
        if fld in ("weight", "parent"):
            return getattr(q, fld)
        part, _, res = fld.partition(".")
        return _resource(getattr(q, part), res)
    if kind == "Node":
        node = next(n for n in cluster.nodes if n.name == name)
        return _resource(node.allocatable, fld)
    if kind == "Cluster":
        if fld == "nodes":
            return len(cluster.nodes)
        return sum(_resource(n.allocatable, fld) or 0.0 for n in cluster.nodes)
    raise KeyError(obj)


def _split(c: Cycle, by: str) -> str:
    counts: dict[str, int] = {}
    for key in c.result.binds:
        pod = c.before.pods[key]
        if by == "queue":
            pg = c.before.podgroups.get(f"{pod.namespace}/{pod.group}")
            name = pg.queue if pg else ""
        else:
            name = pod.namespace
        counts[name] = counts.get(name, 0) + 1
    return ", ".join(f"{k} {v}" for k, v in sorted(counts.items())) or NONE


# ---- comparing predictions --------------------------------------------------------------------------------
def label(choice: str) -> str:
    """A choice as the student reads it: a rule in plain words, anything else as written."""
    return RULE_WORDS.get(choice, choice)


def rule_heading(rule: str, outcome: str = "") -> str:
    """The deciding rule in plain words for a reveal's "Why": for a pod the rule let through (bound, pipelined)
    the words say what held, not the refusal (a bound pod once read "its queue would go over its capacity limit")."""
    if outcome in PLACED and rule in RULE_WORDS_PASSED:
        return RULE_WORDS_PASSED[rule]
    return label(rule)


def show(value: Any) -> str:
    """A fact value as the lesson shows it: shares to three significant digits, lists comma-separated."""
    if isinstance(value, float):
        return f"{value:.3g}"
    if isinstance(value, list):
        return ", ".join(value) if value else NONE
    return str(value)


def _as_list(value: Any) -> list[str]:
    if isinstance(value, (list, tuple)):
        return sorted(str(v).strip() for v in value)
    text = str(value).strip()
    return [] if text in ("", NONE) else sorted(v.strip() for v in text.split(","))


def matches(prediction: Any, actual: Any) -> bool:
    """Whether a prediction (a choice, or a typed answer) equals the engine's fact."""
    if isinstance(actual, float):
        try:
            return abs(float(prediction) - actual) <= SHARE_TOLERANCE
        except (TypeError, ValueError):
            return False
    if isinstance(actual, list):
        return _as_list(prediction) == sorted(actual)
    return str(prediction).strip() == str(actual)
