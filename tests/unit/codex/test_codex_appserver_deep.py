"""A line nested too deep on the app-server's stdout is no answer, and the next line is read (issue 25: it
raised RecursionError out of the reader, and with it out of the catalog refresh). The app-server is played
by a scripted program on the real pipe, as the catalog's tests do."""

from __future__ import annotations

import stat
import sys
from pathlib import Path

import pytest

from lunavect.clients.codex.appserver import AppServer

DEEP_APP_SERVER = """#!{python}
import json, sys
deep = "[" * {depth} + "]" * {depth}
for line in sys.stdin:
    message = json.loads(line)
    if "id" not in message:
        continue
    sys.stdout.write('{{"id":%d,"result":{{"data":%s}}}}\\n' % (message["id"], deep))  # no answer: too deep
    sys.stdout.write(json.dumps({{"id": message["id"], "result": {{"userAgent": "codex/9.9"}}}}) + "\\n")
    sys.stdout.flush()
"""


@pytest.mark.process
@pytest.mark.parametrize("depth", [1100, 2000, 100_000])
def test_a_deep_line_is_no_answer_and_the_next_one_is(tmp_path: Path, depth: int) -> None:
    script = tmp_path / "codex"
    script.write_text(DEEP_APP_SERVER.format(python=sys.executable, depth=depth))
    script.chmod(script.stat().st_mode | stat.S_IXUSR)
    server = AppServer(str(script))
    try:
        assert server.start(timeout=10)["userAgent"] == "codex/9.9"
        assert server.request("thread/list", {}, timeout=10) == {"userAgent": "codex/9.9"}
    finally:
        server.close()
