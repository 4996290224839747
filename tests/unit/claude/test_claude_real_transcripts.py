"""Real transcripts written by other people's Claude Code clients (../shared/data/claude/, never edited):
each is read whole without error, the facts it holds come out, and feeding it line by line or in random
chunks (a client writing it while lunavect reads) gives exactly the answer a whole read gives."""

from __future__ import annotations

import json
import random
import shutil
import time
from pathlib import Path

import pytest
from real_files_support import CLAUDE_DATA as DATA
from real_files_support import MAIN_FILES, NOW, Feeder

from lunavect.clients.claude.records import Unreadable, read_record

# Its first prompt is a plugin's slash command with arguments: the client shows the command and its arguments.
BEADS_COMMAND = "/handgemacht:create-beads websearch to learn how to fastest setup credo, dialyz…"
pytestmark = pytest.mark.skipif(not DATA.is_dir(), reason=f"the shared real transcripts are not at {DATA}")

SPOTTER = DATA / "spotter"
VIEWER = DATA / "claude-code-viewer"
ALL_FILES = sorted(DATA.rglob("*.jsonl"))


def whole(tmp_path: Path, source: Path):
    feeder = Feeder(tmp_path, source, "whole")
    feeder.write(source.read_bytes())
    try:
        return feeder.answer()
    finally:
        feeder.close()


# -- every line of every file ---------------------------------------------------------------------------------


@pytest.mark.parametrize("path", ALL_FILES, ids=lambda p: str(p.relative_to(DATA)))
def test_every_line_reads_without_error(path):
    with open(path, "rb") as f:
        for place, line in enumerate(f):
            try:
                facts = read_record(line.rstrip(b"\n"), place)
            except Unreadable:
                pytest.fail(f"{path.name}:{place + 1} is valid JSON but was not read")
            if facts is not None and "subagents" in path.parts:
                # A subagent's own transcript: every record is a sidechain, none is the session's activity.
                assert facts.activity == [] and facts.observations == []


# -- the facts each session holds -----------------------------------------------------------------------------


def tasks_of(answer) -> dict[str, tuple]:
    return {t.id: (t.kind, t.state, t.background, t.agent_type) for t in answer[1]}


def test_spotter_gqc_session(tmp_path):
    answer = whole(tmp_path, SPOTTER / "258c7280-ae70-4798-800f-63464d01a85d.jsonl")
    summary = answer[0]
    assert summary.title == "Implement spotter-gqc"
    assert (summary.cwd, summary.branch, summary.version) == (
        "/home/USER/projects/spotter-worktrees/spotter-gqc",
        "spotter-gqc",
        "2.1.39",
    )
    assert (summary.compactions, summary.last_compaction_trigger) == (1, "auto")
    assert summary.prompts == 2 and summary.unreadable == 0 and summary.too_long == 0
    assert summary.first_response.outcome == "response"
    # Its subagent ran in the foreground (its tool result ended it); two background shells ran, and the
    # runtime's notifications ended both.
    assert tasks_of(answer) == {
        "a881341": ("agent", "completed", False, "claude-code-guide"),
        "bd0afab": ("shell", "completed", True, None),
        "b0be39e": ("shell", "completed", True, None),
    }
    ended = {t.id: t.finished_at for t in answer[1]}
    # b0be39e's end is the notification delivered at line 496 (2026-02-11T20:51:10.715Z).
    assert ended["b0be39e"] == pytest.approx(1770843070.715)
    assert answer[3] == ("Implement spotter-gqc", summary.cwd, "spotter-gqc")


def test_spotter_dov_session(tmp_path):
    answer = whole(tmp_path, SPOTTER / "4d5611e5-241a-462a-8d15-5122611a9569.jsonl")
    assert tasks_of(answer) == {
        "a2898e3": ("agent", "completed", False, "Explore"),
        "b7636e2": ("shell", "completed", True, None),
    }
    assert answer[0].compactions == 1 and answer[0].branch == "spotter-dov"
    assert answer[2].background == {}


def test_subagent_fixture(tmp_path):
    answer = whole(tmp_path, SPOTTER / "subagent.jsonl")
    assert tasks_of(answer) == {"afb92ff": ("agent", "completed", False, "Plan")}
    assert answer[0].title == BEADS_COMMAND


def test_tool_heavy_fixture_ends_with_its_server_still_running(tmp_path):
    answer = whole(tmp_path, SPOTTER / "tool_heavy.jsonl")
    assert tasks_of(answer) == {"bae407b": ("shell", "running", True, None)}
    assert answer[0].title == "start phoenix in background"
    assert answer[0].interrupts == 2


def test_short_fixture(tmp_path):
    answer = whole(tmp_path, SPOTTER / "short.jsonl")
    assert tasks_of(answer) == {}
    assert answer[0].title == "mix phx.server doesnt seem to start"


def test_older_client_with_inline_sidechains(tmp_path):
    answer = whole(tmp_path, VIEWER / "fe5e1c67-53e7-4862-81ae-d0e013e3270b.jsonl")
    summary = answer[0]
    assert summary.title == "Empty Repo Setup: CLAUDE.md Foundation Created"  # the summary line beats a prompt
    assert summary.version == "1.0.98" and summary.unreadable == 0
    # 405 sidechain lines, including three background shells of its subagents: none is the session's.
    assert answer[1] == []


def test_older_client_without_prompts_still_has_its_first_response(tmp_path):
    answer = whole(tmp_path, VIEWER / "1af7fc5e-8455-4414-9ccd-011d40f70b2a.jsonl")
    assert answer[0].first_response.outcome == "response"
    assert answer[0].prompts == 0  # its one prompt is the /init command
    assert answer[2].state.value == "ready"


# -- incremental reads give the whole read's answer ----------------------------------------------------------


@pytest.mark.parametrize("path", MAIN_FILES, ids=lambda p: p.name[:16])
def test_line_by_line_gives_the_whole_answer(tmp_path, path):
    expected = whole(tmp_path, path)
    feeder = Feeder(tmp_path, path, "lines")
    try:
        with open(path, "rb") as f:
            for line in f:
                feeder.write(line)
        assert feeder.answer() == expected
    finally:
        feeder.close()


@pytest.mark.parametrize("seed", [1, 2, 3])
@pytest.mark.parametrize("path", MAIN_FILES, ids=lambda p: p.name[:16])
def test_random_chunks_give_the_whole_answer(tmp_path, path, seed):
    expected = whole(tmp_path, path)
    data = path.read_bytes()
    rnd = random.Random(seed)
    cuts = sorted(rnd.sample(range(1, len(data)), min(80, len(data) - 1)))
    feeder = Feeder(tmp_path, path, f"chunks{seed}")
    try:
        for start, end in zip([0, *cuts], [*cuts, len(data)], strict=True):
            feeder.write(data[start:end])  # often half a line: read whole only once it ends
        assert feeder.answer() == expected
    finally:
        feeder.close()


def test_a_small_budget_spreads_a_read_over_ticks_with_the_same_answer(tmp_path):
    path = SPOTTER / "258c7280-ae70-4798-800f-63464d01a85d.jsonl"
    expected = whole(tmp_path, path)
    feeder = Feeder(tmp_path, path, "budget")
    try:
        feeder.collector.sources[0].budget = 64 * 1024
        with open(feeder.path, "wb") as f:
            f.write(path.read_bytes())
        ticks = 0
        while True:
            ticks += 1
            feeder.collector.poll_sources(now=NOW)
            row = feeder.conn.execute("SELECT cursor FROM claude_transcript").fetchone()
            if row is not None and not json.loads(row[0]).get("partial"):
                break
        assert ticks > 20  # 2.7 MB in 64 KB steps
        assert feeder.answer() == expected
    finally:
        feeder.close()


def test_a_copy_of_a_real_session_is_listed_with_what_it_proves(tmp_path):
    """The whole path through the collector's snapshot: a hookless session shows its title and project."""
    feeder = Feeder(tmp_path, SPOTTER / "subagent.jsonl", "snapshot")
    try:
        shutil.copyfile(SPOTTER / "subagent.jsonl", feeder.path)
        feeder.collector.poll_sources(now=time.time())
        feeder.collector.snapshot(now=time.time())
        from lunavect.listing.sessions import read_sessions

        (session,) = read_sessions(feeder.conn)
        assert session.id == f"claude:{feeder.session}"
        assert session.title == BEADS_COMMAND and session.project == "spotter"
        assert session.basis == ["transcript"]
        assert session.resume == f"cd /home/marco/projects/spotter && claude --resume {feeder.session}"
    finally:
        feeder.close()
