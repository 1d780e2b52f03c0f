"""`explain CLUSTER.yaml --pod NS/NAME | --job NS/NAME | --queue NAME [--cycles N] [--format text|json]`."""

from __future__ import annotations

import argparse
import copy
import json
from typing import Any

from capacity.commands.simulate import add_cluster_args, load, options
from capacity.errors import InputError
from capacity.explain import Explanation, explain_job, explain_pod, explain_queue
from capacity.scheduler import simulate
from capacity.text import safe_lines
from capacity.trace import Trace


def add_parser(sub: Any) -> None:
    s = sub.add_parser("explain", help="why a pod was bound, evicted, pipelined or left pending")
    add_cluster_args(s)
    who = s.add_mutually_exclusive_group(required=True)
    who.add_argument("--pod", metavar="NS/NAME")
    who.add_argument("--job", metavar="NS/NAME", help="a PodGroup: every pod of it")
    who.add_argument("--queue", metavar="NAME", help="every pod of every job in the queue")
    s.add_argument("--cycles", type=int, default=1)
    s.add_argument("--format", choices=("json", "text"), default="text")
    s.add_argument("--what-if", action="store_true",
                   help="for a pending job: the smallest single changes that would let it be placed, each checked "
                        "by re-running the cycle")


def run(args: argparse.Namespace) -> int:
    if args.cycles < 1:
        raise InputError("--cycles", "", "must be at least 1")
    cluster = load(args, warn=False)
    before = copy.deepcopy(cluster)
    trace = Trace(enabled=True)
    simulate(cluster, args.cycles, trace, options(args))
    if args.pod:
        found = [explain_pod(trace.records, before, args.pod)]
    elif args.job:
        found = explain_job(trace.records, before, args.job)
    else:
        found = explain_queue(trace.records, before, args.queue)
    changes = []
    if args.what_if:
        from capacity.whatif import what_would_change
        job = args.job or next((f"{p.namespace}/{p.group}" for k, p in before.pods.items() if k == args.pod), None)
        if job is None or args.queue:
            raise InputError("--what-if", "", "needs --pod or --job")
        changes = what_would_change(before, job, args.cycles, options(args))
    if args.format == "json":
        out: Any = [e.as_dict() for e in found]
        if args.what_if:
            out = {"explanations": out, "whatIf": [c.as_dict() for c in changes]}
        print(json.dumps(out, indent=1))
    else:
        print("\n\n".join(render(e) for e in found) or "nothing to explain")
        if args.what_if:
            print("\nwhat would have to change (each checked by re-running the cycle):")
            print(safe_lines([f"  - {c.description} (size {c.size:.3f}; places {', '.join(c.placed)})"
                               for c in changes]) or "  no single change found")
    return 0


def render(e: Explanation) -> str:
    lines = [f"{e.subject} (cycle {e.cycle}): {e.outcome}  [{e.rule}]"]
    for r in e.chain:
        who = f" {r.plugin}" if r.plugin else ""
        lines.append(f"  - {r.action}: {r.kind}{who} -> {r.verdict}")
        lines += [f"      {x.plugin}.{x.rule}: {x.text}" for x in r.reasons]
    lines += [f"  ! Volcano quirk: {q}" for q in e.quirks]
    lines.append(e.sentence)
    return safe_lines(lines)
