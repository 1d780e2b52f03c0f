"""Builds a pod's and a job's Answer from an ExplainRun's records (see capacity.analysis.answer).

A pod's answer, per cycle, is the chain of checks Volcano ran for it, in the order it ran them
(enqueue per plugin, allocate, backfill, reclaim, preempt), each a plain sentence with the numbers the
deciding code recorded; the first check of an action that stopped the pod is marked "stopped". Actions
that never looked at the pod say why ("not reached": a Pending job, a queue overused ...).
"""

from __future__ import annotations

from dataclasses import dataclass

from capacity.analysis.answer_chain import (
    PLACING,
    PLUGIN_ORDER,
    ROOM_ACTIONS,
    Chain,
    add_not_reached,
    best_reason,
    consider_verb,
    derivation_checks,
    first_stopped,
    later_tiers,
    mentions,
    not_reached_actions,
    rule_of,
)
from capacity.analysis.answer_checks import change_figures, event_check, pods_list, reason_text, reasons_figures
from capacity.analysis.answer_model import Answer, Check, ExplainRun
from capacity.analysis.answer_wait import job_waiting, pod_waiting
from capacity.core.errors import InputError
from capacity.core.trace import Record


@dataclass
class PodState:
    """Where a pod stands as a cycle opens, from the cluster before the run and the earlier cycles' records."""

    state: str  # pending | running | terminating | gone
    node: str = ""
    evicted_in: int = 0


def pod_state(run: ExplainRun, key: str, cycle: int) -> PodState:
    pod = run.before.pods[key]
    st = PodState("terminating" if pod.deleting else ("running" if pod.node_name else "pending"), pod.node_name)
    # A cluster taken after the run (the dashboard's) already shows the run's own binds and evictions: the pod
    # stood as it was before the first of them.
    first = next((r for c in range(1, run.cycles + 1) for r in run.about(c, key) if r.kind in ("bind", "evict")),
                 None)
    if first is not None and first.kind == "evict" and pod.deleting:
        st = PodState("running", pod.node_name or str(first.detail.get("node") or ""))
    elif first is not None and first.kind == "bind" and pod.node_name:
        st = PodState("pending")
    for c in range(1, cycle):
        if st.state == "terminating":
            st = PodState("gone", st.node, st.evicted_in)
            continue
        for r in run.about(c, key):
            if r.kind == "bind":
                st = PodState("running", str(r.verdict))
            elif r.kind == "evict":
                st = PodState("terminating", st.node, c)
    return st


def job_phase_at_open(run: ExplainRun, uid: str, cycle: int) -> str:
    """The PodGroup's phase as `cycle` opened: the phase each earlier cycle wrote as it closed (its `phase`
    records), else the phase in the cluster before the run."""
    phase = run.before.podgroups[uid].phase or "Pending"
    first = next((r for r in run.records if r.kind == "phase" and r.subject == uid), None)
    if first is not None and first.detail.get("before"):  # (the cluster given may be one taken after the run)
        phase = str(first.detail["before"])
    for r in run.records:
        if r.cycle >= cycle:
            break
        if r.kind == "phase" and r.subject == uid:
            phase = str(r.verdict)
    return phase or "Pending"


def queue_path(run: ExplainRun, queue: str) -> list[str]:
    path, seen = [], set()
    while queue and queue not in seen and queue in run.before.queues:
        seen.add(queue)
        path.append(queue)
        queue = run.before.queues[queue].parent or ("root" if queue != "root" and "root" in run.before.queues
                                                     else "")
    return path


def notes_for(run: ExplainRun, queues: list[str] | None) -> list[str]:
    """The session notes about these queues (a note naming another queue is left out), or all of them."""
    notes = [plain_note(n) for n in run.all_notes()]
    if queues is None:
        return notes
    names = set(run.before.queues)
    out = []
    for n in notes:
        named = {q for q in names if _names(n, q)}
        if not named or named & set(queues):
            out.append(n)
    return out


#: A plugin's own flag names in session notes, in the words an answer uses instead.
PLAIN_NOTES = {"readyToSchedule=false: ": "not ready to schedule: "}


def plain_note(note: str) -> str:
    for raw, plain in PLAIN_NOTES.items():
        note = note.replace(raw, plain)
    return note


def _names(text: str, word: str) -> bool:
    import re
    return re.search(rf"(?<![\w/-]){re.escape(word)}(?![\w/-])", text) is not None


# ---- one pod in one cycle ------------------------------------------------------------------------------

def _outside_session(run: ExplainRun, key: str) -> Answer | None:
    pod = run.before.pods[key]
    subject = f"Pod/{key}"
    uid = f"{pod.namespace}/{pod.group}"
    why, rule = "", ""
    if not pod.group:
        why, rule = (f"{key} is not scheduled by Volcano: it names no PodGroup (annotation "
                     "scheduling.k8s.io/group-name)"), "session.noPodGroup"
    elif uid not in run.before.podgroups:
        why, rule = f"{key} is not scheduled: its PodGroup {uid} does not exist", "session.podGroupMissing"
    elif run.before.podgroups[uid].queue not in run.before.queues:
        why, rule = (f"{key} is not scheduled: queue {run.before.podgroups[uid].queue!r} of PodGroup {uid} does "
                     "not exist, so Volcano leaves the job out of the session"), "session.queueMissing"
    if not why:
        return None
    check = Check("session", "the pod belongs to a job of a known queue", "stopped", why)
    return Answer(subject, "pod", "not-scheduled", why, rule, 1, checks=[check])


# ---- a running pod as a candidate victim ------------------------------------------------------------------

def _victim_checks(run: ExplainRun, cycle: int, key: str) -> tuple[list[Check], Record | None, str, str]:
    """Each attempt that weighed the pod as a victim: the deciding tier's votes on it, and the outcome.

    Returns the checks, the evict record (if evicted), the plugin.rule that decided its fate and, if the
    last attempt kept it, the reason said for that.
    """
    named = run.mentioning(cycle, key)
    results = [r for r in run.about(cycle, *{r.subject for r in named}) if r.kind.endswith("Result")]
    recs = sorted({id(r): r for r in named + results}.values(), key=run.position)
    styles = getattr(run.before, "unit_styles", None) or None
    checks: list[Check] = []
    rule = ""
    kept_text = ""
    evict = next((r for r in run.about(cycle, key) if r.kind == "evict"), None)
    votes: dict[str, list[Record]] = {}
    for r in recs:
        if r.kind.endswith("Vote") and isinstance(r.verdict, list):
            votes.setdefault(r.subject, []).append(r)
            continue
        if not (r.kind.endswith("Result") and isinstance(r.verdict, list)):
            continue
        mine, votes[r.subject] = votes.get(r.subject, []), []
        if not any(mentions(v, key) for v in mine):
            continue
        tier = int(r.detail.get("tier", -1))
        decided = [v for v in mine if int(v.detail.get("tier", 0)) == tier] if tier >= 0 else mine
        kept: list = []
        kept_by = ""
        for v in decided:
            said = [x for x in v.reasons if x.values.get("task") == key]
            chosen = key in v.verdict
            text = "; ".join(reason_text(x, styles) for x in said) or (
                f"{v.plugin} offers it as a victim" if chosen else f"{v.plugin} does not offer it")
            checks.append(Check(r.action, f"tier {int(v.detail.get('tier', 0)) + 1}, {v.plugin}: may it go for "
                                f"{r.subject}?", "passed" if chosen else "stopped", text, v.plugin,
                                reasons_figures(said, styles), cycle))
            if not chosen:
                kept.extend(said or [])
                kept_by = kept_by or v.plugin
        if kept or kept_by:  # kept by the deciding tier: the most telling plugin's reason says why
            best = best_reason(kept)
            rule = rule_of(best, f"{kept_by}.kept")
            kept_text = reason_text(best, styles) if best is not None else f"{kept_by} does not offer it"
        if tier >= 0:
            verdict = "a victim" if key in r.verdict else "not a victim"
            later = later_tiers(r)
            checks.append(Check(r.action, "the deciding tier", "info", f"tier {tier + 1} decided for "
                                f"{r.subject}: {key} is {verdict}" + (f"; {later}" if later else ""), "", [], cycle))
            if key in r.verdict:
                said = [x for v in decided for x in v.reasons if x.values.get("task") == key]
                rule = rule_of(best_reason(said), f"{r.action}.victim") if evict is not None else rule
        else:
            checks.append(Check(r.action, "the deciding tier", "info", f"no tier offered any victim for "
                                f"{r.subject}", "", [], cycle))
    return checks, evict, rule, kept_text


# ---- answers ---------------------------------------------------------------------------------------------

def pod_cycle(run: ExplainRun, cycle: int, key: str) -> Answer:
    """The pod's answer for one cycle."""
    subject = f"Pod/{key}"
    st = pod_state(run, key, cycle)
    if st.state == "gone":
        text = f"{key} no longer exists: evicted in cycle {st.evicted_in}, it was deleted before this cycle"
        return Answer(subject, "pod", "gone", text, "evicted.gone", cycle)
    if st.state == "terminating":
        text = (f"{key} is terminating on {st.node}" + (f" (evicted in cycle {st.evicted_in})" if st.evicted_in else "")
                + "; it holds its resources until it is gone")
        return Answer(subject, "pod", "terminating", text, "evicted.terminating", cycle)
    if st.state == "running":
        checks, evict, rule, kept_text = _victim_checks(run, cycle, key)
        if evict is not None:
            tentative = next((r for r in run.about(cycle, key) if r.kind == "tentativeEvict"), None)
            preemptor = _preemptor_of(run, cycle, key)
            deciding = [c for c in checks if c.outcome == "passed" and c.action == evict.action]
            why = _best_check(deciding)
            text = f"evicted by {evict.action} on {evict.detail.get('node') or st.node}" + (
                f" to make room for {preemptor}" if preemptor else "") + (f": {why.text}" if why else "")
            if tentative is not None:
                checks.append(event_check(tentative, "info", f"marked for eviction on {tentative.detail.get('node')}"))
            change = next((r for r in run.about(cycle, key) if r.kind == "queueChange" and r.reasons), None)
            if change is not None:  # the queues' allocated and share before -> after (the numbers' own record)
                checks.append(Check(change.action, "the queues before and after", "info",
                                    "; ".join(x.text for x in change.reasons), "",
                                    change_figures([change], getattr(run.before, "unit_styles", None) or None), cycle))
            checks.append(event_check(evict, "passed", f"evicted from {evict.detail.get('node') or st.node}"))
            return Answer(subject, "pod", "evicted", text, rule or f"{evict.action}.evicted", cycle, checks=checks,
                          next="it terminates; its resources are free once it is gone (the next cycle at the earliest)")
        if kept_text:
            text = f"{key} keeps running on {st.node}: {kept_text}"
            decided = next((c for c in reversed(checks) if c.name == "the deciding tier"), None)
            if decided is not None and "not consulted" in decided.text:
                text += f"; {decided.text.split('; ', 1)[-1]}"
        elif checks:
            text = f"{key} keeps running on {st.node}: allowed as a victim, but the preemptor did not need it"
        else:
            text = f"{key} runs on {st.node}; no decision of this cycle touched it"
        return Answer(subject, "pod", "running", text, rule or "none", cycle, checks=checks)
    return _pending_pod_cycle(run, cycle, key)


def _changes_for(run: ExplainRun, key: str, pipe: Record) -> list[Record]:
    """The queueChange records of the evictions made for the pod's placement and of the placement itself."""
    mine = [r for r in run.about(pipe.cycle, key) if r.kind.endswith("Result") and r.action == pipe.action
            and run.position(r) < run.position(pipe)]
    start = run.position(mine[-1]) if mine else 0
    out = [r for r in run.cycle_records(pipe.cycle)[start:run.position(pipe)]
           if r.kind == "queueChange" and r.detail.get("preemptor") == key]
    out += [r for r in run.about(pipe.cycle, key) if r.kind == "queueChange" and r.action == pipe.action
            and "preemptor" not in r.detail and run.position(r) > run.position(pipe)][:1]
    return out


def queues_moved(run: ExplainRun, changes: list[Record]) -> str:
    """'queue a allocated cpu 3 -> 1 (share 3 -> 1); queue b allocated cpu 1 -> 3 (share 0.33 -> 1)': each
    queue's figures before the first of `changes` and after the last (queueChange records), as recorded."""
    from capacity.core.quantity import format_resource_value
    first: dict[str, dict] = {}
    last: dict[str, dict] = {}
    for r in changes:
        for name, q in (r.detail.get("queues") or {}).items():
            first.setdefault(name, q)
            last[name] = q
    styles = getattr(run.before, "unit_styles", None)
    parts = []
    for name, q in first.items():
        b, a = q.get("allocatedBefore") or {}, last[name].get("allocatedAfter") or {}
        dims = [d for d in dict.fromkeys([*b, *a]) if d != "pods" and b.get(d, 0) != a.get(d, 0)]
        if not dims:
            continue
        moved = ", ".join(f"{d} {format_resource_value(d, float(b.get(d, 0)), styles)} -> "
                          f"{format_resource_value(d, float(a.get(d, 0)), styles)}" for d in dims)
        sb, sa = q.get("shareBefore"), last[name].get("shareAfter")
        share = f" (share {sb:.4g} -> {sa:.4g})" if isinstance(sb, int | float) and isinstance(sa, int | float) else ""
        parts.append(f"queue {name} allocated {moved}{share}")
    return "; ".join(parts)


def _evicted_for(run: ExplainRun, key: str, pipe: Record) -> list[str]:
    """The victims evicted for the pod's placement: the tentative evictions since its last victim choice."""
    mine = [r for r in run.about(pipe.cycle, key) if r.kind.endswith("Result") and r.action == pipe.action
            and run.position(r) < run.position(pipe)]
    start = run.position(mine[-1]) if mine else 0
    between = run.cycle_records(pipe.cycle)[start:run.position(pipe)]
    return [r.subject for r in between if r.kind == "tentativeEvict" and r.action == pipe.action]


def _best_check(checks: list[Check]) -> Check | None:
    for plugin in PLUGIN_ORDER:
        for c in checks:
            if c.plugin == plugin:
                return c
    return checks[0] if checks else None


def _preemptor_of(run: ExplainRun, cycle: int, key: str) -> str:
    last = ""
    named = run.mentioning(cycle, key) + run.about(cycle, key)
    for r in sorted(named, key=run.position):
        if r.kind.endswith("Result") and isinstance(r.verdict, list) and key in r.verdict:
            last = r.subject
        if r.kind == "tentativeEvict" and r.subject == key:
            return last
    return last


def _pending_pod_cycle(run: ExplainRun, cycle: int, key: str) -> Answer:
    subject = f"Pod/{key}"
    chain = Chain(run, cycle, key)
    chain.build()
    recs = chain.records
    bind = next((r for r in recs if r.kind == "bind" and r.subject == key), None)
    pipes = [r for r in recs if r.kind == "pipeline" and r.subject == key]
    pipe = pipes[-1] if pipes else None
    if pipe is not None and any(r.kind == "discard" and r.subject == key and r.verdict == "pipeline"
                                for r in recs[recs.index(pipe):]):
        pipe = None
    allocs = [r for r in recs if r.kind == "allocate" and r.subject == key]
    alloc = allocs[-1] if allocs and not any(r.kind == "discard" and r.subject == key
                                             for r in recs[recs.index(allocs[-1]):]) else None
    phase = job_phase_at_open(run, chain.uid, cycle)
    add_not_reached(chain, phase, bind is None and pipe is None and alloc is None)
    done = bind or pipe
    if done is not None:  # once placed, the later actions had nothing to do for it: their checks are left out
        at = next((i for i, c in enumerate(chain.checks) if c.action == done.action and c.text.startswith(
            ("bound to", "pipelined onto"))), None)
        if at is not None:
            chain.checks = chain.checks[:at + 1] + [c for c in chain.checks[at + 1:] if c.action == done.action
                                                    and c.name == "the queues before and after"]
    checks = chain.checks
    if bind is not None:
        allow = [c for c in checks if c.action == bind.action and c.outcome == "passed" and c.plugin]
        best = _best_check(allow)
        node_says = next((c.text for c in checks if c.action == bind.action and c.name == "a node fits the pod"
                          and c.outcome == "passed"), "")
        why = best.text if best else ("it requests no resources (BestEffort), so only the predicates decide"
                                      if bind.action == "backfill" else "it fits a node and no queue plugin limits it")
        text = f"bound to {bind.verdict} by {bind.action}: {why}" + (f"; {node_says}" if node_says else "")
        rule = chain.rules.get(id(best), "") if best else ""
        return Answer(subject, "pod", "bound", text, rule or f"{bind.action}.nodeFit", cycle, checks=checks)
    if pipe is not None:
        if pipe.action in ROOM_ACTIONS:
            evicted = _evicted_for(run, key, pipe)
            freed = f" after evicting {pods_list(evicted)}" if pipe.detail.get("evictionOccurred") and evicted else \
                " (the node's future idle resources already fit it)"
            text = f"pipelined onto {pipe.verdict} by {pipe.action}{freed}"
            pre = next((c for c in checks if c.action == pipe.action and c.outcome == "passed"
                        and c.name.endswith("may its queue take resources back?")), None)
            rule = f"{pipe.action}.pipelined"
            if pre is not None:
                text += f": {pre.text}"
                rule = chain.rules.get(id(pre), rule)
            changes = _changes_for(run, key, pipe)
            moved = queues_moved(run, changes)
            if moved:
                text += f"; {moved}"
                at = next((i for i, c in enumerate(checks) if c.action == pipe.action
                           and c.text.startswith("pipelined onto")), len(checks))
                checks.insert(at, Check(pipe.action, "the queues before and after", "info",
                                        f"over its evictions and its placement: {moved}", "",
                                        change_figures(changes, getattr(run.before, "unit_styles", None) or None),
                                        cycle))
            return Answer(subject, "pod", "pipelined", text, rule, cycle, checks=checks,
                          next=f"it waits for the victims to terminate; allocate binds it in a later cycle "
                               f"(cycle {cycle + 1} at the earliest) if it still fits then")
        text = (f"pipelined onto {pipe.verdict} by allocate: the node's idle resources do not fit it yet, only its "
                "future idle (resources being released) do")
        return Answer(subject, "pod", "pipelined", text, "allocate.pipelined", cycle, checks=checks,
                      next="it binds in a later cycle once those resources are released")
    if alloc is not None:
        text = (f"allocated to {alloc.verdict} but not bound: job {chain.uid} is not ready (fewer than minAvailable "
                "pods allocated, the rest only pipelined), so Volcano keeps the placement uncommitted")
        return Answer(subject, "pod", "pending", text, "gang.jobReady", cycle, checks=checks)
    return _pending_sentence(chain, subject, phase)


def _pending_sentence(chain: Chain, subject: str, phase: str) -> Answer:
    checks = chain.checks
    first = first_stopped(checks)
    if first is None:
        if "allocate" not in chain.run.before.conf.actions:
            admitted = next((c for c in checks if c.name == "enqueue verdict" and c.outcome == "passed"), None)
            text = ("pending: " + (f"{admitted.text}, but " if admitted else "") + "the scheduler configuration runs "
                    f"no allocate action ({', '.join(chain.run.before.conf.actions) or 'none'}), so nothing places it")
            return Answer(subject, "pod", "pending", text, "conf.noAllocate", chain.cycle, checks=checks)
        text = "pending: no action placed or stopped it in this cycle"
        return Answer(subject, "pod", "pending", text, "session.notConsidered", chain.cycle, checks=checks)
    rule = chain.rules.get(id(first), "") or f"{first.action}.{first.plugin or 'stopped'}"
    at = checks.index(first) + 1
    checks[at:at] = derivation_checks(chain.run, chain.cycle, first)
    if first.action == "enqueue":
        vote = next((c for c in checks if c.action == "enqueue" and c.outcome == "stopped" and c.plugin), first)
        rule = chain.rules.get(id(vote), "") or rule
        text = f"pending: enqueue did not admit job {chain.uid}: {vote.text}"
        skipped = not_reached_actions(checks)
        if skipped:
            text += f"; {skipped} only {consider_verb(skipped)} jobs that are Inqueue or Running, so none tried it"
        wait, todo = job_waiting(vote, rule, chain.styles, chain.run.before)
        return Answer(subject, "pod", "pending", text, rule, chain.cycle, checks=checks,
                      next=wait or "waits in Pending: enqueue tries the job again every cycle", todo=todo)
    verbs = {a: "did not make room" if a in ROOM_ACTIONS else "did not place it" for a in PLACING}
    parts = [f"pending because {first.text}" if first.action not in ROOM_ACTIONS else
             f"pending: {first.action} {verbs[first.action]}: {first.text}"]
    said: dict[str, list[str]] = {}
    for a in [a for a in chain.run.before.conf.actions if a in PLACING]:
        stops = [c for c in checks if c.action == a and c.outcome == "stopped"]
        alike = [c for c in stops if c.name == stops[0].name] if stops else []
        if len(alike) > 2 and alike[-1] is stops[-1]:  # the same step failing attempt after attempt (node by node)
            text = f"{alike[0].text} (and so {len(alike) - 1} more times)"
            if stops[0] is first:
                parts[0] += f" (and so {len(alike) - 1} more times)"
            else:
                said.setdefault(text, []).append(a)
            continue
        for stop in {id(x): x for x in stops[:1] + stops[-1:]}.values():
            if stop is not first and stop.text != first.text:
                said.setdefault(stop.text, []).append(a)
    for text, acts in said.items():
        acts = list(dict.fromkeys(acts))
        tail = text.rsplit(": ", 1)[-1]  # the cause's own words or numbers
        if len(tail) > 20 and tail in parts[0]:  # the same cause again, in other words: said once
            parts.append(f"{' and '.join(acts)} {verbs[acts[0]]} either, for the same reason")
            continue
        parts.append(f"{' and '.join(acts)} {verbs[acts[0]]}: {text}" if acts[0] != first.action else
                     f"then {text}")
    later = [(c, chain.rules.get(id(c), "")) for c in checks if c.outcome == "stopped" and c is not first]
    wait, todo = pod_waiting(first, rule, chain.run.before, chain.key, chain.styles, later)
    return Answer(subject, "pod", "pending", "; ".join(parts), rule, chain.cycle, checks=checks,
                  next=wait or "waits: each cycle runs the same checks again", todo=todo)


def build_pod(run: ExplainRun, key: str) -> Answer:
    if key not in run.before.pods:
        raise InputError(f"Pod/{key}", "", "no such pod in the cluster")
    static = _outside_session(run, key)
    if static is not None:
        return static
    per = [pod_cycle(run, c, key) for c in range(1, run.cycles + 1)]
    main = next((a for a in per if a.outcome == "evicted"), None) or \
        next((a for a in per if a.outcome == "bound"), None) or \
        next((a for a in reversed(per) if a.outcome == "running" and a.rule != "none"), None) or per[-1]
    if main.outcome in ("gone", "terminating"):
        main = next((a for a in per if a.outcome not in ("gone", "terminating")), main)
    pod = run.before.pods[key]
    uid = f"{pod.namespace}/{pod.group}"
    main.quirks = list(dict.fromkeys([*main.quirks, *(x.quirk for r in run.about(main.cycle, key, uid)
                                                      for x in r.reasons if x.quirk)]))
    main.notes = notes_for(run, queue_path(run, run.before.podgroups[f"{pod.namespace}/{pod.group}"].queue))
    if run.cycles > 1:
        main.per_cycle = cycle_lines([(a.cycle, a.outcome, a.sentence) for a in per])
        main.final = final_state(run, key)
        if main.outcome == "evicted":  # no guess about what it will do: `final` says what it did by the last cycle
            still = run.after.pods.get(key)
            main.next = "it holds its resources until it is gone" if still is not None and still.deleting else ""
    return main


def cycle_lines(per: list[tuple[int, str, str]]) -> list[tuple[int, str]]:
    """One line per cycle: the outcome and its sentence, or, when a cycle said the same as the one before,
    only that it did."""
    out: list[tuple[int, str]] = []
    last = ("", "")
    for cycle, outcome, sentence in per:
        if (outcome, sentence) == last:
            out.append((cycle, f"{outcome} again, for the same reason"))
        else:
            out.append((cycle, sentence if sentence.startswith(outcome) else f"{outcome}: {sentence}"))
        last = (outcome, sentence)
    return out


def final_state(run: ExplainRun, key: str) -> str:
    pod = run.after.pods.get(key)
    if pod is None:
        return f"after cycle {run.cycles}: {key} is gone (evicted and deleted)"
    if pod.deleting:
        return f"after cycle {run.cycles}: {key} is terminating on {pod.node_name}"
    if pod.node_name:
        return f"after cycle {run.cycles}: {key} runs on {pod.node_name}"
    nominated = f" (nominated to {pod.nominated_node})" if pod.nominated_node else ""
    return f"after cycle {run.cycles}: {key} is pending{nominated}"
