"""The typed extension point through which the session's snapshot reaches what an earlier session kept (issue 28).

Volcano's cache.Snapshot (pkg/scheduler/cache/cache.go @ed72c7c8) builds every node, job and task afresh each
cycle; so does SessionSnapshot._snapshot, calling `ssn.reuse` at the places where an accelerated engine may take
over what the last session left as built. `NoReuse` is the reference form: every method answers "nothing kept".
The accelerated form (capacity.accel.snapshot_keep.KeptSnapshot) wraps a SnapshotCache. Which one a session
holds is chosen once at open (capacity.accel.extension_points.snapshot_reuse).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Protocol

if TYPE_CHECKING:
    from capacity.accel.pod_reading import PodReading
    from capacity.core.cluster import NodeObj, PodObj
    from capacity.core.model import Job, Node
    from capacity.core.resources import Resource

    KeptNodes = tuple[list[NodeObj], list[Node], dict[str, Node], Resource, set[str]]


class KeptJobs:
    """A session's jobs (`jobs`) with what each was built from (`built`, which may name more), but for
    those in `gone`: what `keep` hands to the next snapshot."""

    __slots__ = ("jobs", "built", "gone")

    def __init__(self, jobs: dict[str, Job], built: dict[str, tuple[Any, ...]], gone: set[str]) -> None:
        self.jobs = jobs
        self.built = built
        self.gone = gone

    def get(self, uid: str) -> Job | None:
        """The kept job of `uid`, if there is one."""
        job = self.jobs.get(uid)
        return None if job is None or uid in self.gone else job


class SnapshotReuse(Protocol):
    """What the snapshot may take over from the last session instead of building it (all of it checked to
    have the very inputs it was built from)."""

    offered: KeptJobs
    """The jobs the last session left as built, with what each was built from (set by `read_pods`)."""
    since: int
    """When the pods were last read (PodGroups written before that and seen then may be kept)."""
    moved: set[str] | None
    """The jobs whose pods' fields changed since (None: any may have)."""
    fresh_jobs: list[Job]
    """The jobs built anew although the last session's could have been offered (`built_anew`)."""
    output_log: list[Job]
    """The jobs on which the session writes outputs of its own, to be cleared before they are handed on."""

    def read_pods(self, pods: dict[str, PodObj]) -> None:
        """Start of the snapshot: take the kept jobs (`offered`) and read the pods' fields."""
        ...

    def nodes(self, cluster_nodes: list[NodeObj]) -> KeptNodes | None:
        """The NodeList with the nodes taken as they are (node objects, nodes, by name, total, names taken);
        None: build every node."""
        ...

    def take_victim_table(self) -> Any:
        """The VictimTable the last session used (capacity.accel.victim_bound), or None."""
        ...

    def podgroups_seen(self, world: tuple[Any, ...]) -> dict[str, Any]:
        """The PodGroups as last read, if still to be trusted under `world` (queues, priority classes)."""
        ...

    def podgroups_to_read(self, podgroups: dict[str, Any]) -> list[str] | None:
        """The PodGroups whose jobs must be looked at, every other one's kept job taken in bulk (None: all)."""
        ...

    def same_inputs(self, uid: str, pg: Any, priority: int, pre_raw: str | None, alike: set[str]) -> Job | None:
        """The kept job of `uid` if it was built from the very inputs the PodGroup now gives (adds `uid` to
        `alike` when the last session's job was built from them but is not kept)."""
        ...

    def built_anew(self, job: Job) -> None:
        """A job the snapshot built (not taken over)."""
        ...

    def last_jobs(self, jobs: dict[str, Job]) -> dict[str, Job] | None:
        """The last session's jobs dict, when this session's have the same uids."""
        ...

    def unique_reading(self) -> PodReading | None:
        """The pods' reading, when every pod has a uid of its own (tasks then linked from it)."""
        ...

    def may_starve(self, same: set[str]) -> set[str] | None:
        """The jobs that might starve at open (Job.may_starve), or None: not known."""
        ...

    def take_close(self) -> tuple[tuple[str, ...], dict[str, Job], dict[str, str]] | None:
        """The last close's plugins, jobs and phases."""
        ...

    def hand_over(self, jobs: dict[str, Job], all_tasks: dict[str, Any], linked_from_reading: bool,
                  podgroups: dict[str, Any]) -> None:
        """End of the snapshot: what the next session may take over."""
        ...

    def closed(self, moved: set[str], plugins: tuple[str, ...], jobs: dict[str, Job], phases: dict[str, str]) -> None:
        """Session.close's answers: the jobs whose phase moved, and the phases (kept as a copy) with the
        plugins that closed and the jobs dict."""
        ...

    def released(self, fit: Any) -> None:
        """Session.release with a NodeFit: what of it the next session may take over."""
        ...


class NoReuse:
    """The reference form: nothing kept, everything built."""

    def __init__(self) -> None:
        self.offered = KeptJobs({}, {}, set())
        self.since = 0
        self.moved: set[str] | None = None
        self.fresh_jobs: list[Job] = []
        self.output_log: list[Job] = []

    def read_pods(self, pods: dict[str, PodObj]) -> None:
        return None

    def nodes(self, cluster_nodes: list[NodeObj]) -> KeptNodes | None:
        return None

    def take_victim_table(self) -> Any:
        return None

    def podgroups_seen(self, world: tuple[Any, ...]) -> dict[str, Any]:
        return {}

    def podgroups_to_read(self, podgroups: dict[str, Any]) -> list[str] | None:
        return None

    def same_inputs(self, uid: str, pg: Any, priority: int, pre_raw: str | None, alike: set[str]) -> Job | None:
        return None

    def built_anew(self, job: Job) -> None:
        return None

    def last_jobs(self, jobs: dict[str, Job]) -> dict[str, Job] | None:
        return None

    def unique_reading(self) -> PodReading | None:
        return None

    def may_starve(self, same: set[str]) -> set[str] | None:
        return None

    def take_close(self) -> tuple[tuple[str, ...], dict[str, Job], dict[str, str]] | None:
        return None

    def hand_over(self, jobs: dict[str, Job], all_tasks: dict[str, Any], linked_from_reading: bool,
                  podgroups: dict[str, Any]) -> None:
        return None

    def closed(self, moved: set[str], plugins: tuple[str, ...], jobs: dict[str, Job], phases: dict[str, str]) -> None:
        return None

    def released(self, fit: Any) -> None:
        return None
