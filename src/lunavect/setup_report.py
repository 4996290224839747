"""Why the list is empty: are the hooks installed, which clients are here, what to run next.

A first-time person sees this instead of a blank list, in the panel and in `lunavect list` / `watch`. The
probe reads only settings files and PATH (it never starts Codex to verify hook trust); the report is a plain
value so tests can show the panel with a report of their choosing.
"""

from __future__ import annotations

import shutil
from dataclasses import dataclass

from lunavect import paths


@dataclass(frozen=True)
class SetupReport:
    claude_hooks: str  # installed | partial | stale | missing | unreadable
    claude_found: bool
    codex_found: bool
    codex_hooks: str = "missing"  # installed | untrusted | partial | stale | missing | unreadable


def probe() -> SetupReport:
    from lunavect.claude import install as claude_install
    from lunavect.codex import install as codex_install

    claude = shutil.which("claude") is not None or paths.claude_config_dir().exists()
    codex = shutil.which("codex") is not None or paths.codex_home().exists()
    return SetupReport(
        claude_hooks=claude_install.status().state,
        claude_found=claude,
        codex_found=codex,
        codex_hooks=codex_install.status(verify=False).state,
    )


def explain(report: SetupReport) -> list[str]:
    """The lines the empty panel shows."""
    lines = ["No sessions yet."]
    found = [name for name, present in (("Claude Code", report.claude_found), ("Codex", report.codex_found)) if present]
    lines.append("Clients found: " + (", ".join(found) if found else "none (neither `claude` nor `codex` is on PATH)"))
    if report.claude_hooks == "installed":
        lines.append("Claude Code hooks: installed.")
        lines.append("Start or continue a session in `claude`; it appears here as soon as it works.")
    else:
        lines.append(f"Claude Code hooks: {report.claude_hooks}.")
        lines.append("Run `lunavect hooks install`, then start or continue a session in `claude`.")
    if report.codex_hooks == "installed":
        lines.append("Codex hooks: installed. Codex sessions also appear from their rollouts, hooks or not.")
    elif report.codex_hooks == "untrusted":
        lines.append("Codex hooks: installed but not trusted yet: trust them in Codex's `/hooks`.")
    else:
        lines.append(f"Codex hooks: {report.codex_hooks}. Codex sessions still appear from their rollouts.")
    return lines
