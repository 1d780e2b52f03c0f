"""docs/VERSIONS.md, generated from the switch registry (`python -m capacity.versions.table > docs/VERSIONS.md`);
a test keeps the file equal to this output."""

from __future__ import annotations

from capacity.versions.releases import BACKPORTS, RELEASES, first_with, lacking
from capacity.versions.switches import SWITCHES, UNMODELLED, Unmodelled

HEADER = """# Volcano releases and the changes that decide differently

Generated from `capacity/versions/switches.py` by `python -m capacity.versions.table > docs/VERSIONS.md`
(`tests/unit/test_versions_doc.py` fails when this file is out of date).

`--volcano-version 1.13` (also `v1.13`; `head` is the default) on `simulate`, `explain`, `lint`,
`replay` and `bench`, and the version selector of the dashboard's Scheduler and Compare pages, run the
engine with the changes below that the release does not have turned off: the rule then decides as it did
before the pull request, and the decision trace names the change (`v1.13: ... (before PR #4659, v1.14.0)`).
A dump whose `volcano-scheduler` Deployment or Pod names a release in its image tag runs that release
unless the flag says otherwise. A minor named alone (`1.13`) is its first release (v1.13.0); a patch release
(`1.13.2`, or the dump's image tag) also has the changes cherry-picked into its branch by then (the last column
of the table, and "Backports" below).
"""


def _cell(text: str) -> str:
    return text.replace("|", "\\|")


def switches_table() -> str:
    rows = ["| switch | PR | first release | area | before (older releases) | from the first release on | "
            "older flag | backported to |", "| --- | --- | --- | --- | --- | --- | --- | --- |"]
    for s in sorted(SWITCHES, key=lambda s: (s.minor, s.pr)):
        back = ", ".join(f"v{t}" for t in BACKPORTS.get(s.id, ()))
        rows.append(f"| `{s.id}` | [#{s.pr}](https://github.com/volcano-sh/volcano/pull/{s.pr}) | {s.release} | "
                    f"{s.area} | {_cell(s.before)} | {_cell(s.after)} | {f'`{s.flag}`' if s.flag else ''} | "
                    f"{back} |")
    return "\n".join(rows)


def releases_table() -> str:
    rows = ["| `--volcano-version` | changes turned off (older behaviour) |", "| --- | --- |"]
    for name in RELEASES:
        off = sorted(lacking(name), key=lambda i: int(i[2:]))
        rows.append(f"| `{name}` | {', '.join(f'`{i}`' for i in off) or 'none: Volcano HEAD ed72c7c8'} |")
    return "\n".join(rows)


def unmodelled_table() -> str:
    rows = ["| PR | release | area | change |", "| --- | --- | --- | --- |"]
    def when(u: Unmodelled) -> tuple[int, ...]:
        return (99,) if u.release == "HEAD" else tuple(int(x) for x in u.release.lstrip("v").split(".")[:2])

    for u in sorted(UNMODELLED, key=lambda u: (when(u), u.pr)):
        rows.append(f"| [#{u.pr}](https://github.com/volcano-sh/volcano/pull/{u.pr}) | {u.release} | {u.area} | "
                    f"{_cell(u.what)} |")
    return "\n".join(rows)


def document() -> str:
    seeds = [s for s in SWITCHES if s.flag]
    seed_note = ("The seed compatibility flags are the same switches: "
                 + ", ".join(f"`{s.flag}` turns `{s.id}` off" for s in seeds)
                 + f". `{seeds[0].id}` and `{seeds[1].id}` predate v1.11 ({first_with(seeds[0])} already has "
                 "them), so no selectable release turns them off; the flags still do.")
    return "\n\n".join([
        HEADER.rstrip(), "## The changes", switches_table(), seed_note,
        "## Releases", releases_table(),
        "## Backports", "A patch release has, beyond its minor's changes, those cherry-picked into its branch by "
        "then (`git tag --contains` of the cherry-pick's merge): " + "; ".join(
            f"`{sid}` in {', '.join('v' + t for t in tags)}" for sid, tags in sorted(BACKPORTS.items()))
        + ". Cherry-picks merged on a release branch after its last tag (#3946 on release-1.11; #5796 on "
        "release-1.13, 1.14 and 1.15) are in no release yet.",
        "## Found in Volcano's history, not modelled yet",
        "On these, every release decides as HEAD does here; the queue admission webhook's warnings (and "
        "`--strict-admission`) are HEAD's on every release.", unmodelled_table()]) + "\n"


if __name__ == "__main__":
    print(document(), end="")
