"""Volcano releases a user can choose, and the switches each one lacks.

A release is named by its minor version: `1.13`, `v1.13`, `1.13.2` and `v1.13.2` all choose v1.13 (the
patch releases carry fixes this engine does not model as switches); `head` (the default) is Volcano's
main branch at ed72c7c8, which this engine follows.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from capacity.versions.switches import SWITCHES, Switch

HEAD = "head"
#: Every release a user can choose, oldest first, then HEAD.
RELEASES: tuple[str, ...] = ("1.11", "1.12", "1.13", "1.14", "1.15", HEAD)

_VERSION = re.compile(r"^v?(\d+)\.(\d+)(?:\.(\d+))?$")


class UnknownVersion(ValueError):
    """A --volcano-version this engine has no switch set for; the message lists the known ones."""


@dataclass(frozen=True, slots=True)
class Version:
    """A release and the switches whose change it does not have yet (their older behaviour applies)."""

    name: str                  # "1.13" or "head"
    lacking: frozenset[str]    # switch ids

    @property
    def label(self) -> str:
        """"v1.13" or "HEAD", as a sentence names it."""
        return "HEAD" if self.name == HEAD else f"v{self.name}"


def known_versions() -> str:
    return ", ".join(RELEASES)


def parse_version(text: str) -> str:
    """The release name of `text` ("v1.13.2" -> "1.13"), or UnknownVersion naming the known ones."""
    t = (text or "").strip().lower()
    if t in (HEAD, "main", "master", "latest"):
        return HEAD
    m = _VERSION.match(t)
    name = f"{int(m.group(1))}.{int(m.group(2))}" if m else ""
    if name not in RELEASES:
        raise UnknownVersion(f"unknown Volcano version {text!r}; known: {known_versions()}")
    return name


def lacking(name: str) -> frozenset[str]:
    """The switches a release does not have: those first released after it (all of them on HEAD)."""
    if name == HEAD:
        return frozenset()
    major, minor = (int(p) for p in name.split("."))
    return frozenset(s.id for s in SWITCHES if s.minor > (major, minor))


def version(text: str) -> Version:
    """`--volcano-version TEXT` resolved: the release and the switches it lacks."""
    name = parse_version(text)
    return Version(name, lacking(name))


def first_with(switch: Switch) -> str:
    """The oldest selectable release that has the switch's change ("HEAD" when none has it yet)."""
    for name in RELEASES:
        if switch.id not in lacking(name):
            return "HEAD" if name == HEAD else f"v{name}"
    return "HEAD"
