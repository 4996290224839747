"""ccusage, the peer people already check their tokens with, pinned as the clients are, and a history of real files
both it and lunavect read.

- :func:`ensure_ccusage`: `ccusage@20.0.24` from npm (the newest whose native binary the registry serves), installed
  once per machine into ``$LUNAVECT_CLIENTS_DIR/ccusage`` under a file lock, as scripts/test installs it.
- :func:`ccusage`: one of its JSON reports over an isolated HOME, offline (its prices cached in the package, never
  fetched), grouped in a given time zone.
- :func:`lay_out_history`: shared/data's real transcripts and rollouts where the clients write them, each Claude
  transcript named by its session id as Claude Code names it (some are published under a short name), its
  sub-agents' files beside it.
"""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path

from claude_tmux import CLIENTS_DIR, ClientsMissing, _file_lock
from unit_support import shared_data_dir

CCUSAGE_VERSION = "20.0.24"
CCUSAGE_DIR = CLIENTS_DIR / "ccusage"
DATA = shared_data_dir()


def find_ccusage(root: Path = CCUSAGE_DIR) -> Path | None:
    """The pinned `ccusage` command with its native binary, or None."""
    command = root / "node_modules" / ".bin" / "ccusage"
    try:
        version = json.loads((root / "node_modules" / "ccusage" / "package.json").read_text())["version"]
    except (OSError, ValueError, KeyError):
        return None
    native = list((root / "node_modules" / "@ccusage").glob("ccusage-*"))
    return command if version == CCUSAGE_VERSION and native and command.exists() else None


def ensure_ccusage(root: Path = CCUSAGE_DIR, timeout: float = 900) -> Path:
    with _file_lock(root.parent / (root.name + ".lock")):
        found = find_ccusage(root)
        if found is None:
            npm = shutil.which("npm")
            if not npm:
                raise ClientsMissing(f"ccusage {CCUSAGE_VERSION} is not in {root} and npm is not on PATH")
            root.mkdir(parents=True, exist_ok=True)
            if not (root / "package.json").exists():  # keep npm from adopting a parent project
                (root / "package.json").write_text(json.dumps({"name": "lunavect-test-ccusage", "private": True}))
            cmd = [npm, "install", "--no-audit", "--no-fund", "--ignore-scripts", "--save-exact"]
            with open(root / "npm.log", "ab") as log:
                proc = subprocess.run(
                    [*cmd, f"ccusage@{CCUSAGE_VERSION}"],
                    cwd=root,
                    stdout=log,
                    stderr=subprocess.STDOUT,
                    timeout=timeout,
                )
            found = find_ccusage(root)
            if proc.returncode != 0 or found is None:
                raise ClientsMissing(f"installing ccusage {CCUSAGE_VERSION} failed in {root}; see npm.log")
        return found


def ccusage(command: Path, env: dict[str, str], tz: str, *report: str) -> dict:
    """One report (`claude session`, `codex daily`, `daily`, ...) as JSON: only the iso HOME's folders, no network."""
    names = ("PATH", "HOME", "CLAUDE_CONFIG_DIR", "CODEX_HOME", "GEMINI_CLI_HOME", "XDG_CONFIG_HOME", "XDG_DATA_HOME")
    only = {k: env[k] for k in names if k in env}
    proc = subprocess.run(
        [str(command), *report, "--json", "--offline", "--timezone", tz],
        env={**only, "TZ": tz, "NO_COLOR": "1"},
        capture_output=True,
        text=True,
        timeout=120,
        stdin=subprocess.DEVNULL,
        check=False,
    )
    assert proc.returncode == 0, proc.stderr
    return json.loads(proc.stdout)


def session_of(path: Path) -> str:
    for line in path.read_bytes().splitlines():
        session = json.loads(line).get("sessionId")
        if session:
            return str(session)
    raise AssertionError(f"no session id in {path}")


def lay_out_history(claude: Path, codex: Path) -> tuple[list[str], list[str]]:
    """The real files in the clients' folders; the Claude session ids and the Codex rollouts' ids placed."""
    claude_ids = []
    for source in sorted((DATA / "claude").glob("*/*.jsonl")):
        session = session_of(source)
        project = claude / "projects" / f"-home-USER-{source.parent.name}"
        project.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(source, project / f"{session}.jsonl")
        agents = source.parent / source.stem / "subagents"
        if agents.is_dir():
            shutil.copytree(agents, project / session / "subagents")
        claude_ids.append(session)
    codex_ids = []
    for source in sorted((DATA / "codex").rglob("rollout-*.jsonl")):
        day = source.name.removeprefix("rollout-")[:10].replace("-", "/")
        folder = codex / "sessions" / day
        folder.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(source, folder / source.name)
        codex_ids.append(source.stem[-36:])
    return claude_ids, codex_ids
