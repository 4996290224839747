"""What every client's installer shares: a file replaced in one rename, a refusal worded as one line, the status of
a hooks file and its JSON form."""

from __future__ import annotations

from pathlib import Path

import pytest

from lunavect.install import file_status, outcome
from lunavect.install.atomic import replace_file
from lunavect.install.hooks_file import Entries, HooksFileError, HooksRefused


def test_a_file_is_replaced_whole_with_its_mode_and_no_temporary_file_left(tmp_path: Path) -> None:
    folder = tmp_path / "plugin"
    folder.mkdir()
    target = folder / "lunavect.js"
    target.write_text("old")
    replace_file(target, "new", mode=0o644, prefix=".lunavect.")
    assert target.read_text() == "new" and target.stat().st_mode & 0o777 == 0o644
    assert sorted(p.name for p in folder.iterdir()) == ["lunavect.js"]


def test_a_failed_replace_leaves_what_was_there_and_no_temporary_file(tmp_path: Path) -> None:
    folder = tmp_path / "home"
    folder.mkdir()
    target = folder / "settings.json"
    target.mkdir()  # a rename over a folder fails
    with pytest.raises(OSError):
        replace_file(target, "{}", mode=0o600, prefix=".settings.")
    assert target.is_dir() and sorted(p.name for p in folder.iterdir()) == ["settings.json"]


@pytest.mark.parametrize("error", [HooksFileError("x.json is not valid JSON"), PermissionError("x.json")])
def test_an_installer_s_error_is_refused_as_one_line_after_the_client_s_id(error: Exception) -> None:
    def install() -> bool:
        raise error

    with pytest.raises(HooksRefused) as refused:
        outcome.install_lines("gemini", install, lambda changed: "unused", HooksFileError)
    assert str(refused.value) == f"gemini: {error}"


def test_an_error_the_installer_does_not_name_is_not_taken_for_a_refusal() -> None:
    with pytest.raises(KeyError), outcome.refusing("codex: ", HooksFileError):
        raise KeyError("a bug, which must show")


def test_the_lines_of_an_install_and_an_uninstall(tmp_path: Path) -> None:
    path = tmp_path / "hooks.json"
    assert outcome.install_lines("codex", lambda: True, lambda changed: outcome.installed("codex", changed, path)) == [
        f"codex: installed in {path}"
    ]
    assert outcome.uninstall_lines("codex", lambda: False, path) == [f"codex: nothing to remove in {path}"]


def test_a_status_keeps_what_the_entries_say_and_its_report_names_the_file_by_the_client_s_key(tmp_path: Path) -> None:
    found = Entries("partial", ["Stop"], ["SessionEnd"], [], "")
    status = file_status.FileStatus.of(tmp_path / "settings.json", found)
    assert (status.state, status.events, status.missing) == ("partial", ["Stop"], ["SessionEnd"])
    assert file_status.report(status, "hooks") == {
        "state": "partial",
        "hooks": str(tmp_path / "settings.json"),
        "missing_events": ["SessionEnd"],
        "stale_commands": [],
        "detail": "",
    }
