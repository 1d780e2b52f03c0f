"""Compare a run's JSON with an expect.yaml, with the rules of the corpus's own check.py."""

from __future__ import annotations

from typing import Any


def differences(expect: dict[str, Any], out: dict[str, Any]) -> list[str]:
    diffs: list[str] = []
    if "binds" in expect and out["binds"] != (expect["binds"] or {}):
        diffs.append(f"binds: got {out['binds']}, want {expect['binds']}")
    if "bindsNum" in expect and len(out["binds"]) != expect["bindsNum"]:
        diffs.append(f"bindsNum: got {len(out['binds'])}, want {expect['bindsNum']}")
    if "evicted" in expect and sorted(out["evicted"]) != sorted(expect["evicted"] or []):
        diffs.append(f"evicted: got {sorted(out['evicted'])}, want {sorted(expect['evicted'] or [])}")
    if "evictNum" in expect and len(out["evicted"]) != expect["evictNum"]:
        diffs.append(f"evictNum: got {len(out['evicted'])}, want {expect['evictNum']}")
    if "pipelined" in expect:
        want = expect["pipelined"] or {}
        if not want and out["pipelined"]:
            diffs.append(f"pipelined: got {out['pipelined']}, want none")
        for job, nodes in want.items():
            got = out["pipelined"].get(job, [])
            if not got or any(n not in nodes for n in got):
                diffs.append(f"pipelined {job}: got {got}, want on {nodes}")
    for pg, phase in (expect.get("podgroupPhases") or {}).items():
        if out["podgroupPhases"].get(pg) != phase:
            diffs.append(f"phase {pg}: got {out['podgroupPhases'].get(pg)}, want {phase}")
    return diffs
