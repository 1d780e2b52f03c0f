"""Plain-text rendering of an Answer (capacity.answer)."""

from __future__ import annotations

from capacity.answer import Answer


def render(a: Answer, verbose: bool = False) -> str:
    lines = [f"{a.subject}: {a.outcome}  [{a.rule}]", f"  {a.sentence}"]
    for c in a.checks:
        lines.append(f"  {'x' if c.outcome == 'stopped' else '-'} {c.action}: {c.name}: {c.text}")
    lines += [f"  cycle {c}: {t}" for c, t in a.per_cycle]
    if a.next:
        lines.append(f"  next: {a.next}")
    lines += [f"  note: {n}" for n in a.notes]
    for p in a.parts:
        lines += ["  " + x for x in render(p, verbose).splitlines()]
    return "\n".join(lines)
