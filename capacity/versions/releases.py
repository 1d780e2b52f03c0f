"""Volcano releases a user can choose, and the switches each one lacks.

A release is named by its minor version, `1.13` or `v1.13` (its first release, v1.13.0), or by a patch
release, `1.13.1` or `v1.13.1`: a patch release also has the switches backported to its branch by then
(BACKPORTS); `head` (the default) is Volcano's main branch at ed72c7c8, which this engine follows.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from capacity.versions.switches import SWITCHES, Switch

HEAD = "head"
#: Every release a user can choose, oldest first, then HEAD.
RELEASES: tuple[str, ...] = ("1.11", "1.12", "1.13", "1.14", "1.15", HEAD)

_VERSION = re.compile(r"^v?(\d+)\.(\d+)(?:\.(\d+))?$")

#: Switches cherry-picked into an older release branch, and the first patch release of each branch that has
#: them (`git tag --contains` of the cherry-pick's merge commit). Cherry-picks merged on a release branch
#: after its last tag (PR #3946 on release-1.11, #5796 on release-1.13/1.14/1.15) are in no release yet.
BACKPORTS: dict[str, tuple[str, ...]] = {
    "pr4033": ("1.11.1",),           # cb64a1b7c on release-1.11, the fix of #4033
    "pr4160": ("1.11.1",),           # PR #4178, the lessPartly removal of #4160, on release-1.11
    "pr4347": ("1.12.3",),           # PR #4586, automated cherry-pick of #4347 to release-1.12
    "pr4659": ("1.13.1",),           # PR #4830, cherry-pick of #4659 to release-1.13
    "pr4973": ("1.14.2",),           # PR #5080, cherry-pick of #4973 to release-1.14 (scheduler and webhook)
    "pr4973-webhook": ("1.14.2",),   # the same cherry-pick
    "pr5142": ("1.12.4", "1.13.3", "1.14.2"),  # PRs #5270, #5269, #5268: cherry-picks of #5142 (with #5141)
    "pr5176": ("1.14.2",),           # PR #5218, cherry-pick of #5176 to release-1.14
    "pr5214": ("1.14.3",),           # PR #5307, cherry-pick of #5214 to release-1.14
}


class UnknownVersion(ValueError):
    """A --volcano-version this engine has no switch set for; the message lists the known ones."""


@dataclass(frozen=True, slots=True)
class Version:
    """A release and the switches whose change it does not have yet (their older behaviour applies)."""

    name: str                  # "1.13" or "head"
    lacking: frozenset[str]    # switch ids
    patch: int | None = None   # 2 for "1.13.2"; None when only the minor was named (its .0 release)

    @property
    def label(self) -> str:
        """"v1.13", "v1.13.2" or "HEAD", as a sentence names it."""
        if self.name == HEAD:
            return "HEAD"
        return f"v{self.name}" if self.patch is None else f"v{self.name}.{self.patch}"


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


def _backported(switch_id: str, major: int, minor: int, patch: int) -> bool:
    """Whether patch release major.minor.patch has the switch's change through a cherry-pick."""
    for tag in BACKPORTS.get(switch_id, ()):
        t_major, t_minor, t_patch = (int(p) for p in tag.split("."))
        if (t_major, t_minor) == (major, minor) and t_patch <= patch:
            return True
    return False


def lacking(name: str, patch: int | None = None) -> frozenset[str]:
    """The switches a release does not have: those first released after it (all of them on HEAD), less those
    backported to its branch by patch release `patch` (none for a minor named alone: its .0 release)."""
    if name == HEAD:
        return frozenset()
    major, minor = (int(p) for p in name.split("."))
    return frozenset(s.id for s in SWITCHES if s.minor > (major, minor)
                     and not (patch is not None and _backported(s.id, major, minor, patch)))


def version(text: str) -> Version:
    """`--volcano-version TEXT` resolved: the release and the switches it lacks."""
    name = parse_version(text)
    m = _VERSION.match((text or "").strip().lower())
    patch = int(m.group(3)) if name != HEAD and m and m.group(3) is not None else None
    return Version(name, lacking(name, patch), patch)


def first_with(switch: Switch) -> str:
    """The oldest selectable release that has the switch's change ("HEAD" when none has it yet)."""
    for name in RELEASES:
        if switch.id not in lacking(name):
            return "HEAD" if name == HEAD else f"v{name}"
    return "HEAD"


def choices(detected: str | None = None) -> list[str]:
    """What a version selector offers: every minor release and HEAD, and the dump's own patch release after its
    minor when the dump names one (a patch release may have switches backported: BACKPORTS)."""
    out = list(RELEASES)
    try:
        found = version(detected) if detected else None
    except UnknownVersion:
        found = None
    if found is not None and found.patch is not None:
        out.insert(out.index(found.name) + 1, f"{found.name}.{found.patch}")
    return out


def choice(label: str) -> str:
    """The selector entry of a Version's label: "v1.13.2" -> "1.13.2", "HEAD" -> "head"."""
    return HEAD if label.strip().lower() == HEAD else label.strip().lstrip("vV")


def backported(switch_id: str, inside: bool = False) -> str:
    """" (backported to v1.13.1)" when the switch reached an older branch in a patch release, else "";
    `inside` a parenthesis already: "; backported to v1.13.1"."""
    tags = BACKPORTS.get(switch_id, ())
    if not tags:
        return ""
    said = f"backported to {', '.join('v' + t for t in tags)}"
    return f"; {said}" if inside else f" ({said})"
