"""`explain CLUSTER.yaml --pod NS/NAME | --job NS/NAME | --queue NAME [--cycles N] [--format text|json] [--verbose]`.

Text and JSON both render one Answer (capacity.analysis.answer): the sentence, the chain of checks in the order
Volcano ran them with the first that stopped the subject, one line per cycle, and the session notes.
"""

from __future__ import annotations

import argparse
import json
from typing import Any

from capacity.commands.simulate import add_cluster_args, load, options, seed_options
from capacity.core.errors import InputError
from capacity.core.text import safe_lines
from capacity.versions.cli import chosen


def add_parser(sub: Any) -> None:
    s = sub.add_parser("explain", help="why a pod was bound, evicted, pipelined or left pending")
    add_cluster_args(s)
    who = s.add_mutually_exclusive_group(required=True)
    who.add_argument("--pod", metavar="NS/NAME")
    who.add_argument("--job", metavar="NS/NAME", help="a PodGroup: its own verdict and every pod of it")
    who.add_argument("--queue", metavar="NAME", help="a summary of the queue (a parent queue: of its children)")
    s.add_argument("--cycles", type=int, default=1)
    s.add_argument("--format", choices=("json", "text"), default="text")
    s.add_argument("--verbose", action="store_true", help="every check, every job and pod of a queue")
    s.add_argument("--what-if", action="store_true",
                   help="for a pending job: the smallest changes Volcano's queue webhook accepts that would let it "
                        "bind (or be admitted, for a PodGroup enqueue refused), each checked by re-running cycles")


def run(args: argparse.Namespace) -> int:
    if args.cycles < 1:
        raise InputError("--cycles", "", "must be at least 1")
    cluster = load(args, warn=False)
    from capacity.analysis.answer import answer_job, answer_pod, answer_queue, explain_run, render_text
    from capacity.versions.diff import version_diff
    traced = explain_run(cluster, args.cycles, options(args, cluster))
    before = traced.before
    if args.pod:
        answer = answer_pod(traced, args.pod)
    elif args.job:
        answer = answer_job(traced, args.job)
    else:
        answer = answer_queue(traced, args.queue, args.verbose)
    chosen_version = chosen(args, cluster)
    versus = version_diff(before, args.cycles, chosen_version, seed_options(args)) if chosen_version.lacking else None
    whatif = None
    if args.what_if:
        from capacity.analysis.whatif import what_if
        job = args.job or next((f"{p.namespace}/{p.group}" for k, p in before.pods.items() if k == args.pod), None)
        if job is None or args.queue:
            raise InputError("--what-if", "", "needs --pod or --job")
        whatif = what_if(before, job, args.cycles, options(args, cluster), pod=args.pod)
    if args.format == "json":
        out: Any = answer.as_dict()
        if whatif is not None:
            out = {"answer": out, "whatIf": [c.as_dict() for c in whatif.changes], "whatIfAnswer": whatif.as_dict()}
        if versus is not None:
            out = {**out, "versionDifference": versus.as_dict()}
        print(json.dumps(out, indent=1))
    else:
        print(safe_lines(render_text(answer, args.verbose).split("\n")))
        if whatif is not None:
            print(safe_lines(["", *whatif.render_text().split("\n")]))
        if versus is not None:
            print(safe_lines(["", *versus.lines()]))
    return 0
