"""Command line: `python -m capacity simulate CLUSTER.yaml --cycles N --format json|text`.

Exit status 0 on success, 2 on input Volcano cannot schedule from (with one message naming the
object and field), never a traceback for bad input.
"""

from __future__ import annotations

import argparse
import json
import sys
from typing import Any

from capacity.errors import InputError, ResourceUnderflow
from capacity.framework.session import SessionOptions
from capacity.k8s import load_cluster_file
from capacity.scheduler import simulate
from capacity.trace import Trace


def _parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="python -m capacity", description="Capacity Lab: Volcano's queue "
                                "capacity logic, faithfully simulated.")
    sub = p.add_subparsers(dest="command", required=True)
    s = sub.add_parser("simulate", help="run scheduling cycles on a cluster dump")
    s.add_argument("cluster", help="YAML: a stream or a kind: List of Nodes, Queues, PodGroups, Pods, ...")
    s.add_argument("--conf", help="volcano-scheduler.conf (or its ConfigMap) if not inside the dump")
    s.add_argument("--cycles", type=int, default=1)
    s.add_argument("--format", choices=("json", "text"), default="text")
    s.add_argument("--trace", metavar="FILE", help="write every decision as JSON Lines")
    s.add_argument("--leaf-only-allocatable", action="store_true",
                   help="seed 003 compatibility: hierarchical allocate checks only the leaf queue")
    s.add_argument("--seed004-root", action="store_true",
                   help="seed 004 compatibility: root capability/deserved default to the cluster total")
    return p


def main(argv: list[str] | None = None) -> int:
    args = _parser().parse_args(argv)
    try:
        if args.command == "simulate":
            return _simulate(args)
    except InputError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    except ResourceUnderflow as exc:
        print(f"error: Volcano would panic here (resource underflow): {exc}", file=sys.stderr)
        return 2
    return 1


def _load(args: argparse.Namespace) -> Any:
    cluster = load_cluster_file(args.cluster)
    if args.conf:
        from capacity.k8s import _parse_conf_text
        with open(args.conf, encoding="utf-8") as fh:
            cluster.conf = _parse_conf_text(fh.read(), args.conf)
    return cluster


def _simulate(args: argparse.Namespace) -> int:
    if args.cycles < 1:
        raise InputError("--cycles", "", "must be at least 1")
    cluster = _load(args)
    for w in cluster.warnings:
        print(f"warning: {w}", file=sys.stderr)
    for w in cluster.conf.warnings:
        print(f"warning: {w}", file=sys.stderr)
    options = SessionOptions(leaf_only_allocatable=args.leaf_only_allocatable,
                             seed004_root_init=args.seed004_root)
    trace = Trace(enabled=bool(args.trace))
    run = simulate(cluster, args.cycles, trace, options)
    out = run.as_json()
    if args.trace:
        with open(args.trace, "w", encoding="utf-8") as fh:
            for rec in trace.records:
                fh.write(json.dumps(rec.as_dict()) + "\n")
    if args.format == "json":
        print(json.dumps(out, indent=None, sort_keys=False))
    else:
        print(render_text(out))
    return 0


def render_text(out: dict[str, Any]) -> str:
    from capacity.quantity import format_resource_value

    def fmt(d: dict[str, Any]) -> str:
        return ", ".join(f"{k} {format_resource_value(k, v)}" for k, v in d.items()) or "-"
    lines = []
    lines.append(f"binds ({len(out['binds'])}):")
    lines += [f"  {pod} -> {node}" for pod, node in sorted(out["binds"].items())] or ["  none"]
    lines.append(f"evicted ({len(out['evicted'])}):")
    lines += [f"  {pod}" for pod in out["evicted"]] or ["  none"]
    lines.append("pipelined:")
    lines += [f"  {job} on {', '.join(nodes)}" for job, nodes in sorted(out["pipelined"].items())] or ["  none"]
    lines.append("podgroup phases:")
    lines += [f"  {pg}: {ph}" for pg, ph in sorted(out["podgroupPhases"].items())] or ["  none"]
    lines.append("queues:")
    for name, q in sorted(out["queues"].items()):
        lines.append(f"  {name}: share {q['share']:.3f}")
        for key in ("deserved", "allocated", "realCapability"):
            lines.append(f"    {key:<15}{fmt(q[key])}")
    return "\n".join(lines)
