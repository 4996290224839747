"""lunavect's usage against ccusage's (20.0.24, the peer people check their tokens with), on shared/data's real
Claude Code transcripts and Codex rollouts in one isolated HOME: the same tokens for every session, model, client
and day, in UTC and in time zones with a half-hour offset, save where lunavect knowingly differs, each rule
computed here from the files themselves (docs/usage.md, "Checked against ccusage"). No real Gemini CLI or
OpenCode files were published: the real clients write theirs here, against the tests' scripted model servers."""

from __future__ import annotations

import json
import shutil
import time
from collections import Counter
from datetime import datetime
from pathlib import Path
from zoneinfo import ZoneInfo

import pytest
from ccusage_support import DATA, ccusage, ensure_ccusage, lay_out_history
from chat_server import ChatServer, reply
from claude_tmux import ClientsMissing
from gemini_harness import start_gemini, wait_reply
from gemini_server import GeminiServer, text
from lunavect_probe import lunavect, wait_for
from opencode_harness import ensure_opencode, opencode_env, prepare, start_tui

pytestmark = pytest.mark.skipif(not (DATA / "claude").is_dir(), reason="the shared real files are not there")

KINDS = ("input", "output", "cache_read", "cache_write")
PEER = ("inputTokens", "outputTokens", "cacheReadTokens", "cacheCreationTokens")
FIELDS = ("input_tokens", "output_tokens", "cache_read_input_tokens", "cache_creation_input_tokens")  # the files'
ZONES = ("UTC", "Asia/Kolkata", "America/St_Johns")  # +5:30 and -3:30: a day starts on a half hour in UTC


@pytest.fixture(scope="module")
def peer() -> Path:
    try:
        return ensure_ccusage()
    except ClientsMissing as exc:
        pytest.skip(str(exc))


def theirs(row: dict) -> tuple[int, ...]:
    return tuple(row[k] for k in PEER)


def ours(tokens: dict) -> tuple[int, ...]:
    return tuple(tokens[k] for k in KINDS)


def usage(env: dict[str, str], by: str, tz: str = "UTC") -> dict:
    proc = lunavect({**env, "TZ": tz}, "usage", "--by", by, "--json", "--since", "1000w", timeout=120)
    assert proc.returncode == 0, proc.stderr
    return json.loads(proc.stdout)


def settled(env: dict[str, str], keys: set[str], timeout: float = 120) -> dict:
    """`usage --by session` once every session placed is counted, the history read whole, and a second answer
    says the same (a large transcript is glanced at first and read whole on a later tick; till then the report
    says it is still reading)."""
    deadline = time.monotonic() + timeout
    last = None
    while True:
        report = usage(env, "session")
        if (
            {row["key"].split(" ")[0] for row in report["rows"]} == keys
            and report["reading"] is None
            and report == last
        ):
            return report
        assert time.monotonic() < deadline, f"lunavect did not count every session: {report['rows']}"
        last = report
        time.sleep(1)


def progress_copies(claude: Path, tz: str) -> Counter[tuple[str, str]]:
    """By day in `tz`: the tokens of a sub-agent's messages that a transcript holds only as Claude Code 2.1.x's
    copies in `progress` records (`agent_progress`), its own file not there; once per message and request."""
    own: set[tuple[str, str]] = set()
    copies: dict[tuple[str, str], tuple[str, dict]] = {}
    for path in claude.rglob("*.jsonl"):
        for line in path.read_bytes().splitlines():
            record = json.loads(line)
            message = record.get("message")
            if record.get("type") == "assistant" and isinstance(message, dict):
                own.add((message.get("id"), record.get("requestId")))
            data = record.get("data") if record.get("type") == "progress" else None
            inner = data.get("message") if isinstance(data, dict) else None
            if isinstance(inner, dict) and isinstance(inner.get("message"), dict) and "usage" in inner["message"]:
                key = (inner["message"].get("id"), inner.get("requestId"))
                copies.setdefault(key, (record["timestamp"], inner["message"]["usage"]))
    found: Counter[tuple[str, str]] = Counter()
    for key, (stamp, used) in copies.items():
        if key in own:
            continue
        day = datetime.fromisoformat(stamp.replace("Z", "+00:00")).astimezone(ZoneInfo(tz)).date().isoformat()
        for kind, field in zip(KINDS, FIELDS, strict=True):
            found[(day, kind)] += used.get(field, 0)
    return found


def test_every_session_model_and_day_as_ccusage_counts_it(iso_env, peer: Path) -> None:
    claude_ids, codex_ids = lay_out_history(iso_env.claude, iso_env.codex)
    env = iso_env.env
    keys = {f"claude:{s}" for s in claude_ids} | {f"codex:{s}" for s in codex_ids}
    # A row of `--by session` is the session's id and its title.
    by_session = {row["key"].split(" ")[0]: ours(row["tokens"]) for row in settled(env, keys)["rows"]}

    # Sessions: each of Claude's (sub-agents' own files included) and each Codex rollout, exactly.
    claude_peer = ccusage(peer, env, "UTC", "claude", "session")["sessions"]
    codex_peer = ccusage(peer, env, "UTC", "codex", "session")["sessions"]
    assert {f"claude:{s['sessionId']}": theirs(s) for s in claude_peer} | {
        f"codex:{s['sessionId'][-36:]}": theirs(s) for s in codex_peer
    } == by_session

    # Models: ccusage's per-session breakdowns summed.
    models: Counter[tuple[str, str]] = Counter()
    for s in claude_peer:
        for m in s["modelBreakdowns"]:
            models.update({(m["modelName"], k): m[p] for k, p in zip(KINDS, PEER, strict=True)})
    for s in codex_peer:
        for name, m in s["models"].items():
            models.update({(name, k): m[p] for k, p in zip(KINDS, PEER, strict=True)})
    assert {row["key"]: ours(row["tokens"]) for row in usage(env, "model")["rows"]} == {
        name: tuple(models[(name, k)] for k in KINDS) for name, _ in models
    }

    # Clients: all of each one's sessions.
    per_client = {
        "Claude Code": tuple(sum(t) for t in zip(*(theirs(s) for s in claude_peer), strict=True)),
        "Codex": tuple(sum(t) for t in zip(*(theirs(s) for s in codex_peer), strict=True)),
    }
    assert {row["key"]: ours(row["tokens"]) for row in usage(env, "client")["rows"]} == per_client

    # Days, in each time zone: ccusage's daily report less a sub-agent's tokens it takes from the parent's
    # `progress` copies when the sub-agent's own file is not there (lunavect counts a sub-agent from its file).
    for tz in ZONES:
        rule = progress_copies(iso_env.claude, tz)
        assert tz != "UTC" or sum(rule.values()) > 0  # the published `subagent.jsonl` has copies without the file
        expected = {}
        for row in ccusage(peer, env, tz, "daily")["daily"]:
            expected[row["period"]] = tuple(row[p] - rule[(row["period"], k)] for k, p in zip(KINDS, PEER, strict=True))
        got = {row["key"]: ours(row["tokens"]) for row in usage(env, "day", tz)["rows"]}
        assert got == expected, tz


def test_records_without_a_request_id_count_once_per_message(iso_env, peer: Path) -> None:
    """Claude Code 2.1.2xx writes a reply's records without `requestId`: ccusage's daily report then counts each
    content block's record, each with the running usage; lunavect (and ccusage's session report) the message once,
    at its last record's counts."""
    source = DATA / "claude" / "claude-code-viewer" / "1af7fc5e-8455-4414-9ccd-011d40f70b2a.jsonl"
    project = iso_env.claude / "projects" / "-home-USER-viewer"
    project.mkdir(parents=True)
    lines, last, every = [], {}, Counter[str]()
    for line in source.read_bytes().splitlines():
        record = json.loads(line)
        record.pop("requestId", None)
        lines.append(json.dumps(record, separators=(",", ":"), ensure_ascii=False))  # compact, as the client writes
        message = record.get("message")
        if record.get("type") == "assistant" and isinstance(message, dict) and "usage" in message:
            last[message["id"]] = message["usage"]
            every.update({f: message["usage"].get(f, 0) for f in FIELDS})
    (project / source.name).write_text("\n".join(lines) + "\n")
    once = Counter[str]()
    for used in last.values():
        once.update({f: used.get(f, 0) for f in FIELDS})
    assert len(last) < sum(1 for _ in lines if '"type":"assistant"' in _)  # replies of several records

    row = settled(iso_env.env, {f"claude:{source.stem}"})["rows"][0]
    assert ours(row["tokens"]) == tuple(once[f] for f in FIELDS)
    [daily] = ccusage(peer, iso_env.env, "UTC", "claude", "daily")["daily"]
    assert theirs(daily) == tuple(every[f] for f in FIELDS) != ours(row["tokens"])
    [session] = ccusage(peer, iso_env.env, "UTC", "claude", "session")["sessions"]
    assert theirs(session) == ours(row["tokens"])


def test_gemini_cli_as_ccusage_counts_it(gemini, gemini_server: GeminiServer, peer: Path) -> None:
    """The real Gemini CLI's chat file, a reply with cached input and thinking: lunavect's tokens and ccusage's."""
    paths, iso, env = gemini
    used = {"promptTokenCount": 1200, "cachedContentTokenCount": 400, "candidatesTokenCount": 30}
    gemini_server.script(text("Counted reply", usage={**used, "thoughtsTokenCount": 20, "totalTokenCount": 1250}))
    client = start_gemini(paths, iso, env)
    try:
        client.send_text("count me")
        ready = wait_reply(client, env, r"Counted reply")
    finally:
        client.kill()
    tokens = settled(env, {ready["id"]})["rows"][0]["tokens"]
    [session] = ccusage(peer, env, "UTC", "gemini", "session")["sessions"]
    # The file's `tokens` (input 1,200 with its cached 400, output 30, thoughts 20): thinking is output, as Google
    # bills it; ccusage leaves it out of `outputTokens` but not out of its total or its cost.
    thinking = 20
    assert ours(tokens) == (800, 30 + thinking, 400, 0)
    assert ours(tokens) == (session["inputTokens"], session["outputTokens"] + thinking, *theirs(session)[2:])
    assert sum(ours(tokens)) == session["totalTokens"]


def test_opencode_as_ccusage_counts_it(iso_home, chat_server: ChatServer, peer: Path) -> None:
    """The real OpenCode's database, a tool call and a reply with cached input: lunavect's tokens and ccusage's."""
    if shutil.which("tmux") is None:
        pytest.skip("tmux is not installed")
    command = ensure_opencode()
    env = opencode_env(iso_home, command)
    prepare(iso_home, chat_server)
    chat_server.script(
        reply("Counted reply", usage={"prompt_tokens": 3000, "completion_tokens": 40,
                                      "prompt_tokens_details": {"cached_tokens": 1000}}),
    )  # fmt: skip
    tui = start_tui(command, iso_home, env)
    try:
        tui.send_text("count me")
        tui.wait_for_screen(r"Counted reply")
        ready = wait_for(env, lambda s: s["provider"] == "opencode" and s["state"] == "ready" and s["usage"])
    finally:
        tui.kill()
    tokens = settled(env, {ready["id"]})["rows"][0]["tokens"]
    [session] = ccusage(peer, env, "UTC", "opencode", "session")["sessions"]
    assert ours(tokens) == theirs(session), json.dumps(session)
