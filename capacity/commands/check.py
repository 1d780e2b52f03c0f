"""`check DUMP.yaml [--metrics METRICS.txt] [--format text|json]`: the engine's numbers against the cluster's."""

from __future__ import annotations

import argparse
import json
from typing import Any


def add_parser(sub: Any) -> None:
    s = sub.add_parser("check", help="compare the engine's numbers with the status and metrics the cluster reported",
                       description="Exit 0 when they agree, 1 when they differ, 2 on bad input.")
    s.add_argument("cluster", help="YAML dump (kubectl get -o yaml) with Queue and PodGroup status")
    s.add_argument("--metrics", help="a Prometheus text-format scrape of the scheduler's metrics endpoint")
    s.add_argument("--format", choices=("text", "json"), default="text")


def run(args: argparse.Namespace) -> int:
    from capacity.check import as_json, check
    from capacity.limits import read_text_file
    text = read_text_file(args.cluster)
    metrics = read_text_file(args.metrics) if args.metrics else None
    diffs = check(text, source=args.cluster, metrics_text=metrics)
    if args.format == "json":
        print(json.dumps(as_json(diffs), indent=2))
    else:
        print("\n".join(d.line() for d in diffs) if diffs else "agree: the engine's numbers match the cluster's")
    return 1 if diffs else 0
