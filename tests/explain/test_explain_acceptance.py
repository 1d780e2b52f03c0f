"""`explain` on every acceptance scenario (issue 27): it runs, and the numbers it states are the cycle's.

For each scenario of tests/acceptance/volcano, `python -m capacity explain CLUSTER --format json` (in-process)
is asked about every queue, every PodGroup and every pod (today's cases have at most 6 pods; `PODS_PER_CASE`
keeps the file under a minute should a larger case arrive: about 20 s on a shared machine). Every answer
must parse, and:

* every figure named `<queue> deserved|realCapability|capability|guarantee <dimension>` anywhere in an
  answer carries the value the cycle used, recomputed here from `simulate`'s per-queue figures (these are
  fixed when the session opens); `<queue> allocated <dimension>` is checked where it is the queue's state
  as the cycle closed (a queue's own answer);
* a check that states `allocated + request` against a limit says what the numbers say: a check that
  stopped has a dimension above the limit, a check that passed has one within it;
* a resource number written in a sentence (`cpu 6 + 1 > 6`) is one of the answer's figures as shown: no
  sentence states a number the engine did not record.
"""

from __future__ import annotations

import io
import json
import re
from collections.abc import Iterator
from contextlib import redirect_stderr, redirect_stdout
from pathlib import Path
from typing import Any

import pytest
import yaml

from capacity import cli
from capacity.io.k8s import load_cluster_file
from capacity.scheduler import simulate

CORPUS = Path(__file__).resolve().parents[1] / "acceptance" / "volcano"
CASES = sorted(p.name for p in CORPUS.iterdir() if (p / "expect.yaml").is_file())
PODS_PER_CASE = 6
FIXED = ("deserved", "realCapability", "capability", "guarantee")
FIGURE = re.compile(r"^(?P<queue>\S+) (?P<field>deserved|allocated|request|realCapability|capability|guarantee) "
                    r"(?P<dim>\S+)$")
# a resource name followed by the arithmetic on it: "cpu 6 + 1 > 6", "memory 1G + 1500M > 2G"
_Q = r"\d[\d.]*(?:[numkKMGTPE]i?)?\b"
RESOURCE_RUN = re.compile(r"(?<![\w./-])(?:cpu|memory|pods|ephemeral-storage|[a-z0-9-]+(?:\.[a-z0-9-]+)+/[a-z0-9.-]+)"
                          rf"(\s+{_Q}(?:\s*(?:[-+]|>=|<=|>|<|≤|≥|=)\s*{_Q})*)")
QUANTITY = re.compile(r"\d[\d.]*(?:[numkKMGTPE]i?)?")


def _cycles(case: str) -> int:
    return int(yaml.safe_load((CORPUS / case / "expect.yaml").read_text()).get("cycles", 1))


def _explain(path: Path, flag: str, name: str, cycles: int) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    with redirect_stdout(out), redirect_stderr(err):
        code = cli.main(["explain", str(path), flag, name, "--cycles", str(cycles), "--format", "json"])
    return code, out.getvalue(), err.getvalue()


def _questions(case: str) -> list[tuple[str, str]]:
    cluster = load_cluster_file(str(CORPUS / case / "cluster.yaml"))
    qs = [("--queue", q) for q in cluster.queues]
    qs += [("--job", pg) for pg in cluster.podgroups]
    qs += [("--pod", p) for p in sorted(cluster.pods)[:PODS_PER_CASE]]
    return qs


def _answers(node: Any) -> Iterator[dict[str, Any]]:
    """Every answer object in an explain JSON document (parts and children included)."""
    if isinstance(node, dict):
        if "figures" in node and "sentence" in node:
            yield node
        for v in node.values():
            yield from _answers(v)
    elif isinstance(node, list):
        for v in node:
            yield from _answers(v)


def _figures(answer: dict[str, Any]) -> Iterator[tuple[dict[str, Any], dict[str, Any] | None]]:
    for f in answer.get("figures") or []:
        yield f, None
    for c in answer.get("checks") or []:
        for f in c.get("figures") or []:
            yield f, c


def _close(a: float, b: float) -> bool:
    return abs(a - b) <= 1e-6 * max(1.0, abs(a), abs(b))


@pytest.fixture(scope="module")
def documents() -> dict[str, list[tuple[str, str, int, str, str]]]:
    """Each case's questions and the raw answers, computed once for the tests below."""
    out: dict[str, list[tuple[str, str, int, str, str]]] = {}
    for case in CASES:
        path = CORPUS / case / "cluster.yaml"
        out[case] = [(flag, name, *_explain(path, flag, name, _cycles(case))) for flag, name in _questions(case)]
    return out


@pytest.mark.parametrize("case", CASES)
def test_explain_runs_on_every_object(case: str, documents: dict) -> None:
    failures = []
    for flag, name, code, out, err in documents[case]:
        if code != 0 or "Traceback" in err:
            failures.append(f"{flag} {name}: exit {code}: {err.strip()[-300:]}")
            continue
        try:
            json.loads(out)
        except ValueError as exc:
            failures.append(f"{flag} {name}: not JSON ({exc})")
    assert not failures, "\n".join(failures)


@pytest.mark.parametrize("case", CASES)
def test_queue_figures_are_the_cycles(case: str, documents: dict) -> None:
    cluster = load_cluster_file(str(CORPUS / case / "cluster.yaml"))
    queues = simulate(cluster, _cycles(case)).as_json()["queues"]
    wrong = []
    for flag, name, code, out, _ in documents[case]:
        if code != 0:
            continue
        for answer in _answers(json.loads(out)):
            own_queue = answer.get("kind") == "queue"
            for f, check in _figures(answer):
                m = FIGURE.match(str(f.get("name", "")))
                if not m or f.get("value") is None or str(f.get("shown", "")).startswith("unset"):
                    continue
                q, field, dim = m["queue"], m["field"], m["dim"]
                if field == "request" or (field == "allocated" and (check is not None or not own_queue)):
                    continue
                if q not in queues:
                    continue  # a queue no plugin keeps figures for (e.g. no job in a flat capacity session)
                want = queues[q].get(field, {}).get(dim, 0)
                if not _close(float(f["value"]), float(want)):
                    wrong.append(f"{flag} {name}: {answer['subject']}: figure '{f['name']}' = {f['value']} "
                                 f"(shown {f['shown']}), the cycle used {want}")
    assert not wrong, "\n".join(wrong)


@pytest.mark.parametrize("case", CASES)
def test_checks_say_what_their_numbers_say(case: str, documents: dict) -> None:
    wrong = []
    for flag, name, code, out, _ in documents[case]:
        if code != 0:
            continue
        for answer in _answers(json.loads(out)):
            for check in answer.get("checks") or []:
                per_dim: dict[tuple[str, str], dict[str, float]] = {}
                for f in check.get("figures") or []:
                    m = FIGURE.match(str(f.get("name", "")))
                    if m and f.get("value") is not None:
                        per_dim.setdefault((m["queue"], m["dim"]), {})[m["field"]] = float(f["value"])
                sums = {k: (v["allocated"] + v["request"], next(v[x] for x in FIXED if x in v))
                        for k, v in per_dim.items() if {"allocated", "request"} <= set(v) and set(FIXED) & set(v)}
                if not sums:
                    continue
                above = [k for k, (used, limit) in sums.items() if used > limit and not _close(used, limit)]
                within = [k for k in sums if k not in above]
                if check["outcome"] == "stopped" and not above:
                    wrong.append(f"{flag} {name}: stopped, yet every dimension fits: {check['text']}")
                if check["outcome"] == "passed" and not within:
                    wrong.append(f"{flag} {name}: passed, yet every dimension is above: {check['text']}")
    assert not wrong, "\n".join(wrong)


def _stated_numbers(text: str) -> list[str]:
    return [q for run in RESOURCE_RUN.findall(text) for q in QUANTITY.findall(run)]


@pytest.mark.parametrize("case", CASES)
def test_sentences_state_only_recorded_numbers(case: str, documents: dict) -> None:
    unrecorded = []
    for flag, name, code, out, _ in documents[case]:
        if code != 0:
            continue
        for answer in _answers(json.loads(out)):
            shown = {str(f.get("shown")) for f, _ in _figures(answer)}
            texts = [answer.get("sentence", "")] + [c.get("text", "") for c in answer.get("checks") or []]
            for text in texts:
                extra = [n for n in _stated_numbers(text) if n not in shown]
                if extra:
                    unrecorded.append(f"{flag} {name}: {answer['subject']}: {extra} in '{text}'")
    assert not unrecorded, "\n".join(unrecorded[:20])


def test_the_checks_above_have_numbers_to_check(documents: dict) -> None:
    """The number checks cannot pass by finding nothing: answers carry queue figures and state numbers."""
    fixed = stated = arithmetic = 0
    for case in CASES:
        for _, _, code, out, _ in documents[case]:
            if code != 0:
                continue
            for answer in _answers(json.loads(out)):
                for f, check in _figures(answer):
                    m = FIGURE.match(str(f.get("name", "")))
                    fixed += bool(m and m["field"] in FIXED)
                    arithmetic += bool(check is not None and m and m["field"] == "request")
                stated += sum(len(_stated_numbers(c.get("text", ""))) for c in answer.get("checks") or [])
    assert fixed >= 200 and stated >= 50 and arithmetic >= 20, (fixed, stated, arithmetic)


# (the sum may be written out before the comparison: "cpu 4 + 1 = 5 > 2 (3 over)")
TERMS = re.compile(r"(?<![\w./-])(cpu|memory|pods|[a-z0-9-]+(?:\.[a-z0-9-]+)+/[a-z0-9.-]+) (\S+) \+ (\S+)"
                   r"(?: = \S+)? (?:>|<=|≤) ([^\s,;)]+)")


@pytest.mark.parametrize("case", CASES)
def test_allocated_plus_request_terms_are_the_figures(case: str, documents: dict) -> None:
    """`allocated + request > limit: cpu A + R > L`: A, R and L are the check's allocated, request and limit
    figures as shown (allocated is not allocated + request under another name)."""
    wrong = []
    for flag, name, code, out, _ in documents[case]:
        if code != 0:
            continue
        for answer in _answers(json.loads(out)):
            for check in answer.get("checks") or []:
                text = check.get("text", "")
                if "allocated + request" not in text:
                    continue
                shown: dict[tuple[str, str], str] = {}
                for f in check.get("figures") or []:
                    m = FIGURE.match(str(f.get("name", "")))
                    if m:
                        shown[(m["field"], m["dim"])] = str(f.get("shown"))
                for dim, a, r, limit in TERMS.findall(text.split("allocated + request", 1)[1]):
                    lim = next((shown[(x, dim)] for x in FIXED if (x, dim) in shown), None)
                    got = (shown.get(("allocated", dim)), shown.get(("request", dim)), lim)
                    if got != (a, r, limit):
                        wrong.append(f"{flag} {name}: '{dim} {a} + {r} ... {limit}' but figures allocated, request, "
                                     f"limit = {got}: {text}")
    assert not wrong, "\n".join(wrong[:20])
