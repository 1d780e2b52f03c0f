"""`bench [--data DIR] [--runs N] [--only s1,steady,...]`: the speed figures of benchmarks/suite.py.

The runner lives in `benchmarks/` (outside the engine and the test run); this command only finds it,
so `python -m capacity bench` works from a checkout.
"""

from __future__ import annotations

import argparse
import os
import sys
from typing import Any


def _suite() -> Any:
    try:
        from benchmarks import suite
    except ImportError:
        root = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
        sys.path.insert(0, root)
        from benchmarks import suite
    return suite


def add_parser(sub: Any) -> None:
    suite = _suite()
    s = sub.add_parser("bench", help="speed figures: S1 cycle, steady cycle, YAML load, replays, growth",
                       description=suite.__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    suite.add_arguments(s)
    from capacity.versions.cli import add_version_arg
    add_version_arg(s)


def run(args: argparse.Namespace) -> int:
    from capacity.core.errors import InputError
    for option, value in (("--runs", args.runs), ("--replay-runs", args.replay_runs)):
        if value < 1:
            raise InputError(option, "", f"must be at least 1, got {value}")
    if args.volcano_version is not None:  # the S1 cycle on that release's rules
        from capacity.framework.session import SessionOptions
        from capacity.versions.cli import session_kwargs
        args.session_options = SessionOptions(**session_kwargs(args.volcano_version))
        print(f"Volcano {args.volcano_version.label}: the S1 cycle runs that release's rules", flush=True)
    return int(_suite().run(args))
