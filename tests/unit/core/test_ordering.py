"""The person's order as numbers: ranks between neighbours, renumbering when floats run out of room."""

from __future__ import annotations

from lunavect.core.ordering import position_for_rank, rank, rank_between, renumbered


def test_pinned_rows_rank_by_position_and_others_newest_first():
    assert rank(True, 1.0, 0.0) < rank(True, 2.0, 0.0)
    assert rank(False, None, 200.0) < rank(False, None, 100.0)  # newer first
    assert rank(False, 150.0, 0.0) < rank(False, None, 100.0)  # a moved row in the same time scale
    for pinned in (True, False):
        assert rank(pinned, position_for_rank(pinned, 7.5), 0.0) == 7.5


def test_rank_between_neighbours():
    assert rank_between(None, None) == 0.0
    assert rank_between(None, 5.0) == 4.0
    assert rank_between(5.0, None) == 6.0
    assert rank_between(1.0, 2.0) == 1.5
    assert rank_between(1.0, 1.0) is None
    assert rank_between(1.0, 1.0 + 1e-9) is None


def test_renumbered_keeps_order_and_anchor():
    assert renumbered([]) == []
    assert renumbered([-1e9, -1e9, -1e9 + 1e-7]) == [-1e9, -1e9 + 1, -1e9 + 2]
