"""One line per summary for each bar's own convention.

Every renderer returns exactly one line (no newline inside), so a persistent script (`status --follow`) gives
the bar one update per change. Titles are the person's own text: each format escapes what its bar would read
as markup (pango for waybar and i3blocks, `#[...]` for tmux, `%{...}` for polybar).
"""

from __future__ import annotations

import html
import json
from collections.abc import Callable

from lunavect.core.model import Session
from lunavect.frontends.rows import counts_text, label, waited
from lunavect.listing.attention import Summary
from lunavect.tmux_status.options import COLORS, short_text, status_text


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
            # Of the counts above, other machines' share (sync): a host's own word about its sessions.
            "working_elsewhere": summary.working_elsewhere,
            "awaiting_elsewhere": summary.awaiting_elsewhere,
            "urgent": entry(urgent) if urgent else None,
            "attention": [entry(s) for s in summary.attention],
            "notes": list(summary.notes),
        },
        ensure_ascii=False,
    )


def tooltip(summary: Summary) -> str:
    if not summary.attention:
        return f"lunavect: {summary.working} working, nothing needs you"
    return "\n".join(f"{label(s)} {waited(s)}".rstrip() for s in summary.attention)


def waybar(summary: Summary) -> str:
    """waybar's custom module with `return-type: json`: text, tooltip, class (and alt, for format-icons)."""
    return json.dumps(
        {
            "text": html.escape(short_text(summary), quote=False),
            "tooltip": html.escape(tooltip(summary), quote=False),
            "class": summary.level,
            "alt": summary.level,
        },
        ensure_ascii=False,
    )


def i3blocks(summary: Summary) -> str:
    """A persistent i3blocks block takes each line as its full_text; with `markup=pango` it carries the colour."""
    text = html.escape(short_text(summary), quote=True)
    return f"<span color='{COLORS[summary.level]}'>{text}</span>"


def polybar(summary: Summary) -> str:
    """polybar's `custom/script` with `tail = true`: each line is the label, `%{F#...}` colours it."""
    text = short_text(summary).replace("%{", "% {")
    return f"%{{F{COLORS[summary.level]}}}{text}%{{F-}}"


RENDERERS: dict[str, Callable[[Summary], str]] = {
    "plain": plain,
    "json": as_json,
    "tmux": status_text,
    "waybar": waybar,
    "i3blocks": i3blocks,
    "polybar": polybar,
}
FORMATS = tuple(RENDERERS)
