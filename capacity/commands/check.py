"""`check DUMP.yaml [--metrics METRICS.txt | --prometheus URL] [--format text|json]`: the engine's numbers
against the cluster's."""

from __future__ import annotations

import argparse
import json
from typing import Any


def add_parser(sub: Any) -> None:
    s = sub.add_parser("check", help="compare the engine's numbers with the status and metrics the cluster reported",
                       description="Exit 0 when they agree, 1 when they differ, 2 on bad input.")
    s.add_argument("cluster", help="YAML or JSON dump (kubectl get -o yaml) with Queue and PodGroup status")
    s.add_argument("--conf", help="volcano-scheduler.conf (or its ConfigMap) if not inside the dump")
    where = s.add_mutually_exclusive_group()
    where.add_argument("--metrics", help="a Prometheus text-format scrape of the scheduler's metrics endpoint")
    where.add_argument("--prometheus", metavar="URL",
                       help="a Prometheus server's base URL (HTTP API): its volcano_queue_* series are compared")
    s.add_argument("--timeout", type=float, default=10, help="seconds to wait for --prometheus (default 10)")
    s.add_argument("--format", choices=("text", "json"), default="text")
    from capacity.versions.cli import add_version_arg
    add_version_arg(s)


def run(args: argparse.Namespace) -> int:
    from capacity.analysis.check import compare
    from capacity.core.limits import read_text_file
    from capacity.io.prometheus import parse_text, query
    text = read_text_file(args.cluster)
    conf = read_text_file(args.conf) if args.conf else None
    metrics = parse_text(read_text_file(args.metrics)) if args.metrics else None
    if args.prometheus:
        metrics = query(args.prometheus, args.timeout)
    # A selected Volcano release (--volcano-version) and the session options it runs with. Only a release
    # given on the command line is simulated: the dump's own one is what the comparison reports on.
    given = getattr(args, "volcano_version", None)
    if given is not None and getattr(args, "session_options", None) is None:
        from capacity.framework.session import SessionOptions
        from capacity.versions.cli import session_kwargs
        args.session_options = SessionOptions(**session_kwargs(given))
    report = compare(text, source=args.cluster, metrics=metrics, conf_text=conf,
                     volcano_version=getattr(given, "name", given), options=getattr(args, "session_options", None))
    if args.format == "json":
        print(json.dumps(report.as_json(), indent=2))
    else:
        print(report.text())
    return 1 if report.differences else 0
