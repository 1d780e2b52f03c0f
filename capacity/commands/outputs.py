"""Files a command writes (`--trace`, `--csv`, `--cycles-csv`): checked before the run, so a typo in a
folder name costs nothing; a write that still fails (a full disk) is one line naming the option."""

from __future__ import annotations

import os
from collections.abc import Callable

from capacity.core.errors import InputError


def check_writable(option: str, path: str | None) -> None:
    """Refuse, before any work, an output path that cannot be written: object the option, field the path."""
    if not path:
        if path == "":
            raise InputError(option, "", "needs a file name")
        return
    if os.path.isdir(path):
        raise InputError(option, path, "is a folder; give a file name")
    if os.path.exists(path):
        if not os.access(path, os.W_OK):
            raise InputError(option, path, "cannot be written: permission denied")
        return
    folder = os.path.dirname(os.path.abspath(path))
    if not os.path.isdir(folder):
        what = "is a file, not a folder" if os.path.exists(folder) else "does not exist"
        raise InputError(option, path, f"cannot be written: the folder {os.path.dirname(path) or '.'} {what}")
    if not os.access(folder, os.W_OK):
        raise InputError(option, path, f"cannot be written: permission denied in {os.path.dirname(path) or '.'}")


def write_or_report(option: str, path: str, write: Callable[[str], object]) -> InputError | None:
    """`write(path)`, or the InputError saying why it failed (for the caller to print after the result)."""
    try:
        write(path)
    except OSError as exc:
        return InputError(option, path, f"cannot be written: {exc.strerror or exc}")
    return None
