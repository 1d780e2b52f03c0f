"""Volcano releases as sets of behaviour switches (issue 29): which upstream change a release has, and
the words a decision trace uses when an older behaviour decided."""

from capacity.versions.releases import HEAD, RELEASES, UnknownVersion, Version, parse_version, version
from capacity.versions.switches import BY_ID, SWITCHES, UNMODELLED, Switch

__all__ = ["BY_ID", "HEAD", "RELEASES", "SWITCHES", "UNMODELLED", "Switch", "UnknownVersion", "Version",
           "parse_version", "version", "older_words"]


def older_words(switch_id: str, version_label: str) -> str:
    """"v1.13: capacity required every requested dimension ... (before PR #4659, v1.14.0)": how a trace
    names the switch that made a decision differ from HEAD."""
    s = BY_ID[switch_id]
    from capacity.versions.releases import backported
    when = "not in a release yet" if s.release == "HEAD" else s.release + backported(switch_id, inside=True)
    return f"{version_label}: {s.before} (before PR #{s.pr}, {when})"
