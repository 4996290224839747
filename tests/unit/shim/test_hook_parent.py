"""A client whose runtime is a script of an interpreter (Gemini CLI: `node …/bin/gemini`, which relaunches itself
as a child `node …/bin/gemini`, the session) has no process name of its own: the shim takes the nearest ancestor
of the interpreter's name (`Client.hook_parent`), since a hook is the runtime's own child. Nothing else takes a
process of that name for the client."""

from __future__ import annotations

import json
import os
import shlex
import subprocess
import sys
import textwrap

import pytest
from unit_support import installed_hook_command

from lunavect.core import clients
from lunavect.host.processes import Proc
from lunavect.shim import procfacts


@pytest.mark.process
def test_the_nearest_interpreter_ancestor_is_the_session_not_its_launcher(iso_env):
    bin_dir = iso_env.root / "bin"
    bin_dir.mkdir()
    node = bin_dir / "node"
    node.symlink_to(sys.executable)  # the kernel names each process after the path it ran: "node"
    hook = shlex.join(installed_hook_command("gemini"))
    payload = json.dumps({"hook_event_name": "BeforeAgent", "session_id": "s-1", "cwd": "/w", "prompt": "p"})
    child = textwrap.dedent(
        f"""
        import os, subprocess
        subprocess.run(["/bin/sh", "-c", {hook!r}], input={payload!r}.encode(), check=True)
        print(os.getpid(), flush=True)
        """
    )
    launcher = textwrap.dedent(
        f"""
        import os, subprocess, sys
        out = subprocess.run([{str(node)!r}, "-I", "-S", "-c", {child!r}], capture_output=True, check=True).stdout
        print(os.getpid(), out.decode().strip(), flush=True)
        """
    )
    proc = subprocess.run(
        [str(node), "-I", "-S", "-c", launcher], env=iso_env.env, capture_output=True, timeout=30, check=True
    )
    launcher_pid, child_pid = (int(word) for word in proc.stdout.decode().split())
    (record,) = iso_env.spool_records()
    assert record["pid"] == child_pid != launcher_pid
    assert os.getpid() not in (launcher_pid, child_pid)


def test_the_interpreter_is_the_shims_name_only_for_its_client():
    assert procfacts.process_names("gemini") == ("node",)
    assert procfacts.process_names("claude") == ("claude",)
    assert clients.by_process("node") is None
    assert Proc(1, 0, "node", "node").runtime is None
