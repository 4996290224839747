"""The pinned clients that are plain npm packages (Pi, Qwen Code): each installed once per machine into a folder
of its own under ``$LUNAVECT_CLIENTS_DIR`` (as scripts/test lays them out), under a file lock, in the real
environment."""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path

from claude_tmux import ClientsMissing, _file_lock


def installed(root: Path, package: str, version: str, command: str) -> Path | None:
    """`node_modules/.bin/<command>` when `package` at `version` is installed in `root`, else None."""
    bin_path = root / "node_modules" / ".bin" / command
    try:
        found = json.loads((root / "node_modules" / package / "package.json").read_text())["version"]
    except (OSError, ValueError, KeyError):
        return None
    return bin_path if found == version and bin_path.exists() else None


def ensure(root: Path, package: str, version: str, command: str, *, name: str, timeout: float = 1800) -> Path:
    """The pinned client's command, installed from npm once (`--ignore-scripts`: none needs its install script)."""
    found = installed(root, package, version, command)
    if found:
        return found
    with _file_lock(root.parent / (root.name + ".lock")):
        found = installed(root, package, version, command)
        if found:
            return found
        npm = shutil.which("npm")
        if not npm:
            raise ClientsMissing(f"{name} {version} is not in {root} and npm is not on PATH")
        root.mkdir(parents=True, exist_ok=True)
        if not (root / "package.json").exists():  # keep npm from adopting a parent project
            (root / "package.json").write_text(json.dumps({"name": f"lunavect-test-{root.name}", "private": True}))
        cmd = [npm, "install", "--no-audit", "--no-fund", "--ignore-scripts", "--save-exact", f"{package}@{version}"]
        with open(root / "npm.log", "ab") as log:
            proc = subprocess.run(cmd, cwd=root, stdout=log, stderr=subprocess.STDOUT, timeout=timeout)
        found = installed(root, package, version, command)
        if proc.returncode != 0 or found is None:
            raise ClientsMissing(f"`{' '.join(cmd)}` failed in {root} (exit {proc.returncode}); see npm.log")
        return found
