"""`snapshot --kubeconfig PATH [--context NAME] [--scheduler-configmap NS/NAME] -o dump.yaml`: read-only."""

from __future__ import annotations

import argparse
from typing import Any


def add_parser(sub: Any) -> None:
    s = sub.add_parser("snapshot", help="read a live cluster (list/get only) into a dump every command takes")
    s.add_argument("--kubeconfig", required=True, help="the kubeconfig to read the cluster with")
    s.add_argument("--context", help="a context of the kubeconfig (default: its current context)")
    s.add_argument("--scheduler-configmap", default="volcano-system/volcano-scheduler-configmap",
                   metavar="NS/NAME", help="where the scheduler's ConfigMap is (default: %(default)s)")
    s.add_argument("--timeout", type=float, default=10, help="seconds to wait for each API request")
    s.add_argument("-o", "--output", required=True, help="the dump to write (YAML, kind: List)")


def run(args: argparse.Namespace) -> int:
    import yaml

    from capacity.commands.outputs import check_writable
    from capacity.io.snapshot import snapshot, summary
    check_writable("-o", args.output)
    doc = snapshot(args.kubeconfig, args.context, args.scheduler_configmap, args.timeout)
    with open(args.output, "w", encoding="utf-8") as f:
        yaml.safe_dump(doc, f, sort_keys=False)
    print(f"wrote {args.output}: {summary(doc)}")
    return 0
