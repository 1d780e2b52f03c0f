"""Which facts of the explain corpus hold today, one line per fact: `python -m tests.explain.report [--markdown]`.

For the integrator's pass/fail table; the tests in test_explain_corpus.py are what CI runs.
"""

from __future__ import annotations

import io
import sys
from contextlib import redirect_stderr, redirect_stdout

from capacity import cli
from tests.explain.test_explain_corpus import INTERNAL_NAMES, RULE_IDS, SCENARIOS, argv, matches, spec


def _run(args: list[str]) -> tuple[int, str]:
    out, err = io.StringIO(), io.StringIO()
    with redirect_stdout(out), redirect_stderr(err):
        code = cli.main(args)
    return code, out.getvalue() + ("\n" + err.getvalue() if err.getvalue() else "")


def rows() -> list[tuple[str, str, str, bool]]:
    """(scenario, kind, fact, holds) for every fact, absent string, length limit and internal name."""
    out: list[tuple[str, str, str, bool]] = []
    for name in SCENARIOS:
        s = spec(name)
        code, text = _run(argv(name))
        want = s["expect"].get("exit", 0)
        out.append((name, "exit", str(want), code == want))
        out += [(name, "fact", str(f), matches(str(f), text)) for f in s.get("facts") or []]
        out += [(name, "absent", str(f), not matches(str(f), text)) for f in s.get("absent") or []]
        if s.get("max_lines"):
            n = len(text.strip().splitlines())
            out.append((name, "length", f"<= {s['max_lines']} lines (has {n})", n <= s["max_lines"]))
        if s["command"].startswith("explain"):
            bad = [f for f in INTERNAL_NAMES if matches(f, text)]
            out.append((name, "internal names", ", ".join(bad) or "none", not bad))
            ids = [f for f in RULE_IDS if matches(f, text)]
            out.append((name, "rule ids", "printed" if ids else "none", not ids))
    return out


def main() -> None:
    md = "--markdown" in sys.argv
    table = rows()
    if md:
        print("| scenario | gap | kind | fact | holds |\n|---|---|---|---|---|")
    for name, kind, fact, ok in table:
        gaps = ",".join(str(g) for g in spec(name)["gap"])
        if md:
            print(f"| {name} | {gaps} | {kind} | `{fact.replace('|', '¦')}` | {'yes' if ok else '**no**'} |")
        else:
            print(f"{'PASS' if ok else 'FAIL'}  {name} [{gaps}] {kind}: {fact}")
    held = sum(ok for *_, ok in table)
    print(f"\n{held}/{len(table)} hold")


if __name__ == "__main__":
    main()
