"""Any JSON value, and any object with a reader's own field names holding any of them: what the property tests of
every reader of outside input (hook payloads, transcripts, rollouts, catalogs, synced rows) feed it."""

from __future__ import annotations

from hypothesis import strategies as st

scalars = (
    st.none()
    | st.booleans()
    | st.integers(min_value=-(2**70), max_value=2**70)
    | st.floats(allow_nan=False, allow_infinity=False)
    | st.sampled_from([1e300, -1e300, 0.0, -1.0])
    | st.text(max_size=40)
    | st.sampled_from(["../../../../x", "\x1b]0;pwned\x07", "a\nb", "end_turn", "busy", "task_started", "Stop"])
)
json_values = st.recursive(
    scalars,
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=12), inner, max_size=4),
    max_leaves=12,
)


def fields_of(names: list[str]) -> st.SearchStrategy[dict]:
    """An object with any of the reader's own field names (holding any type), and some other keys."""
    return st.fixed_dictionaries({}, optional={name: json_values for name in names}).flatmap(
        lambda known: st.dictionaries(st.text(max_size=8), json_values, max_size=3).map(
            lambda extra: {**extra, **known}
        )
    )
