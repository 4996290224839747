"""ensure_clients() installs the pinned clients once, even with parallel workers (fake npm; fast)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from claude_tmux import CLAUDE_VERSION, CODEX_VERSION, GEMINI_VERSION, NPM_PACKAGES, find_clients

FAKE_NPM = f"""#!/bin/sh
# records its arguments, then lays out what `npm install` of the pinned clients leaves behind
echo "$@" >> "$FAKE_NPM_LOG"
sleep 1
mkdir -p node_modules/@anthropic-ai/claude-code node_modules/@anthropic-ai/claude-code-linux-x64 \\
         node_modules/@openai/codex node_modules/@google/gemini-cli node_modules/.bin
echo '{{"version": "{CLAUDE_VERSION}"}}' > node_modules/@anthropic-ai/claude-code/package.json
echo '{{"version": "{CODEX_VERSION}"}}' > node_modules/@openai/codex/package.json
echo '{{"version": "{GEMINI_VERSION}"}}' > node_modules/@google/gemini-cli/package.json
printf '#!/bin/sh\\necho fake\\n' > node_modules/@anthropic-ai/claude-code-linux-x64/claude
chmod +x node_modules/@anthropic-ai/claude-code-linux-x64/claude
"""


def test_ensure_clients_installs_once_under_a_lock(tmp_path: Path):
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    npm = bin_dir / "npm"
    npm.write_text(FAKE_NPM)
    npm.chmod(0o755)
    target = tmp_path / "clients"
    log = tmp_path / "npm-calls.log"
    env = dict(
        os.environ, PATH=f"{bin_dir}:{os.environ['PATH']}", FAKE_NPM_LOG=str(log), LUNAVECT_CLIENTS_DIR=str(target)
    )
    code = (
        "import sys; sys.path.insert(0, sys.argv[1]); import claude_tmux as c; p = c.ensure_clients(); print(p.claude)"
    )
    here = str(Path(__file__).resolve().parents[1] / "support")  # where the harness lives
    procs = [
        subprocess.Popen([sys.executable, "-c", code, here], env=env, stdout=subprocess.PIPE, text=True)
        for _ in range(3)
    ]
    outs = [p.communicate(timeout=60)[0].strip() for p in procs]

    assert all(p.returncode == 0 for p in procs)
    calls = log.read_text().splitlines()
    assert len(calls) == 1, calls
    assert calls[0].split() == ["install", "--no-audit", "--no-fund", "--ignore-scripts", *NPM_PACKAGES]
    found = find_clients(target)
    assert found is not None and outs == [str(found.claude)] * 3
    assert (target / "package.json").exists()  # npm must not adopt a parent project


def test_scripts_test_installs_the_clients_the_harness_pins():
    script = (Path(__file__).resolve().parents[2] / "scripts" / "test").read_text()
    for name, version in (("CLAUDE_CODE", CLAUDE_VERSION), ("CODEX", CODEX_VERSION), ("GEMINI_CLI", GEMINI_VERSION)):
        assert f"\n{name}_VERSION={version}\n" in script, name


def test_scripts_test_installs_the_opencode_the_harness_pins():
    from opencode_harness import OPENCODE_VERSION

    script = (Path(__file__).resolve().parents[2] / "scripts" / "test").read_text()
    assert f"\nOPENCODE_VERSION={OPENCODE_VERSION} " in script and '"opencode-ai@$OPENCODE_VERSION"' in script


def test_scripts_test_installs_the_qwen_code_the_harness_pins():
    from qwen_harness import PACKAGE, QWEN_VERSION

    script = (Path(__file__).resolve().parents[2] / "scripts" / "test").read_text()
    assert f"\nQWEN_VERSION={QWEN_VERSION} " in script and f'"{PACKAGE}@$QWEN_VERSION"' in script
    assert 'qwen_dir="$LUNAVECT_CLIENTS_DIR/qwen"' in script  # the folder the harness looks in
