"""Real Claude Code 2.1.328 against the scripted model server returning chosen usage figures: lunavect's
`list --json` shows exactly those numbers, counted once per API message, and the model the server named."""

from __future__ import annotations

from anthropic_server import AnthropicServer, text
from claude_hookless_support import remove_hooks, wait_session

USAGE = {
    "input_tokens": 1234,
    "output_tokens": 42,
    "cache_read_input_tokens": 5678,
    "cache_creation_input_tokens": 91,
    # Of the writes, those kept for an hour (priced apart): Claude Code writes the API's figure as it is.
    "cache_creation": {"ephemeral_5m_input_tokens": 31, "ephemeral_1h_input_tokens": 60},
}


def test_claude_print_usage_is_exactly_what_the_server_reported(iso_home, claude_print, model_server: AnthropicServer):
    remove_hooks(iso_home)
    first = text("First answer.")
    first.usage = USAGE
    model_server.script(first)
    proc = claude_print("count my tokens")
    assert proc.returncode == 0, proc.stderr
    (transcript,) = iso_home.transcripts()
    row = wait_session(iso_home, transcript.stem, lambda r: r["usage"] is not None)
    usage = row["usage"]
    assert usage["tokens"] == {
        "input": 1234,
        "output": 42,
        "cache_read": 5678,
        "cache_write": 91,
        "cache_write_1h": 60,
    }
    assert usage["subagents"] == {
        "input": 0,
        "output": 0,
        "cache_read": 0,
        "cache_write": 0,
        "cache_write_1h": 0,
    }
    assert usage["context"] == 1234 + 5678 + 91
    main = model_server.main_requests[-1]
    assert usage["model"] == (model_server.model or main.body["model"])
