"""`lunavect paths`: where lunavect keeps everything, from the places the program itself uses, created by
nothing (asking where the store is makes no store), and the backups of a person's files once there are some."""

from __future__ import annotations

import json

from lunavect import paths


def test_paths_names_every_place_from_the_environment(iso_env):
    result = iso_env.cli("paths", "--json")
    assert result.returncode == 0, result.stderr
    found = json.loads(result.stdout)
    data = str(iso_env.data)
    assert found["data"] == data
    assert found["store"] == f"{data}/{paths.STORE_FILE_NAME}" and found["log"] == f"{data}/{paths.LOG_FILE_NAME}"
    assert found["spool"] == f"{data}/spool"
    assert found["sockets"] == {"changes": f"{data}/changes.sock", "editors": f"{data}/editors"}
    assert found["hooks"]["claude"] == str(iso_env.claude / "settings.json")
    assert found["hooks"]["codex"] == str(iso_env.codex / "hooks.json")
    assert found["service"].startswith(str(iso_env.home))
    assert found["backups"] == []
    assert not iso_env.data.exists()  # asking made nothing


def test_paths_lists_the_backup_of_a_persons_settings(iso_env):
    settings = iso_env.claude / "settings.json"
    settings.parent.mkdir(parents=True)
    settings.write_text('{"theme": "dark"}')
    assert iso_env.cli("hooks", "install").returncode == 0
    found = json.loads(iso_env.cli("paths", "--json").stdout)
    assert found["backups"] == [f"{settings}.lunavect-backup"]
    text = iso_env.cli("paths").stdout
    assert f"  {settings}.lunavect-backup" in text and f"store       {iso_env.data}/lunavect.sqlite3" in text
