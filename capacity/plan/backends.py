"""Where the replays run: in this process, in local worker processes, or as Ray tasks.

Every backend calls the same `capacity.plan.evaluate.evaluate(raw_spec, candidate)` and yields the rows
as they finish (not in candidate order). A worker that dies or a task Ray cannot run yields a `failed`
row with the error instead of losing the candidate. Ray is imported only by `RayBackend`, so the
command line starts fast without it.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from typing import Any

from capacity.core.errors import InputError
from capacity.plan.evaluate import STATUS_FAILED, evaluate

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def _failed(candidate: dict[str, Any], error: str) -> dict[str, Any]:
    return {"id": candidate["id"], "status": STATUS_FAILED, "error": error, **candidate["values"]}


class InlineBackend:
    """One candidate after another in this process (the dashboard's choice, and tests')."""

    name = "inline"
    workers = 1

    def map(self, raw: dict[str, Any], candidates: list[dict[str, Any]]) -> Iterator[dict[str, Any]]:
        for c in candidates:
            yield evaluate(raw, c)

    def close(self) -> None:
        pass


class ProcessBackend:
    """`workers` local processes (spawned: nothing of this process's state is shared by accident)."""

    name = "local"

    def __init__(self, workers: int) -> None:
        self.workers = workers
        self._pool: Any = None

    def map(self, raw: dict[str, Any], candidates: list[dict[str, Any]]) -> Iterator[dict[str, Any]]:
        import multiprocessing
        from concurrent.futures import ProcessPoolExecutor, as_completed
        from concurrent.futures.process import BrokenProcessPool
        if self._pool is None:
            self._pool = ProcessPoolExecutor(self.workers, mp_context=multiprocessing.get_context("spawn"))
        futures = {self._pool.submit(evaluate, raw, c): c for c in candidates}
        try:
            for fut in as_completed(futures):
                try:
                    yield fut.result()
                except BrokenProcessPool as exc:
                    self._pool = None
                    yield _failed(futures[fut], f"worker process died: {exc}")
                except Exception as exc:  # noqa: BLE001 - recorded as failed, never lost
                    yield _failed(futures[fut], f"{type(exc).__name__}: {exc}")
        finally:
            for fut in futures:
                fut.cancel()

    def close(self) -> None:
        if self._pool is not None:
            self._pool.shutdown(wait=True, cancel_futures=True)
            self._pool = None


def ray_runtime_env(local: bool) -> dict[str, Any]:
    """How Ray's workers find this package: the checkout on PYTHONPATH on this machine, or the package
    itself shipped (`py_modules`) to a remote cluster."""
    if local:
        path = os.pathsep.join(p for p in (ROOT, os.environ.get("PYTHONPATH", "")) if p)
        return {"env_vars": {"PYTHONPATH": path, "CAPACITY_LAB_NO_JIT": os.environ.get("CAPACITY_LAB_NO_JIT", "")}}
    return {"py_modules": [os.path.join(ROOT, "capacity")]}


def _reachable(address: str | None, timeout: float = 5.0) -> None:
    """A HOST:PORT (or ray://HOST:PORT) that does not answer is one message, before `ray.init`, which would
    keep retrying for minutes. "auto" and no address are Ray's to find."""
    if not address or address == "auto":
        return
    where = address.split("://", 1)[-1].rstrip("/")
    host, sep, port = where.rpartition(":")
    if not sep or not port.isdigit():
        raise InputError("--ray", address, "expected auto, local or HOST:PORT (e.g. 10.0.0.5:6379)")
    import socket
    try:
        with socket.create_connection((host.strip("[]"), int(port)), timeout=timeout):
            pass
    except OSError as exc:
        raise InputError("--ray", address, f"no Ray cluster answers at {host}:{port}: {exc}") from None


class RayBackend:
    """Each replay a Ray task (one CPU each) on the cluster at `address` ("auto": the one this machine
    belongs to; "local": a private instance of `workers` CPUs started here), or on the Ray this process has
    already initialised."""

    name = "ray"

    def __init__(self, address: str | None, workers: int | None = None) -> None:
        try:
            import ray
        except ImportError:
            raise InputError("--ray", "", "needs the ray package (pip install 'ray>=2.40')") from None
        self._ray = ray
        self._started = False
        if not ray.is_initialized():
            try:
                if address == "local":
                    ray.init(num_cpus=workers or os.cpu_count(), include_dashboard=False, log_to_driver=False,
                             runtime_env=ray_runtime_env(local=True))
                else:
                    _reachable(address)
                    ray.init(address=address, log_to_driver=False, runtime_env=ray_runtime_env(local=False))
            except (ConnectionError, ValueError, RuntimeError) as exc:
                first = (str(exc).splitlines() or [""])[0]
                raise InputError("--ray", str(address), f"no Ray cluster to connect to: {first}") from None
            self._started = True
        self.workers = int(ray.cluster_resources().get("CPU", 1))
        self._task = ray.remote(num_cpus=1, max_retries=0)(evaluate)

    def map(self, raw: dict[str, Any], candidates: list[dict[str, Any]]) -> Iterator[dict[str, Any]]:
        ray = self._ray
        spec_ref = ray.put(raw)
        refs = {self._task.remote(spec_ref, c): c for c in candidates}
        pending = list(refs)
        try:
            while pending:
                done, pending = ray.wait(pending, num_returns=1)
                for ref in done:
                    try:
                        yield ray.get(ref)
                    except Exception as exc:  # noqa: BLE001 - a task Ray could not run: recorded as failed
                        first = (str(exc).splitlines() or [""])[0]
                        yield _failed(refs[ref], f"{type(exc).__name__}: {first}")
        finally:
            for ref in pending:
                ray.cancel(ref)

    def close(self) -> None:
        if self._started:
            self._ray.shutdown()


def make_backend(ray: str | None, workers: int | None) -> Any:
    if ray:
        return RayBackend(ray, workers)
    n = workers or os.cpu_count() or 1
    return InlineBackend() if n == 1 else ProcessBackend(n)
