"""`hooks install` writes into the clients the person has (their command on PATH, or their own folder), or into
those named; it makes no configuration folder for a client the person does not have, and says which it skipped
and why."""

from __future__ import annotations

import pytest

from lunavect import clients
from lunavect.core.clients import ids as client_ids


def homes() -> dict[str, object]:
    return {face.CLIENT.id: face.home() for face in clients.faces()}


def test_only_the_clients_here_get_hooks(iso_env):
    iso_env.codex.mkdir(parents=True)  # the person has Codex, and nothing else
    result = iso_env.cli("hooks", "install")
    assert result.returncode == 0, result.stderr
    assert (iso_env.codex / "hooks.json").is_file()
    assert [client for client, home in homes().items() if home.exists()] == ["codex"]
    for client in client_ids():
        if client != "codex":
            assert f"{client}: skipped, not here (no `" in result.stdout, result.stdout
    assert "`lunavect hooks install claude` installs it anyway" in result.stdout


@pytest.mark.process
def test_a_client_on_path_counts_as_here(iso_env):
    face = clients.face_of("claude")
    iso_env.program_on_path(face.CLIENT.cli.command, "exit 0")
    result = iso_env.cli_process("hooks", "install")
    assert result.returncode == 0, result.stderr
    assert (iso_env.claude / "settings.json").is_file() and not iso_env.codex.exists()


def test_named_clients_are_installed_whether_here_or_not(iso_env):
    result = iso_env.cli("hooks", "install", "claude", "codex")
    assert result.returncode == 0, result.stderr
    assert (iso_env.claude / "settings.json").is_file() and (iso_env.codex / "hooks.json").is_file()
    assert [client for client, home in homes().items() if home.exists()] == ["claude", "codex"]
    assert "skipped" not in result.stdout  # the others were not asked for


def test_no_client_here_is_a_failure_that_says_what_to_type(iso_env):
    result = iso_env.cli("hooks", "install")
    assert result.returncode == 1 and result.stdout == ""
    assert "none of the clients lunavect reads is here" in result.stderr
    assert f"lunavect hooks install {' '.join(client_ids())}" in result.stderr
    assert not any(home.exists() for home in homes().values())


def test_an_unknown_client_is_bad_usage(iso_env):
    result = iso_env.cli("hooks", "install", "vim")
    assert result.returncode == 2 and "no client vim" in result.stderr
