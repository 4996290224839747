"""Install then uninstall gives the person's settings file back as it was (issue 12, defect 9)."""

from __future__ import annotations

import json
import os

from click.testing import CliRunner

from lunavect.cli.root import cli
from lunavect.core.clients import ids as client_ids
from lunavect.install import hooks_file

# Four-space indentation, \\u escapes, a number written 1e2, an empty list of the person's own: json.dumps of
# json.loads changes every one of them.
ORIGINAL = b'{\n    "theme": "caf\\u00e9",\n    "limit": 1e2,\n    "hooks": {\n        "Stop": []\n    }\n}\n'


def run(*args: str):
    return CliRunner().invoke(cli, list(args), catch_exceptions=False)


def settings(iso_env):
    path = iso_env.claude / "settings.json"
    path.parent.mkdir(parents=True, exist_ok=True)
    return path


def test_uninstall_restores_the_persons_bytes_exactly(iso_env):
    path = settings(iso_env)
    path.write_bytes(ORIGINAL)
    assert run("hooks", "install", *client_ids()).exit_code == 0
    assert path.read_bytes() != ORIGINAL
    assert run("hooks", "install", *client_ids()).exit_code == 0  # a reinstall keeps the person's version as the backup
    assert run("hooks", "uninstall").exit_code == 0
    assert path.read_bytes() == ORIGINAL
    assert path.with_name(path.name + hooks_file.BACKUP_SUFFIX).read_bytes() == ORIGINAL


def test_an_edit_since_install_is_kept_and_the_style_with_it(iso_env):
    path = settings(iso_env)
    path.write_bytes(ORIGINAL)
    run("hooks", "install", *client_ids())
    edited = json.loads(path.read_text())
    edited["model"] = "opus"
    path.write_text(json.dumps(edited, indent=4, ensure_ascii=True) + "\n")
    assert run("hooks", "uninstall").exit_code == 0
    text = path.read_text()
    after = json.loads(text)
    assert after["model"] == "opus" and after["hooks"] == {"Stop": []}  # the empty list stays
    assert '\n    "theme"' in text and "\\u00e9" in text  # four spaces and escapes, as the person wrote


def test_a_symlinked_settings_file_is_written_through(iso_env, tmp_path):
    dotfiles = tmp_path / "dotfiles"
    dotfiles.mkdir()
    real = dotfiles / "claude-settings.json"
    real.write_bytes(ORIGINAL)
    path = settings(iso_env)
    path.symlink_to(real)
    assert run("hooks", "install", *client_ids()).exit_code == 0
    assert path.is_symlink() and "lunavect" in real.read_text()
    assert run("hooks", "uninstall").exit_code == 0
    assert path.is_symlink() and real.read_bytes() == ORIGINAL


def test_a_read_only_settings_file_is_refused_with_a_clear_line(iso_env):
    path = settings(iso_env)
    path.write_bytes(ORIGINAL)
    os.chmod(path, 0o444)
    result = run("hooks", "install", *client_ids())
    assert result.exit_code == 1
    assert "read-only" in result.stderr and result.stderr.count("\n") == 1
    assert path.read_bytes() == ORIGINAL


def test_numbers_stay_as_written_through_install_and_a_minimal_uninstall(iso_env):
    """The person edits the file while lunavect's hooks are in it: install and uninstall rewrite it (not a byte
    restore), and every number keeps the form it was written in."""
    path = settings(iso_env)
    numbers = b'    "limit": 1e2,\n    "ratio": 1.50,\n    "tiny": 2.5E-3,\n    "zero": -0.0,\n    "n": 7,\n'
    path.write_bytes(ORIGINAL.replace(b'    "limit": 1e2,\n', numbers))
    assert run("hooks", "install", *client_ids()).exit_code == 0
    installed = path.read_bytes()
    assert numbers in installed and b"lunavect" in installed
    path.write_bytes(installed.replace(b'    "n": 7,\n', b'    "n": 7,\n    "model": "opus",\n'))  # by hand
    assert run("hooks", "uninstall").exit_code == 0
    text = path.read_bytes()
    assert b"lunavect" not in text and b'"model": "opus"' in text
    assert numbers in text
    assert json.loads(text)["ratio"] == 1.5
