"""The companion as lunavect builds and installs it: the .vsix (zipfile, never vsce) carries the extension's
files, its pinned engine and the installing lunavect's channel folder; install and uninstall go through the
editor's own command line; status reads the editor's own extensions listing; the extension's own logic
passes node's test runner."""

from __future__ import annotations

import json
import shutil
import subprocess
import zipfile
from pathlib import Path

import pytest

from lunavect.navigation.editors import companion, install
from lunavect.navigation.terminals.runner import Reply

REPO = Path(__file__).resolve().parents[3]
SOURCE = REPO / "src" / "lunavect" / "companions" / "vscode"


def test_the_package_json_pins_the_engine_it_was_tested_with_and_runs_where_the_terminals_are() -> None:
    data = json.loads((SOURCE / "package.json").read_text())
    assert data["engines"] == {"vscode": "^1.100.0"}  # VS Code 1.100 = code-server 4.100.0, the tests' editor
    assert data["extensionKind"] == ["workspace"]
    assert f"{data['publisher']}.{data['name']}" == companion.EXTENSION_ID
    assert not (SOURCE / "node_modules").exists() and data.get("dependencies") is None  # no build step
    # Once the window has started, as VS Code asks of an extension that needs no earlier event (not "*", which
    # it warns slows every window's start); tests/clients/test_editors_live.py proves the terminals still show.
    assert data["activationEvents"] == ["onStartupFinished"]


def test_the_vsix_holds_the_extension_its_manifest_and_the_channel_folder(tmp_path: Path) -> None:
    channel = tmp_path / "data" / "editors"
    vsix = companion.build_vsix(tmp_path / "c.vsix", channel)
    with zipfile.ZipFile(vsix) as z:
        names = set(z.namelist())
        manifest = z.read("extension.vsixmanifest").decode()
        baked = json.loads(z.read("extension/lunavect.json"))
        shipped = json.loads(z.read("extension/package.json"))
    assert {"[Content_Types].xml", "extension.vsixmanifest", "extension/extension.js"} <= names
    assert {"extension/lib/channel.js", "extension/lib/protocol.js"} <= names
    assert not any("/test/" in n for n in names)
    m = companion.manifest()
    assert f'Id="{m.name}" Version="{m.version}" Publisher="{m.publisher}"' in manifest
    assert 'Id="Microsoft.VisualStudio.Code.Engine" Value="^1.100.0"' in manifest
    assert baked == {"channel": str(channel)}
    assert shipped["version"] == m.version


@pytest.mark.process
@pytest.mark.skipif(shutil.which("node") is None, reason="node is not installed")
def test_the_extensions_own_logic_passes_nodes_test_runner() -> None:
    done = subprocess.run(
        ["node", "--test", str(REPO / "tests" / "companions" / "vscode")],
        cwd=SOURCE,
        capture_output=True,
        text=True,
        timeout=120,
        stdin=subprocess.DEVNULL,
    )
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-2000:]
    assert "# fail 0" in done.stdout


def listing(folder: Path, *entries: tuple[str, str]) -> None:
    """An extensions folder as VS Code and code-server write it (`extensions.json`, one folder each)."""
    rows = []
    for ident, version in entries:
        (folder / f"{ident}-{version}").mkdir(parents=True)
        rows.append({"identifier": {"id": ident}, "version": version, "relativeLocation": f"{ident}-{version}"})
    (folder / "extensions.json").write_text(json.dumps(rows))


def test_the_installed_version_is_what_the_editor_lists(tmp_path: Path) -> None:
    assert install.installed_version(tmp_path) is None
    listing(tmp_path, ("ms-python.python", "2026.1.0"), (companion.EXTENSION_ID, "0.0.9"))
    assert install.installed_version(tmp_path) == "0.0.9"
    (tmp_path / ".obsolete").write_text(json.dumps({f"{companion.EXTENSION_ID}-0.0.9": True}))
    assert install.installed_version(tmp_path) is None
    (tmp_path / ".obsolete").unlink()
    shutil.rmtree(tmp_path / f"{companion.EXTENSION_ID}-0.0.9")
    assert install.installed_version(tmp_path) is None  # listed, but its folder is gone
    (tmp_path / "extensions.json").write_text("{broken")
    assert install.installed_version(tmp_path) is None


class Runner:
    def __init__(self, reply: Reply) -> None:
        self.reply = reply
        self.argv: list[list[str]] = []
        self.vsix_existed = False

    def __call__(self, argv: list[str], timeout: float) -> Reply:
        self.argv.append(argv)
        if "--install-extension" in argv:
            self.vsix_existed = Path(argv[argv.index("--install-extension") + 1]).is_file()
        return self.reply


def test_install_goes_through_the_editors_own_command_and_remembers_where(iso_env, tmp_path: Path) -> None:
    extensions, data = tmp_path / "ext", tmp_path / "data"
    runner = Runner(Reply(True))
    status = install.install("vscode", "/bin/true", extensions, data, runner=runner)
    (argv,) = runner.argv
    assert argv[:5] == ["/bin/true", "--extensions-dir", str(extensions), "--user-data-dir", str(data)]
    assert argv[5] == "--install-extension" and argv[-1] == "--force" and runner.vsix_existed
    assert status.extensions_dir == str(extensions) and status.installed is None  # the stand-in wrote nothing
    assert install.extensions_dir("vscode") == extensions  # remembered for status and uninstall
    channel = iso_env.data / "editors"
    assert channel.is_dir() and channel.stat().st_mode & 0o777 == 0o700

    listing(extensions, (companion.EXTENSION_ID, companion.manifest().version))
    runner = Runner(Reply(True))
    removed, folder = install.uninstall("vscode", runner=runner)
    assert (removed, folder) == (companion.manifest().version, extensions)
    assert runner.argv == [
        [
            "/bin/true",
            "--extensions-dir",
            str(extensions),
            "--user-data-dir",
            str(data),
            "--uninstall-extension",
            companion.EXTENSION_ID,
        ]
    ]


def test_an_editor_that_fails_or_hangs_is_one_line(iso_env) -> None:
    with pytest.raises(install.EditorError, match="Extension not found"):
        install.install(
            "vscode", "/bin/true", runner=Runner(Reply(False, stderr="\nExtension not found\n", failure="failed"))
        )
    with pytest.raises(install.EditorError, match="did not finish within"):
        install.install("code-server", "/bin/true", runner=Runner(Reply(False, failure="timeout")))
    with pytest.raises(install.EditorError, match="not on PATH"):
        install.install("vscode", "no-such-editor-here")


def test_status_and_the_cli_say_what_is_installed_and_where(iso_env, tmp_path: Path) -> None:
    folder = Path(iso_env.env["HOME"]) / ".vscode" / "extensions"
    listing(folder, (companion.EXTENSION_ID, "0.0.1"))
    vscode, code_server = install.status()
    assert (vscode.editor, vscode.installed, vscode.stale) == ("vscode", "0.0.1", True)
    assert vscode.problems[0]["fix"].startswith("lunavect editors install vscode")
    assert code_server.installed is None and code_server.problems == []
    out = iso_env.cli("editors", "status").stdout
    assert "vscode: companion 0.0.1 installed" in out and f"this lunavect ships {companion.manifest().version}" in out
    assert "code-server: companion not installed (lunavect editors install code-server)" in out
    report = json.loads(iso_env.cli("doctor", "--json").stdout)
    assert [e["editor"] for e in report["editors"]] == ["vscode", "code-server"]
    assert any(p["what"].startswith("vscode: the companion is version 0.0.1") for p in report["problems"])
    assert "sessions in editors:" in iso_env.cli("doctor").stdout


def test_bad_editor_names_and_failures_are_one_line_errors(iso_env) -> None:
    bad = iso_env.cli("editors", "install", "emacs")
    assert bad.returncode == 2 and "emacs" in bad.stderr
    missing = iso_env.cli("editors", "install", "vscode", "--command", "no-such-editor-here")
    assert missing.returncode == 1 and missing.stderr.startswith("lunavect: cannot install the vscode companion: ")
    assert len(missing.stderr.splitlines()) == 1
