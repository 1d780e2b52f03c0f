"""Command line: `python -m capacity <command> ...`; each command lives in `capacity.commands`.

Exit status 0 on success, 2 on input Volcano cannot schedule from (one message naming the object
and field), never a traceback for bad input.
"""

from __future__ import annotations

import argparse
import importlib
import sys

from capacity.commands import COMMANDS
from capacity.errors import InputError, ResourceUnderflow


def _parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="python -m capacity", description="Capacity Lab: Volcano's queue "
                                "capacity logic, faithfully simulated.")
    sub = p.add_subparsers(dest="command", required=True)
    for name in COMMANDS:
        importlib.import_module(f"capacity.commands.{name}").add_parser(sub)
    return p


def main(argv: list[str] | None = None) -> int:
    args = _parser().parse_args(argv)
    module = importlib.import_module(f"capacity.commands.{args.command.replace('-', '_')}")
    try:
        return int(module.run(args))
    except InputError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    except ResourceUnderflow as exc:
        print(f"error: Volcano would panic here (resource underflow): {exc}", file=sys.stderr)
        return 2
