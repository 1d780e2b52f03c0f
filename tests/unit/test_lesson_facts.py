"""A teacher's checks on every lesson: what a question states is what its scenario holds, every pod or job a
question names exists, no note is cut short, no choice is an internal rule id, and no earlier reveal (or the
lesson's text) gives a later question's answer away."""

from __future__ import annotations

import re

import pytest

from capacity.authoring.lessons import RULE_WORDS, LessonRun, label, scenario_value, show
from tests.lesson_oracles import all_lessons, stated_value

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
    if kind in ("split", "phase", "evicted_count", "bind_count") and not cp.explain:
        assert cp.note, "a fact without a pod's reason explains itself in the note"
    if reveal.rule:
        assert not RULE_ID.match(label(reveal.rule)), f"no plain words for {reveal.rule}"


def test_the_restart_is_explained_by_the_job_controller():
    """The phase question's reason is what the job controller did (RestartJob), not just the phase."""
    lesson = next(x for x in LESSONS if x.id == "13-tidal-seed001")
    cp = next(c for c in lesson.checkpoints if c.fact["kind"] == "phase")
    why = RUNS[lesson.id].reveal(cp, cp.answer).sentence
    assert "PodEvicted (ai/training-low-worker2-0) -> RestartJob" in why and "created ai/training-low-worker1-0" in why


# ---- second pass: each class of problem a teacher found, for every lesson ------------------------------------
STUDENT_KEYS = {"question", "note", "label", "title", "choices", "seed"}
#: References a student does not have: spec sections, trap or issue numbers, seed names, our word "variant".
INTERNAL = re.compile(r"\b(spec \d|trap \d+|issue|PR #|seeds?\b|§|HEAD|variants?)\b", re.IGNORECASE)


@pytest.mark.parametrize("lesson", LESSONS, ids=[x.id for x in LESSONS])
def test_no_value_is_followed_by_a_yaml_comment(lesson):
    """Any scalar followed on its line by ` #...` lost that text to a YAML comment, whatever the key (a choice
    in a flow list, a plain note continued over lines, a label)."""
    import yaml
    text = (lesson.path / "checkpoints.yaml").read_text(encoding="utf-8")
    lines = text.splitlines()
    for token in yaml.scan(text):
        if isinstance(token, yaml.ScalarToken):
            end = token.end_mark
            rest = lines[end.line][end.column:] if end.line < len(lines) else ""
            assert not re.match(r"\s+#", rest), f"line {end.line + 1}: text after {token.value!r} is a comment: {rest}"


def _signature(cluster, pod_key: str) -> tuple:
    """What a student can see of a pod: its job, request, node and phase (two pods alike are a coin toss)."""
    pod = cluster.pods[pod_key]
    return pod.group, pod.namespace, str(pod.resreq), pod.node_name or "", pod.phase


@pytest.mark.parametrize(("lesson", "cp"), CHECKPOINTS, ids=IDS)
def test_no_choice_hinges_on_a_tie_between_identical_pods(lesson, cp):
    """Two choices that differ only by swapping identical pods ask for an untaught tie-break (the tidal lesson once
    asked which of two identical workers reclaim takes); so does asking the outcome of one of two twins."""
    cluster = RUNS[lesson.id].state_before(cp).before
    if cp.fact["kind"] in ("binds", "evicted"):
        seen = {}
        for choice in cp.choices:
            pods = [p.strip() for p in choice.split(",") if p.strip() in cluster.pods]
            key = tuple(sorted(_signature(cluster, p) for p in pods))
            assert pods == [] or key not in seen, f"{choice!r} and {seen.get(key)!r} differ only by identical pods"
            seen[key] = choice
        answer = RUNS[lesson.id].fact(cp)
        for pod in answer:  # a named pod in the answer with an identical twin outside it: only a tie-break decides
            twins = [p for p in cluster.pods if p != pod and _signature(cluster, p) == _signature(cluster, pod)]
            if any(t not in answer for t in twins):
                assert not any(pod in c and all(t not in c for t in twins) for c in cp.choices
                               if len([p for p in c.split(",") if p.strip() in cluster.pods]) == len(answer)
                               and c != show(answer)), f"{pod} against its twins {twins}"
    if cp.fact["kind"] in ("rule", "outcome"):
        pod = cp.fact["pod"]
        twins = [p for p in cluster.pods if p != pod and _signature(cluster, p) == _signature(cluster, pod)]
        c = RUNS[lesson.id].cycle(cp.variant, cp.cycle)
        from capacity.analysis.explain import explain_pod
        mine = explain_pod(c.records, c.before, pod)
        for twin in twins:
            other = explain_pod(c.records, c.before, twin)
            if cp.fact["kind"] == "outcome":
                assert other.outcome == mine.outcome, f"{pod} and its twin {twin} end differently"
            elif other.outcome == mine.outcome:  # a "which rule" question states the outcome it asks about
                assert other.rule == mine.rule, f"{pod} and its twin {twin} are decided by different rules"


@pytest.mark.parametrize("lesson", LESSONS, ids=[x.id for x in LESSONS])
def test_pipelined_is_defined_where_it_is_offered(lesson):
    """A lesson that offers "pipelined" as an answer (or asks about it) defines it in its own text first."""
    uses = any("pipelined" in (cp.question + " ".join(cp.choices)) or cp.fact["kind"] == "pipelined"
               for cp in lesson.checkpoints)
    if uses:
        assert re.search(r"\*\*pipelines?\*\*|\*\*pipelined\*\*", lesson.markdown), "pipelined is never defined"


@pytest.mark.parametrize(("lesson", "cp"), CHECKPOINTS, ids=IDS)
def test_nothing_a_student_reads_cites_what_they_do_not_have(lesson, cp):
    """The question, its choices, every text of the reveal (verdict, why, the naive reading, note), the setup's
    label and the lesson's text: no spec section, trap, issue or seed, and no "variant"."""
    from ui.lessons import reveal_view
    view = reveal_view(RUNS[lesson.id], cp, cp.answer if isinstance(cp.answer, str) else show(cp.answer))
    texts = [cp.question, *map(label, cp.choices), *view.texts(), lesson.variants[cp.variant].label,
             lesson.markdown, lesson.title]
    for text in texts:
        assert not INTERNAL.search(text), f"{INTERNAL.search(text).group(0)!r} in {text!r}"


def _sentences(text: str) -> list[str]:
    return [s for s in re.split(r"(?<=[.;:])\s+|\n", text) if s.strip()]


@pytest.mark.parametrize("lesson", LESSONS, ids=[x.id for x in LESSONS])
def test_no_share_is_told_before_it_is_asked(lesson):
    """A share question's number is not in an earlier question, reveal or note next to its queue's name (lesson 05
    and 10 once gave "as the next session opens" in the reveal just before asking it), unless it is the very
    value the student saw as the session opened (the question is then whether it moved)."""
    run = RUNS[lesson.id]
    read = dict.fromkeys(lesson.variants, "")
    for cp in lesson.checkpoints:
        if cp.fact["kind"] == "share":
            queue, answer = cp.fact["queue"], run.fact(cp)
            seen_at = cp.cycle if cp.fact.get("when", "end") == "end" else cp.cycle - 1
            opened = run.cycle(cp.variant, seen_at).opening.get(queue, {}).get("share") if seen_at >= 1 else None
            if opened is None or abs(float(opened) - answer) > 5e-4:
                for s in _sentences(read[cp.variant]):
                    number = re.escape(show(answer))  # a whole number is told only as "share N" or "N on cpu"
                    said = rf"(?<![\d.]){number}(?![\d])" if "." in show(answer) else \
                        rf"share {number}(?![\d.])|(?<![\d.]){number} on "
                    told = re.search(rf"(?<![\w-]){re.escape(queue)}(?![\w-])", s) and re.search(said, s)
                    assert not told, f"#{cp.index}: {queue} {show(answer)} told earlier: {s!r}"
        reveal = run.reveal(cp, cp.answer)
        read[cp.variant] += "\n".join(["", cp.question, reveal.sentence, cp.note])


@pytest.mark.parametrize(("lesson", "cp"), CHECKPOINTS, ids=IDS)
def test_a_placed_pods_why_does_not_read_as_a_refusal(lesson, cp):
    """A bound pod's "Why" once read "(its queue (or a parent) would go over its capacity limit)"."""
    from ui.lessons import reveal_view
    exp = RUNS[lesson.id].explanation(cp)
    if exp is None or exp.outcome not in ("bound", "pipelined"):
        return
    why = reveal_view(RUNS[lesson.id], cp, show(RUNS[lesson.id].fact(cp))).why
    heading = why.split(":", 1)[0]
    assert not re.search(r"would go over|no node has room|cannot reach|would fall below", heading), heading


@pytest.mark.parametrize(("lesson", "cp"), CHECKPOINTS, ids=IDS)
def test_the_state_table_does_not_show_the_limit_asked(lesson, cp):
    """When a queue's realCapability keeps the asked pods out, the table above the question hides it until the
    reveal (lesson 03 showed "realCapability cpu 8" above "how many of x's pods bind?")."""
    from ui.lessons import HIDDEN, state_tables
    exp = RUNS[lesson.id].explanation(cp)
    if exp is None or exp.rule != "capacity.realCapability" or exp.outcome in ("bound", "pipelined"):
        return
    queues, _pods = state_tables(RUNS[lesson.id], cp, revealed=False)
    assert all(row.get("realCapability", HIDDEN) == HIDDEN for row in queues)
    queues, _pods = state_tables(RUNS[lesson.id], cp, revealed=True)
    assert any(row.get("realCapability") not in (None, HIDDEN) for row in queues)
