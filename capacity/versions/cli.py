"""`--volcano-version` for the commands that run the engine: the argument, and the session options it
gives (with the dump's own version, from its scheduler image, when the flag is not given)."""

from __future__ import annotations

import argparse
import sys
from typing import TYPE_CHECKING, Any

from capacity.versions.releases import HEAD, UnknownVersion, Version, known_versions, version

if TYPE_CHECKING:
    from capacity.core.cluster import Cluster

HELP = ("the Volcano release to reproduce: 1.11 ... 1.15 (v1.13 works too; a minor alone is its .0 release, a "
        "patch such as 1.13.2 also has the fixes backported to it) or head (default; a dump whose "
        "volcano-scheduler image names a release runs that release)")


def release(text: str) -> Version:
    """argparse type: an unknown version exits 2 with the known ones listed."""
    try:
        return version(text)
    except UnknownVersion as exc:
        raise argparse.ArgumentTypeError(str(exc)) from None


def add_version_arg(s: argparse.ArgumentParser) -> None:
    s.add_argument("--volcano-version", type=release, default=None, metavar="VERSION", help=HELP)


def detect_text(text: str, source: str = "input") -> str | None:
    """The release of the dump's volcano-scheduler image ("1.13.2"), None without one. For text not read into a
    Cluster (lint): parsed again only when the text names the scheduler's image or app label at all (a dump
    usually has neither; a loaded Cluster has it already, `Cluster.scheduler_version`); a malformed dump is
    the loader's to report."""
    from capacity.io.volcano_image import SCHEDULER_APP, SCHEDULER_IMAGE
    if SCHEDULER_IMAGE not in text and SCHEDULER_APP not in text:
        return None
    from capacity.io.k8s import iter_documents
    from capacity.io.volcano_image import scheduler_version
    try:
        return scheduler_version(list(iter_documents(text, source)))
    except Exception:  # noqa: BLE001 - the load proper reports malformed input
        return None


def detect(path: str) -> str | None:
    """`detect_text` of a file."""
    from capacity.core.limits import read_text_file
    try:
        return detect_text(read_text_file(path), path)
    except Exception:  # noqa: BLE001 - the load proper reports an unreadable file
        return None


def known_or_none(found: str | None) -> Version | None:
    """The release a detected image tag names, None when there is none or this engine does not know it."""
    if not found:
        return None
    try:
        return version(found)
    except UnknownVersion:
        return None


def chosen(args: argparse.Namespace, dump: Cluster | str | None = None) -> Version:
    """The release to run: the flag, else the dump's scheduler image (said on stderr), else HEAD. `dump`: the
    Cluster already read (its image was noted while reading: no second parse), or the path of a dump."""
    given = getattr(args, "volcano_version", None)
    if given is not None:
        return given
    cached = getattr(args, "_detected_version", None)
    if cached is not None:
        return cached
    found = detect(dump) if isinstance(dump, str) else dump.scheduler_version if dump is not None else None
    picked = version(HEAD)
    if found:
        try:
            picked = version(found)
            print(f"warning: the dump's volcano-scheduler image is {found}: simulating {picked.label} "
                  "(--volcano-version head for Volcano's main branch)", file=sys.stderr)
        except UnknownVersion:
            print(f"warning: the dump's volcano-scheduler image is {found}, a release this engine has no switch "
                  f"set for (known: {known_versions()}): simulating HEAD", file=sys.stderr)
    args._detected_version = picked
    return picked


def session_kwargs(v: Version) -> dict[str, Any]:
    """SessionOptions(...) keywords for a release."""
    return {"lacking": v.lacking, "version": v.label}
