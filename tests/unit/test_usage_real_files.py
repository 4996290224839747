"""Usage from real transcripts and rollouts (../shared/data, never edited): lunavect's totals equal the ones
computed here independently, by summing the clients' own fields with plain json (Claude: the last record of
each message id, as the client's reply finished; Codex: the last `total_token_usage`), whether the file is
read whole or as it grows in random pieces."""

from __future__ import annotations

import json
import random
from pathlib import Path

import pytest
from test_claude_real_transcripts import MAIN_FILES, Feeder

from lunavect.usage import ledger
from lunavect.usage.tokens import Tokens

pytestmark = pytest.mark.skipif(not MAIN_FILES, reason="the shared real transcripts are not there")


def expected_claude(path: Path) -> tuple[Tokens, Tokens, str | None]:
    """(all tokens, the sub-agents' part, the main conversation's last model), summed by hand."""
    messages: dict[str, tuple[dict, bool]] = {}
    model = None
    for line in path.read_bytes().splitlines():
        try:
            record = json.loads(line)
        except ValueError:
            continue
        message = record.get("message") if isinstance(record, dict) else None
        if record.get("type") != "assistant" or record.get("isApiErrorMessage") or not isinstance(message, dict):
            continue
        if "usage" not in message:
            continue
        messages[message["id"]] = (message["usage"], bool(record.get("isSidechain")))
        if not record.get("isSidechain") and message.get("model") != "<synthetic>":
            model = message.get("model")
    total, sub = Tokens(), Tokens()
    for usage, sidechain in messages.values():
        tokens = Tokens(
            usage.get("input_tokens", 0),
            usage.get("output_tokens", 0),
            usage.get("cache_read_input_tokens", 0),
            usage.get("cache_creation_input_tokens", 0),
        )
        total = total.plus(tokens)
        if sidechain:
            sub = sub.plus(tokens)
    return total, sub, model


@pytest.mark.parametrize("source", MAIN_FILES, ids=lambda p: p.name)
def test_claude_totals_whole_and_in_pieces(tmp_path: Path, source: Path) -> None:
    total, sub, model = expected_claude(source)
    assert not total.empty
    data = source.read_bytes()
    rng = random.Random(source.name)
    cuts = sorted(rng.sample(range(1, len(data)), 12))
    for name, pieces in (
        ("whole", [data]),
        ("pieces", [data[a:b] for a, b in zip([0, *cuts], [*cuts, len(data)], strict=True)]),
    ):
        feeder = Feeder(tmp_path, source, name)
        try:
            for piece in pieces:
                feeder.write(piece)
            usage = ledger.sessions(feeder.conn)[f"claude:{feeder.session}"]
        finally:
            feeder.close()
        assert (usage.tokens, usage.subagents, usage.model) == (total, sub, model), name
