"""A teacher's checks on every lesson: what a question states is what its scenario holds, every pod or job a
question names exists, no note is cut short, no choice is an internal rule id, and no earlier reveal (or the
lesson's text) gives a later question's answer away."""

from __future__ import annotations

import re

import pytest

from capacity.lessons import RULE_WORDS, LessonRun, all_lessons, label, scenario_value, show, stated_value

LESSONS = all_lessons()
RUNS = {lesson.id: LessonRun(lesson) for lesson in LESSONS}
CHECKPOINTS = [(lesson, cp) for lesson in LESSONS for cp in lesson.checkpoints]
IDS = [f"{lesson.id}#{cp.index}" for lesson, cp in CHECKPOINTS]
#: A number with a unit or a count in a question: a fact about the scenario that must be checked.
STATED = re.compile(r"\b\d+(\.\d+)?\s*(cpu|Gi|GPUs?|pods?|one-cpu|workers?)\b|minMember \d|weight \d|priority \d")
#: An object named in a question: namespace/name.
NAMED = re.compile(r"\b(ns\d|ai)/[a-z0-9-]+")
RULE_ID = re.compile(r"^[a-z-]+\.[a-zA-Z]+$")


@pytest.mark.parametrize(("lesson", "cp"), CHECKPOINTS, ids=IDS)
def test_stated_facts_match_the_scenario(lesson, cp):
    """Each {object, field, value} a checkpoint lists is the scenario's value as the question is asked."""
    cluster = RUNS[lesson.id].state_before(cp).before
    for f in cp.facts:
        actual = scenario_value(cluster, f["object"], f["field"])
        assert actual == stated_value(f["field"], f["value"]), f"{f}: the scenario has {actual!r}"


@pytest.mark.parametrize(("lesson", "cp"), CHECKPOINTS, ids=IDS)
def test_a_question_stating_numbers_lists_them_as_facts(lesson, cp):
    if STATED.search(cp.question):
        scenario = lesson.variants[cp.variant].scenario
        earlier = [c for c in lesson.checkpoints[:cp.index] if lesson.variants[c.variant].scenario == scenario]
        assert cp.facts or any(c.facts for c in earlier), "the numbers in this question are checked nowhere"


@pytest.mark.parametrize(("lesson", "cp"), CHECKPOINTS, ids=IDS)
def test_every_object_a_question_or_choice_names_exists(lesson, cp):
    cluster = RUNS[lesson.id].state_before(cp).before
    known = set(cluster.pods) | set(cluster.podgroups)
    for text in (cp.question, *cp.choices):
        for m in NAMED.finditer(text):
            assert m.group(0) in known, f"{m.group(0)} (in {text!r}) is not in the scenario"


def test_the_tidal_lesson_states_its_scenario():
    """The first question once said a 2-GPU pod and two training gangs; the scenario has 1 GPU and one gang."""
    lesson = next(x for x in LESSONS if x.id == "13-tidal-seed001")
    first = lesson.checkpoints[0]
    assert "1 GPU" in first.question and "2 GPUs" not in first.question and "two training gangs" not in first.question
    assert {f["object"] for f in first.facts} >= {"Pod/ai/inference-high-7d9f-x2k4p", "PodGroup/ai/training-low"}


@pytest.mark.parametrize("lesson", LESSONS, ids=[x.id for x in LESSONS])
def test_no_text_is_cut_by_a_yaml_comment(lesson):
    """An unquoted ` #` starts a YAML comment: a note once ended "... (trap 12, issue"."""
    for n, line in enumerate((lesson.path / "checkpoints.yaml").read_text().splitlines(), 1):
        m = re.match(r"\s*-?\s*(note|question|label|title|seed):\s*(.*)", line)
        if m and m.group(2)[:1] not in ('"', "'", ">", "|") and " #" in m.group(2):
            pytest.fail(f"line {n}: an unquoted ' #' cuts {m.group(1)}: {line.strip()}")
    for cp in lesson.checkpoints:
        for text in (cp.question, cp.note):
            assert not text or text.rstrip()[-1] in ".?!):", f"#{cp.index} ends mid-sentence: {text!r}"


@pytest.mark.parametrize(("lesson", "cp"), CHECKPOINTS, ids=IDS)
def test_choices_are_words_a_student_was_taught(lesson, cp):
    for choice in cp.choices:
        assert not RULE_ID.match(label(choice)), f"{choice!r} is an internal rule id"
    if cp.fact["kind"] == "rule":
        assert all(c in RULE_WORDS for c in cp.choices)
        assert len({label(c) for c in cp.choices}) == len(cp.choices)


@pytest.mark.parametrize(("lesson", "cp"), CHECKPOINTS, ids=IDS)
def test_no_internal_references_in_what_a_student_reads(lesson, cp):
    for text in (cp.question, cp.note, lesson.title, lesson.variants[cp.variant].label, lesson.markdown):
        assert not re.search(r"\b(spec \d|trap \d|issue|PR #|seed \d{3}|§|HEAD)\b", text), text


@pytest.mark.parametrize("lesson", LESSONS, ids=[x.id for x in LESSONS])
def test_no_answer_is_given_away_before_its_question(lesson):
    """What a student has read before a question (the lesson text, earlier reveals and notes) does not
    state its answer: not the rule that decides it, not the eviction it asks about, not the share."""
    run = RUNS[lesson.id]
    read = dict.fromkeys(lesson.variants, lesson.markdown)  # per setup: what a student has read about it so far
    for cp in lesson.checkpoints:
        kind, answer, seen = cp.fact["kind"], run.fact(cp), read[cp.variant]
        if kind == "rule":
            assert answer not in seen and label(answer) not in seen, f"#{cp.index}: {answer} told earlier"
        if kind in ("evicted", "evicted_jobs", "evicted_count") and answer not in ([], "0"):
            for pod in run.cycle(cp.variant, cp.cycle).result.evicted:
                assert f"evicting {pod}" not in seen and f"{pod} may go" not in seen, f"#{cp.index}: {pod}"
        if kind == "share":
            assert f"{cp.fact['queue']} share {show(answer)} " not in seen, f"#{cp.index}: share told earlier"
            if "." in show(answer):
                assert show(answer) not in lesson.markdown, f"#{cp.index}: the lesson text gives {show(answer)}"
        reveal = run.reveal(cp, cp.answer)
        read[cp.variant] += "\n" + reveal.sentence + "\n" + cp.note


@pytest.mark.parametrize(("lesson", "cp"), CHECKPOINTS, ids=IDS)
def test_the_why_explains_the_decision_asked(lesson, cp):
    """The reveal's reason is about the object the question asks about, in plain words."""
    run = RUNS[lesson.id]
    reveal = run.reveal(cp, cp.answer)
    kind = cp.fact["kind"]
    if kind == "first":
        winner = run.fact(cp)
        assert reveal.sentence.count(winner) >= 1 and "share" in reveal.sentence and "before" in reveal.sentence
    if kind in ("rule", "outcome"):
        assert cp.explain == cp.fact["pod"], "the reason is the asked pod's"
    if kind in ("evicted", "evicted_jobs") and run.fact(cp):
        evicted = run.cycle(cp.variant, cp.cycle).result.evicted
        assert cp.explain in evicted, "the reason is a victim's"
    if kind in ("split", "phase", "evicted_count") and not cp.explain:
        assert cp.note, "a fact without a pod's reason explains itself in the note"
    if reveal.rule:
        assert not RULE_ID.match(label(reveal.rule)), f"no plain words for {reveal.rule}"


def test_the_restart_is_explained_by_the_job_controller():
    """The phase question's reason is what the job controller did (RestartJob), not just the phase."""
    lesson = next(x for x in LESSONS if x.id == "13-tidal-seed001")
    cp = next(c for c in lesson.checkpoints if c.fact["kind"] == "phase")
    why = RUNS[lesson.id].reveal(cp, cp.answer).sentence
    assert "PodEvicted (ai/training-low-worker2-0) -> RestartJob" in why and "created ai/training-low-worker1-0" in why
