"""Each client's face offers every member of `lunavect.faces.Face`, and its package's own modules never replace
one of them (importing `lunavect.codex.source` sets the package's `source` attribute to that module)."""

from __future__ import annotations

import importlib
import inspect
import pkgutil

import pytest

from lunavect import faces
from lunavect.core import clients

MEMBERS = sorted(name for name in dir(faces.Face) if not name.startswith("_") and name not in dir(object)) + ["CLIENT"]


@pytest.mark.parametrize("client", clients.every(), ids=lambda c: c.id)
def test_a_client_s_face_offers_every_member_even_once_its_modules_are_imported(client) -> None:
    package = importlib.import_module(client.package)
    for module in pkgutil.iter_modules(package.__path__):
        importlib.import_module(f"{client.package}.{module.name}")
    face = faces.of(client)
    assert face.CLIENT is client
    missing = [name for name in MEMBERS if not hasattr(face, name)]  # `faces.OPTIONAL` gave it what it left out
    shadowed = [name for name in MEMBERS if name != "CLIENT" and inspect.ismodule(getattr(face, name, None))]
    assert (missing, shadowed) == ([], [])
    assert all(callable(getattr(face, name)) for name in MEMBERS if name != "CLIENT")


def test_a_face_leaves_out_what_its_client_does_not_have_and_is_given_the_default() -> None:
    """A new client's face says only what its client has: no live catalog, no background job, no title state."""
    codex = faces.of(clients.CODEX)
    assert codex.live_catalog is faces.OPTIONAL["live_catalog"] and codex.read_title is faces.OPTIONAL["read_title"]
    assert codex.live_catalog() == () and codex.read_title("◇  Ready") is None
    assert faces.background_job("codex", "t1", None) is None  # type: ignore[arg-type]
    claude = faces.of(clients.CLAUDE)
    assert claude.live_catalog.__module__ == "lunavect.claude"  # its own, not the default


def test_a_client_lunavect_does_not_know_has_no_face_and_its_records_keep_the_shared_shape() -> None:
    from lunavect.evidence.spool_record import SpoolRecord

    assert faces.by_id("another") is None
    record = SpoolRecord(client="another", t=1000.0, event="Stop", session="s1")
    evidence = faces.evidence_from_record(record)
    assert evidence is not None and (evidence.provider, evidence.kind) == ("another", "Stop")
    assert faces.live_catalog("another") == () and faces.find_conversation("another", "s1") is None
