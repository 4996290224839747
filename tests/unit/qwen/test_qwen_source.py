"""The Qwen Code source in a collector, on chat files the real 0.24.4 wrote, laid out as it lays them out in an
isolated `~/.qwen` (or `$QWEN_RUNTIME_DIR`): a session listed without hooks, with its title, folder, state,
resume command and usage; its conversation as `show` prints it; the prompt's text kept nowhere but its title."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from lunavect.clients.qwen import FACE as qwen
from lunavect.clients.qwen import layout
from lunavect.clients.qwen.source import QwenSource
from lunavect.collector.tick import Collector
from lunavect.conversation.window import read_window
from lunavect.listing.sessions import read_sessions
from lunavect.usage import ledger

SAMPLES = Path(__file__).resolve().parent / "samples"
FOLDER = "/tmp/h-qwen/home/work"
SID = json.loads((SAMPLES / "every-turn.jsonl").read_text().splitlines()[0])["sessionId"]
STOP = next(
    hook["payload"]
    for line in (SAMPLES / "hooks.jsonl").read_text().splitlines()
    if (hook := json.loads(line))["payload"]["hook_event_name"] == "Stop"
)


def lay_out(root: Path, sample: str) -> Path:
    chats = root / "projects" / "-tmp-h-qwen-home-work" / "chats"
    chats.mkdir(parents=True, exist_ok=True)
    path = chats / f"{SID}.jsonl"
    shutil.copy(SAMPLES / f"{sample}.jsonl", path)
    (chats / f"{SID}.runtime.json").write_text("{}")  # beside it, never read as a chat
    return path


def row(iso_env):
    conn = iso_env.connect()
    Collector(conn, sources=[QwenSource()]).tick(now=2_000_000_000.0)
    (found,) = read_sessions(conn)
    return found


def test_a_session_appears_from_its_chat_file_with_title_folder_state_resume_and_usage(iso_env) -> None:
    lay_out(iso_env.home / ".qwen", "every-turn")
    found = row(iso_env)
    assert (found.id, found.title, found.cwd, found.state) == (f"qwen:{SID}", "say hello", FOLDER, "ready")
    assert found.resume == f"cd {FOLDER} && qwen --resume {SID}"
    assert found.usage is not None and found.usage.model == "m" and found.usage.context_window is None


@pytest.mark.process
def test_its_window_is_the_one_its_last_turns_end_named(iso_env) -> None:
    # Its chat file names no window; its `Stop` hook does (`context_limit`): the fill is then a percent of it. An
    # older turn's end read later (a spool read late, a replay) does not take the newer one's place.
    lay_out(iso_env.home / ".qwen", "every-turn")
    stop = {**STOP, "session_id": SID, "transcript_path": "", "cwd": FOLDER}
    for window in (128_000, 64_000):
        assert iso_env.hook({**stop, "context_limit": window}, client="qwen").returncode == 0
    found = row(iso_env)
    assert found.usage is not None and found.usage.context_window == 64_000
    assert found.usage.context is not None and found.usage.context_percent == 100 * found.usage.context / 64_000
    conn = iso_env.connect()
    ledger.set_window(conn, f"qwen:{SID}", 32_000, at=1.0)
    assert ledger.sessions(conn)[f"qwen:{SID}"].context_window == 64_000


def test_a_failed_request_is_an_error_with_its_reason(iso_env) -> None:
    lay_out(iso_env.home / ".qwen", "to-error")
    found = row(iso_env)
    assert found.state == "error" and found.error


def test_its_runtime_folder_holds_the_chats_when_named(iso_env, monkeypatch: pytest.MonkeyPatch) -> None:
    runtime = iso_env.root / "qwen-runtime"
    monkeypatch.setenv("QWEN_RUNTIME_DIR", str(runtime))
    assert layout.projects_dir() == runtime / "projects"
    lay_out(runtime, "every-turn")
    assert row(iso_env).id == f"qwen:{SID}"


def test_qwen_home_takes_the_place_of_its_folder(iso_env, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("QWEN_HOME", "~/elsewhere")
    assert layout.home() == iso_env.home / "elsewhere"
    assert layout.settings_path() == iso_env.home / "elsewhere" / "settings.json"
    monkeypatch.delenv("QWEN_HOME")
    assert layout.home() == iso_env.home / ".qwen"


def test_show_reads_its_prompts_replies_tools_results_and_the_api_error(iso_env) -> None:
    path = lay_out(iso_env.home / ".qwen", "every-turn")
    conversation = qwen.find_conversation(SID)
    assert conversation is not None and conversation.path == path
    messages = read_window(conversation, messages=500).messages
    kinds = [m.kind.value for m in messages]
    texts = " ".join(m.text for m in messages)
    assert "say hello" in texts and "Hello there." in texts and "slept" in texts
    assert "tool" in kinds and "error" in kinds
    assert any(m.tool == "run_shell_command" and m.result for m in messages)
    assert qwen.find_conversation("not an id/..") is None


def test_no_prompt_or_reply_is_stored(iso_env) -> None:
    lay_out(iso_env.home / ".qwen", "every-turn")
    row(iso_env)
    stored = b"".join(p.read_bytes() for p in iso_env.data.rglob("*") if p.is_file())
    for secret in (b"make the marker", b"Hello there.", b"Marker made", b"touch /tmp/h-qwen"):
        assert secret not in stored
