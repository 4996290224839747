"""A real tmux server of a test's own, on a socket in a short folder of its own (a socket path must stay under
about 100 bytes, which pytest's folders do not), started with no configuration and killed at the end."""

from __future__ import annotations

import shutil
import subprocess
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path


class TmuxServer:
    def __init__(self, folder: Path, env: dict[str, str], config: str = "/dev/null") -> None:
        self.folder = folder
        self.socket = str(folder / "s")
        self.env = env
        # The server runs in `folder`: a `#(touch X)` that ran would leave X there.
        subprocess.run(
            ["tmux", "-S", self.socket, "-f", config, "new-session", "-d", "-s", "main", "-x", "200", "-y", "50"],
            env=env,
            cwd=folder,
            check=True,
            capture_output=True,
            timeout=10,
        )

    def __call__(self, *args: str, check: bool = True) -> str:
        # Bytes, decoded here: text mode would read a `\r` as a line break.
        proc = subprocess.run(["tmux", "-S", self.socket, *args], env=self.env, capture_output=True, timeout=10)
        if check:
            assert proc.returncode == 0, proc.stderr
        return proc.stdout.decode("utf-8", "surrogateescape").removesuffix("\n")

    @property
    def tmux_variable(self) -> str:
        """What `$TMUX` holds in a pane of this server's session: `<socket>,<server pid>,<session number>`."""
        pid = self("display-message", "-p", "-t", "main", "#{pid}")
        number = self("display-message", "-p", "-t", "main", "#{session_id}").lstrip("$")
        return f"{self.socket},{pid},{number}"

    def kill(self) -> None:
        subprocess.run(["tmux", "-S", self.socket, "kill-server"], env=self.env, capture_output=True, timeout=10)


@contextmanager
def tmux_server(env: dict[str, str], config: str = "/dev/null") -> Iterator[TmuxServer]:
    folder = Path(tempfile.mkdtemp(prefix="lv-tmux-", dir="/tmp"))
    server = TmuxServer(folder, env, config)
    try:
        yield server
    finally:
        server.kill()
        shutil.rmtree(folder, ignore_errors=True)
