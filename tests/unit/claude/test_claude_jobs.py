"""Claude Code's background sessions (`claude --bg`) as its live catalog and its jobs folder name them (shapes as
2.1.328 writes them: tests/clients/NOTES.md), each value checked where it enters."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from lunavect import paths
from lunavect.clients.claude.catalog import parse_entry
from lunavect.clients.claude.jobs import MAX_STATE_BYTES, background_job, job_of, read_state
from lunavect.host.processes import Proc

SESSION = "de400c41-c7a1-42d3-ab40-68cc255080de"
JOB = "de400c41"


def catalog_entry(pid: int = 2933, **fields: object) -> dict:
    entry = {
        "pid": pid,
        "sessionId": SESSION,
        "cwd": "/tmp/work",
        "startedAt": 1796144562812,
        "version": "2.1.328",
        "kind": "bg",
        "entrypoint": "cli",
        "messagingSocketPath": f"/tmp/run/cc-socks/{pid}.sock",
        "name": "nightly report",
        "nameSource": "peer",
        "jobId": JOB,
        "status": "waiting",
        "statusUpdatedAt": 1796144563557,
        "waitingFor": "permission prompt",
    }
    entry.update(fields)
    return entry


def state(**fields: object) -> dict:
    # What else the file holds (the prompt as `intent`, the last words as `detail`, what it waits for as `needs`)
    # is never decoded: these tests write it too, to prove it stays out.
    found = {
        "state": "working",
        "detail": "Done with it.",
        "tempo": "blocked",
        "needs": "approve Bash: touch marker.txt",
        "intent": "write the marker",
        "template": "bg",
        "sessionId": SESSION,
        "daemonShort": JOB,
        "name": "nightly report",
        "nameSource": "user",
    }
    found.update(fields)
    return found


def write_state(job: str = JOB, content: dict | bytes | None = None) -> Path:
    folder = paths.claude_config_dir() / "jobs" / job
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / "state.json"
    raw = content if isinstance(content, bytes) else json.dumps(content if content is not None else state()).encode()
    path.write_bytes(raw)
    return path


def write_catalog(entry: dict) -> None:
    folder = paths.claude_config_dir() / "sessions"
    folder.mkdir(parents=True, exist_ok=True)
    (folder / f"{entry['pid']}.json").write_text(json.dumps(entry))


class Table:
    def __init__(self, *procs: Proc) -> None:
        self.procs = {p.pid: p for p in procs}

    def get(self, pid: int) -> Proc | None:
        return self.procs.get(pid)

    def processes(self):
        return iter(self.procs.values())

    def cwd(self, pid: int) -> str | None:
        return None

    def unix_sockets(self, pid: int) -> list[str]:
        return []


BG = Proc(2933, 2918, "claude", "claude", "/dev/pts/9", None)


def test_a_background_entry_names_its_job_and_its_name():
    entry = parse_entry(2933, json.dumps(catalog_entry()).encode())
    assert (entry.job_id, entry.name, entry.declared_background) == (JOB, "nightly report", True)
    interactive = parse_entry(2933, json.dumps(catalog_entry(kind="interactive")).encode())
    assert interactive.job_id is None


@pytest.mark.parametrize("job", ["../../x", "DE400C41", "de400c4", "a" * 33, 12345678, "de400c41\n", None])
def test_a_job_id_that_is_not_one_is_dropped_not_the_entry(job):
    entry = parse_entry(2933, json.dumps(catalog_entry(jobId=job)).encode())
    assert entry is not None and entry.job_id is None and entry.status == "waiting"


def test_a_job_named_by_its_id_has_no_name_and_a_name_is_cut_and_cleaned():
    assert parse_entry(2933, json.dumps(catalog_entry(name=JOB, nameSource="auto")).encode()).name is None
    odd = parse_entry(2933, json.dumps(catalog_entry(name="night\x1b[31mly\nreport " + "x" * 300)).encode())
    assert odd.name is not None and "\x1b" not in odd.name and "\n" not in odd.name and len(odd.name) <= 80


def test_a_jobs_state_gives_its_session_and_name_and_nothing_else():
    write_state()
    job = read_state(paths.claude_config_dir(), JOB)
    assert job is not None and (job.job_id, job.session_id, job.name, job.live) == (
        JOB,
        SESSION,
        "nightly report",
        False,
    )
    assert "write the marker" not in repr(job) and "touch" not in repr(job) and "Done" not in repr(job)
    write_state(content=state(name=JOB))
    assert read_state(paths.claude_config_dir(), JOB).name is None


@pytest.mark.parametrize(
    "content",
    [
        b"not json",
        b"[1, 2]",
        json.dumps(state(sessionId="../etc")).encode(),
        json.dumps(state(sessionId=None)).encode(),
        b"[" * 5000 + b"]" * 5000,
        json.dumps(state(pad="x" * MAX_STATE_BYTES)).encode(),
    ],
    ids=["not-json", "a-list", "bad-id", "no-id", "too-deep", "too-big"],
)
def test_a_state_file_no_client_writes_is_no_job(content):
    write_state(content=content)
    assert read_state(paths.claude_config_dir(), JOB) is None


def test_a_job_folder_that_is_no_job_id_or_no_regular_file_is_never_read(tmp_path):
    assert read_state(paths.claude_config_dir(), "../jobs") is None
    folder = paths.claude_config_dir() / "jobs" / JOB
    folder.mkdir(parents=True)
    os.mkfifo(folder / "state.json")  # a reader that opened it plainly would wait forever
    assert read_state(paths.claude_config_dir(), JOB) is None


def test_a_session_s_job_is_found_by_its_id_s_beginning_or_else_by_looking_through_the_jobs():
    config = paths.claude_config_dir()
    assert job_of(SESSION, config) is None
    write_state("0a1b2c3d")
    assert job_of(SESSION, config).job_id == "0a1b2c3d"
    write_state(JOB)
    assert job_of(SESSION, config).job_id == JOB
    assert job_of("another-session", config) is None


def test_a_live_background_entry_is_a_running_job():
    write_catalog(catalog_entry())
    job = background_job(SESSION, paths.claude_config_dir(), Table(BG))
    assert job is not None and (job.job_id, job.live, job.name) == (JOB, True, "nightly report")


def test_the_same_session_resumed_in_a_terminal_is_no_background_job_now():
    write_state()
    write_catalog(catalog_entry(pid=4100, kind="interactive", jobId=None, tmux="main:@0.%3"))
    terminal = Proc(4100, 4000, "claude", "claude", "/dev/pts/4", None)
    assert background_job(SESSION, paths.claude_config_dir(), Table(terminal)) is None


def test_a_stopped_job_is_known_from_its_state_and_a_stale_entry_counts_for_nothing():
    write_catalog(catalog_entry())
    assert background_job(SESSION, paths.claude_config_dir(), Table()) is None  # its process is gone
    write_state()
    job = background_job(SESSION, paths.claude_config_dir(), Table())
    assert job is not None and (job.job_id, job.live, job.name) == (JOB, False, "nightly report")
