"""What a person types to add one of lunavect's extras, said once for every front end that needs one: with uv and
pipx (how the README installs lunavect, as a tool) and with pip, the extra's name quoted (zsh reads `[...]` as a
pattern)."""

from __future__ import annotations


def needs_extra(what: str, extra: str) -> str:
    """One line: `what` needs the extra `extra`, and the three ways to add it."""
    spec = f"'lunavect[{extra}]'"
    return (
        f"{what} needs lunavect's {extra} extra: uv tool install {spec}, pipx install --force {spec}"
        f" or pip install {spec}"
    )
