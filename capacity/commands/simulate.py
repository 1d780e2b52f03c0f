"""`simulate CLUSTER.yaml --cycles N --format json|text [--trace FILE]`: the acceptance output."""

from __future__ import annotations

import argparse
import json
import sys
from typing import TYPE_CHECKING, Any

from capacity.commands.outputs import check_writable, write_or_report
from capacity.core.errors import InputError
from capacity.core.text import safe_lines
from capacity.versions.cli import add_version_arg, chosen, session_kwargs

if TYPE_CHECKING:
    from capacity.framework.session import SessionOptions


def add_parser(sub: Any) -> None:
    s = sub.add_parser("simulate", help="run scheduling cycles on a cluster dump")
    add_cluster_args(s)
    s.add_argument("--cycles", type=int, default=1)
    s.add_argument("--format", choices=("json", "text"), default="text")
    s.add_argument("--trace", metavar="FILE", help="write every decision as JSON Lines")


def add_cluster_args(s: argparse.ArgumentParser) -> None:
    """The input every engine command reads: the dump, an optional conf, compatibility switches."""
    s.add_argument("cluster", help="YAML: a stream or a kind: List of Nodes, Queues, PodGroups, Pods, ...")
    s.add_argument("--conf", help="volcano-scheduler.conf (or its ConfigMap) if not inside the dump")
    s.add_argument("--leaf-only-allocatable", action="store_true",
                   help="seed 003 compatibility: hierarchical allocate checks only the leaf queue")
    s.add_argument("--seed004-root", action="store_true",
                   help="seed 004 compatibility: root capability/deserved default to the cluster total")
    s.add_argument("--legacy-namespace-fairshare", action="store_true",
                   help="seed 002 compatibility (Volcano <= 1.7): allocate weighs namespaces by the ResourceQuota "
                        "volcano.sh/namespace.weight")
    s.add_argument("--strict-admission", action="store_true",
                   help="refuse the dump, as the API server would, when Volcano's queue admission webhook rejects "
                        "a queue in it (exit 2); without it each such queue is a warning")
    add_version_arg(s)


def load(args: argparse.Namespace, warn: bool = True) -> Any:
    """Read the cluster (and conf) named on the command line, printing tolerated-input warnings."""
    from capacity.io.k8s import load_cluster_file, parse_conf_text
    cluster = load_cluster_file(args.cluster)
    if args.conf:
        from capacity.core.limits import read_text_file
        cluster.conf = parse_conf_text(read_text_file(args.conf), args.conf)
    if getattr(args, "strict_admission", False):
        refuse_rejected_queues(cluster.warnings)
    if warn:
        print_warnings([*cluster.warnings, *cluster.conf.warnings])
    return cluster


def refuse_rejected_queues(warnings: list[Any]) -> None:
    """--strict-admission: the first queue the admission webhook would reject is an input error."""
    from capacity.core.webhook import is_admission_warning
    for w in warnings:
        if is_admission_warning(w):
            raise InputError(w.obj, w.field, w.message)


def print_warnings(warnings: list[Any]) -> None:
    """One stderr line per tolerated-input warning, a newline in a name shown escaped."""
    from capacity.core.text import safe
    for w in warnings:
        print(f"warning: {safe(str(w))}", file=sys.stderr)


def seed_options(args: argparse.Namespace) -> SessionOptions:
    """The seed compatibility flags alone, as given on the command line."""
    from capacity.framework.session import SessionOptions  # (the engine: not imported for --help)
    return SessionOptions(leaf_only_allocatable=args.leaf_only_allocatable, seed004_root_init=args.seed004_root,
                          legacy_namespace_fairshare=args.legacy_namespace_fairshare)


def options(args: argparse.Namespace, cluster: Any = None) -> SessionOptions:
    """The session's switches: the seed flags and the chosen Volcano release (capacity/versions); `cluster`:
    the dump already read, whose scheduler image names the release when the flag does not."""
    from capacity.framework.session import SessionOptions
    return SessionOptions(leaf_only_allocatable=args.leaf_only_allocatable, seed004_root_init=args.seed004_root,
                          legacy_namespace_fairshare=args.legacy_namespace_fairshare,
                          **session_kwargs(chosen(args, cluster if cluster is not None else args.cluster)))


def run(args: argparse.Namespace) -> int:
    if args.cycles < 1:
        raise InputError("--cycles", "", "must be at least 1")
    check_writable("--trace", args.trace)
    from capacity.core.trace import Trace
    from capacity.scheduler import simulate
    cluster = load(args)
    trace = Trace(enabled=bool(args.trace))
    result = simulate(cluster, args.cycles, trace, options(args, cluster))
    out = result.as_json()
    out["notes"] = session_notes(result.cycles)
    failed = None
    if args.trace:
        def write(path: str) -> None:
            with open(path, "w", encoding="utf-8") as fh:
                for rec in trace.records:
                    fh.write(json.dumps(rec.as_dict()) + "\n")
        failed = write_or_report("--trace", args.trace, write)
    print(json.dumps(out) if args.format == "json" else render_text(out))
    if failed:
        raise failed  # after the result: the cycle's outcome is not lost with the file
    return 0


def session_notes(cycles: list[Any]) -> list[str]:
    """What the plugins noted about the sessions (no root queue, settings not simulated, a child deserving more
    than its parent ...), each once, in the order first written."""
    seen: list[str] = []
    for c in cycles:
        seen.extend(n for n in getattr(c, "notes", ()) if n not in seen)
    return seen


def render_text(out: dict[str, Any]) -> str:
    from capacity.core.quantity import format_resource_value

    def fmt(d: dict[str, Any]) -> str:
        return ", ".join(f"{k} {format_resource_value(k, v)}" for k, v in d.items()) or "-"

    lines = [f"binds ({len(out['binds'])}):"]
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
    notes = out.get("notes") or []
    if notes:
        lines.append("notes:")
        lines += [f"  - {n}" for n in notes]
    return safe_lines(lines)
