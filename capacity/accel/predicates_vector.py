"""predicates' filters for many nodes at once, from NodeFit's tables (capacity.accel.nodefit): the NodeVector
form of PredicatesPlugin.predicate (capacity.plugins.predicates), registered through Session.add_fast
(capacity.accel.plugin_forms) when the engine has node_fit. The static filters (labels, taints, cordons:
fixed with the nodes) are worked out once per distinct pod signature and NodeList; the pod count is a column;
inter-pod (anti-)affinity, where it can matter, is the plugin's own per-node check.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, cast

if TYPE_CHECKING:
    from capacity.accel.session import AcceleratedSession

from collections.abc import Callable
from itertools import chain
from typing import Any

import numpy as np

from capacity.accel.nodefit import PredicateVector
from capacity.core.model import PodSpec, Task
from capacity.framework.session import UNRESOLVABLE, UNSCHEDULABLE, FitError
from capacity.plugins.predicates import PredicatesPlugin, static_reason

_PLAIN_SIGNATURE = repr(([], [], []))
"""`PredicatesVector._signature` of a pod without node selector, affinity or tolerations."""


def _required(spec: PodSpec, kind: str) -> list[Any]:
    return ((spec.affinity or {}).get(kind) or {}).get("requiredDuringSchedulingIgnoredDuringExecution") or []


class PredicatesVector:
    """PredicatesPlugin.predicate for every node at once (`predicate_vector`), or as a function of a NodeList
    position (`node_predicate`), for one session's plugin."""

    def __init__(self, plugin: PredicatesPlugin) -> None:
        self.ssn: AcceleratedSession = cast("AcceleratedSession", plugin.ssn)
        ssn = self.ssn
        self.plugin = plugin
        self._affinity_in_play = plugin._affinity_in_play
        # Whether a pod the session can see holds a required pod anti-affinity (then every pending pod's
        # answer may depend on where those pods are, not only on the node's own state).
        self._existing_anti = self._affinity_in_play and any(
            _required(t.spec, "podAntiAffinity")
            for t in chain(ssn.loose, chain.from_iterable(j.tasks.values() for j in ssn.jobs.values())))
        self._signatures: dict[int, tuple[PodSpec, str]] = {}

    def _signature(self, spec: PodSpec) -> str:
        if not spec.node_selector and spec.affinity is None and not spec.tolerations:
            return _PLAIN_SIGNATURE  # (most pods: no selector, affinity or toleration)
        got = self._signatures.get(id(spec))
        if got is not None and got[0] is spec:
            return got[1]
        sig = repr((sorted(spec.node_selector.items()), _required(spec, "nodeAffinity"), spec.tolerations))
        self._signatures[id(spec)] = (spec, sig)
        return sig

    def _inter_pod_matters(self, spec: PodSpec) -> bool:
        """Whether `_inter_pod_affinity` can say anything for this pod (else it always returns None)."""
        return self._affinity_in_play and bool(
            self._existing_anti or _required(spec, "podAntiAffinity") or _required(spec, "podAffinity"))

    def vector_key(self, task: Task) -> str | None:
        """Node-local unless inter-pod (anti-)affinity can matter: the static filters' inputs and the
        node's own pod count decide."""
        return None if self._inter_pod_matters(task.spec) else self._signature(task.spec)

    def _static_for(self, spec: PodSpec) -> tuple[np.ndarray, np.ndarray, list[str | None], list[bool]]:
        """static_reason on every node (passing mask, failing mask, reasons, passing as a list), computed
        once per distinct (nodeSelector, required node affinity, tolerations) and NodeList (NodeFit.shared:
        labels, taints and cordons are fixed with the nodes)."""
        fit = self.ssn.node_fit()
        assert fit is not None
        nodes = self.ssn.node_list

        def make() -> tuple[np.ndarray, np.ndarray, list[str | None], list[bool]]:
            reasons = [static_reason(spec, n) for n in nodes]
            ok = np.array([r is None for r in reasons], dtype=bool)
            bad = ~ok
            ok.flags.writeable = bad.flags.writeable = False
            return ok, bad, reasons, ok.tolist()

        return fit.shared(("predicates.static", self._signature(spec)), make)

    def node_predicate(self, task: Task) -> Callable[[int], bool] | None:
        """`predicate_vector(task, ...).passed[i]` as a function of the NodeList position i, when inter-pod
        (anti-)affinity cannot matter (None otherwise)."""
        if self._inter_pod_matters(task.spec):
            return None
        fit = self.ssn.node_fit()
        assert fit is not None
        static = self._static_for(task.spec)
        ok = static[3]
        pods = fit.pods_list
        max_tasks = fit.max_tasks_list

        def passed(i: int) -> bool:
            return ok[i] and pods[i] < max_tasks[i]

        # What the compiled loop (capacity.accel.kernels.lean_loop) reads: the same answers as arrays.
        passed.kernel_args = (static[0], fit.pods, fit.max_tasks)  # type: ignore[attr-defined]
        return passed

    def predicate_vector(self, task: Task, among: np.ndarray | None, idx: np.ndarray | None = None) -> PredicateVector:
        """`predicate` on every node (or the NodeList positions idx): the pod count and static filters as
        arrays; inter-pod (anti)-affinity, when it can matter, per node among the nodes asked about that
        pass the static filters. error(k) is for the k-th node answered."""
        fit = self.ssn.node_fit()
        assert fit is not None
        static_ok, unresolvable, static, _ = self._static_for(task.spec)
        if idx is None:
            room = fit.pods < fit.max_tasks
        else:
            static_ok, unresolvable = static_ok[idx], unresolvable[idx]
            room = fit.pods[idx] < fit.max_tasks[idx]
        passed = static_ok & room
        names = fit.names
        inter: dict[int, tuple[str, str]] = {}
        if self._inter_pod_matters(task.spec):
            unresolvable = unresolvable.copy()
            nodes = self.ssn.node_list
            asked = static_ok if among is None or idx is not None else static_ok & among
            for k in np.flatnonzero(asked).tolist():
                err = self.plugin._inter_pod_affinity(task, nodes[k if idx is None else int(idx[k])])
                if err is not None:
                    inter[k] = err
                    passed[k] = False
                    if err[0] == UNRESOLVABLE:
                        unresolvable[k] = True

        def error(k: int) -> FitError | None:
            i = k if idx is None else int(idx[k])
            reasons = [] if room[k] else ["Too many pods"]
            fixed = static[i]
            if fixed is not None:
                return FitError(names[i], UNRESOLVABLE, [*reasons, fixed])
            err = inter.get(k)
            if err is not None:
                if err[0] == UNRESOLVABLE:
                    return FitError(names[i], UNRESOLVABLE, [*reasons, err[1]])
                reasons.append(err[1])
            return FitError(names[i], UNSCHEDULABLE, reasons) if reasons else None

        return PredicateVector(passed, unresolvable, error)
