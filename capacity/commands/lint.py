"""`lint CLUSTER.yaml [--conf FILE] [--format text|json]`: configuration findings and what Volcano does."""

from __future__ import annotations

import argparse
import json
from typing import Any

from capacity.versions.cli import add_version_arg, chosen

EPILOG = """\
exit status:
  0  no errors (warnings and info may be present)
  1  at least one lint error: Volcano rejects, crashes on or stalls with this input
  2  unreadable input: missing file, malformed YAML or quantities, a scheduler conf Volcano refuses;
     with --strict-admission also a queue Volcano's admission webhook rejects

Every finding names the object and field, the rule id, and what Volcano does about it. Queue cycles and
self-parents, which `simulate` refuses, are reported here as lint errors.
"""


def add_parser(sub: Any) -> None:
    s = sub.add_parser(
        "lint", help="check queues and volcano-scheduler.conf against Volcano's own rules",
        description="Check a cluster dump's queues, PodGroups and volcano-scheduler.conf: misspelled switches "
                    "and plugins, tier orders, hierarchy rules of the scheduler and the queue webhook, quotas "
                    "on resources no node has, jobs on non-leaf queues.",
        epilog=EPILOG, formatter_class=argparse.RawDescriptionHelpFormatter)
    s.add_argument("cluster", help="YAML: a stream or a kind: List of Nodes, Queues, PodGroups, Pods, ConfigMap")
    s.add_argument("--conf", help="volcano-scheduler.conf (or its ConfigMap) if not inside the dump")
    s.add_argument("--format", choices=("text", "json"), default="text")
    s.add_argument("--strict-admission", action="store_true",
                   help="refuse the dump (exit 2), as the API server would, when Volcano's queue admission webhook "
                        "rejects a queue in it")
    add_version_arg(s)


def run(args: argparse.Namespace) -> int:
    from capacity.analysis.lint import counts, lint_text, render_text

    text = _read(args.cluster)
    conf_text = _read(args.conf) if args.conf else None
    release = chosen(args, args.cluster)
    if args.strict_admission:  # refused as simulate and explain refuse it (queue cycles included)
        from capacity.commands.simulate import refuse_rejected_queues
        from capacity.core.webhook import release_warnings
        from capacity.io.k8s import load_cluster
        loaded = load_cluster(text, source=args.cluster, conf_text=conf_text)
        refuse_rejected_queues(release_warnings(loaded, release.lacking))  # the chosen release's webhook
    findings = lint_text(text, source=args.cluster, conf_text=conf_text, lacking=release.lacking)
    if release.lacking:  # what the chosen Volcano release does with this dump that HEAD does not
        from capacity.io.k8s import load_cluster
        from capacity.versions.lint import version_findings
        findings = [*findings, *version_findings(load_cluster(text, source=args.cluster, conf_text=conf_text),
                                                 release)]
    if args.format == "json":
        print(json.dumps({"findings": [f.as_dict() for f in findings], "summary": counts(findings)}, indent=2))
    else:
        print(render_text(findings))
    return 1 if counts(findings)["error"] else 0


def _read(path: str) -> str:
    """The same size limit as `simulate` (CAPACITY_MAX_INPUT_MB): `lint /dev/zero` stops at the limit."""
    from capacity.core.limits import read_text_file
    return read_text_file(path)
