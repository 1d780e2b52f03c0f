"""Plain-text rendering of an Answer (capacity.answer): the sentence first, then the chain of checks."""

from __future__ import annotations

from capacity.answer import Answer, Check
from capacity.text import safe

_MARK = {"passed": "ok", "stopped": "STOP", "not reached": "--", "info": "  "}


def _check_line(c: Check, first_stop: Check | None) -> str:
    mark = _MARK.get(c.outcome, "  ")
    tag = "  <- first to stop it" if c is first_stop else ""
    head = "" if c.text.startswith(c.name) else f"{c.name}: "  # a text that starts with its name says it once
    return f"    [{mark:>4}] {c.action}: {head}{c.text}{tag}"


MAX_CHECKS = 24  # check lines shown without --verbose


def _check_lines(checks: list[Check], stop: Check | None, verbose: bool) -> list[str]:
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
            line = _check_line(c, stop).replace(f"] {c.action}:", f"] {', '.join(x.action for x in run)}:", 1)
            lines.append((c, line))
        elif n > 2:
            lines += [(x, _check_line(x, stop)) for x in run[:2]]
            if stop in run[2:]:
                lines.append((stop, _check_line(stop, stop)))
            lines.append((None, f"    ... and {n - 2} more like it (--verbose)"))
        else:
            lines += [(x, _check_line(x, stop)) for x in run]
        i += n
    if verbose or len(lines) <= MAX_CHECKS:
        return [line for _, line in lines]
    half = MAX_CHECKS // 2
    keep = lines[:half] + lines[-half:]
    cut = len(lines) - len(keep)
    out = [line for _, line in lines[:half]]
    if stop is not None and all(c is not stop for c, _ in keep):
        out.append(_check_line(stop, stop))
        cut -= 1
    out.append(f"    ... {cut} more checks (--verbose)")
    return out + [line for _, line in lines[-half:]]


def render(a: Answer, verbose: bool = False, indent: str = "") -> str:
    if a.kind == "queue" and not indent:
        return render_queue(a, verbose)
    # (the rule id is for programs, in JSON; a person reads it only with --verbose)
    lines = [f"{a.subject}: {a.outcome} (cycle {a.cycle})" + (f"  rule: {a.rule}" if verbose else ""),
             f"  {a.sentence}"]
    if a.checks:
        lines.append("  checks, in the order Volcano ran them:")
        stop = a.decided_by
        lines += _check_lines(a.checks, stop, verbose)
    lines += [f"  ! Volcano quirk: {q}" for q in a.quirks]
    if a.per_cycle:
        lines.append("  cycle by cycle:")
        lines += [f"    cycle {c}: {t}" for c, t in a.per_cycle]
    if a.final:
        lines.append(f"  final: {a.final}")
    if a.next:
        lines.append(f"  next: {a.next}")
    if a.notes:
        lines.append("  session notes:")
        lines += [f"    - {n}" for n in a.notes]
    if a.parts:
        lines.append("  pods:" if a.kind == "job" else "  parts:")
        for p in a.parts:
            lines.append(f"    {p.subject}: {p.outcome} (cycle {p.cycle}): {p.sentence}")
    return "\n".join(safe(indent + x) for x in lines)


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
    if verbose:
        for j in a.parts:
            lines.append("")
            lines += render(j, True).split("\n")
            for p in j.parts:
                lines += render(p, True, "    ").split("\n")
    elif a.parts:
        lines.append(f"  ({len(a.parts)} job{'' if len(a.parts) == 1 else 's'}: --job NS/NAME or --verbose for each "
                     "one's answer)")
    return "\n".join(safe(x) for x in lines)


def _clip(text: str, n: int) -> str:
    return text if len(text) <= n else text[: n - 3] + "..."
