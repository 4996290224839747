"""Estimated costs from genai-prices' data, read offline: today's models at their own list prices, one-hour
cache writes at their own rate, and no model priced by another's name (an unknown one has no estimate)."""

from __future__ import annotations

import pytest

from lunavect import store
from lunavect.core.tokens import Tokens
from lunavect.usage import prices

MILLION = 1_000_000

# US dollars per million tokens (input, output, cache read, five-minute cache write, one-hour cache write), as the
# providers list them: Anthropic's and OpenAI's and Google's pricing pages of the models' release.
LISTED = {
    "claude-opus-4-6": (5.0, 25.0, 0.5, 6.25, 10.0),
    "claude-opus-4-7": (5.0, 25.0, 0.5, 6.25, 10.0),
    "claude-opus-4-8": (5.0, 25.0, 0.5, 6.25, 10.0),
    "claude-opus-5": (5.0, 25.0, 0.5, 6.25, 10.0),
    "claude-sonnet-4-5-20250929": (3.0, 15.0, 0.3, 3.75, 6.0),  # a dated release of claude-sonnet-4-5
    "gpt-5.3-codex": (1.75, 14.0, 0.175, 1.75, 1.75),
    "gpt-5.4": (2.5, 15.0, 0.25, 2.5, 2.5),
    "gpt-5.5": (5.0, 30.0, 0.5, 5.0, 5.0),
    "gemini-2.5-pro": (1.25, 10.0, 0.125, 1.25, 1.25),
}


@pytest.mark.parametrize("model", sorted(LISTED))
def test_each_model_at_its_own_list_price(model: str) -> None:
    rates = LISTED[model]
    assert prices.price_of(model) == prices.Price(*rates)
    for i, tokens in enumerate(
        (Tokens(input=MILLION), Tokens(output=MILLION), Tokens(cache_read=MILLION), Tokens(cache_write=MILLION))
    ):
        assert prices.cost(model, tokens) == pytest.approx(rates[i]), (model, tokens)


def test_a_codex_model_is_not_priced_as_gpt_5_by_its_prefix() -> None:
    gpt5 = prices.price_of("gpt-5")
    assert gpt5 is not None
    for model in ("gpt-5.3-codex", "gpt-5.4", "gpt-5.5"):
        assert prices.price_of(model) != gpt5
    assert prices.price_of("gpt-5-codex") == gpt5  # listed as gpt-5's own alias, not guessed


@pytest.mark.parametrize("model", ["claude-opus-4-9", "gpt-5.7", "gpt-5.5-turbo-max", "some-new-model", "", None])
def test_a_model_the_data_does_not_know_has_no_price(model: str | None) -> None:
    assert prices.price_of(model) is None
    assert prices.cost(model, Tokens(input=MILLION)) is None


def test_one_hour_cache_writes_at_their_own_rate() -> None:
    # Claude Code writes the cache for an hour (`cache_creation.ephemeral_1h_input_tokens`): twice the input rate,
    # not the five-minute writes' 1.25 times.
    both = Tokens(cache_write=3 * MILLION, cache_write_1h=MILLION)
    assert prices.cost("claude-opus-4-6", both) == pytest.approx(2 * 6.25 + 10.0)
    assert prices.cost("claude-opus-4-6", Tokens(cache_write=MILLION, cache_write_1h=MILLION)) == pytest.approx(10.0)


def test_the_estimate_names_its_data_and_its_date() -> None:
    about = prices.about()
    assert about["source"].startswith("genai-prices ") and "offline" in about["source"]
    year, month, day = about["date"].split("-")
    assert int(year) >= 2026 and 1 <= int(month) <= 12 and 1 <= int(day) <= 31


def test_the_answers_are_kept_for_the_next_run_and_asked_again_for_new_data(tmp_path, monkeypatch) -> None:
    """Loading the price data costs a few tenths of a second: `lunavect usage` keeps the answers for the models it
    saw in the store, and a later run takes them from there, until the data or the day changes."""
    conn = store.connect(tmp_path / "s.sqlite3")
    try:
        prices.prepare(conn, ["claude-opus-4-6", "some-new-model", None])
        first = (prices.price_of("claude-opus-4-6"), prices.price_of("some-new-model"), prices.about())
        assert first[0] == prices.Price(*LISTED["claude-opus-4-6"]) and first[1] is None

        def never(*_args: object) -> None:
            raise AssertionError("the price data was loaded")

        prices._hold("")  # a new process: nothing at hand
        monkeypatch.setattr(prices, "_priced", never)
        monkeypatch.setattr(prices, "snapshot_date", never)
        prices.prepare(conn, ["claude-opus-4-6", "some-new-model"])
        assert (prices.price_of("claude-opus-4-6"), prices.price_of("some-new-model"), prices.about()) == first

        monkeypatch.setattr(prices, "_data_key", lambda: "another data file, or tomorrow")
        with pytest.raises(AssertionError, match="loaded"):
            prices.prepare(conn, ["claude-opus-4-6"])
        store.set_setting(conn, prices.CACHE_SETTING, "{not json")
        monkeypatch.undo()
        prices.prepare(conn, ["gpt-5.5"])  # an unreadable value is asked again, never an error
        assert prices.price_of("gpt-5.5") == prices.Price(*LISTED["gpt-5.5"])
    finally:
        conn.close()
