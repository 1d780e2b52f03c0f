"""Command line: `python -m capacity <command> ...`; each command lives in `capacity.commands`.

Exit status 0 on success, 2 on input Volcano cannot schedule from (one message naming the object
and field), never a traceback for bad input; 130 when interrupted (Ctrl-C), 141 when the reader of
the output went away (`... | head`).

Everything written to stdout and stderr goes through `TerminalSafe`: a name holding an escape sequence,
a carriage return or a bidi override is shown escaped (`capacity.core.text`), never sent to the terminal raw.
"""

from __future__ import annotations

import argparse
import importlib
import os
import sys
from typing import Any, TextIO

from capacity.commands import COMMANDS
from capacity.core.errors import InputError, ResourceUnderflow
from capacity.core.text import safe, safe_output

#: Exit status when interrupted (128 + SIGINT) and when the output pipe closed (128 + SIGPIPE), as a shell says.
EXIT_INTERRUPTED = 130
EXIT_BROKEN_PIPE = 141


class TerminalSafe:
    """A text stream that escapes control characters (but newline and tab) on their way out.

    The program itself never writes other control characters, so any that arrive came from input
    strings. `unfiltered` is the stream underneath, for the one deliberate exception (the progress bar's
    carriage return).
    """

    def __init__(self, stream: TextIO) -> None:
        self.unfiltered = stream

    def write(self, s: str) -> int:
        self.unfiltered.write(safe_output(s))
        return len(s)

    def writelines(self, lines: Any) -> None:
        for line in lines:
            self.write(line)

    def __getattr__(self, name: str) -> Any:  # flush, isatty, fileno, encoding, buffer...
        return getattr(self.unfiltered, name)


def _parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="python -m capacity", description="Capacity Lab: Volcano's queue "
                                "capacity logic, faithfully simulated.")
    sub = p.add_subparsers(dest="command", required=True)
    for name in COMMANDS:
        importlib.import_module(f"capacity.commands.{name}").add_parser(sub)
    return p


def main(argv: list[str] | None = None) -> int:
    out, err = sys.stdout, sys.stderr
    sys.stdout, sys.stderr = TerminalSafe(out), TerminalSafe(err)
    try:
        code = _run(argv)
        sys.stdout.flush()  # a closed pipe shows here, not in the interpreter's own flush at exit
        return code
    except BrokenPipeError:
        _silence(out)
        return EXIT_BROKEN_PIPE
    finally:
        sys.stdout, sys.stderr = out, err


def _run(argv: list[str] | None) -> int:
    args = _parser().parse_args(argv)
    module = importlib.import_module(f"capacity.commands.{args.command.replace('-', '_')}")
    try:
        return int(module.run(args))
    except InputError as exc:
        print(f"error: {safe(str(exc))}", file=sys.stderr)
        return 2
    except ResourceUnderflow as exc:
        print(f"error: Volcano would panic here (resource underflow): {safe(str(exc))}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print("interrupted", file=sys.stderr)
        return EXIT_INTERRUPTED


def _silence(stream: TextIO) -> None:
    """Python's recipe for a closed pipe: point the stream's file at /dev/null, so that the interpreter's
    flush at exit cannot fail again (and print "Exception ignored ... BrokenPipeError")."""
    try:
        fd = stream.fileno()
    except (OSError, ValueError, AttributeError):  # not a file (e.g. a test's capture): nothing to flush at exit
        return
    devnull = os.open(os.devnull, os.O_WRONLY)
    os.dup2(devnull, fd)
    os.close(devnull)
