"""Looking at this machine's clients for the setup report: are their hooks installed, are they here at all.

Only the collector (every `PROBE_EVERY_S`) and the command line call this: it reads each client's settings and
PATH (it never starts Codex to verify hook trust), which is the clients' business, not a front end's.
"""

from __future__ import annotations

import shutil

from lunavect import paths
from lunavect.claude import install as claude_install
from lunavect.codex import install as codex_install
from lunavect.collector.setup_report import SetupReport

PROBE_EVERY_S = 5.0


def probe() -> SetupReport:
    claude = shutil.which("claude") is not None or paths.claude_config_dir().exists()
    codex = shutil.which("codex") is not None or paths.codex_home().exists()
    return SetupReport(
        claude_hooks=claude_install.status().state,
        claude_found=claude,
        codex_found=codex,
        codex_hooks=codex_install.status(verify=False).state,
    )
