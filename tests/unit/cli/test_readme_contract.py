"""The docs' `--json` field table (docs/commands.md) is the contract's documentation: it names every field `lunavect list
--json` prints, and no field it does not print, in the order the Session type prints them."""

from __future__ import annotations

import re

import msgspec
from docs_support import page

from lunavect.core.model import Session


def documented_fields() -> list[str]:
    text = page("commands.md")
    start = text.index("`lunavect list --json` prints one object per session")
    table = text[start:].split("\n\n")[1]
    rows = [line for line in table.splitlines() if line.startswith("| `")]
    return [re.match(r"\| `([a-z_]+)` \|", row).group(1) for row in rows]


def printed_fields() -> list[str]:
    """The keys of one session as the contract encodes it (every field, defaults included)."""
    required = {field.name: None for field in msgspec.structs.fields(Session) if field.required}
    return list(msgspec.json.decode(msgspec.json.encode(Session(**required))))


def test_the_readme_documents_every_printed_field_in_order():
    assert documented_fields() == printed_fields()


def test_the_printed_fields_are_the_session_type():
    assert printed_fields() == list(Session.__struct_fields__)
