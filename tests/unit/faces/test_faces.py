"""Each client's face is an instance of a `lunavect.clients.Face` subclass, found from its descriptor; what a
client leaves out is the base's default, never something patched onto its package."""

from __future__ import annotations

import importlib
import pkgutil

import pytest

from lunavect import clients
from lunavect.core import clients as descriptors


@pytest.mark.parametrize("client", descriptors.every(), ids=lambda c: c.id)
def test_a_client_s_face_is_its_package_s_face_object_even_once_its_modules_are_imported(client) -> None:
    package = importlib.import_module(client.package)
    for module in pkgutil.iter_modules(package.__path__):
        importlib.import_module(f"{client.package}.{module.name}")
    face = clients.face(client)
    assert isinstance(face, clients.Face) and face is package.FACE
    assert face.CLIENT is client
    assert not getattr(type(face), "__abstractmethods__", None)


def test_a_face_leaves_out_what_its_client_does_not_have_and_is_given_the_default() -> None:
    """A new client's face says only what its client has: no live catalog, no background job, no title state."""
    codex = clients.face(descriptors.CODEX)
    assert type(codex).live_catalog is clients.Face.live_catalog and type(codex).read_title is clients.Face.read_title
    assert codex.live_catalog() == () and codex.read_title("◇  Ready") is None
    assert clients.background_job("codex", "t1", None) is None  # type: ignore[arg-type]
    claude = clients.face(descriptors.CLAUDE)
    assert type(claude).live_catalog is not clients.Face.live_catalog  # its own, not the default


def test_a_client_lunavect_does_not_know_has_no_face_and_its_records_keep_the_shared_shape() -> None:
    from lunavect.evidence.spool_record import SpoolRecord

    assert clients.face_of("another") is None
    record = SpoolRecord(client="another", t=1000.0, event="Stop", session="s1")
    evidence = clients.evidence_from_record(record)
    assert evidence is not None and (evidence.provider, evidence.kind) == ("another", "Stop")
    assert clients.live_catalog("another") == () and clients.find_conversation("another", "s1") is None
