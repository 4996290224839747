"""One line per summary for each bar's own convention.

Every renderer returns exactly one line (no newline inside), so a persistent script (`status --follow`) gives
the bar one update per change. Titles are the person's own text: each format escapes what its bar would read
as markup (pango for waybar and i3blocks, `#[...]` for tmux, `%{...}` for polybar).
"""

from __future__ import annotations

import datetime as _dt
import html
import json
from collections.abc import Callable

from lunavect.core.model import Session
from lunavect.frontends.bar.summary import Summary
from lunavect.sessions import epoch

FORMATS = ("plain", "json", "tmux", "waybar", "i3blocks", "polybar")

# Colours per level, shared by the bars that take a colour.
COLORS = {"awaiting": "#e5a50a", "error": "#e01b24", "working": "#3584e4", "idle": "#9a9996"}


def waited(session: Session, now: float | None = None) -> str:
    """How long a session has been in its state, in the list's short units."""
    since = epoch(session.since) or epoch(session.updated)
    if since is None:
        return ""
    now = _dt.datetime.now(_dt.UTC).timestamp() if now is None else now
    seconds = max(0, int(now - since))
    if seconds < 60:
        return f"{seconds}s"
    if seconds < 3600:
        return f"{seconds // 60}m"
    if seconds < 86400:
        return f"{seconds // 3600}h{seconds % 3600 // 60:02d}m"
    return f"{seconds // 86400}d"


def label(session: Session) -> str:
    """A session as one short line: state, title or project, and the client."""
    name = (session.title or session.project or session.session_id[:8]).replace("\n", " ").strip()
    if len(name) > 48:
        name = name[:47] + "…"
    return f"{session.state}: {name} ({session.provider})"


def counts_text(summary: Summary) -> str:
    parts = [f"working {summary.working}", f"awaiting {summary.awaiting_input}"]
    if summary.errors:
        parts.append(f"errors {summary.errors}")
    return " · ".join(parts + list(summary.notes))


def plain(summary: Summary) -> str:
    text = counts_text(summary)
    urgent = summary.urgent
    if urgent is not None:
        text += f" · {label(urgent)} {waited(urgent)}".rstrip()
    return text


def as_json(summary: Summary) -> str:
    def entry(session: Session) -> dict[str, object]:
        return {
            "id": session.id,
            "state": str(session.state),
            "title": session.title,
            "project": session.project,
            "since": session.since,
            "hidden": session.hidden,
        }

    urgent = summary.urgent
    return json.dumps(
        {
            "working": summary.working,
            "awaiting_input": summary.awaiting_input,
            "errors": summary.errors,
            "urgent": entry(urgent) if urgent else None,
            "attention": [entry(s) for s in summary.attention],
            "notes": list(summary.notes),
        },
        ensure_ascii=False,
    )


def _short(summary: Summary) -> str:
    """The compact counts the bars show: ⚙ working, ⏳ awaiting, ✗ errors (only when there are some)."""
    parts = [f"⚙ {summary.working}", f"⏳ {summary.awaiting_input}"]
    if summary.errors:
        parts.append(f"✗ {summary.errors}")
    return "  ".join(parts + list(summary.notes))


def tooltip(summary: Summary) -> str:
    if not summary.attention:
        return f"lunavect: {summary.working} working, nothing needs you"
    return "\n".join(f"{label(s)} {waited(s)}".rstrip() for s in summary.attention)


def tmux(summary: Summary) -> str:
    text = _short(summary).replace("#", "##")
    return f"#[fg={COLORS[summary.level]}]{text}#[default]"


def waybar(summary: Summary) -> str:
    """waybar's custom module with `return-type: json`: text, tooltip, class (and alt, for format-icons)."""
    return json.dumps(
        {
            "text": html.escape(_short(summary), quote=False),
            "tooltip": html.escape(tooltip(summary), quote=False),
            "class": summary.level,
            "alt": summary.level,
        },
        ensure_ascii=False,
    )


def i3blocks(summary: Summary) -> str:
    """A persistent i3blocks block takes each line as its full_text; with `markup=pango` it carries the colour."""
    text = html.escape(_short(summary), quote=True)
    return f"<span color='{COLORS[summary.level]}'>{text}</span>"


def polybar(summary: Summary) -> str:
    """polybar's `custom/script` with `tail = true`: each line is the label, `%{F#...}` colours it."""
    text = _short(summary).replace("%{", "% {")
    return f"%{{F{COLORS[summary.level]}}}{text}%{{F-}}"


RENDERERS: dict[str, Callable[[Summary], str]] = {
    "plain": plain,
    "json": as_json,
    "tmux": tmux,
    "waybar": waybar,
    "i3blocks": i3blocks,
    "polybar": polybar,
}
