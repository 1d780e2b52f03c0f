"""The timeline's engine parts: which edits a rewind undoes, "run until" conditions read from a cycle's own
decisions, and the fix suggested (and applied) when children's deserved would exceed their parent's."""

from __future__ import annotations

from pathlib import Path

import pytest

from capacity.authoring import edit
from capacity.core.errors import InputError
from capacity.core.trace import Trace
from capacity.io.k8s import load_cluster
from capacity.scheduler import run_cycle
from capacity.simulation.timeline import EditEntry, Until, check_until, dropped_by_rewind, reclaims, until_met

FIXTURES = Path(__file__).resolve().parents[2] / "fixtures"


def _load(name: str):
    return load_cluster((FIXTURES / f"{name}.yaml").read_text(encoding="utf-8"), source=f"{name}.yaml")


def _cycles(name: str, n: int):
    """(cluster before, result, records) for the first n cycles of a fixture."""
    cluster = _load(name)
    out = []
    for k in range(1, n + 1):
        before = cluster.copy_state()
        trace = Trace(enabled=True)
        trace.cycle = k
        result = run_cycle(cluster, trace)
        out.append((before, result, trace.records))
    return out


# ---- edits and rewinds ---------------------------------------------------------------------------
def test_a_rewind_undoes_the_edits_made_after_the_next_cycle_started():
    edits = [EditEntry(0, "added queue a"), EditEntry(2, "added queue b"), EditEntry(3, "added queue c")]
    assert dropped_by_rewind(edits, 2) == [edits[2]], "an edit made right after cycle 2 is in the kept state"
    assert dropped_by_rewind(edits, 1) == edits[1:]
    assert dropped_by_rewind(edits, 0) == edits[1:]
    assert dropped_by_rewind(edits, 3) == []


# ---- run until -----------------------------------------------------------------------------------
def test_reclaim_is_read_from_the_reclaim_actions_records():
    before, result, records = _cycles("reclaim", 1)[0]
    got = reclaims(before, result, records)
    assert {(v, vq, pq) for v, vq, _, pq in got} == {("team-a/spark-etl-3", "team-a", "team-b"),
                                                   ("team-a/spark-etl-2", "team-a", "team-b")}


@pytest.mark.parametrize(("until", "first", "words"), [
    (Until("eviction"), 1, "2 pod(s) evicted"),
    (Until("queue-reclaim", "team-b"), 1, "queue team-b reclaims"),
    (Until("queue-reclaim", "team-a"), 1, "queue team-a is reclaimed from"),
    (Until("queue-reclaim", "root"), 1, "queue root reclaims"),  # an ancestor counts
    (Until("job", "team-b/train"), 3, "bound team-b/train-0, team-b/train-1"),
    (Until("job", "team-a/spark-etl"), 1, "evicted team-a/spark-etl-3"),
    (Until("quiet"), 2, "nothing changed"),
])
def test_each_condition_is_met_first_at_the_cycle_that_does_it(until, first, words):
    cycles = _cycles("reclaim", 4)
    met = [k for k, (b, r, recs) in enumerate(cycles, 1) if until_met(until, b, r, recs)]
    assert met and met[0] == first
    assert words in until_met(until, *cycles[first - 1])


def test_a_condition_nothing_meets_stays_unmet():
    cycles = _cycles("default", 3)
    assert all(until_met(Until("eviction"), *c) is None for c in cycles)
    assert all(until_met(Until("job", "research/train-llm"), *c) is None for c in cycles)


def test_a_condition_without_its_target_is_refused_by_name():
    with pytest.raises(InputError) as err:
        check_until(Until("job"))
    assert (err.value.obj, err.value.field) == ("run until", "job")
    with pytest.raises(InputError):
        check_until(Until("sometimes"))


# ---- the sibling-sum fix -------------------------------------------------------------------------
def test_a_leaf_above_its_parents_deserved_is_refused_with_the_fix_in_numbers():
    cluster = _load("default")  # research deserves cpu 64; its children 40 + 16 + 8
    with pytest.raises(edit.RefusedEdit) as err:
        edit.add_queue(cluster, "team-x", "research", deserved={"cpu": "4"})
    fix = err.value.fix
    assert fix.text == ("siblings' deserved would add up to cpu 68 > research's cpu 64: lower research-train's "
                        "deserved to cpu 36, or raise research's deserved to cpu 68")
    assert "Fix: " + fix.text in err.value.message
    assert fix.raise_to == {"cpu": "68", "memory": "384Gi", "nvidia.com/gpu": "12"}, "other dimensions are kept"


def test_the_queue_being_edited_is_never_the_one_to_lower():
    cluster = _load("default")
    with pytest.raises(edit.RefusedEdit) as err:
        edit.set_queue_resources(cluster, "research-train", deserved={"cpu": "50", "memory": "256Gi",
                                                                     "nvidia.com/gpu": "8"})
    assert err.value.fix.lower == "research-eval" and err.value.fix.lower_to == {"cpu": "6"}


def test_applying_the_parent_raise_then_the_edit():
    cluster = _load("default")
    with pytest.raises(edit.RefusedEdit) as err:
        edit.add_queue(cluster, "team-x", "research", deserved={"cpu": "4"})
    done = edit.with_parent_raised(cluster, err.value.fix, edit.add_queue, "team-x", "research",
                                   deserved={"cpu": "4"})
    assert done.cluster.queues["research"].deserved.cpu == 68000
    assert done.cluster.queues["team-x"].deserved.cpu == 4000
    assert "team-x" not in cluster.queues, "the input cluster is left alone"


def test_a_parent_raise_the_webhook_refuses_is_refused_with_its_reason():
    cluster = _load("default")  # research's capability is cpu 112
    with pytest.raises(edit.RefusedEdit) as err:
        edit.add_queue(cluster, "team-x", "research", deserved={"cpu": "60"}, capability={"cpu": "60"})
    assert err.value.fix.raise_to["cpu"] == "124"
    with pytest.raises(InputError) as again:
        edit.with_parent_raised(cluster, err.value.fix, edit.add_queue, "team-x", "research",
                                deserved={"cpu": "60"}, capability={"cpu": "60"})
    assert again.value.obj == "Queue/research" and "capability" in again.value.message


def test_other_refusals_carry_no_fix():
    cluster = _load("default")
    with pytest.raises(InputError) as err:
        edit.add_queue(cluster, "team-x", "no-such-parent")
    assert getattr(err.value, "fix", None) is None
