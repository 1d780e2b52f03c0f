"""Volcano's resource arithmetic (shared/spec/queue-plugins.md section 1), pinned by the worked
examples of 1.9 and by the absent-vs-empty scalar map rules of 1.5-1.8."""

from __future__ import annotations

import sys

import pytest
from hypothesis import given
from hypothesis import strategies as st

from capacity.core.errors import InputError, ResourceUnderflow
from capacity.core.resources import (
    IGNORED_SCALAR_RESOURCES,
    INFINITY,
    MAX_FLOAT,
    MIN_RESOURCE,
    SCALAR_INFINITY,
    ZERO,
    Resource,
    exceeded_part,
    from_resource_list,
    intersection,
    intersection_with_ignored_scalar_resources,
    is_count_quota,
    is_scalar_resource_name,
    res_max,
    share,
    to_dict,
)

GPU = "nvidia.com/gpu"
Gi = 2.0**30


def R(cpu: float = 0.0, mem: float = 0.0, sc: dict[str, float] | None = None) -> Resource:
    """Resource in internal units; ``sc=None`` means no scalar map."""
    return Resource(cpu, mem, sc)


def state(r: Resource) -> tuple[float, float, dict[str, float] | None]:
    return r.cpu, r.memory, r.scalars


# --- constants -------------------------------------------------------------------------------------


def test_constants() -> None:
    assert MIN_RESOURCE == 0.1
    assert (ZERO, INFINITY) == (0, -1)
    assert MAX_FLOAT == 1.7976931348623157e308
    assert SCALAR_INFINITY == 9223372036854775808.0
    assert frozenset({"pods"}) == IGNORED_SCALAR_RESOURCES
    assert MAX_FLOAT - 4 * 2**40 == MAX_FLOAT  # the sentinel survives arithmetic, as in Go
    assert MAX_FLOAT + 16000 == MAX_FLOAT


def test_empty_and_infinite() -> None:
    e = Resource.empty()
    assert state(e) == (0.0, 0.0, None)
    assert e.max_task_num == 0
    inf = Resource.infinite()
    assert state(inf) == (MAX_FLOAT, MAX_FLOAT, None)
    assert inf.max_task_num == sys.maxsize


def test_constructor_copies_scalars_as_floats() -> None:
    sc = {GPU: 1}
    r = Resource(1, 2, sc)
    sc[GPU] = 5
    assert r.scalars == {GPU: 1.0}
    assert isinstance(r.scalars[GPU], float)
    assert isinstance(r.cpu, float)


# --- 1.9 worked examples ------------------------------------------------------------------------------


def test_A1_less_equal_zero_reads_missing_right_key_as_zero() -> None:
    r = R(2000, 4 * Gi, {GPU: 1000, "pods": 1})
    assert r.less_equal(R(4000, 8 * Gi), ZERO) is False


def test_A1p_less_equal_infinity_skips_left_only_keys() -> None:
    r = R(2000, 4 * Gi, {GPU: 1000, "pods": 1})
    assert r.less_equal(R(4000, 8 * Gi), INFINITY) is True


def test_A2_less_equal_zero_ignores_right_only_keys() -> None:
    assert R(2000, 4 * Gi).less_equal(R(4000, 8 * Gi, {GPU: 1000}), ZERO) is True


def test_A2p_less_equal_infinity_fails_on_right_only_keys() -> None:
    assert R(2000, 4 * Gi).less_equal(R(4000, 8 * Gi, {GPU: 1000}), INFINITY) is False
    # also with a present but different left map
    assert R(2000, 4 * Gi, {"pods": 1}).less_equal(R(4000, 8 * Gi, {GPU: 1000, "pods": 2}), INFINITY) is False


def test_A3_less_equal_epsilon() -> None:
    assert R(1000.05).less_equal(R(1000), ZERO) is True
    assert R(1000.1).less_equal(R(1000), ZERO) is False
    assert R(0, 0, {GPU: 1000.05}).less_equal(R(0, 0, {GPU: 1000}), ZERO) is True
    assert R(0, 0, {GPU: 1000.2}).less_equal(R(0, 0, {GPU: 1000}), ZERO) is False


def _b_future_used() -> Resource:
    return R(5000, 10 * Gi, {GPU: 3000, "pods": 7})


def _b_limit() -> Resource:
    return R(4000, 16 * Gi, {GPU: 4000, "pods": 5})


def test_B1_with_dimension_checks_requested_dims_and_ignores_pods() -> None:
    req = R(0, 1 * Gi, {GPU: 1000, "pods": 1})
    assert _b_future_used().less_equal_with_dimension_and_resources_name(_b_limit(), req) == (True, [])


def test_B2_with_dimension_reports_cpu() -> None:
    req = R(1000, 1 * Gi, {GPU: 1000, "pods": 1})
    assert _b_future_used().less_equal_with_dimension_and_resources_name(_b_limit(), req) == (False, ["cpu"])


def test_B3_with_dimension_skips_scalars_when_left_has_no_map() -> None:
    r = R(5000, 10 * Gi)
    limit = R(4000, 16 * Gi, {GPU: 0})
    req = R(0, 1 * Gi, {GPU: 1000})
    assert r.less_equal_with_dimension_and_resources_name(limit, req) == (True, [])
    # the same numbers with an empty (present) left map do check the gpu: 0 > 0 is false, still fits
    assert R(5000, 10 * Gi, {}).less_equal_with_dimension_and_resources_name(limit, req) == (True, [])
    # ...and with a left gpu it fails
    with_gpu = R(5000, 10 * Gi, {GPU: 1})
    assert with_gpu.less_equal_with_dimension_and_resources_name(limit, req) == (False, [GPU])


@pytest.mark.parametrize("limit", [R(4000, 16 * Gi), R(4000, 16 * Gi, {}), R(4000, 16 * Gi, {"x/y": 5})])
def test_B4_with_dimension_missing_limit_key_is_zero(limit: Resource) -> None:
    r = R(0, 0, {GPU: 1000})
    req = R(0, 0, {GPU: 1000})
    assert r.less_equal_with_dimension_and_resources_name(limit, req) == (False, [GPU])


def test_B5_with_dimension_has_no_epsilon() -> None:
    assert R(1000.05).less_equal_with_dimension_and_resources_name(R(1000), R(1)) == (False, ["cpu"])
    assert R(1000).less_equal_with_dimension_and_resources_name(R(1000), R(1)) == (True, [])
    scalar_req = R(0, 0, {GPU: 1})
    over = R(0, 0, {GPU: 1000.05})
    limit = R(0, 0, {GPU: 1000})
    assert over.less_equal_with_dimension_and_resources_name(limit, scalar_req) == (False, [GPU])


def _c_future_used() -> Resource:
    return R(3000, 10 * Gi, {GPU: 1000, "pods": 3})


def _c_req() -> Resource:
    return R(1000, 2 * Gi, {GPU: 1000, "pods": 1})


def test_C1_zero_filtered_one_requested_dim_suffices() -> None:
    deserved = R(2000, 4 * Gi, {GPU: 2000})
    result = _c_future_used().less_equal_partly_with_dimension_zero_filtered(deserved, _c_req())
    assert result == (True, [GPU])


def test_C2_zero_filtered_all_dims_exceed() -> None:
    deserved = R(2000, 4 * Gi)
    assert _c_future_used().less_equal_partly_with_dimension_zero_filtered(deserved, _c_req()) == (False, [])


def test_zero_filtered_drops_dims_where_both_sides_are_zero() -> None:
    req = R(1000, 0, {GPU: 1000})
    # gpu is 0 on both sides: the plain variant counts it as "within", the filtered one drops it
    r = R(3000, 0, {GPU: 0})
    rr = R(2000, 0)
    assert r.less_equal_partly_with_dimension(rr, req) == (True, [GPU])
    assert r.less_equal_partly_with_dimension_zero_filtered(rr, req) == (False, [])
    # every dimension filtered away -> false
    assert R().less_equal_partly_with_dimension_zero_filtered(R(), R(1000, 1)) == (False, [])


def _d_allocated() -> Resource:
    return R(4000, 8 * Gi, {GPU: 2000})


def test_D1_relevant_dimensions_need_a_deserved_key() -> None:
    deserved = R(2000, 8 * Gi)
    reclaimee = R(0, 1 * Gi, {GPU: 1000})
    assert _d_allocated().greater_partly_with_relevant_dimensions(deserved, reclaimee) == (False, [])
    assert _d_allocated().greater_partly_with_dimension(deserved, reclaimee) == (True, [GPU])
    # same with a present deserved map that lacks the gpu key
    with_map = R(2000, 8 * Gi, {"pods": 5})
    assert _d_allocated().greater_partly_with_relevant_dimensions(with_map, reclaimee) == (False, [])


def test_D2_relevant_dimensions_keep_zero_valued_keys_and_drop_small_cpu() -> None:
    deserved = R(0, 16 * Gi, {GPU: 0})
    reclaimee = R(2000, 0, {GPU: 1000})
    assert _d_allocated().greater_partly_with_relevant_dimensions(deserved, reclaimee) == (True, [GPU])
    assert _d_allocated().greater_partly_with_dimension(deserved, reclaimee) == (True, ["cpu", GPU])


def test_E1_exceeded_part() -> None:
    left = R(16000, 64 * Gi, {GPU: 8000, "pods": 110})
    right = R(4000, 80 * Gi, {GPU: 8000})
    out = exceeded_part(left, right)
    assert state(out) == (12000.0, 0.0, {"pods": 110.0})
    assert state(left) == (16000.0, 64 * Gi, {GPU: 8000.0, "pods": 110.0})  # inputs untouched


def _f_left() -> Resource:
    return R(16000, 64 * Gi, {GPU: 8000, "pods": 110})


def test_F1_min_dimension_infinity_keeps_missing_and_adds_nothing() -> None:
    r = _f_left()
    out = r.min_dimension_resource(R(MAX_FLOAT, 32 * Gi, {GPU: 4000, "hugepages-1Gi": 0}), INFINITY)
    assert out is r
    assert state(r) == (16000.0, 32 * Gi, {GPU: 4000.0, "pods": 110.0})


def test_F2_min_dimension_zero_zeroes_missing() -> None:
    r = _f_left().min_dimension_resource(R(MAX_FLOAT, 32 * Gi, {GPU: 4000}), ZERO)
    assert state(r) == (16000.0, 32 * Gi, {GPU: 4000.0, "pods": 0.0})


def test_F3_min_dimension_right_without_map() -> None:
    zero = _f_left().min_dimension_resource(R(MAX_FLOAT, 32 * Gi), ZERO)
    assert state(zero) == (16000.0, 32 * Gi, {GPU: 0.0, "pods": 0.0})
    inf = _f_left().min_dimension_resource(R(MAX_FLOAT, 32 * Gi), INFINITY)
    assert state(inf) == (16000.0, 32 * Gi, {GPU: 8000.0, "pods": 110.0})


def test_min_dimension_left_without_map_stays_without() -> None:
    r = R(5, 5).min_dimension_resource(R(1, 9, {GPU: 1}), ZERO)
    assert state(r) == (1.0, 5.0, None)


def test_G1_max_drops_negative_scalars() -> None:
    out = res_max(R(2000, 0, {GPU: 1000}), R(1000, 4 * Gi, {GPU: 2000, "x": -1}))
    assert state(out) == (2000.0, 4 * Gi, {GPU: 2000.0})


def test_max_keeps_zero_scalars_and_absent_maps() -> None:
    # zeros are kept since Volcano PR #4347 (hierarchical validation with hugepages-1Gi: 0)
    assert res_max(R(0, 0, {"hugepages-1Gi": 0}), R()).scalars == {"hugepages-1Gi": 0.0}
    assert res_max(R(1), R(0, 2)).scalars is None
    assert res_max(R(0, 0, {}), R()).scalars == {}


def test_H1_is_empty_ignores_pods_and_small_values() -> None:
    assert R(0, 0, {"pods": 1}).is_empty() is True
    assert R(0.05, 0, {GPU: 0.05}).is_empty() is True
    assert R(0, 0, {GPU: 0.1}).is_empty() is False
    assert R(0.1).is_empty() is False
    assert R(0, 0.1).is_empty() is False


def test_I1_intersection_counts_pods() -> None:
    a = R(1000, 0, {"pods": 1})
    b = R(0, 1 * Gi, {"pods": 2})
    assert intersection(a, b) == ["pods"]
    assert intersection_with_ignored_scalar_resources(a, b) == []


def test_intersection_skips_dimensions_below_epsilon_and_follows_b_order() -> None:
    a = R(1000, 1 * Gi, {GPU: 1000, "x/y": 0.05})
    b = R(0.05, 2 * Gi, {"x/y": 3, GPU: 1})
    assert intersection(a, b) == ["memory", GPU]


# --- 1.5 element-wise arithmetic: absent vs empty maps -----------------------------------------


def test_clone_keeps_absent_and_copies_empty_map() -> None:
    assert R(1, 2).clone().scalars is None
    src = R(1, 2, {})
    c = src.clone()
    assert c.scalars == {} and c.scalars is not src.scalars
    src2 = R(1, 2, {GPU: 1})
    c2 = src2.clone()
    c2.scalars[GPU] = 9  # type: ignore[index]
    assert src2.scalars == {GPU: 1.0}
    src2.max_task_num = 7
    assert src2.clone().max_task_num == 7


def test_add_with_empty_right_map_keeps_left_absent() -> None:
    r = R(1, 1).add(R(1, 1, {}))
    assert state(r) == (2.0, 2.0, None)


def test_add_creates_map_and_zero_keys() -> None:
    r = R(1, 1)
    out = r.add(R(0, 0, {GPU: 0}))
    assert out is r
    assert r.scalars == {GPU: 0.0}
    r.add(R(0, 0, {GPU: 1000, "pods": 1}))
    assert r.scalars == {GPU: 1000.0, "pods": 1.0}


def test_add_does_not_alias_right_map() -> None:
    rr = R(0, 0, {GPU: 1})
    r = R().add(rr)
    r.scalars[GPU] = 5  # type: ignore[index]
    assert rr.scalars == {GPU: 1.0}


def test_sub_left_without_map_drops_right_scalars() -> None:
    r = R(2000, 4 * Gi).sub(R(1000, 1 * Gi, {GPU: 0.05}))
    assert state(r) == (1000.0, 3 * Gi, None)


def test_sub_left_with_empty_map_creates_negative_keys_within_epsilon() -> None:
    r = R(2000, 4 * Gi, {}).sub(R(1000, 1 * Gi, {GPU: 0.05}))
    assert state(r) == (1000.0, 3 * Gi, {GPU: -0.05})


def test_sub_in_place_and_returns_self() -> None:
    r = R(2000, 4 * Gi, {GPU: 2000, "pods": 3})
    out = r.sub(R(500, 1 * Gi, {GPU: 1000, "pods": 1}))
    assert out is r
    assert state(r) == (1500.0, 3 * Gi, {GPU: 1000.0, "pods": 2.0})


def test_sub_allows_epsilon_overdraw() -> None:
    assert R(1000).sub(R(1000.05)).cpu == pytest.approx(-0.05)


@pytest.mark.parametrize(
    ("left", "right", "dims"),
    [
        (R(1000, 1 * Gi), R(2000, 1 * Gi), ["cpu"]),
        (R(1000, 1 * Gi), R(0, 2 * Gi), ["memory"]),
        (R(1000, 1 * Gi, {"pods": 1}), R(0, 0, {"pods": 2}), ["pods"]),  # pods is checked
        (R(1000, 1 * Gi), R(0, 0, {GPU: 1000}), [GPU]),  # left has no map: gpu reads 0
        (R(0, 0, {GPU: 1}), R(0.2, 0, {GPU: 2}), ["cpu", GPU]),
    ],
)
def test_sub_underflow_raises_and_leaves_operands_untouched(
    left: Resource, right: Resource, dims: list[str]
) -> None:
    before = (left.cpu, left.memory, None if left.scalars is None else dict(left.scalars))
    with pytest.raises(ResourceUnderflow) as info:
        left.sub(right)
    err = info.value
    assert err.dimensions == dims
    assert state(left) == before
    assert left.describe() in str(err) and right.describe() in str(err)
    assert str(err).startswith("resource underflow: <")


def test_sub_without_assert_goes_negative() -> None:
    r = R(1000, 0, {GPU: 0}).sub_without_assert(R(2000, 1, {GPU: 1000}))
    assert state(r) == (-1000.0, -1.0, {GPU: -1000.0})
    assert state(R(1).sub_without_assert(R(2, 0, {GPU: 1}))) == (-1.0, 0.0, None)


def test_multi() -> None:
    r = R(1000, 2 * Gi, {GPU: 1000})
    assert r.multi(0.5) is r
    assert state(r) == (500.0, 1 * Gi, {GPU: 500.0})
    assert R(2).multi(3).scalars is None


@given(
    st.integers(0, 10**9),
    st.integers(0, 2**50),
    st.dictionaries(st.sampled_from([GPU, "pods", "hugepages-2Mi"]), st.integers(0, 10**9)),
    st.integers(0, 10**9),
    st.dictionaries(st.sampled_from([GPU, "pods", "hugepages-2Mi"]), st.integers(0, 10**9)),
)
def test_add_then_sub_restores_integer_values(
    cpu: int, mem: int, sc: dict[str, int], dcpu: int, dsc: dict[str, int]
) -> None:
    r = R(cpu, mem, {**sc})
    delta = R(dcpu, mem, dsc)
    back = r.clone().add(delta).sub(delta)
    assert back.cpu == r.cpu and back.memory == r.memory
    assert back.scalars == {**dict.fromkeys(dsc, 0.0), **r.scalars}  # type: ignore[dict-item]


# --- 1.6 predicates and names ----------------------------------------------------------------------


def test_resource_names_threshold_and_pods() -> None:
    r = R(0.1, 0.05, {GPU: 1000, "pods": 1, "x/y": 0.09})
    assert r.resource_names() == ["cpu", GPU, "pods"]
    assert R().resource_names() == []


def test_get() -> None:
    r = R(1, 2, {GPU: 3})
    assert (r.get("cpu"), r.get("memory"), r.get(GPU), r.get("x/y")) == (1.0, 2.0, 3.0, 0.0)
    assert R().get(GPU) == 0.0


def test_add_and_set_scalar_create_the_map() -> None:
    r = R()
    r.add_scalar("pods", 1)
    r.add_scalar("pods", 1)
    assert r.scalars == {"pods": 2.0}
    r2 = R()
    r2.set_scalar(GPU, 5.0)
    assert r2.scalars == {GPU: 5.0}


# --- 1.7 comparison helpers --------------------------------------------------------------------------


def test_less_equal_does_not_mutate_operands() -> None:
    a = R(1, 1, {GPU: 1})
    b = R(2, 2, {"pods": 1})
    a.less_equal(b, INFINITY)
    a.less_equal(b, ZERO)
    assert a.scalars == {GPU: 1.0} and b.scalars == {"pods": 1.0}


def test_less_equal_compares_pods() -> None:
    assert R(0, 0, {"pods": 6}).less_equal(R(10, 10, {"pods": 5}), ZERO) is False


def test_less_equal_with_resources_name_never_checks_right_only_keys() -> None:
    # differs from less_equal under INFINITY (A2')
    left = R(2000, 4 * Gi)
    right = R(4000, 8 * Gi, {GPU: 1000})
    assert left.less_equal_with_resources_name(right, INFINITY) == (True, [])
    assert left.less_equal(right, INFINITY) is False


def test_less_equal_with_resources_name_collects_all_failures() -> None:
    left = R(3000, 9 * Gi, {GPU: 2000, "pods": 1, "a/b": 1})
    right = R(2000, 8 * Gi, {GPU: 1000, "pods": 1})
    assert left.less_equal_with_resources_name(right, ZERO) == (False, ["cpu", "memory", GPU, "a/b"])
    assert left.less_equal_with_resources_name(right, INFINITY) == (False, ["cpu", "memory", GPU])


def test_greater_partly_is_negated_less_equal_with_resources_name() -> None:
    assert R(3000).greater_partly(R(2000), ZERO) == (True, ["cpu"])
    assert R(2000.05).greater_partly(R(2000), ZERO) == (False, [])


def test_with_dimension_nil_arguments() -> None:
    r = R(1000, 0, {GPU: 1000, "pods": 1, "x/y": 0})
    assert r.less_equal_with_dimension_and_resources_name(None, R(1)) == (False, ["cpu", GPU, "pods"])
    # req nil -> LessEqualWithResourcesName(rr, Zero): with ε, and pods counted
    rr = R(999.95, 0, {GPU: 1000})
    assert r.less_equal_with_dimension_and_resources_name(rr, None) == (False, ["pods"])


def test_with_dimension_zero_request_dims_are_not_checked() -> None:
    r = R(5000, 5 * Gi, {GPU: 5000})
    assert r.less_equal_with_dimension_and_resources_name(R(), R(0, 0, {GPU: 0})) == (True, [])
    assert r.less_equal_with_dimension_and_resources_name(R(), R(0, 0, {})) == (True, [])
    assert r.less_equal_with_dimension_and_resources_name(R(), R(0, 0, {"pods": 1})) == (True, [])


def test_less_is_strict_and_infinity_fails_right_only_keys() -> None:
    assert R(0, 0).less(R(0, 0), ZERO) is False
    assert R(1, 1).less(R(2, 2), ZERO) is True
    assert R(1, 1, {GPU: 1}).less(R(2, 2), ZERO) is False  # 1 < 0 fails
    assert R(1, 1, {GPU: 1}).less(R(2, 2), INFINITY) is True  # left-only skipped
    assert R(1, 1).less(R(2, 2, {GPU: 5}), INFINITY) is False
    assert R(1, 1).less(R(2, 2, {GPU: 5}), ZERO) is True


def test_less_partly() -> None:
    assert R(1, 5).less_partly(R(2, 1), ZERO) is True
    assert R(2, 2).less_partly(R(2, 2), ZERO) is False
    assert R(2, 2).less_partly(R(2, 2, {GPU: 0}), ZERO) is True  # rr key absent from r
    assert R(2, 2).less_partly(R(2, 2, {GPU: 0}), INFINITY) is False
    assert R(2, 2, {GPU: 1}).less_partly(R(2, 2), INFINITY) is True  # r key absent from rr
    assert R(2, 2, {GPU: 1}).less_partly(R(2, 2), ZERO) is False  # 1 < 0 false
    assert R(2, 2, {GPU: 1}).less_partly(R(2, 2, {GPU: 2}), ZERO) is True


def test_less_equal_partly_with_dimension() -> None:
    r = R(3000, 1 * Gi, {GPU: 1000, "pods": 1})
    rr = R(2000, 1 * Gi + 0.05, {"pods": 5})
    assert r.less_equal_partly_with_dimension(rr, None) == (False, [])
    assert r.less_equal_partly_with_dimension(rr, R(1, 1, {GPU: 1, "pods": 1})) == (True, ["memory"])
    assert r.less_equal_partly_with_dimension(rr, R(1, 0, {GPU: 1, "pods": 1})) == (False, [])


def test_greater_partly_with_dimension_nil_and_strict() -> None:
    r = R(1000, 0, {GPU: 1000})
    assert r.greater_partly_with_dimension(R(), None) == (False, [])
    assert r.greater_partly_with_dimension(None, R(1, 0, {GPU: 1})) == (True, ["cpu", GPU])
    assert r.greater_partly_with_dimension(R(999.95), R(1)) == (True, ["cpu"])  # no ε
    assert r.greater_partly_with_dimension(R(0, 0, {"pods": 0}), R(0, 0, {"pods": 1})) == (False, [])


def test_greater_partly_with_relevant_dimensions_nil() -> None:
    r = R(1000, 0, {GPU: 1000})
    assert r.greater_partly_with_relevant_dimensions(R(), None) == (False, [])
    assert r.greater_partly_with_relevant_dimensions(None, R(1, 0, {GPU: 1})) == (False, [])


def test_equal() -> None:
    assert R(1000, 5, {GPU: 1}).equal(R(1000.05, 5, {GPU: 1.05, "x/y": 9}), ZERO) is True
    assert R(1000, 5, {GPU: 1}).equal(R(1000, 5), INFINITY) is False  # missing reads 0 whatever dv
    assert R(1000.1, 5).equal(R(1000, 5), ZERO) is False


# --- 1.8 derived arithmetic -----------------------------------------------------------------------


def test_diff_zero() -> None:
    inc, dec = R(3000, 1 * Gi, {GPU: 2000, "pods": 1}).diff(R(1000, 2 * Gi, {"pods": 1, "x/y": 5}), ZERO)
    assert state(inc) == (2000.0, 0.0, {GPU: 2000.0})
    assert state(dec) == (0.0, 1 * Gi, {"pods": 0.0, "x/y": 5.0})


def test_diff_equal_cpu_goes_to_decreased_as_zero_and_maps_always_present() -> None:
    inc, dec = R(1, 1).diff(R(1, 1), ZERO)
    assert state(inc) == (0.0, 0.0, {})
    assert state(dec) == (0.0, 0.0, {})


def test_diff_infinity_marks_missing_keys_as_minus_one() -> None:
    inc, dec = R(0, 0, {GPU: 5}).diff(R(0, 0, {"x/y": 5}), INFINITY)
    assert inc.scalars == {"x/y": -1.0}  # left missing -> -1 copied to increased
    assert dec.scalars == {GPU: -1.0}  # right missing -> -1 copied to decreased


def test_diff_mistakes_a_genuine_minus_one_for_infinity() -> None:
    inc, dec = R(0, 0, {GPU: -1}).diff(R(0, 0, {GPU: 5}), ZERO)
    assert inc.scalars == {GPU: -1.0} and dec.scalars == {}


def test_exceeded_part_nil_arguments() -> None:
    left = R(1, 2)
    assert exceeded_part(left, None) is left  # the object itself, not a copy
    assert state(exceeded_part(None, R(1))) == (0.0, 0.0, None)
    assert exceeded_part(None, None) is None
    assert exceeded_part(R(1, 1), R(2, 2)).scalars == {}


@pytest.mark.parametrize(("l_", "r_", "expected"), [(0, 0, 0.0), (5, 0, 1.0), (1, 4, 0.25), (6, 3, 2.0)])
def test_share(l_: float, r_: float, expected: float) -> None:
    assert share(l_, r_) == expected


# --- names and NewResource (spec 1.2) -----------------------------------------------------------------


@pytest.mark.parametrize(
    ("name", "expected"),
    [
        (GPU, True),
        ("example.com/foo", True),
        ("deviceclass/gpu.nvidia.com", True),  # DRA quota key
        ("count/pods", True),  # a qualified name; NewResource skips it before asking
        ("hugepages-2Mi", True),
        ("hugepages-1Gi", True),
        ("attachable-volumes-aws-ebs", True),
        ("kubernetes.io/batch-cpu", True),
        ("scheduling.kubernetes.io/foo", True),
        ("cpu", False),
        ("memory", False),
        ("pods", False),
        ("ephemeral-storage", False),
        ("services", False),
        ("requests.cpu", False),
        ("limits.memory", False),
        ("requests.nvidia.com/gpu", False),
        ("Nvidia.com/gpu", False),  # prefix must be a lowercase DNS subdomain
        ("/gpu", False),
        ("example.com/", False),
        ("a/b/c", False),
        ("example.com/-gpu", False),
        ("example.com/" + "g" * 63, True),
        ("example.com/" + "g" * 64, False),
    ],
)
def test_is_scalar_resource_name(name: str, expected: bool) -> None:
    assert is_scalar_resource_name(name) is expected


def test_is_count_quota() -> None:
    assert is_count_quota("count/pods") and not is_count_quota("pods")


def test_from_resource_list_units() -> None:
    skipped: list[str] = []
    r = from_resource_list(
        {
            "cpu": "1.5m",
            "memory": "100.5",
            "pods": 3,
            "ephemeral-storage": "1Gi",
            GPU: 1,
            "hugepages-2Mi": "4Mi",
            "attachable-volumes-csi-x": 2,
            "deviceclass/gpu.nvidia.com": 2,
            "count/pods": "10",
            "requests.cpu": "4",
            "services": 5,
        },
        skipped=skipped,
    )
    assert r.cpu == 2.0  # MilliValue rounds up
    assert r.memory == 101.0  # Value rounds up
    assert r.max_task_num == 3
    assert r.scalars == {
        "pods": 3.0,  # a count, not milli
        "ephemeral-storage": 2**30 * 1000.0,  # milli-bytes
        GPU: 1000.0,
        "hugepages-2Mi": 4 * 2**20 * 1000.0,
        "attachable-volumes-csi-x": 2000.0,
        "deviceclass/gpu.nvidia.com": 2000.0,
    }
    assert skipped == ["count/pods", "requests.cpu", "services"]


def test_from_resource_list_without_scalars_has_no_map() -> None:
    r = from_resource_list({"cpu": "2", "memory": "4Gi"})
    assert state(r) == (2000.0, 4 * Gi, None)
    assert from_resource_list({"cpu": 1, "requests.cpu": 1}).scalars is None
    assert from_resource_list({"pods": 0}).scalars == {"pods": 0.0}


def test_from_resource_list_empty_and_none() -> None:
    assert state(from_resource_list(None)) == (0.0, 0.0, None)
    assert state(from_resource_list({})) == (0.0, 0.0, None)


def test_from_resource_list_ignored_devices() -> None:
    skipped: list[str] = []
    r = from_resource_list(
        {"volcano.sh/vgpu-number": 1, GPU: 1}, skipped=skipped, ignored_devices={"volcano.sh/vgpu-number"}
    )
    assert r.scalars == {GPU: 1000.0}
    assert skipped == ["volcano.sh/vgpu-number"]


def test_from_resource_list_negative_names_object_and_field() -> None:
    with pytest.raises(InputError) as info:
        from_resource_list({"cpu": "-1"}, obj="Queue/team-a", field="spec.capability")
    assert (info.value.obj, info.value.field) == ("Queue/team-a", "spec.capability.cpu")
    assert "must not be negative" in str(info.value)
    assert str(info.value).startswith("Queue/team-a: spec.capability.cpu: ")


def test_from_resource_list_bad_quantity_names_object_and_field() -> None:
    with pytest.raises(InputError) as info:
        from_resource_list({GPU: "two"}, obj="Queue/q", field="spec.deserved")
    assert (info.value.obj, info.value.field) == ("Queue/q", f"spec.deserved.{GPU}")


def test_from_resource_list_rejects_non_mappings_and_bad_names() -> None:
    with pytest.raises(InputError, match="Queue/q: spec.capability: expected a mapping"):
        from_resource_list(["cpu"], obj="Queue/q", field="spec.capability")  # type: ignore[arg-type]
    with pytest.raises(InputError, match="non-empty strings"):
        from_resource_list({1: "1"}, obj="Queue/q", field="spec.capability")  # type: ignore[dict-item]


def test_from_resource_list_int64_overflow_is_refused() -> None:
    with pytest.raises(InputError, match="too large"):
        from_resource_list({"cpu": "9Ei"}, obj="Node/n1", field="status.allocatable")
    # the capped value itself still fits for Value()
    assert from_resource_list({"memory": "9Ei"}).memory == float(2**63 - 1)


# --- rendering ---------------------------------------------------------------------------------------


def test_describe_and_repr() -> None:
    r = R(2000, 4 * Gi, {GPU: 1000, "pods": 1})
    assert r.describe() == "cpu 2000m, memory 4Gi, nvidia.com/gpu 1000, pods 1"
    assert str(r) == r.describe()
    assert repr(r) == "Resource(cpu 2000m, memory 4Gi, nvidia.com/gpu 1000, pods 1)"
    assert repr(R(500.5, 3)) == "Resource(cpu 500.5m, memory 3, no scalar map)"
    assert Resource.infinite().describe() == "cpu ∞, memory ∞"


def test_to_dict() -> None:
    d = to_dict(R(2000, 4 * Gi, {GPU: 1000, "x/y": 0.5}))
    assert d == {"cpu": 2000, "memory": 4 * 2**30, GPU: 1000, "x/y": 0.5}
    assert isinstance(d["cpu"], int)
    assert to_dict(R()) == {"cpu": 0, "memory": 0}


@given(st.one_of(st.floats(allow_nan=False), st.integers(min_value=-(2**60), max_value=2**60),
                 st.integers(min_value=-(2**60), max_value=2**60).map(float)))
def test_to_dict_values_are_ints_exactly_when_whole_and_below_2_to_53(x: float) -> None:
    """to_dict's fast path for floats (is_integer) against the general rule it stands for."""
    import math
    r = R(x, 0)
    v = r.cpu
    want = int(v) if math.isfinite(v) and v == int(v) and abs(v) < 2**53 else v
    got = to_dict(r)["cpu"]
    assert type(got) is type(want) and got == want
