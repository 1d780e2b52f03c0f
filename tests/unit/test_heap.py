"""The priority queue pops equal keys in Go container/heap's order (worked by hand from heap.go)."""

from capacity.framework.heap import PriorityQueue


def test_equal_keys_pop_in_go_heap_order() -> None:
    pq = PriorityQueue(lambda l, r: l[0] < r[0], [(1, "a"), (1, "b"), (1, "c")])
    # push a, b, c: no swaps. pop: swap(0,2) -> [c,b,a], sift c down (b is not less) -> a; then c; then b.
    assert [pq.pop()[1] for _ in range(3)] == ["a", "c", "b"]


def test_pops_in_less_order() -> None:
    pq = PriorityQueue(lambda l, r: l < r, [5, 3, 9, 1, 7, 3])
    assert [pq.pop() for _ in range(6)] == [1, 3, 3, 5, 7, 9]


def test_stale_key_is_not_resorted() -> None:
    box = {"x": 1, "y": 2}
    pq = PriorityQueue(lambda l, r: box[l] < box[r], ["x", "y"])
    box["x"] = 10  # a share that changed while the queue sat in the heap (spec trap 29)
    assert pq.pop() == "x"
