"""Candidates: every combination (grid), a seeded random sample, or an Optuna sampler's suggestions.

A search hands out batches of `spec.batch` candidates and is told their rows in candidate order once a
batch is done, whatever order they finished in: so the same seed proposes the same candidates on every
backend and with any number of workers, and a resumed run, told the rows it already has, proposes
exactly what the interrupted one would have. Each candidate is {"id": n, "values": {param: value}}.
"""

from __future__ import annotations

import itertools
import math
import random
from typing import Any

from capacity.plan.report import number
from capacity.plan.spec import PlanSpec


class Search:
    #: whether the next candidates depend on the last rows (then batches run one after another)
    adaptive = False

    def __init__(self, spec: PlanSpec) -> None:
        self.spec = spec
        self.next_id = 0

    def batch(self) -> list[dict[str, Any]]:
        raise NotImplementedError

    def tell(self, rows: list[dict[str, Any]]) -> None:
        """The rows of the last batch, in candidate order."""

    def _candidate(self, values: dict[str, str]) -> dict[str, Any]:
        c = {"id": self.next_id, "values": values}
        self.next_id += 1
        return c


class GridSearch(Search):
    def __init__(self, spec: PlanSpec) -> None:
        super().__init__(spec)
        combos = itertools.product(*(p.values for p in spec.params))
        self._combos = itertools.islice(combos, spec.candidates)

    def batch(self) -> list[dict[str, Any]]:
        names = [p.name for p in self.spec.params]
        return [self._candidate(dict(zip(names, combo, strict=True)))
                for combo in itertools.islice(self._combos, self.spec.batch)]


class RandomSearch(Search):
    """`candidates` distinct draws (fewer when the grid is smaller), one value per setting each."""

    def __init__(self, spec: PlanSpec) -> None:
        super().__init__(spec)
        self._rng = random.Random(spec.seed)
        self._seen: set[tuple[str, ...]] = set()
        self._room = min(spec.candidates, math.prod(len(p.values) for p in spec.params))

    def batch(self) -> list[dict[str, Any]]:
        out = []
        while len(out) < self.spec.batch and len(self._seen) < self._room:
            combo = tuple(p.values[self._rng.randrange(len(p.values))] for p in self.spec.params)
            if combo in self._seen:
                continue
            self._seen.add(combo)
            out.append(self._candidate({p.name: v for p, v in zip(self.spec.params, combo, strict=True)}))
        return out


class OptunaSearch(Search):
    """Optuna's TPE sampler (seeded), minimising `score`: how far the goals are missed, then `prefer`."""

    adaptive = True

    def __init__(self, spec: PlanSpec) -> None:
        super().__init__(spec)
        import optuna
        optuna.logging.set_verbosity(optuna.logging.WARNING)
        self._optuna = optuna
        self._study = optuna.create_study(direction="minimize", sampler=optuna.samplers.TPESampler(seed=spec.seed))
        self._dist = {p.name: optuna.distributions.CategoricalDistribution(list(p.values)) for p in spec.params}
        self._trials: dict[int, Any] = {}

    def batch(self) -> list[dict[str, Any]]:
        n = min(self.spec.batch, self.spec.candidates - self.next_id)
        out = []
        for _ in range(max(0, n)):
            trial = self._study.ask(self._dist)
            c = self._candidate({name: str(trial.params[name]) for name in self._dist})
            self._trials[c["id"]] = trial
            out.append(c)
        return out

    def tell(self, rows: list[dict[str, Any]]) -> None:
        for row in rows:
            trial = self._trials.pop(int(row["id"]))
            s = score(self.spec, row)
            if s is None:
                self._study.tell(trial, state=self._optuna.trial.TrialState.FAIL)
            else:
                self._study.tell(trial, s)


def score(spec: PlanSpec, row: dict[str, Any]) -> float | None:
    """Lower is better: the goals' shortfalls (each relative to its target), then the preferred column, scaled
    to matter only between candidates that miss the goals alike. None for a candidate that did not run."""
    if row.get("status") != "ok":
        return None
    miss = 0.0
    for g in spec.goals:
        v = number(row.get(g.column))
        if v is None:
            miss += 1.0
            continue
        gap = (v - g.target) if g.minimize else (g.target - v)
        miss += max(0.0, gap) / max(abs(g.target), 1e-9) if g.target else max(0.0, gap)
    way, column = spec.prefer
    p = number(row.get(column))
    tie = 0.0 if p is None else (p if way == "minimize" else -p)
    return miss * 1e6 + tie / (1.0 + abs(tie)) if tie else miss * 1e6


def make_search(spec: PlanSpec) -> Search:
    return {"grid": GridSearch, "random": RandomSearch, "optuna": OptunaSearch}[spec.strategy](spec)
