"""The collector runs all day: what it loads at its start it keeps. Offering the editor companion (whose package
manifest is XML) once loaded xml.sax.saxutils, and with it urllib.request, http.client and OpenSSL, which no part
of a collector without sync uses."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest


@pytest.mark.process
def test_the_collector_loads_no_http_client_nor_openssl() -> None:
    script = "import sys, json; import lunavect.collector.loop; print(json.dumps(sorted(sys.modules)))"
    proc = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=60, check=True)
    modules = set(json.loads(proc.stdout))
    assert not {"ssl", "_ssl", "http.client", "urllib.request", "xml.sax.saxutils"} & modules
