"""The data folder: the shim's rule (standard library only) is the one lunavect.paths answers with."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from lunavect import paths
from lunavect.shim import spoolfile


def _both() -> tuple[str, str]:
    return spoolfile.data_dir(dict(os.environ)), str(paths.data_dir())


def test_lunavect_home_absolute(iso_env):
    shim, package = _both()
    assert shim == package == str(iso_env.data)


def test_lunavect_home_relative(iso_env, monkeypatch):
    monkeypatch.chdir(iso_env.root)
    monkeypatch.setenv("LUNAVECT_HOME", "relative/data")
    shim, package = _both()
    assert shim == package == str(iso_env.root / "relative" / "data")


def test_lunavect_home_with_tilde(iso_env, monkeypatch):
    monkeypatch.setenv("LUNAVECT_HOME", "~/lv-data")
    shim, package = _both()
    assert shim == package == str(iso_env.home / "lv-data")


def test_xdg_data_home(iso_env, monkeypatch):
    monkeypatch.delenv("LUNAVECT_HOME")
    monkeypatch.setenv("XDG_DATA_HOME", str(iso_env.root / "xdg"))
    shim, package = _both()
    assert shim == package == str(iso_env.root / "xdg" / "lunavect")


@pytest.mark.parametrize("value", ["", "   ", "relative/xdg"])
def test_xdg_data_home_unusable_falls_back_to_home(iso_env, monkeypatch, value):
    monkeypatch.delenv("LUNAVECT_HOME")
    monkeypatch.setenv("XDG_DATA_HOME", value)
    shim, package = _both()
    assert shim == package == str(iso_env.home / ".local" / "share" / "lunavect")


def test_no_lunavect_home_no_xdg(iso_env, monkeypatch):
    monkeypatch.delenv("LUNAVECT_HOME")
    monkeypatch.delenv("XDG_DATA_HOME", raising=False)
    shim, package = _both()
    assert shim == package == str(iso_env.home / ".local" / "share" / "lunavect")


def test_empty_lunavect_home_is_unset(iso_env, monkeypatch):
    monkeypatch.setenv("LUNAVECT_HOME", "")
    shim, package = _both()
    assert shim == package == str(iso_env.home / ".local" / "share" / "lunavect")


def test_spool_paths_agree(iso_env):
    assert spoolfile.spool_path(dict(os.environ)) == str(paths.spool_dir() / spoolfile.SPOOL_FILE_NAME)


def test_client_folders_follow_the_environment(iso_env, monkeypatch):
    assert paths.claude_config_dir() == iso_env.claude
    assert paths.codex_home() == iso_env.codex
    monkeypatch.delenv("CLAUDE_CONFIG_DIR")
    monkeypatch.delenv("CODEX_HOME")
    assert paths.claude_config_dir() == iso_env.home / ".claude"
    assert paths.codex_home() == iso_env.home / ".codex"
    assert paths.store_path() == Path(iso_env.data) / paths.STORE_FILE_NAME


@pytest.mark.parametrize(
    "value",
    [
        "/data/lv",
        "/data/lv/",
        "//data/lv",
        "/data//lv",
        "/data/./lv",
        "/data/x/../lv",
        "/data/.lv",
        "/",
        "~",
        "~/lv",
        "lv",
        "./lv/",
    ],
)
def test_lunavect_home_is_normalised_as_abspath_does(iso_env, monkeypatch, value):
    """The shim skips os.path for a home that needs no normalising; every other form goes through it."""
    monkeypatch.chdir(iso_env.root)
    env = dict(os.environ, LUNAVECT_HOME=value)
    assert spoolfile.data_dir(env) == os.path.abspath(os.path.expanduser(value))


@pytest.mark.process
def test_the_shim_reads_the_environment_without_os(iso_env):
    """Run without `os` imported, the shim reads posix's start-up environment: the same folder."""
    import subprocess
    import sys

    src = str(Path(spoolfile.__file__).resolve().parent.parent.parent)
    code = (
        f"import sys; sys.path.insert(0, {src!r}); from lunavect.shim import spoolfile; "
        "print('os' in sys.modules, spoolfile.spool_path())"
    )
    out = subprocess.run(
        [sys.executable, "-I", "-S", "-c", code], env=iso_env.env, capture_output=True, text=True, check=True
    ).stdout.split()
    assert out == ["False", str(paths.spool_dir() / spoolfile.SPOOL_FILE_NAME)]
