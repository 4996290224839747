"""The hiding rules, pure, with a clock the test holds: automatic hiding and the hidden list's 35 days."""

from __future__ import annotations

import pytest

from lunavect.core.hiding import DAY_S, HIDDEN_RETENTION_S, hides_automatically, leaves_hidden_list

NOW = 2_000_000_000.0
HOUR = 3600.0


@pytest.mark.parametrize("state", ["ready", "idle", "error"])
def test_automatic_hiding_hides_inactive_sessions_after_the_interval(state):
    assert hides_automatically(state, NOW - 2 * HOUR, NOW, after=HOUR)
    assert hides_automatically(state, NOW - HOUR, NOW, after=HOUR)  # exactly the interval
    assert not hides_automatically(state, NOW - HOUR + 1, NOW, after=HOUR)


@pytest.mark.parametrize(
    "state", ["working", "background", "compacting", "offline", "permission", "input", "unknown", "bogus"]
)
def test_automatic_hiding_never_hides_work_waiting_or_unknown_however_old(state):
    assert not hides_automatically(state, NOW - 365 * DAY_S, NOW, after=HOUR)


def test_automatic_hiding_is_off_without_an_interval():
    assert not hides_automatically("idle", NOW - 365 * DAY_S, NOW, after=None)
    assert not hides_automatically("idle", NOW - 365 * DAY_S, NOW, after=0)
    assert not hides_automatically("idle", None, NOW, after=HOUR)  # never active: nothing to measure


def test_a_restored_session_counts_its_inactivity_from_its_restoring():
    last_activity = NOW - 10 * DAY_S
    assert not hides_automatically("ready", last_activity, NOW, after=DAY_S, shown_at=NOW - HOUR)
    assert hides_automatically("ready", last_activity, NOW + DAY_S, after=DAY_S, shown_at=NOW - HOUR)


def test_a_hidden_session_stays_hidden_without_a_complete_catalog():
    assert not leaves_hidden_list(catalog_complete_at=None, hidden_at=NOW - 400 * DAY_S)


def test_a_hidden_session_leaves_after_35_days_unlisted_by_a_complete_catalog():
    hidden_at = NOW - 100 * DAY_S
    listed = NOW - 40 * DAY_S
    assert leaves_hidden_list(catalog_complete_at=NOW, hidden_at=hidden_at, listed_at=listed)
    # 34 days unlisted: still in the hidden list.
    assert not leaves_hidden_list(catalog_complete_at=NOW, hidden_at=hidden_at, listed_at=NOW - 34 * DAY_S)
    assert leaves_hidden_list(catalog_complete_at=NOW, hidden_at=hidden_at, listed_at=NOW - HIDDEN_RETENTION_S)


def test_any_newer_sign_of_the_session_keeps_it_in_the_hidden_list():
    # Its own evidence (a hook event) is a source listing it too.
    assert not leaves_hidden_list(
        catalog_complete_at=NOW, hidden_at=NOW - 100 * DAY_S, listed_at=NOW - 90 * DAY_S, last_activity=NOW - DAY_S
    )
    # Hidden recently: the 35 days start at the hiding at the earliest.
    assert not leaves_hidden_list(catalog_complete_at=NOW, hidden_at=NOW - DAY_S, last_activity=NOW - 90 * DAY_S)


def test_the_35_days_are_counted_by_the_catalog_not_by_the_reader():
    """A catalog that stopped being read cannot prove an absence after its last complete read."""
    seen = NOW - 50 * DAY_S
    assert not leaves_hidden_list(catalog_complete_at=NOW - 20 * DAY_S, hidden_at=seen)
    assert leaves_hidden_list(catalog_complete_at=NOW - 10 * DAY_S, hidden_at=seen)
