"""Plain-text rendering of an Answer (capacity.analysis.answer): the sentence first, then the chain of checks."""

from __future__ import annotations

from capacity.analysis.answer_model import STOPPED_OUTCOMES, Answer, Check
from capacity.core.glossary import terms_in
from capacity.core.text import safe

_MARK = {"passed": "ok", "stopped": "STOP", "not reached": "--", "info": "  "}
#: A check that failed without deciding the object's fate (a bound, pipelined or admitted object's chain).
NOT_DECISIVE = "no"
SAID_ABOVE = "(the reason above)"


def said_above(text: str, sentence: str) -> bool:
    """Whether a check's text (or the part after its lead-in) is already in the answer's sentence."""
    if not text or not sentence:
        return False
    tail = text.split(": ", 1)[1] if ": " in text else ""
    return text in sentence or (len(tail) > 40 and tail in sentence)


def _check_line(c: Check, first_stop: Check | None, sentence: str = "", stopped: bool = True) -> str:
    mark = _MARK.get(c.outcome, "  ")
    if c.outcome == "stopped" and not stopped:
        mark = NOT_DECISIVE  # [STOP] only on an object that was stopped: a later action placed or admitted it
    tag = "  <- first to stop it" if c is first_stop else ""
    if said_above(c.text, sentence):  # say each thing once: the sentence above already has it
        return f"    [{mark:>4}] {c.action}: {c.name} {SAID_ABOVE}{tag}"
    head = "" if c.text.startswith(c.name) else f"{c.name}: "  # a text that starts with its name says it once
    return f"    [{mark:>4}] {c.action}: {head}{c.text}{tag}"


MAX_CHECKS = 24  # check lines shown without --verbose


def _check_lines(checks: list[Check], stop: Check | None, verbose: bool, sentence: str = "",
                 stopped: bool = True) -> list[str]:
    """One line per check; actions not reached for the same reason share a line. Without `verbose`, a run of
    more than two alike checks (a step repeated node after node) shows its first two and a count, and a long
    chain keeps its first and last lines (and the first stopper)."""
    lines: list[tuple[Check | None, str]] = []
    i = 0
    while i < len(checks):
        c = checks[i]
        n = 1
        while i + n < len(checks) and (
                (c.outcome == "not reached" and (checks[i + n].name, checks[i + n].outcome, checks[i + n].text)
                 == (c.name, c.outcome, c.text))
                or (c.outcome != "not reached" and not verbose
                    and (checks[i + n].action, checks[i + n].name, checks[i + n].outcome) == (c.action, c.name,
                                                                                                c.outcome))):
            n += 1
        run = checks[i:i + n]
        if c.outcome == "not reached":
            line = _check_line(c, stop, sentence, stopped)
            line = line.replace(f"] {c.action}:", f"] {', '.join(x.action for x in run)}:", 1)
            lines.append((c, line))
        elif n > 2:
            lines += [(x, _check_line(x, stop, sentence, stopped)) for x in run[:2]]
            if stop in run[2:]:
                lines.append((stop, _check_line(stop, stop, sentence, stopped)))
            lines.append((None, f"    ... and {n - 2} more like it (--verbose)"))
        else:
            lines += [(x, _check_line(x, stop, sentence, stopped)) for x in run]
        i += n
    # an info line that only points at the sentence adds nothing; nor does a line said twice in a row
    lines = [x for i, x in enumerate(lines) if not (x[0] is not None and x[0].outcome == "info"
                                                    and x[1].endswith(SAID_ABOVE))
             and (i == 0 or x[1] != lines[i - 1][1])]
    if verbose or len(lines) <= MAX_CHECKS:
        return [line for _, line in lines]
    half = MAX_CHECKS // 2
    keep = lines[:half] + lines[-half:]
    cut = len(lines) - len(keep)
    out = [line for _, line in lines[:half]]
    if stop is not None and all(c is not stop for c, _ in keep):
        out.append(_check_line(stop, stop, sentence, stopped))
        cut -= 1
    out.append(f"    ... {cut} more checks (--verbose)")
    return out + [line for _, line in lines[-half:]]


def render(a: Answer, verbose: bool = False, indent: str = "") -> str:
    if a.kind == "queue" and not indent:
        return render_queue(a, verbose)
    # (the rule id is for programs, in JSON; a person reads it only with --verbose)
    # The answer first, then whether waiting can succeed and what to change; the evidence (checks) after.
    lines = [f"{a.subject}: {a.outcome} (cycle {a.cycle})" + (f"  rule: {a.rule}" if verbose else ""),
             f"  {a.sentence}"]
    if a.final:
        lines.append(f"  final: {a.final}")
    if a.next:
        lines.append(f"  next: {a.next}")
    if a.todo:
        lines.append(f"  to change it: {a.todo}")
    if a.checks:
        lines.append("  checks, in the order Volcano ran them:")
        stop = a.decided_by
        lines += _check_lines(a.checks, stop, verbose, a.sentence, a.outcome in STOPPED_OUTCOMES)
    lines += [f"  ! Volcano quirk: {q}" for q in a.quirks]
    if a.per_cycle:
        lines.append("  cycle by cycle:")
        lines += [f"    cycle {c}: {_once(t, a) if c == a.cycle else t}" for c, t in a.per_cycle]
    if a.notes:
        lines.append("  session notes:")
        lines += [f"    - {n}" for n in a.notes]
    if a.parts:
        lines.append("  pods:" if a.kind == "job" else "  parts:")
        for p in a.parts:
            said = SAID_ABOVE if p.sentence in a.sentence else p.sentence
            lines.append(f"    {p.subject}: {p.outcome} (cycle {p.cycle}): {said}")
    if not indent:
        lines += _terms_line(lines)
    return "\n".join(safe(indent + plain(x)) for x in lines)


def _once(line: str, a: Answer) -> str:
    """A cycle's line that repeats the answer above: its own lead ("1 pod: 1 bound"), then a pointer."""
    for i in [0, *(m + 2 for m in range(len(line)) if line.startswith((": ", "; "), m))]:
        if len(line) - i > 40 and line[i:] in a.sentence:
            head = line[:i].rstrip(":; ") or a.outcome
            return f"{head} {SAID_ABOVE}"
    return line


def _terms_line(lines: list[str]) -> list[str]:
    """Volcano's own names the answer used (elastic, inqueue, realCapability, ...), each explained once."""
    used = terms_in("\n".join(lines[1:]))
    return ["  terms: " + "; ".join(f"{t} = {m}" for t, m in used)] if used else []


def render_queue(a: Answer, verbose: bool = False) -> str:
    """A queue in at most ~30 lines: figures, counts, top reasons, children, notes; --verbose adds every job."""
    lines = [f"{a.subject}: {a.sentence}"]
    lines += [f"  {k:<15}{t}" for k, t in a.facts]
    if a.children:
        lines.append(f"  child queues ({len(a.children)}):")
        shown = a.children if verbose else a.children[:8]
        lines += [f"    {c.subject[6:]}: {c.sentence}" for c in shown]
        if len(shown) < len(a.children):
            lines.append(f"    ... and {len(a.children) - len(shown)} more (--verbose)")
    if a.reasons:
        lines.append("  top reasons:")
        for n, rule, example in a.reasons:
            lines.append(f"    {n} x" + (f" (rule: {rule})" if verbose else "") + f", e.g. {_clip(example, 220)}")
    if a.notes:
        lines.append("  session notes:")
        lines += [f"    - {_clip(n, 220)}" for n in a.notes[:5]]
        if len(a.notes) > 5:
            lines.append(f"    ... and {len(a.notes) - 5} more (--verbose)")
    if not verbose:
        lines += _terms_line(lines)
    if verbose:
        for j in a.parts:
            lines.append("")
            lines += render(j, True).split("\n")
            for p in j.parts:
                lines += render(p, True, "    ").split("\n")
    elif a.parts:
        lines.append(f"  ({len(a.parts)} job{'' if len(a.parts) == 1 else 's'}: --job NS/NAME or --verbose for each "
                     "one's answer)")
    return "\n".join(safe(plain(x)) for x in lines)


#: Pointers to the engine's record kinds, which a person never sees, left out of the text.
INTERNAL_POINTERS = (", see the proportionRound records",)


def plain(line: str) -> str:
    for pointer in INTERNAL_POINTERS:
        line = line.replace(pointer, "")
    return line


def _clip(text: str, n: int) -> str:
    return text if len(text) <= n else text[: n - 3] + "..."
