"""Which upstream changes a session lacks: the one place the engine reads a release's older behaviour from
(capacity/versions). Session, and everything that opens one, takes a SessionOptions.
"""

from __future__ import annotations

from dataclasses import dataclass

#: The version switch (capacity/versions/switches.py) behind each seed compatibility flag.
_SEED_FLAGS = (("leaf_only_allocatable", "pr3940"), ("seed004_root_init", "pr4973"),
               ("legacy_namespace_fairshare", "pr2757"))


@dataclass(slots=True)
class SessionOptions:
    """Which upstream changes this session lacks (capacity/versions): the one place the engine reads
    a release's older behaviour from. All empty = Volcano HEAD. The three seed flags are switches of the
    same table under their older names: a flag set turns its switch off, and a release lacking the switch
    sets the flag."""

    leaf_only_allocatable: bool = False      # seed 003: hierarchical allocate checks only the leaf
    seed004_root_init: bool = False          # seed 004: root capability/deserved := cluster total
    legacy_namespace_fairshare: bool = False  # seed 002: Volcano <= 1.7 namespace weights
    lacking: frozenset[str] = frozenset()    # switch ids whose older behaviour applies
    version: str = "HEAD"                    # the release chosen ("v1.13"), as a trace names it

    def __post_init__(self) -> None:
        self.lacking = frozenset(self.lacking)
        for flag, switch in _SEED_FLAGS:
            if switch in self.lacking:
                setattr(self, flag, True)

    def older(self, switch: str) -> bool:
        """True when the session runs the behaviour from before `switch`'s change."""
        return switch in self.lacking or any(s == switch and getattr(self, f) for f, s in _SEED_FLAGS)

    def set_by_release(self, flag: str) -> bool:
        """True when the chosen release lacks the switch behind a seed flag (the flag cannot be turned off)."""
        return any(f == flag and s in self.lacking for f, s in _SEED_FLAGS)

    def all_lacking(self) -> frozenset[str]:
        """Every switch this session runs the older behaviour of: the release's and the seed flags'."""
        return self.lacking | {s for f, s in _SEED_FLAGS if getattr(self, f)}

    def older_words(self, switch: str) -> str:
        """The trace's words for a decision the older behaviour made ("v1.13: ... (before PR #4659 ...)")."""
        from capacity.versions import older_words
        return older_words(switch, self.version)
