"""Every lesson's checkpoints hold: the expected answer written in checkpoints.yaml is the engine's decision.

For each checkpoint the lesson runs its variant up to the checkpoint's cycle and reads the fact from the
engine (binds, evictions, explain_pod's rule, shares as the cycle closes or opens, ...).
"""

from __future__ import annotations

from pathlib import Path

import pytest

from capacity.authoring.lessons import (
    FACT_KINDS,
    LESSONS_DIR,
    LessonRun,
    lesson_ids,
    load_lesson,
    matches,
    show,
)
from capacity.core.errors import InputError
from tests.lesson_oracles import all_lessons

LESSONS = all_lessons()
RUNS = {lesson.id: LessonRun(lesson) for lesson in LESSONS}
CHECKPOINTS = [(lesson.id, cp.index) for lesson in LESSONS for cp in lesson.checkpoints]
#: The topics issue 7 asks for, each a lesson folder.
REQUIRED = {
    "01-deserved-and-share", "02-guarantee-protection", "03-capability-vs-realcapability", "04-best-effort-queues",
    "05-hierarchical-order-and-victims", "06-ancestor-reclaim-level", "07-reclaim-rules", "08-preempt-with-gang",
    "09-proportion-vs-capacity", "10-seed004-section7", "11-seed003-leaf-only", "12-seed002-namespace-fairshare",
}


def _cp(lesson_id: str, index: int):
    lesson = next(x for x in LESSONS if x.id == lesson_id)
    return RUNS[lesson_id], lesson.checkpoints[index]


def test_every_required_lesson_exists_with_its_files():
    assert set(lesson_ids()) >= REQUIRED
    for lesson in LESSONS:
        assert (lesson.path / "scenario.yaml").exists() and (lesson.path / "lesson.md").exists()
        assert lesson.markdown.startswith("# "), lesson.id
        assert len(lesson.checkpoints) >= 3, lesson.id
        for name, variant in lesson.variants.items():
            assert (lesson.path / variant.scenario).exists(), (lesson.id, name)
            lesson.cluster(name)  # every variant loads


def test_checkpoint_count():
    assert len(CHECKPOINTS) >= 50


@pytest.mark.parametrize(("lesson_id", "index"), CHECKPOINTS)
def test_checkpoint_expected_answer_is_the_engines(lesson_id, index):
    run, cp = _cp(lesson_id, index)
    actual = run.fact(cp)
    assert matches(cp.answer, actual), f"{lesson_id} #{index}: expected {cp.answer!r}, engine says {show(actual)!r}"
    assert run.check(cp, cp.answer)
    reveal = run.reveal(cp, cp.answer)
    assert reveal.correct is True and reveal.sentence


@pytest.mark.parametrize(("lesson_id", "index"), CHECKPOINTS)
def test_checkpoint_choices_have_exactly_one_right_answer(lesson_id, index):
    run, cp = _cp(lesson_id, index)
    assert cp.choices, "every checkpoint offers choices"
    right = [c for c in cp.choices if run.check(cp, c)]
    assert len(right) == 1, (cp.choices, show(run.fact(cp)))
    wrong = next(c for c in cp.choices if c not in right)
    assert run.reveal(cp, wrong).correct is False


@pytest.mark.parametrize(("lesson_id", "index"), CHECKPOINTS)
def test_checkpoint_reason_comes_from_the_engine(lesson_id, index):
    run, cp = _cp(lesson_id, index)
    kind = cp.fact["kind"]
    if kind == "first":  # the queue order, from the allocateJob records allocate wrote as it picked each job
        assert "share" in run.reveal(cp).sentence and run.fact(cp) in run.reveal(cp).sentence
    if kind in ("binds", "evicted", "pipelined", "outcome", "rule"):
        assert cp.explain, "pod facts show explain_pod's sentence"
        exp = run.explanation(cp)
        assert exp is not None and exp.sentence in run.reveal(cp).sentence
    if kind == "rule":
        assert run.reveal(cp).rule == cp.answer  # the rule shown is the one asked about
    if cp.seed and not matches(cp.seed, run.fact(cp)):
        assert cp.note.startswith("Differs from the naive reading"), "explain each difference from it"


def test_fact_kinds_documented_and_used():
    used = {cp.fact["kind"] for lesson in LESSONS for cp in lesson.checkpoints}
    assert used <= set(FACT_KINDS)
    assert {"binds", "evicted", "share", "rule", "split", "first"} <= used


def test_matches_and_show():
    assert matches("0.917", 55 / 60) and not matches("0.92", 55 / 60)
    assert matches("none", []) and matches("b, a", ["a", "b"]) and matches(["a"], ["a"])
    assert not matches("a", ["a", "b"]) and not matches("x", 1.0)
    assert show(55 / 60) == "0.917" and show(1.0) == "1" and show([]) == "none" and show(["a", "b"]) == "a, b"


def test_share_as_cycle_closes_vs_as_next_opens():
    run = RUNS["10-seed004-section7"]
    cycle1, cycle2 = run.cycle("allocate", 1), run.cycle("allocate", 2)
    assert cycle1.result.queues["team-a"]["share"] == 0.75  # stale within the cycle
    assert cycle2.opening["team-a"]["share"] == pytest.approx(55 / 60)
    assert cycle2.before.pods["ns1/tr-new"].node_name == "n1"


def _write(tmp: Path, checkpoints: str) -> Path:
    src = LESSONS_DIR / "01-deserved-and-share"
    dst = tmp / "x"
    dst.mkdir()
    (dst / "scenario.yaml").write_text((src / "scenario.yaml").read_text())
    (dst / "checkpoints.yaml").write_text(checkpoints)
    return tmp


def test_bad_checkpoint_files_name_the_field(tmp_path):
    root = _write(tmp_path, "checkpoints:\n- {question: q, answer: a, fact: {kind: nonsense}}\n")
    with pytest.raises(InputError, match="fact.kind"):
        load_lesson("x", root)


def test_unknown_variant_and_switch(tmp_path):
    root = _write(tmp_path, "variants: {v: {options: {no_such_switch: true}}}\ncheckpoints: []\n")
    with pytest.raises(InputError, match="no_such_switch"):
        load_lesson("x", root)
    (root / "x" / "checkpoints.yaml").write_text(
        "checkpoints:\n- {variant: w, question: q, answer: a, fact: {kind: binds}}\n")
    with pytest.raises(InputError, match="unknown variant"):
        load_lesson("x", root)


def test_missing_lesson():
    with pytest.raises(InputError, match="no such lesson"):
        load_lesson("does-not-exist")


def test_tidal_lesson_restarts_the_whole_training_gang() -> None:
    """Seed 001 through the simulator: after the eviction, RestartJob brings every worker back Pending."""
    from capacity.authoring.lessons import LessonRun, load_lesson

    run = LessonRun(load_lesson("13-tidal-seed001"))
    c3 = run.cycle("main", 3)
    after_c3 = run.cycle("main", 4).before
    pods = {k: p for k, p in after_c3.pods.items() if k.startswith("ai/training-low-")}
    assert sorted(pods) == ["ai/training-low-worker1-0", "ai/training-low-worker2-0"]
    assert all(p.phase == "Pending" and not p.node_name for p in pods.values())
    assert c3.result.binds == {"ai/inference-high-7d9f-x2k4p": "gpu-node-1"}
