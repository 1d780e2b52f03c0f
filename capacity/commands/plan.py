"""`plan SPEC.yaml [--results FILE] [--resume] [--workers N] [--ray auto|ADDRESS|local]`: capacity planning.

Searches queue settings (deserved, guarantee, capability, weight) against a workload and goals: one
replay per candidate, every candidate checked by Volcano's queue admission webhook first. Prints each
candidate's figures, the ones meeting every goal, the Pareto front and the best candidate as Queue YAML
ready for `kubectl apply -f`. The spec's format is in `capacity/plan/spec.py`.

By default the replays run in local processes, one per core, with a progress bar and an ETA on stderr;
`--ray auto` (or a Ray address) runs each replay as a Ray task on an existing Ray cluster, `--ray local`
on a private Ray instance of --workers CPUs. Rows are written to --results (CSV, or Parquet for a
.parquet name) as they finish; `--resume` continues from that file, re-running only failed candidates.
The same seed gives the same figures on every backend.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from typing import Any

from capacity.cli import EXIT_INTERRUPTED
from capacity.commands.outputs import check_writable
from capacity.core.errors import InputError
from capacity.core.text import safe, safe_lines


def add_parser(sub: Any) -> None:
    s = sub.add_parser("plan", help="search queue settings against goals, one replay per candidate",
                       description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    s.add_argument("spec", help="the plan spec (YAML)")
    s.add_argument("--results", metavar="FILE", help="rows as they finish: CSV, or Parquet (.parquet)")
    s.add_argument("--resume", action="store_true", help="continue from --results, re-running failed candidates")
    s.add_argument("--workers", type=int, help="local processes (default: every core); with --ray local, its CPUs")
    s.add_argument("--ray", metavar="auto|ADDRESS|local", help="run each replay as a Ray task")
    s.add_argument("--format", choices=("text", "json"), default="text")
    s.add_argument("--progress", action=argparse.BooleanOptionalAction, default=None,
                   help="a progress bar with an ETA on stderr (default: when stderr is a terminal)")
    from capacity.versions.cli import add_version_arg
    add_version_arg(s)  # overrides the spec's `volcano:`: that release's webhook and scheduler judge candidates


def run(args: argparse.Namespace) -> int:
    from capacity.plan.backends import make_backend
    from capacity.plan.run import prepare, run_plan
    from capacity.plan.spec import read_spec

    if args.workers is not None and args.workers < 1:
        raise InputError("--workers", "", f"must be at least 1, got {args.workers}")
    if args.resume and not args.results:
        raise InputError("--resume", "", "needs --results FILE to resume from")
    if args.results and not args.resume:
        check_writable("--results", args.results)
    spec = read_spec(args.spec)
    if getattr(args, "volcano_version", None) is not None:
        from capacity.plan.spec import with_release
        spec = with_release(spec, args.volcano_version.label)
    prepared = prepare(spec)
    backend = make_backend(args.ray, args.workers)
    show = sys.stderr.isatty() if args.progress is None else args.progress
    bar = Bar() if show else None
    interrupted = False
    try:
        result = run_plan(spec, backend, args.results, args.resume, bar.update if bar else None, prepared)
    except KeyboardInterrupt:
        interrupted = True
    finally:
        backend.close()
        if bar:
            bar.close()
    if interrupted:
        where = f"; the finished rows are in {args.results}: --resume continues" if args.results else ""
        print(f"interrupted{safe(where)}", file=sys.stderr)
        return EXIT_INTERRUPTED
    out = summary(result)
    print(json.dumps(out, default=str) if args.format == "json" else render_text(out))
    return 0


def summary(run: Any) -> dict[str, Any]:
    from capacity.plan.report import best, meets, missed, pareto, queue_yaml
    spec = run.spec
    names = [p.name for p in spec.params]
    figures = [g.column for g in spec.goals]
    rows = run.rows
    chosen = best(spec, rows)
    front = pareto(spec, rows)
    counts = {s: sum(1 for r in rows if r.get("status") == s) for s in ("ok", "rejected", "failed")}

    def brief(r: dict[str, Any]) -> dict[str, Any]:
        return {"id": r["id"], "status": r["status"], "values": {n: r.get(n) for n in names},
                "figures": {c: r.get(c) for c in figures}, "meets": meets(spec, r),
                "missed": missed(spec, r) if r.get("status") == "ok" else [], "error": r.get("error", "")}

    return {"spec": spec.source, "strategy": spec.strategy, "seed": spec.seed, "backend": run.backend,
            "workers": run.workers, "seconds": round(run.seconds, 2), "reused": run.reused,
            "counts": counts, "goals": [str(g) for g in spec.goals], "prefer": list(spec.prefer),
            "candidates": [brief(r) for r in rows], "meeting": [r["id"] for r in rows if meets(spec, r)],
            "pareto": [r["id"] for r in front], "best": None if chosen is None else brief(chosen),
            "bestYaml": None if chosen is None else queue_yaml(spec, run.base, chosen)}


def _fmt(v: Any) -> str:
    if isinstance(v, float):
        return f"{v:.3g}" if abs(v) < 1000 else f"{v:,.0f}"
    return "-" if v is None or v == "" else str(v)


def render_text(out: dict[str, Any]) -> str:
    c = out["counts"]
    lines = [f"plan {out['spec']}: {out['strategy']} search, seed {out['seed']}, {len(out['candidates'])} "
             f"candidates on {out['backend']} ({out['workers']} worker(s)) in {out['seconds']:.1f} s"
             + (f", {out['reused']} taken from the results file" if out["reused"] else ""),
             f"  {c['ok']} replayed, {c['rejected']} refused (constraints or the admission webhook), "
             f"{c['failed']} failed",
             "goals: " + ("; ".join(out["goals"]) or "none") + f"; prefer: {out['prefer'][0]} {out['prefer'][1]}"]
    for cand in out["candidates"]:
        vals = ", ".join(f"{k}={v}" for k, v in cand["values"].items())
        if cand["status"] != "ok":
            lines.append(f"  #{cand['id']:<3} {cand['status']:<8} {vals}: {cand['error']}")
            continue
        figs = ", ".join(f"{k} {_fmt(v)}" for k, v in cand["figures"].items())
        mark = "meets all goals" if cand["meets"] else "misses " + "; ".join(cand["missed"])
        lines.append(f"  #{cand['id']:<3} ok       {vals}: {figs} -> {mark}")
    lines.append(f"meeting every goal: {', '.join(f'#{i}' for i in out['meeting']) or 'none'}")
    lines.append(f"Pareto front: {', '.join(f'#{i}' for i in out['pareto']) or 'none'}")
    if out["best"] is None:
        lines.append("best: no candidate meets every goal")
    else:
        lines.append(f"best: #{out['best']['id']} (apply with kubectl apply -f):")
        lines += out["bestYaml"].rstrip().split("\n")
    return safe_lines(lines)


class Bar:
    """Candidates done, the rate and an ETA, on one self-overwriting stderr line."""

    WIDTH = 30

    def __init__(self) -> None:
        self.started = time.perf_counter()
        self.fresh = 0

    def update(self, done: int, total: int, row: dict[str, Any] | None) -> None:
        if row is not None:
            self.fresh += 1
        elapsed = time.perf_counter() - self.started
        frac = done / total if total else 1.0
        rate = self.fresh / elapsed if elapsed > 0 and self.fresh else 0.0
        left = total - done
        eta = f"ETA {_clock(left / rate)}" if rate and left else ("done" if not left else "ETA ?")
        filled = int(frac * self.WIDTH)
        err = getattr(sys.stderr, "unfiltered", sys.stderr)  # (the carriage return is ours: not escaped)
        err.write(f"\r[{'#' * filled}{'.' * (self.WIDTH - filled)}] {done}/{total} candidates, "
                  f"{rate * 60:.1f}/min, {eta} ")
        err.flush()

    def close(self) -> None:
        sys.stderr.write("\n")


def _clock(seconds: float) -> str:
    m, s = divmod(int(seconds), 60)
    h, m = divmod(m, 60)
    return f"{h:d}:{m:02d}:{s:02d}"
