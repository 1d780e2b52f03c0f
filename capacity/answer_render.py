"""Plain-text rendering of an Answer (capacity.answer): the sentence first, then the chain of checks."""

from __future__ import annotations

from capacity.answer import Answer, Check

_MARK = {"passed": "ok", "stopped": "STOP", "not reached": "--", "info": "  "}


def _check_line(c: Check, first_stop: Check | None) -> str:
    mark = _MARK.get(c.outcome, "  ")
    tag = "  <- first to stop it" if c is first_stop else ""
    return f"    [{mark:>4}] {c.action}: {c.name}: {c.text}{tag}"


def render(a: Answer, verbose: bool = False, indent: str = "") -> str:
    if a.kind == "queue" and not indent:
        return render_queue(a, verbose)
    lines = [f"{a.subject}: {a.outcome} (cycle {a.cycle})  [{a.rule}]", f"  {a.sentence}"]
    if a.checks:
        lines.append("  checks, in the order Volcano ran them:")
        stop = a.stopper if a.outcome in ("pending", "not admitted", "not scheduled") else None
        i = 0
        while i < len(a.checks):
            c = a.checks[i]
            same = [c]
            while c.outcome == "not reached" and i + len(same) < len(a.checks) and \
                    (a.checks[i + len(same)].outcome, a.checks[i + len(same)].name, a.checks[i + len(same)].text) == \
                    (c.outcome, c.name, c.text):
                same.append(a.checks[i + len(same)])
            line = _check_line(c, stop)
            if len(same) > 1:
                line = line.replace(f"] {c.action}:", f"] {', '.join(x.action for x in same)}:", 1)
            lines.append(line)
            i += len(same)
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
    return "\n".join(indent + x for x in lines)


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
            lines.append(f"    {n} x [{rule}] e.g. {_clip(example, 220)}")
    if a.notes:
        lines.append("  session notes:")
        lines += [f"    - {_clip(n, 220)}" for n in a.notes[:5]]
        if len(a.notes) > 5:
            lines.append(f"    ... and {len(a.notes) - 5} more (--verbose)")
    if verbose:
        for j in a.parts:
            lines.append("")
            lines.append(render(j, True))
            for p in j.parts:
                lines.append(render(p, True, "    "))
    elif a.parts:
        lines.append(f"  ({len(a.parts)} job{'' if len(a.parts) == 1 else 's'}: --job NS/NAME or --verbose for each "
                     "one's answer)")
    return "\n".join(lines)


def _clip(text: str, n: int) -> str:
    return text if len(text) <= n else text[: n - 3] + "..."
