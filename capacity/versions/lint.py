"""`lint --volcano-version`: what the chosen release does with this dump that HEAD does not.

The session notes of one cycle on the release that an older rule wrote (they name the change, "(before PR
#...") become findings: an error when capacity stops scheduling there, else a warning."""

from __future__ import annotations

from typing import Any

from capacity.versions.releases import Version


def version_findings(cluster: Any, chosen: Version) -> list[Any]:
    return release_findings(cluster, chosen.lacking, chosen.label)


def release_findings(cluster: Any, lacking: frozenset[str], label: str) -> list[Any]:
    """The findings of one cycle on the release that lacks `lacking` (named `label`, "v1.13")."""
    from capacity.analysis.lint import Finding
    from capacity.framework.session import SessionOptions
    from capacity.scheduler import simulate
    if not lacking:
        return []
    out = simulate(cluster.copy_state(), 1, None, SessionOptions(lacking=lacking, version=label))
    found = []
    for note in (out.cycles[0].notes if out.cycles else []):
        if "(before PR #" not in note:
            continue
        stops = "readyToSchedule=false" in note
        found.append(Finding("error" if stops else "warning", "release-behaviour", "volcano-scheduler",
                             label, note, "stops capacity's allocate, enqueue and reclaim for the whole "
                             "cycle" if stops else "decides as the release did"))
    return found
