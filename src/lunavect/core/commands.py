"""Which background shell commands are long-lived services.

A dev server, a log follower or a tunnel never finishes, so it never wakes Claude again: counting it as
background work would keep a finished session "working" forever (the guide, "Background tasks in Claude").
The hook shim runs this on the command and keeps only the verdict; the command itself is never stored.

Standard library only: the hook shim imports this module on the agent's hot path.
"""

from __future__ import annotations

import re

# Each pattern matches one shell command segment (split on ;, &&, ||, |). They are searched, not anchored,
# so wrappers such as `cd web && npm run dev` or `FOO=1 uvicorn app:app` are recognised.
_SERVICE_PATTERNS = [
    # Package-manager scripts that conventionally run servers or watchers.
    r"\b(?:npm|pnpm|yarn|bun)\s+(?:run\s+)?(?:dev|start|serve|preview|watch)\b",
    r"\bnpx\s+(?:vite|next\s+dev|serve|http-server|live-server|nodemon|webpack\s+serve)\b",
    # Front-end dev servers.
    r"(?:^|[\s/])vite(?:\s+(?:dev|serve|preview))?\s*(?:$|--(?!.*\bbuild\b))",
    r"\bnext\s+(?:dev|start)\b",
    r"\bnuxt\s+dev\b",
    r"\bastro\s+dev\b",
    r"\bwebpack(?:-dev-server|\s+serve)\b",
    r"\bng\s+serve\b",
    r"\bnodemon\b",
    r"\bhttp-server\b",
    r"\blive-server\b",
    # Python servers.
    r"\bhttp\.server\b",
    r"\buvicorn\b",
    r"\bgunicorn\b",
    r"\bhypercorn\b",
    r"\bflask\s+run\b",
    r"\bmanage\.py\s+runserver\b",
    r"\bjupyter\s+(?:lab|notebook)\b",
    r"\bmkdocs\s+serve\b",
    # Other site generators and frameworks.
    r"\bjekyll\s+serve\b",
    r"\bhugo\s+serve(?:r)?\b",
    r"\brails\s+(?:s|server)\b",
    r"\bphp\s+-S\b",
    r"\bcargo\s+watch\b",
    r"\bair\b\s*$",
    # Followers.
    r"\btail\s+(?:-\w*\s+)*-[a-zA-Z]*[fF]",
    r"\blog\s+stream\b",
    r"\bjournalctl\b.*\s-[a-zA-Z]*f",
    r"\bkubectl\s+(?:logs\b.*\s-[a-zA-Z]*f|port-forward)\b",
    r"\bdocker\s+logs\b.*\s-[a-zA-Z]*f",
    r"--watch\b",
    r"(?:^|\s)-w\s*$",
    r"^\s*watch\s",
    # Tunnels.
    r"\bngrok\b",
    r"\bcloudflared\b",
    r"\blocaltunnel\b|\blt\s+--port\b",
    r"\bssh\b.*\s-[a-zA-Z]*N",
    # Waiting forever.
    r"\bsleep\s+infinity\b",
]
_SERVICE_RE = re.compile("|".join(f"(?:{p})" for p in _SERVICE_PATTERNS))
_COMPOSE_UP_RE = re.compile(r"\bdocker[\s-]compose\b.*\bup\b")
_DETACHED_RE = re.compile(r"(?:^|\s)(?:-d|--detach)\b")
_SEGMENT_SPLIT_RE = re.compile(r"&&|\|\||;|\|")


def is_long_lived_service(command: str) -> bool:
    """True when a background command is a server, follower or tunnel that never finishes on its own."""
    if not command:
        return False
    for segment in _SEGMENT_SPLIT_RE.split(command[:4096]):
        segment = segment.strip()
        if not segment:
            continue
        if _COMPOSE_UP_RE.search(segment) and not _DETACHED_RE.search(segment):
            return True
        if _SERVICE_RE.search(segment):
            return True
    return False
