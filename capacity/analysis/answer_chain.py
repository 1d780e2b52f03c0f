"""The chain of checks of one pod (or job) in one cycle, in the order Volcano ran them (capacity.analysis.answer).

`Chain` reads the cycle's records about the pod, its job and its queue and turns each into a Check with its
plain words and numbers; `add_not_reached` says why the configured actions that recorded nothing for it did
not act. Nothing is decided here: every check is a record the deciding code wrote.
"""

from __future__ import annotations

from typing import Any

from capacity.analysis.answer_checks import (
    change_figures,
    event_check,
    figures_of,
    node_list,
    pods_list,
    reason_text,
    reasons_figures,
    round_figures,
    vote_check,
)
from capacity.analysis.answer_model import Check, ExplainRun
from capacity.core.trace import Record

ROOM_ACTIONS = ("reclaim", "preempt")
PLACING = ("allocate", "backfill", "reclaim", "preempt")
#: The most telling reason among several plugins' (a queue plugin's first).
PLUGIN_ORDER = ("capacity", "proportion", "capacity-card", "priority", "drf", "gang", "conformance")

def mentions(r: Record, key: str) -> bool:
    if isinstance(r.verdict, list) and key in r.verdict:
        return True
    return any(x.values.get("task") == key for x in r.reasons)


def best_reason(reasons: list) -> object | None:
    for plugin in PLUGIN_ORDER:
        for r in reasons:
            if r.plugin == plugin:
                return r
    return reasons[0] if reasons else None


def rule_of(reason: object | None, default: str) -> str:
    return f"{reason.plugin}.{reason.rule}" if reason is not None else default  # type: ignore[attr-defined]


class Chain:
    """The checks of one pod in one cycle, built from the cycle's records in order."""

    def __init__(self, run: ExplainRun, cycle: int, key: str, uid: str = "") -> None:
        self.run = run
        self.cycle = cycle
        self.key = key  # "" for a job's own chain (a job without pods)
        if key:
            pod = run.before.pods[key]
            uid = f"{pod.namespace}/{pod.group}"
        self.uid = uid
        self.queue = run.before.podgroups[self.uid].queue
        self.records = run.about(cycle, *(x for x in (key, uid, self.queue) if x))
        self.checks: list[Check] = []
        self.rules: dict[int, str] = {}  # id(check) -> plugin.rule
        self.styles = getattr(run.before, "unit_styles", None) or None

    def _vc(self, r: Record, outcome: str, name: str = "") -> Check:
        return vote_check(r, outcome, name, self.styles)

    def _say(self, reason: Any) -> str:
        return reason_text(reason, self.styles)

    def add(self, check: Check, rule: str = "") -> None:
        last = self.checks[-1] if self.checks else None
        if last is not None and (last.action, last.name, last.outcome, last.text) == (
                check.action, check.name, check.outcome, check.text):
            return  # the same step again (a vote asked once per attempt): said once
        self.checks.append(check)
        if rule:
            self.rules[id(check)] = rule

    def _placed_before_discard(self, discard: Record) -> int:
        """How many of the job's pods allocate had placed (allocated or pipelined) in the attempt a gangDiscard
        undid: the records since allocate last took up the job."""
        recs = self.run.cycle_records(discard.cycle)
        end = self.run.position(discard)
        start = max((i for i in range(end) if recs[i].kind == "allocateJob" and recs[i].subject == self.uid),
                    default=0)
        pods = self.run.before.pods
        return sum(1 for x in recs[start:end] if x.kind in ("allocate", "pipeline") and x.action == discard.action
                   and x.subject in pods and f"{pods[x.subject].namespace}/{pods[x.subject].group}" == self.uid)

    def build(self) -> list[Check]:
        prev_overused: list[Record] = []
        for i, r in enumerate(self.records):
            if r.kind == "overused" and r.subject == self.queue:
                prev_overused.append(r)
                continue
            if r.kind == "queueOverused" and r.subject == self.queue and r.action in ("allocate", "reclaim"):
                reasons = [x for v in prev_overused for x in v.reasons]
                text = "; ".join(self._say(x) for x in reasons) or f"queue {self.queue} is overused"
                self.add(Check(r.action, f"queue {self.queue} is not overused", "stopped",
                               f"queue {self.queue} is overused, so {r.action} skips its jobs: {text}",
                               reasons[0].plugin if reasons else "", reasons_figures(reasons, self.styles)),
                         rule_of(best_reason(reasons), "proportion.overused"))
                prev_overused = []
                continue
            if r.subject == self.uid:
                self._job_record(r)
            if self.key and r.subject == self.key:  # (a pod may bear its PodGroup's name: both apply)
                self._pod_record(r, i)
        return self.checks

    # -- records about the job
    def _job_record(self, r: Record) -> None:
        k = r.kind
        if k == "jobEnqueueable":
            outcome = {"Reject": "stopped", "Permit": "passed"}.get(r.verdict, "info")
            rs = list(r.reasons)
            self.add(self._vc(r, outcome, f"{r.plugin}: may the job leave Pending?"), rule_of(best_reason(rs), ""))
        elif k.endswith("TierShortCircuit"):
            self.add(event_check(r, "info", str(r.detail.get("quirk") or "a Permit ended the vote early")))
        elif k == "enqueue":
            if r.verdict is True:
                why = r.detail.get("why") or "admitted"
                self.add(event_check(r, "passed", f"enqueue admitted job {self.uid} ({why}): its PodGroup moves "
                                     "from Pending to Inqueue", "enqueue verdict"))
            else:
                voted = any(c.action == "enqueue" and c.outcome == "stopped" for c in self.checks)
                self.add(event_check(r, "info" if voted else "stopped", f"enqueue did not admit job {self.uid}: "
                                     "its PodGroup stays Pending", "enqueue verdict"), "enqueue.rejected")
        elif k == "noNodes":
            self.add(event_check(r, "stopped", str(r.verdict), "the session has a node"), "session.noNodes")
        elif k == "jobValid":
            self.add(self._vc(r, "stopped", f"{r.plugin}: the job is valid"), rule_of(best_reason(list(r.reasons)),
                                                                                      "gang.jobValid"))
        elif k in ("skipJob", "preemptSkipJob"):
            if not (self.checks and self.checks[-1].name.endswith("the job is valid")
                    and self.checks[-1].action == r.action):
                why = r.detail.get("why") or r.verdict
                self.add(event_check(r, "stopped", f"job {self.uid} is not valid: {why}",
                                     "the job is valid"), "gang.jobValid")
        elif k == "jobStarving":
            mine = any(c.action == r.action for c in self.checks if c.action in ROOM_ACTIONS)
            tried = self._job_tried(r)
            text = "; ".join(self._say(x) for x in r.reasons) or f"{r.plugin} says job {self.uid} is not starving"
            if mine or (tried and not self.key):
                self.add(Check(r.action, f"{r.plugin}: is the job still starving?", "info",
                               f"{text}, so {r.action} stops trying for it", r.plugin, [], r.cycle))
            elif tried:
                self.add(Check(r.action, f"{r.plugin}: is the job still starving?", "stopped",
                               f"{text} (after the attempts for its other pods), so {r.action} stopped trying for "
                               "this job before reaching this pod", r.plugin, [], r.cycle), f"{r.plugin}.notStarving")
            else:
                self.add(Check(r.action, f"{r.plugin}: is the job starving?", "stopped",
                               f"{text}, and only a starving job gets room made for it", r.plugin, [], r.cycle),
                         f"{r.plugin}.notStarving")
        elif k == "gangDiscard":
            d = r.detail
            own = any(c.action == r.action and c.outcome == "stopped" for c in self.checks)
            placed = self._placed_before_discard(r)  # say "rolled back" only when something was placed
            undo = f"so allocate rolled back the {placed} pod{'s' if placed > 1 else ''} it had placed" \
                if placed else "and nothing was placed for it"
            self.add(event_check(r, "info" if own else "stopped", f"job {self.uid} could not place minAvailable "
                                 f"{d.get('minAvailable')} pods together (ready {d.get('ready')}), {undo}",
                                 "gang: minAvailable placed together"),
                     "gang.minAvailable")
        elif k == "jobPipelined" and r.verdict == "Reject" and r.reasons:
            self.add(self._vc(r, "info", f"{r.plugin}: enough pods placed or pipelined"))
        elif k == "preemptCommit":
            self.add(event_check(r, "passed", f"preempt kept its {r.detail.get('operations')} operations for "
                                 f"job {self.uid} (the job is pipelined)"))
        elif k == "preemptRollback":
            self.add(event_check(r, "stopped", f"preempt undid its {r.detail.get('operations')} operations: "
                                 f"{r.detail.get('why')}"), "preempt.rollback")

    def _job_tried(self, starving: Record) -> bool:
        """Whether the action had already tried a pod of the job when it found the job no longer starving."""
        at = self.run.position(starving)
        return any(r.action == starving.action and r.kind not in ("evict", "tentativeEvict")
                   and self.run.position(r) < at for r in self.run.of_job_pods(self.cycle, self.uid))

    # -- records about the pod
    def _pod_record(self, r: Record, i: int) -> None:
        k, a = r.kind, r.action
        if k == "allocatable":
            ok = r.verdict is True
            outcome = "passed" if ok else ("stopped" if a in ("allocate", "backfill") else "info")
            self.add(self._vc(r, outcome, f"{r.plugin}: the queue has room for the pod"),
                     rule_of(best_reason(list(r.reasons)), f"{r.plugin}.allocatable"))
        elif k == "noFit":
            self.add(event_check(r, "stopped", f"no node fits it: {r.verdict}", "a node fits the pod"),
                     "allocate.nodeFit")
        elif k == "prePredicateFailed":
            self.add(event_check(r, "stopped", f"the pre-filter failed: {r.verdict}"), "predicates.prePredicate")
        elif k == "roleAlreadyFailed":
            self.add(event_check(r, "stopped", f"another pod of role {r.detail.get('role')!r} already found no node "
                                 "this cycle, so Volcano skips the rest of that role"), "allocate.roleFitError")
        elif k == "nodeChosen":
            n = r.detail.get("feasible", 0)
            text = f"{r.verdict} was the only feasible node" if n == 1 else \
                f"{r.verdict} scored best of {n} feasible nodes"
            self.add(event_check(r, "passed", text, "a node fits the pod"), "allocate.nodeFit")
        elif k == "scoreTie":
            tied = list(r.detail.get("tied") or [])
            self.add(event_check(r, "info", f"{node_list(tied)} scored the same; {r.verdict} was taken"
                                 + (f" ({r.detail['note']})" if r.detail.get("note") else "")))
        elif k == "allocate":
            self.add(event_check(r, "passed", f"allocated to {r.verdict}"))
        elif k == "pipeline":
            self.add(event_check(r, "passed", f"pipelined onto {r.verdict}: it will use resources being released "
                                 "there"))
        elif k == "discard":
            self.add(event_check(r, "info", f"its tentative {r.verdict} was rolled back"))
        elif k == "bind":
            self.add(event_check(r, "passed", f"bound to {r.verdict}"))
        elif k == "queueChange":
            self.add(Check(a, "the queues before and after", "info",
                           "; ".join(x.text for x in r.reasons) or "queue figures changed", "",
                           change_figures([r], self.styles), r.cycle))
        elif k == "preemptionPolicyNever":
            self.add(event_check(r, "stopped", "its preemptionPolicy is Never, so it takes nothing from others"),
                     f"{a}.preemptionPolicyNever")
        elif k == "preemptive":
            ok = r.verdict is True
            self.add(self._vc(r, "passed" if ok else "stopped", f"{r.plugin}: may its queue take resources back?"),
                     rule_of(best_reason(list(r.reasons)), f"{a}.notPreemptive"))
        elif k.endswith("Vote"):
            self._vote(r)
        elif k.endswith("Result"):
            self._result(r)
        elif k == "victimsInsufficient":
            if "nodes" in r.detail:
                text = (f"evicting every preemptable pod of other queues on {node_list(r.detail['nodes'])} would "
                        "not free enough for it")
            else:
                text = (f"the victims allowed on {r.verdict} ({pods_list(r.detail.get('victims') or [])}) would "
                        "not free enough for it")
            last = self.checks[-1] if self.checks else None
            said = "nodes" not in r.detail and not r.detail.get("victims") and last is not None \
                and last.action == r.action and last.outcome == "stopped" and last.name == "the victims"
            self.add(event_check(r, "info" if said else "stopped", text, "the victims free enough room"),
                     "reclaim.victimsInsufficient")
        elif k in ("preemptFailed", "preemptNotEligible", "preemptNoNodes", "preemptNoCandidates",
                   "preemptNoVictims", "preemptNodeRejected", "preemptRollback"):
            why = r.detail.get("why") or ""
            if k == "preemptFailed" and not why:
                why = "it found no node where evicting allowed victims makes room" if \
                    r.detail.get("phase") == "betweenJobs" else "no placement"
            if k == "preemptRollback":
                gone = pods_list(list(r.detail.get("evictions") or [])) or "victims"
                why = f"evicting {gone} on {r.verdict} still did not let it fit" + (
                    f": {r.detail['why']}" if r.detail.get("why") else " (queue limit, node or predicates)")
            if k == "preemptNoCandidates":
                why = ("no node becomes feasible by evicting allowed victims (topology-aware preemption needs at "
                       "least one victim per candidate node)")
            if "nodes" in r.detail and k != "preemptNoCandidates":
                why = f"{why} (on {node_list(r.detail['nodes'])})"
            phase = r.detail.get("phase")
            where = {"betweenJobs": " from other jobs of its queue", "withinJob": " from its own job"}.get(phase, "")
            from capacity.core.glossary import words
            rule = {"preemptRollback": "preempt.rollback", "preemptNoCandidates": "preempt.noCandidates"}.get(
                k, f"preempt.{k}")
            # (preemptFailed closes an attempt whose own stopper was already said: then it only sums up)
            summed = False
            for c in reversed(self.checks if k == "preemptFailed" else []):
                if c.action != a or c.name.startswith(words("preemptFailed")):
                    break
                summed = summed or c.outcome == "stopped"
            text = why if k == "preemptNoCandidates" or why.startswith(words(k)) else f"{words(k)}{where}: {why}"
            self.add(event_check(r, "info" if summed else "stopped", text), rule)

    def _vote(self, r: Record) -> None:
        tier = int(r.detail.get("tier", 0)) + 1
        victims = list(r.verdict) if isinstance(r.verdict, list) else []
        by_rule: dict[str, list] = {}
        for x in r.reasons:
            gone = x.values.get("task") in victims
            by_rule.setdefault(f"{'may go' if gone else 'kept'} {x.plugin}.{x.rule}", []).append(x)
        why = "; ".join(f"{len(xs)} {k.split(' ')[0] if not k.startswith('may') else 'may go'}, e.g. "
                        f"{self._say(xs[0])}" if len(xs) > 1 else self._say(xs[0]) for k, xs in by_rule.items())
        offer = f"offers {pods_list(victims)} as victims" if victims else \
            "offers no victim, which ends this tier undecided (the next tier, if any, is asked)"
        self.add(Check(r.action, f"tier {tier}, {r.plugin}: which pods may go?", "info",
                       offer + (f" ({why})" if why else ""), r.plugin,
                       reasons_figures([xs[0] for xs in by_rule.values()], self.styles), r.cycle))

    def _result(self, r: Record) -> None:
        tier = int(r.detail.get("tier", -1))
        if tier < 0:
            empty: list[str] = []
            kept: list = []
            for v in self.records:
                if v is r:
                    break
                if v.subject != r.subject:
                    continue
                if v.kind == r.kind:
                    empty, kept = [], []
                elif v.kind == r.kind.replace("Result", "Vote") and not v.verdict:
                    empty.append(v.plugin)
                    kept.extend(v.reasons)
            best = best_reason(kept)
            who = (f": {', '.join(dict.fromkeys(empty))} offered none, which ends a tier" if empty else "") + (
                f" ({self._say(best)})" if best is not None else "")
            self.add(Check(r.action, "the victims", "stopped", f"no tier of plugins offered a victim{who}", "",
                           reasons_figures([best], self.styles), r.cycle), rule_of(best, f"{r.action}.noVictims"))
            return
        later = later_tiers(r)
        text = f"tier {tier + 1} decided: {pods_list(list(r.verdict))} may be evicted"
        if later:
            text += f"; {later}"
        self.add(Check(r.action, "the victims", "passed", text, "", [], r.cycle))


def not_reached_actions(checks: list[Check]) -> str:
    """'allocate, reclaim and preempt': the actions that did not reach the subject (backfill left out: it
    places only pods that request nothing, which a user rarely asks about)."""
    acts = [c.action for c in checks if c.outcome == "not reached" and c.action != "backfill"]
    acts = list(dict.fromkeys(acts))
    return ", ".join(acts[:-1]) + f" and {acts[-1]}" if len(acts) > 1 else "".join(acts)


def derivation_checks(run: ExplainRun, cycle: int, stop: Check) -> list[Check]:
    """For a stopper that compares with a queue's deserved or realCapability: how the queue plugin worked that
    figure out as the session opened (its queueFigures record and, for proportion's deserved, the rounds of
    its water-filling), as recorded."""
    limits = [f.name.split(" ") for f in stop.figures]
    hit = next(((q, lim) for q, lim, *_ in (x for x in limits if len(x) == 3) if lim in ("deserved", "realCapability")),
               None)
    if hit is None:
        return []
    queue, limit = hit
    out: list[Check] = []
    figures = next((r for r in run.about(cycle, queue) if r.kind == "queueFigures" and r.reasons), None)
    if figures is not None:
        styles = getattr(run.before, "unit_styles", None) or None
        nodes = list(figures.detail.get("nodes") or [])
        out.append(Check("session", f"how queue {queue}'s {limit} was worked out", "info",
                         figures.reasons[0].text + (f"; {nodes_text(run, cycle, nodes)}" if nodes else ""),
                         figures.plugin, figures_of(figures.reasons[0], styles), cycle))
    if limit == "deserved" and stop.plugin == "proportion":
        for r in run.cycle_records(cycle):
            if r.kind == "proportionRound" and r.reasons:
                out.append(Check("session", f"proportion's {r.subject}", "info", r.reasons[0].text, "proportion",
                                 round_figures(r, getattr(run.before, "unit_styles", None) or None), cycle))
            elif r.action not in ("open", ""):
                break
    return out


def first_stopped(checks: list[Check], action: str | None = None) -> Check | None:
    return next((c for c in checks if c.outcome == "stopped" and (action is None or c.action == action)), None)


def add_not_reached(chain: Chain, phase_open: str, still_pending: bool) -> None:
    """Checks for the configured actions that recorded nothing for the pod: why they did not act."""
    actions = [a for a in chain.run.before.conf.actions if a in ("enqueue", *PLACING)]
    have = {c.action for c in chain.checks}
    enq = next((c for c in chain.checks if c.action == "enqueue" and c.name == "enqueue verdict"), None)
    job_pending = (phase_open in ("Pending", "") and (enq is None or "did not admit" in enq.text))
    out: list[Check] = []
    for a in actions:
        if a == "allocate" and job_pending and "enqueue" not in actions:
            # Without an enqueue action, allocate moves a Pending job to Inqueue itself (allocate.go) and goes on.
            job_pending = False
            out.append(Check(a, "the job is past Pending", "passed", f"job {chain.uid} was Pending; with no enqueue "
                             "action configured, allocate moves it to Inqueue itself", "", [], chain.cycle))
        if a in have:
            out.extend(c for c in chain.checks if c.action == a)
            continue
        if a == "enqueue":
            if not job_pending:
                out.append(Check(a, "the job is past Pending", "passed", f"job {chain.uid} was already {phase_open} "
                                 "as the cycle opened; enqueue decides only Pending jobs", "", [], chain.cycle))
            continue
        if job_pending:
            out.append(Check(a, "the job is past Pending", "not reached",
                             f"only jobs that are Inqueue or Running are considered; job {chain.uid} is still "
                             "Pending", "", [], chain.cycle))
        elif not still_pending:
            continue
        elif a == "allocate":
            sib = _sibling_no_fit(chain)
            if sib is not None:
                out.append(Check(a, "allocate tried the pod", "stopped", f"not tried: {sib.subject} of the same job "
                                 f"found no node first ({sib.verdict}), and allocate stops a job there", "", [],
                                 chain.cycle))
                chain.rules[id(out[-1])] = "allocate.jobStopped"
        elif a in ROOM_ACTIONS:
            out.append(Check(a, "an attempt for the pod", "info", f"{a} recorded no attempt for it", "", [],
                             chain.cycle))
    rest = [c for c in chain.checks if c.action not in actions]
    chain.checks = _starving_said(out + rest, chain)


def _starving_said(checks: list[Check], chain: Chain) -> list[Check]:
    """Where reclaim or preempt tried the pod, the starving check it passed (only a False answer is recorded:
    a job reclaim or preempt takes up was starving by every deciding jobStarving plugin)."""
    out: list[Check] = []
    seen: set[str] = set()
    for c in checks:
        if c.action in ROOM_ACTIONS and c.action not in seen:
            seen.add(c.action)
            if "starving" not in c.name and "the job is valid" not in c.name and c.outcome != "not reached" \
                    and c.name != "an attempt for the pod":
                out.append(Check(c.action, "is the job starving?", "passed",
                                 f"job {chain.uid} is starving (it still needs pods placed), so {c.action} tries to "
                                 "make room for it", "", [], chain.cycle))
        out.append(c)
    return out


def _sibling_no_fit(chain: Chain) -> Record | None:
    for r in chain.run.of_job_pods(chain.cycle, chain.uid):
        if r.kind == "noFit" and r.action == "allocate" and r.subject != chain.key:
            return r
    return None


def later_tiers(result: Record) -> str:
    """'capacity in later tiers were not consulted (...)' from a Result record's quirk, without its 'tier N decided'."""
    import re
    return re.sub(r"^tier \d+ decided; ", "", str(result.detail.get("quirk") or ""))


def consider_verb(actions: str) -> str:
    return "consider" if " and " in actions else "considers"


def nodes_text(run: ExplainRun, cycle: int, nodes: list[str]) -> str:
    """Which nodes the cluster total behind deserved and realCapability counts (the queue plugin's record), and
    those no pod of the cycle could use for a reason other than room (every node-fit failure recorded on
    them is a taint, selector, affinity or cordon): counted all the same."""
    text = f"the cluster total counts {len(nodes)} ready node{'s' if len(nodes) != 1 else ''}: {_names(nodes)}"
    fails = [r.detail.get("errors") or {} for r in run.cycle_records(cycle) if r.kind == "noFit"]
    if not fails:
        return text
    unusable: dict[str, str] = {}
    for n in nodes:
        said = [str(f[n]) for f in fails if n in f]
        if len(said) == len(fails) and not any("Insufficient" in s for s in said):
            unusable[n] = said[0].split(": ", 1)[-1]
    if unusable:
        text += (f"; no pod that found no node could use {_names(list(unusable))} ("
                 + "; ".join(f"{n}: {why}" for n, why in list(unusable.items())[:3])
                 + f"), yet {'they count' if len(unusable) > 1 else 'it counts'} in the total")
    return text


def _names(names: list[str], shown_max: int = 5) -> str:
    return ", ".join(names[:shown_max]) + (f" and {len(names) - shown_max} more" if len(names) > shown_max else "")
