"""lunavect's OpenCode plugin, run by Node on bus events a real OpenCode 1.18.33 published (samples/, their
texts replaced by SECRET-… markers): what it spools carries names, ids and numbers only, and each record maps
to the hook event the rules read."""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path

import pytest

from lunavect import paths
from lunavect.clients.opencode.events import evidence_from_record
from lunavect.clients.opencode.install import plugin_text
from lunavect.evidence.spool_record import decode
from lunavect.shim.spoolfile import SPOOL_FILE_NAME

SAMPLES = Path(__file__).parent / "samples" / "bus_events.jsonl"
SESSION = "ses_dcd8456abffeCBl7aYMULE2Kkv"

DRIVER = """
import { readFileSync } from "node:fs"
const { LunavectPlugin } = await import(process.argv[2])
const hooks = await LunavectPlugin({})
for (const line of readFileSync(process.argv[3], "utf8").split("\\n")) if (line) hooks.event({ event: JSON.parse(line) })
hooks.event({ event: null })
hooks.event({ event: { type: "session.status", properties: { sessionID: "../../etc", status: { type: "busy" } } } })
"""


def spooled(tmp_path: Path, events: Path = SAMPLES) -> list[bytes]:
    if shutil.which("node") is None:
        pytest.skip("node is not installed")
    plugin, driver = tmp_path / "lunavect.mjs", tmp_path / "driver.mjs"
    plugin.write_text(plugin_text())
    driver.write_text(DRIVER)
    done = subprocess.run(["node", str(driver), str(plugin), str(events)], capture_output=True, timeout=60)
    assert done.returncode == 0 and done.stdout == b"" and done.stderr == b"", done
    return (paths.spool_dir() / SPOOL_FILE_NAME).read_bytes().splitlines()


@pytest.mark.process
def test_it_spools_no_text_of_the_conversation(iso_env, tmp_path: Path) -> None:
    lines = spooled(tmp_path)
    assert lines and all(line.startswith(b'{"v":') and line.isascii() for line in lines)
    assert not any(b"SECRET" in line for line in lines)
    assert not any(b"../" in line for line in lines)  # an id that is no id names no session
    assert (paths.spool_dir() / SPOOL_FILE_NAME).stat().st_mode & 0o777 == 0o600


@pytest.mark.process
def test_each_record_is_the_hook_event_the_rules_read(iso_env, tmp_path: Path) -> None:
    evidence = [evidence_from_record(decode(line)) for line in spooled(tmp_path)]
    kinds = [e.kind for e in evidence if e is not None]
    assert all(e is not None and e.session_id == SESSION and e.provider == "opencode" for e in evidence)
    for kind in (
        "SessionStart",
        "UserPromptSubmit",
        "PreToolUse",
        "PostToolUse",
        "PermissionRequest",
        "PermissionAnswered",
        "Elicitation",
        "ElicitationResult",
        "StopFailure",
        "Stop",
        "Interrupt",
        "PostCompact",
    ):
        assert kind in kinds, kind
    asked = next(e for e in evidence if e and e.kind == "PermissionRequest")
    assert asked.tool == "bash" and asked.tool_use_id and asked.pid and asked.source == "hook"
    answers = {e.reason for e in evidence if e and e.kind == "PermissionAnswered"}
    assert answers == {"allow", "deny"}
    titled = [e.title for e in evidence if e and e.kind == "SessionTitle" and e.title]
    assert titled and not any(t.startswith("New session - ") for t in titled)


@pytest.mark.process
def test_only_changes_are_forwarded(iso_env, tmp_path: Path) -> None:
    busy = {"type": "session.status", "properties": {"sessionID": SESSION, "status": {"type": "busy"}}}
    events = tmp_path / "events.jsonl"
    events.write_text("\n".join(json.dumps(busy) for _ in range(5)) + "\n")
    assert len(spooled(tmp_path, events)) == 1
