"""lunavect as people install it: built into an sdist and a wheel, installed into a new, non-editable virtual
environment, and run from there.

Every other test imports lunavect from the source tree (an editable install), where a file missing from the
wheel goes unnoticed; here nothing of the checkout is importable. The sdist and the wheel are built once for the
module (the wheel from the sdist, as `python -m build` does, so both carry the package data), and the tests
share one xdist group so a parallel run builds and installs them once.
"""

from __future__ import annotations

import contextlib
import json
import re
import shutil
import subprocess
import sys
import tarfile
import time
import uuid
import zipfile
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import psutil
import pytest

import lunavect
from lunavect.core.clients import ids as client_ids

pytestmark = [pytest.mark.packaging, pytest.mark.xdist_group("wheel")]

ROOT = Path(__file__).resolve().parents[2]
PACKAGE = ROOT / "src" / "lunavect"
# What a checkout holds at its top that is no part of a release (and would make copying it slow); inside the
# package only bytecode is skipped, so a data folder named `build` or `dist` is still copied and checked.
NOT_RELEASED = {".git", ".venv", "build", "dist", ".pytest_cache", "bench", "tests", "docs"}


def not_source(folder: str, names: list[str]) -> set[str]:
    top = Path(folder) == ROOT
    return {
        name
        for name in names
        if (top and name in NOT_RELEASED) or name == "__pycache__" or name.endswith((".pyc", ".egg-info"))
    }


INSTALL_TIMEOUT_S = 600
SCREEN_TIMEOUT_S = 60


@dataclass(frozen=True)
class Dists:
    sdist: Path
    wheel: Path


@dataclass(frozen=True)
class Installed:
    """A virtual environment holding the built wheel, and a temporary HOME for everything lunavect touches."""

    venv: Path
    home: Path
    env: dict[str, str]

    @property
    def lunavect(self) -> str:
        return str(self.venv / "bin" / "lunavect")

    def run(self, *args: str, check: bool = True) -> subprocess.CompletedProcess[str]:
        done = subprocess.run(
            [self.lunavect, *args],
            capture_output=True,
            text=True,
            env=self.env,
            cwd=self.home,
            timeout=120,
        )
        if check:
            assert done.returncode == 0, f"lunavect {' '.join(args)}: {done.returncode}\n{done.stdout}{done.stderr}"
        return done


def data_files() -> list[str]:
    """Every file under src/lunavect that is not Python: what the program reads at run time."""
    return sorted(
        path.relative_to(PACKAGE).as_posix()
        for path in PACKAGE.rglob("*")
        if path.is_file() and path.suffix not in (".py", ".pyc") and "__pycache__" not in path.parts
    )


@pytest.fixture(scope="module")
def dists(tmp_path_factory: pytest.TempPathFactory) -> Dists:
    """The sdist, and the wheel built from it, of a copy of the checkout (builds write into the tree)."""
    work = tmp_path_factory.mktemp("dists")
    tree = work / "tree"
    shutil.copytree(ROOT, tree, ignore=not_source)
    out = work / "dist"
    done = subprocess.run(
        [sys.executable, "-m", "build", "--outdir", str(out), str(tree)],
        capture_output=True,
        text=True,
        timeout=INSTALL_TIMEOUT_S,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    (sdist,) = out.glob("lunavect-*.tar.gz")
    (wheel,) = out.glob("lunavect-*.whl")
    return Dists(sdist=sdist, wheel=wheel)


def test_every_data_file_is_in_the_wheel_and_the_sdist(dists: Dists) -> None:
    files = data_files()
    assert "frontends/tui/panel.tcss" in files
    with zipfile.ZipFile(dists.wheel) as wheel:
        in_wheel = set(wheel.namelist())
    with tarfile.open(dists.sdist) as sdist:
        in_sdist = {name.split("/", 1)[1] for name in sdist.getnames() if "/" in name}
    assert [f for f in files if f"lunavect/{f}" not in in_wheel] == []
    assert [f for f in files if f"src/lunavect/{f}" not in in_sdist] == []
    for name in ("LICENSE", "README.md", "CHANGELOG.md", "pyproject.toml"):
        assert name in in_sdist


def test_the_wheel_metadata_carries_the_version_license_and_urls(dists: Dists) -> None:
    with zipfile.ZipFile(dists.wheel) as wheel:
        dist_info = f"lunavect-{lunavect.__version__}.dist-info"
        metadata = wheel.read(f"{dist_info}/METADATA").decode()
        assert f"{dist_info}/licenses/LICENSE" in wheel.namelist()
    assert f"\nVersion: {lunavect.__version__}\n" in metadata
    assert "\nLicense-Expression: MIT\n" in metadata
    assert "\nProject-URL: Changelog, " in metadata
    assert "\nClassifier: Environment :: Console\n" in metadata


# The wheel today is about 0.8 MB; a file that should not ship (a build folder, a screenshot, a client's
# binary) would pass this at once.
WHEEL_MAX_BYTES = 1_500_000
# What installing lunavect installs besides itself, by name: a new dependency is a decision (zstandard, 24 MB,
# was half of the install before the standard library's zstd and its backport replaced it).
DEPENDENCIES = {
    "click",
    "msgspec",
    "psutil",
    "watchfiles",
    "textual",
    "backports.zstd",
    "desktop-notifier",
    "websockets",
    "genai-prices",
}


def test_the_wheel_is_small_and_depends_on_what_it_names(dists: Dists) -> None:
    assert dists.wheel.stat().st_size < WHEEL_MAX_BYTES
    with zipfile.ZipFile(dists.wheel) as wheel:
        metadata = wheel.read(f"lunavect-{lunavect.__version__}.dist-info/METADATA").decode()
    required = [line.split(": ", 1)[1] for line in metadata.splitlines() if line.startswith("Requires-Dist: ")]
    runtime = {re.split(r"[<>=!~;\[ ]", spec, maxsplit=1)[0] for spec in required if "extra ==" not in spec}
    assert runtime == DEPENDENCIES
    assert not any(spec.lower().startswith("zstandard") for spec in required)


def test_twine_accepts_the_wheel_and_the_sdist(dists: Dists) -> None:
    """What PyPI checks of an upload (the README renders as the project's page), as RELEASING.md runs it."""
    done = subprocess.run(
        [sys.executable, "-m", "twine", "check", "--strict", str(dists.wheel), str(dists.sdist)],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 0, done.stdout + done.stderr


def test_the_man_pages_match_the_help_and_ship_in_the_wheel(dists: Dists) -> None:
    checked = subprocess.run(
        [sys.executable, str(ROOT / "scripts" / "manpages.py"), "--check"], capture_output=True, text=True, timeout=120
    )
    assert checked.returncode == 0, checked.stderr
    with zipfile.ZipFile(dists.wheel) as wheel:
        pages = {name.rsplit("/", 1)[1] for name in wheel.namelist() if "/share/man/man1/" in name}
    assert {"lunavect.1", "lunavect-paths.1", "lunavect-hooks-install.1"} <= pages
    assert pages == {page.name for page in (ROOT / "man" / "man1").glob("*.1")}


@pytest.fixture(scope="module")
def installed(dists: Dists, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Installed]:
    """The wheel in a new venv (dependencies from pip's usual index and cache), with a temporary HOME."""
    root = tmp_path_factory.mktemp("installed")
    venv = root / "venv"
    subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True, timeout=INSTALL_TIMEOUT_S)
    done = subprocess.run(
        [str(venv / "bin" / "python"), "-m", "pip", "install", "-q", str(dists.wheel)],
        capture_output=True,
        text=True,
        timeout=INSTALL_TIMEOUT_S,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    home = root / "home"
    (home / "tmp").mkdir(parents=True)
    env = {
        "HOME": str(home),
        "CLAUDE_CONFIG_DIR": str(home / ".claude"),
        "CODEX_HOME": str(home / ".codex"),
        "LUNAVECT_HOME": str(home / "lunavect"),
        "XDG_RUNTIME_DIR": str(home / "tmp"),
        "TMPDIR": str(home / "tmp"),
        # No `claude` or `codex` on PATH: Codex's hooks stay untrusted rather than reaching a real Codex.
        "PATH": f"{venv / 'bin'}:/usr/local/bin:/usr/bin:/bin",
        "LANG": "C.UTF-8",
        "TERM": "xterm-256color",
    }
    try:
        yield Installed(venv=venv, home=home, env=env)
    finally:
        _stop_processes_of(venv)


def _stop_processes_of(venv: Path) -> None:
    """The collector the front ends started on demand runs from the venv's interpreter: stop it."""
    ours = []
    for proc in psutil.process_iter(["cmdline"]):
        cmdline = proc.info["cmdline"] or []
        if cmdline and cmdline[0].startswith(str(venv)):
            ours.append(proc)
    for proc in ours:
        with contextlib.suppress(psutil.NoSuchProcess):
            proc.terminate()
    _, alive = psutil.wait_procs(ours, timeout=5)
    for proc in alive:
        with contextlib.suppress(psutil.NoSuchProcess):
            proc.kill()


class Tmux:
    """One tmux server of the test's own (its socket in the temporary HOME), with one window."""

    def __init__(self, installed: Installed) -> None:
        self.installed = installed
        self.socket = installed.home / "tmp" / "tmux.sock"

    def __call__(self, *args: str) -> str:
        done = subprocess.run(
            ["tmux", "-S", str(self.socket), *args], capture_output=True, text=True, env=self.installed.env, timeout=30
        )
        assert done.returncode == 0, done.stderr
        return done.stdout

    def start(self, command: str) -> None:
        self("new-session", "-d", "-x", "120", "-y", "30", "-s", "panel", command)
        self("set-option", "-t", "panel", "remain-on-exit", "on")

    def wait_for(self, *texts: str) -> str:
        deadline = time.monotonic() + SCREEN_TIMEOUT_S
        screen = ""
        while time.monotonic() < deadline:
            screen = self("capture-pane", "-p", "-t", "panel")
            if all(text in screen for text in texts):
                return screen
            time.sleep(0.2)
        raise AssertionError(f"never showed {texts}:\n{screen}")

    def kill(self) -> None:
        subprocess.run(
            ["tmux", "-S", str(self.socket), "kill-server"], capture_output=True, timeout=30, env=self.installed.env
        )


@pytest.mark.skipif(shutil.which("tmux") is None, reason="tmux is not installed (scripts/test installs it)")
def test_the_installed_wheel_runs_the_panel_lists_installs_hooks_and_records_an_event(installed: Installed) -> None:
    where = subprocess.run(
        [str(installed.venv / "bin" / "python"), "-c", "import lunavect; print(lunavect.__file__)"],
        capture_output=True,
        text=True,
        env=installed.env,
        cwd=installed.home,
        check=True,
    )
    assert where.stdout.startswith(str(installed.venv)), where.stdout  # not the checkout
    assert installed.run("--version").stdout.strip() == f"lunavect, version {lunavect.__version__}"

    # The main job, as the README's quick start runs it: `lunavect` with no command opens the panel.
    tmux = Tmux(installed)
    try:
        tmux.start(installed.lunavect)
        screen = tmux.wait_for("0 working", "awaiting input", "No sessions yet.", "Claude Code hooks: missing.")
        assert "Traceback" not in screen, screen
    finally:
        tmux.kill()

    assert json.loads(installed.run("list", "--json").stdout) == []

    installed.run("hooks", "install", *client_ids())
    status = installed.run("hooks", "status").stdout
    assert "installed" in status, status
    settings = json.loads((installed.home / ".claude" / "settings.json").read_text())
    (group,) = settings["hooks"]["UserPromptSubmit"]
    (handler,) = group["hooks"]
    command = handler["command"]
    assert str(installed.venv) in command, command  # the installed interpreter and package, not the checkout

    # One real event, delivered as Claude Code delivers it: the command through a shell, the event on stdin.
    session_id = str(uuid.uuid4())
    project = installed.home / "project"
    project.mkdir()
    event = {
        "session_id": session_id,
        "hook_event_name": "UserPromptSubmit",
        "cwd": str(project),
        "transcript_path": str(installed.home / ".claude" / "projects" / "p" / f"{session_id}.jsonl"),
        "permission_mode": "default",
        "prompt": "build the thing",
    }
    hook = subprocess.run(
        ["/bin/sh", "-c", command],
        input=json.dumps(event),
        capture_output=True,
        text=True,
        env=installed.env,
        cwd=project,
        timeout=30,
    )
    assert (hook.returncode, hook.stdout, hook.stderr) == (0, "", "")

    rows = json.loads(installed.run("list", "--json").stdout)
    assert [(row["id"], row["cwd"]) for row in rows] == [(f"claude:{session_id}", str(project))], rows


@pytest.mark.skipif(shutil.which("bash") is None, reason="bash is not installed")
def test_a_fresh_install_answers_version_paths_and_completion(installed: Installed) -> None:
    assert installed.run("--version").stdout.strip() == f"lunavect, version {lunavect.__version__}"
    places = json.loads(installed.run("paths", "--json").stdout)
    assert places["data"] == installed.env["LUNAVECT_HOME"]
    assert "_lunavect_completion" in installed.run("completion", "bash").stdout
    assert (installed.venv / "share" / "man" / "man1" / "lunavect.1").is_file()


def test_the_installed_console_script_completes_in_bash(installed: Installed) -> None:
    """The completion script click writes for the installed `lunavect`, loaded into a real bash."""
    source = subprocess.run(
        [installed.lunavect],
        capture_output=True,
        text=True,
        timeout=60,
        cwd=installed.home,
        env={**installed.env, "_LUNAVECT_COMPLETE": "bash_source"},
    )
    assert source.returncode == 0 and "complete " in source.stdout, source.stdout + source.stderr
    probe = (
        'eval "$(_LUNAVECT_COMPLETE=bash_source lunavect)"; complete -p lunavect; '
        'COMP_WORDS=(lunavect hoo); COMP_CWORD=1; _lunavect_completion lunavect; printf "%s\\n" "${COMPREPLY[@]}"'
    )
    done = subprocess.run(
        ["bash", "--norc", "--noprofile", "-c", probe],
        capture_output=True,
        text=True,
        env=installed.env,
        cwd=installed.home,
        timeout=60,
    )
    assert done.returncode == 0, done.stderr
    lines = done.stdout.splitlines()
    assert lines[0].startswith("complete ") and lines[0].endswith(" lunavect"), done.stdout
    assert set(lines[1:]) == {"hook", "hooks"}, done.stdout


def test_the_installed_wheel_carries_the_web_panels_files_and_names_its_extra(installed: Installed) -> None:
    loaded = subprocess.run(
        [
            str(installed.venv / "bin" / "python"),
            "-c",
            "from lunavect.frontends.web import assets; print(' '.join(sorted(assets.load())))",
        ],
        capture_output=True,
        text=True,
        env=installed.env,
        cwd=installed.home,
        check=True,
    )
    expected = {"index.html", "locked.html", "app.js", "app.css", "manifest.webmanifest", "icon.svg"}
    assert expected | {"icon-192.png", "icon-512.png"} <= set(loaded.stdout.split())
    # Without the `web` extra, `lunavect web` says what to install, in one line.
    done = installed.run("web", check=False)
    assert done.returncode == 1 and "lunavect[web]" in done.stderr and "Traceback" not in done.stderr


def test_the_editor_companion_ships_in_the_wheel_and_the_installed_one_builds_it(
    dists: Dists, installed: Installed
) -> None:
    """`lunavect editors install` builds the companion from the installed package (src/lunavect/companions/)."""
    companion = ["package.json", "extension.js", "lib/channel.js", "lib/protocol.js"]
    with zipfile.ZipFile(dists.wheel) as wheel:
        names = set(wheel.namelist())
    assert [f for f in companion if f"lunavect/companions/vscode/{f}" not in names] == []
    with tarfile.open(dists.sdist) as sdist:
        in_sdist = {name.split("/", 1)[1] for name in sdist.getnames() if "/" in name}
    assert {f"src/lunavect/companions/vscode/{f}" for f in companion} <= in_sdist
    target = installed.home / "companion.vsix"
    build = (
        "import sys, pathlib; from lunavect.navigation.editors import companion; "
        "companion.build_vsix(pathlib.Path(sys.argv[1]), pathlib.Path(sys.argv[2]))"
    )
    done = subprocess.run(
        [
            str(installed.venv / "bin" / "python"),
            "-c",
            build,
            str(target),
            str(installed.home / "lunavect" / "editors"),
        ],
        capture_output=True,
        text=True,
        env=installed.env,
        timeout=60,
    )
    assert done.returncode == 0, done.stderr
    with zipfile.ZipFile(target) as vsix:
        assert {f"extension/{f}" for f in companion} <= set(vsix.namelist())
    assert "code-server: companion not installed" in installed.run("editors", "status").stdout
