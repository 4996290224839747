"""The arrangement's merge across machines: newest change wins by KV revision, and a hide stands against
an unhide that had not seen it (two machines acting at once never lose a hide)."""

from __future__ import annotations

import itertools

from lunavect.sync.arrange import Change, Merged, Record, merge


def test_the_newest_change_of_each_field_wins_by_revision():
    a = Record(pinned=Change(True), position=Change(1.0))
    b = Record(pinned=Change(False, rev=3))  # its pin changed at revision 3, before a's record (7)
    merged = merge([(7, a), (9, b)])
    assert merged.pinned is True and merged.position == 1.0


def test_a_hide_and_a_concurrent_unhide_keep_the_hide():
    hide = Record(hidden=Change(True, seen=5, at=100.0))
    unhide = Record(hidden=Change(False, seen=5))  # later revision, but it had not seen the hide (10)
    assert merge([(10, hide), (11, unhide)]).hidden is True
    assert merge([(10, hide), (11, unhide)]).hidden_at == 100.0


def test_an_unhide_that_saw_the_hide_undoes_it():
    hide = Record(hidden=Change(True, seen=5, at=100.0))
    unhide = Record(hidden=Change(False, seen=10))
    assert merge([(10, hide), (12, unhide)]) == Merged(False, False, None, None, None)


def test_every_order_of_the_same_records_gives_the_same_merge():
    records = [
        (4, Record(pinned=Change(True), hidden=Change(True, seen=1, at=5.0))),
        (6, Record(position=Change(2.5), hidden=Change(False, seen=2))),
        (8, Record(pinned=Change(False), shown_at=Change(9.0))),
    ]
    results = {merge(list(order)) for order in itertools.permutations(records)}
    assert results == {Merged(pinned=False, hidden=True, hidden_at=5.0, position=2.5, shown_at=9.0)}
