"""What each client can tell, said the same from its descriptor everywhere: the README's table, doctor, a row's
detail and `list --json`."""

from __future__ import annotations

import pytest
from docs_support import page

from lunavect.core import clients, telling
from lunavect.core.clients import TELLS, Cli, Client, Process


def table() -> str:
    """The README's table of what each client can tell, as the descriptors say it."""
    every = clients.every()
    lines = [
        "| a row can show | " + " | ".join(client.name for client in every) + " |",
        "|---|" + "---|" * len(every),
    ]
    for what in TELLS:
        cells = [_cell(client, what) for client in every]
        lines.append(f"| {telling.WHAT[what]} | " + " | ".join(cells) + " |")
    return "\n".join(lines)


def _cell(client: Client, what: str) -> str:
    told = client.tells.get(what)
    if told is None:
        return telling.CANNOT
    return ", ".join(told) or telling.HAS_NONE


def test_the_readme_s_table_is_what_the_descriptors_say() -> None:
    """A client added, or a way of telling proven, changes its descriptor; this test then prints the table the
    README must hold."""
    expected = table()
    assert expected in page("clients.md"), "docs/clients.md must hold this table:\n" + expected


def _client(tells: dict[str, tuple[str, ...]]) -> Client:
    return Client(id="x", name="X CLI", label="X", package="x", cli=Cli("x"), process=Process(("x",)), tells=tells)


def test_a_client_that_cannot_report_a_wait_says_so_in_one_sentence() -> None:
    told = dict.fromkeys(("working", "tool", "ready", "error", "ended"), ("hook",))
    assert telling.cannot_tell(_client(told)) == ["background", "compacting", "permission", "input"]
    assert telling.cannot_tell_line(_client(told)) == (
        "X CLI cannot report background tasks, compaction, permission prompts or questions and forms."
    )
    assert telling.cannot_tell_line(_client(dict.fromkeys(TELLS, ("hook",)))) is None
    assert (
        telling.ways(_client(told), "working") == "hooks" and telling.ways(_client(told), "input") == "cannot be known"
    )


def test_what_a_client_has_none_of_is_no_gap_in_what_it_reports() -> None:
    """Pi asks no permission: its rows never wait for one, which is no blind spot of lunavect's."""
    told = {**dict.fromkeys(("working", "tool", "ready", "error", "ended"), ("hook",)), "permission": ()}
    assert "permission" not in telling.cannot_tell(_client(told))
    assert telling.ways(_client(told), "permission") == "has none"


def test_a_descriptor_names_only_what_a_row_can_tell_and_ways_lunavect_knows() -> None:
    with pytest.raises(ValueError, match="unknown in tells"):
        _client({"working": ("telepathy",)})
    with pytest.raises(ValueError, match="unknown in tells"):
        _client({"mood": ("hook",)})


def test_every_client_tells_at_least_whether_it_works_and_ended() -> None:
    for client in clients.every():
        assert {"working", "ended"} <= set(client.tells), client
