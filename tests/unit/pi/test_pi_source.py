"""The Pi source in a collector, on session files the real 0.73.1 wrote, laid out as it lays them out in an
isolated `~/.pi/agent`: every session listed without the extension, with its title, folder, state, resume command
and usage; a name given with `/name` as its title; files read on from their cursors and forgotten once gone;
`lunavect show` reading the conversation; nothing of the prompts or replies but the title kept."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

from unit_support import wait_until

from lunavect.clients.pi import places
from lunavect.clients.pi.source import PiSource
from lunavect.collector.tick import Collector
from lunavect.evidence import file_cursors
from lunavect.listing.sessions import read_sessions

SAMPLES = Path(__file__).resolve().parent / "samples"
NOW = 2_000_000_000.0


def lay_out(sample: str) -> Path:
    header = json.loads((SAMPLES / f"{sample}.jsonl").read_text().splitlines()[0])
    folder = places.sessions_dir() / ("--" + header["cwd"].strip("/").replace("/", "-") + "--")
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / f"2026-12-04T09-04-16-141Z_{header['id']}.jsonl"
    shutil.copy(SAMPLES / f"{sample}.jsonl", path)
    return path


def rows(conn):
    return {row.id: row for row in read_sessions(conn)}


def test_sessions_appear_from_their_files_with_title_folder_state_resume_and_usage(iso_env) -> None:
    turns = lay_out("tool-turns")
    failed = lay_out("api-error")
    conn = iso_env.connect()
    Collector(conn, sources=[PiSource()]).tick(now=NOW)
    found = rows(conn)
    sid = "01a2404c-0f0d-7748-b4a7-93295f0a0cc7"
    row = found[f"pi:{sid}"]
    assert (row.title, row.cwd, row.state, row.basis) == (
        "first prompt is the title",
        "/tmp/lv-06a6qgqi/work",
        "ready",
        ["transcript"],
    )
    assert row.resume == f"cd /tmp/lv-06a6qgqi/work && pi --session {sid}"
    assert row.usage is not None and row.usage.model == "m" and row.usage.tokens.output == 15
    other = found["pi:01a2404c-44b6-7275-aedc-287edff3a9ff"]
    assert (other.state, other.error, other.title) == ("error", "other", "say hello")
    kept = b"".join(p.read_bytes() for p in iso_env.data.rglob("*") if p.is_file())
    assert b"KAPPA" not in kept and b"OMICRON" not in kept and b"RHO-7" not in kept and b"NU-4" not in kept
    assert str(turns) in file_cursors.load(conn, "pi") and str(failed) in file_cursors.load(conn, "pi")


def test_appended_entries_are_read_on_a_name_is_the_title_and_a_file_gone_is_forgotten(iso_env) -> None:
    path = lay_out("tool-turns")
    T0 = 1796375060.0
    lines = path.read_text().splitlines(keepends=True)
    end = next(i for i, line in enumerate(lines) if '"role":"toolResult"' in line)
    path.write_text("".join(lines[:end]))
    conn = iso_env.connect()
    source = PiSource()
    collector = Collector(conn, sources=[source])
    collector.tick(now=T0)
    (row,) = rows(conn).values()
    assert (row.state, row.activity) == ("working", "bash")
    stored = file_cursors.load(conn, "pi")[str(path)]
    named = '{"type":"session_info","id":"0badc0de","parentId":"26014121","timestamp":"2026-12-04T09:04:19.000Z","name":"Tidy the parser"}\n'
    path.write_text("".join(lines) + named)

    def read_on() -> bool:  # the source reads what the operating system told it, a moment after the write
        collector.tick(now=T0 + 1)
        return file_cursors.load(conn, "pi")[str(path)].cursor != stored.cursor

    wait_until(read_on, "the appended entries read", timeout=10)
    (row,) = rows(conn).values()
    assert (row.state, row.title) == ("ready", "Tidy the parser")
    path.unlink()
    source._swept_at = None  # the next poll is a sweep
    collector.tick(now=T0 + 2)
    assert str(path) not in file_cursors.load(conn, "pi")
    assert conn.execute("SELECT COUNT(*) FROM usage_ledger WHERE path = ?", (str(path),)).fetchone()[0] == 0


def test_lunavect_show_reads_the_conversation_from_the_session_file(iso_env) -> None:
    lay_out("tool-turns")
    failed = lay_out("api-error")
    conn = iso_env.connect()
    Collector(conn, sources=[PiSource()]).tick(now=NOW)
    out = iso_env.cli("show", "pi:01a2404c-0f0d-7748-b4a7-93295f0a0cc7").stdout
    assert "first prompt is the title" in out and "Reply KAPPA-1" in out and "echo NU-4" in out and "Done XI-5" in out
    out = iso_env.cli("show", f"pi:{failed.stem.rpartition('_')[2]}").stdout
    assert "400 Scripted failure of the model RHO-7" in out
