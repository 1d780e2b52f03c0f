"""A dump repeats a few request shapes over thousands of pods; the reader parses each shape once. Repeated
shapes must still read, warn and fail exactly like the first one."""

from __future__ import annotations

import pytest

from capacity.core.errors import InputError
from capacity.io.k8s import load_objects
from tests.builders import node, pod, podgroup, queue


def _objs(requests: list[dict]) -> list[dict]:
    objs = [queue("q"), node("n1", cpu="64", memory="256Gi")]
    for i, req in enumerate(requests):
        objs += [podgroup(f"j{i}", "q"), pod(f"j{i}-0", f"j{i}", req)]
    return objs


def test_the_same_shape_gives_equal_but_separate_requests() -> None:
    c = load_objects(_objs([{"cpu": "2", "memory": "4Gi"}] * 3))
    reqs = [p.resreq for p in c.pods.values()]
    assert len({repr(r) for r in reqs}) == 1 and reqs[0].cpu == 2000 and reqs[0].memory == 4 * 2**30
    reqs[0].add(reqs[1])  # the cycle adds to requests in place: the others must not change
    assert reqs[1].cpu == reqs[2].cpu == 2000


def test_every_pod_with_a_suspect_shape_is_warned_about() -> None:
    c = load_objects(_objs([{"cpu": "1", "memory": "16"}] * 2 + [{"cpu": "1", "cpus": "2"}] * 2))
    unitless = [w.obj for w in c.warnings if "has no unit" in w.message]
    dropped = [w.obj for w in c.warnings if "not a resource name" in w.message]
    assert unitless == ["Pod/ns1/j0-0", "Pod/ns1/j1-0"]
    assert dropped == ["Pod/ns1/j2-0", "Pod/ns1/j3-0"]


@pytest.mark.parametrize("odd", [True, 1, 1.0])
def test_a_number_or_boolean_is_not_taken_for_the_text_read_before(odd: object) -> None:
    objs = _objs([{"cpu": "1"}, {"cpu": odd}])
    if odd is True:
        with pytest.raises(InputError, match="Pod/ns1/j1-0: spec.containers.0..resources.requests.cpu"):
            load_objects(objs)
    else:
        c = load_objects(objs)
        assert c.pods["ns1/j1-0"].resreq.cpu == 1000


def test_the_units_the_input_wrote_are_counted_for_every_pod() -> None:
    c = load_objects(_objs([{"cpu": "500m"}] * 3 + [{"cpu": "1"}]))
    assert c.unit_styles["cpu"] == "milli"
