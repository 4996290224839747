"""What Codex's own catalog and session index say of each thread, as evidence: its metadata (title, folder,
client, rollout) whenever that changes, and the catalog's live statuses.

Kept apart from reading rollouts (rollout_read.py): a thread's metadata joins what its rollout says with what
the catalog and the session index say, and is sent once per change whichever of them changed it.
"""

from __future__ import annotations

import hashlib
from collections.abc import Mapping

from lunavect.clients.codex.catalog import Listing
from lunavect.clients.codex.rollout import SessionIndex
from lunavect.clients.codex.rollout_read import PROVIDER, Rollout, Summary
from lunavect.core.model import Evidence, session_key
from lunavect.core.rules import Facts
from lunavect.evidence.sources import Batch

# A thread the catalog saw updated this recently has its rollout followed even outside the recent day folders.
RECENT_S = 7 * 86400.0


class ThreadCatalog:
    """The catalog's and the session index's knowledge of threads, and the metadata evidence already sent."""

    def __init__(self, index: SessionIndex) -> None:
        self.index = index
        self.titles: dict[str, str] = {}
        self.meta: dict[str, tuple] = {}
        # Rollouts of threads the catalog saw updated within the discovery window, wherever they lie.
        self.paths: set[str] = set()
        self._sent: dict[str, str] = {}

    def meta_evidence(self, thread: str, batch: Batch, summary: Summary | None, path: str | None) -> None:
        """One metadata evidence whenever what is known of a thread (title, folder, client) changes.

        Its time is the thread's own (start or catalog update), never "now": reading metadata is no activity.
        """
        names = self.index.names
        catalog = self.meta.get(thread, (None, None, None, None))
        title = names.get(thread) or self.titles.get(thread) or (summary.prompt_title if summary else None)
        cwd = (summary.cwd if summary else None) or catalog[0]
        client = (summary.client if summary else None) or catalog[1]
        transcript = path or catalog[2]
        at = (summary.started if summary else None) or catalog[3]
        if at is None:
            return
        fields = (title, cwd, client, transcript)
        digest = hashlib.sha256(repr(fields).encode()).hexdigest()[:16]
        if self._sent.get(thread) == digest:
            return
        self._sent[thread] = digest
        batch.evidence.append(
            (
                f"codex-meta:{thread}:{digest}",
                Evidence(
                    provider=PROVIDER,
                    session_id=thread,
                    kind="RolloutMeta",
                    at=at,
                    source="rollout",
                    title=title,
                    cwd=cwd,
                    client=client,
                    transcript=transcript,
                ),
            )
        )

    def apply(
        self, listing: Listing, facts: Mapping[str, Facts], rollouts: Mapping[str, Rollout], batch: Batch, now: float
    ) -> None:
        """Take one finished catalog listing: internal threads, titles, metadata, live statuses, and the
        threads it no longer confirms (their runtime evidence loses authority)."""
        for thread in listing.threads.values():
            key = session_key(PROVIDER, thread.id)
            if thread.internal:
                batch.internal.add(key)
                continue
            if thread.title:
                self.titles[thread.id] = thread.title
            if thread.path and thread.updated_at and listing.finished_at - thread.updated_at < RECENT_S:
                self.paths.add(thread.path)
            self.meta[thread.id] = (thread.cwd, thread.client, thread.path, thread.updated_at)
            rollout = rollouts.get(thread.path) if thread.path else None
            self.meta_evidence(
                thread.id,
                batch,
                rollout.summary if rollout is not None else None,
                thread.path if rollout is not None else None,
            )
            if thread.status is not None:
                # A live status: only from a server that runs the thread.
                stamp = thread.updated_at or 0.0
                batch.evidence.append(
                    (
                        f"codex-catalog:{thread.id}:{thread.status}:{thread.waiting_for}:{stamp}",
                        Evidence(
                            provider=PROVIDER,
                            session_id=thread.id,
                            kind="CatalogThread",
                            at=listing.live_at if thread.live else now,
                            source="catalog",
                            status=thread.status,
                            waiting_for=thread.waiting_for,
                        ),
                    )
                )
        for thread_id in listing.unconfirmed:
            key = session_key(PROVIDER, thread_id)
            session = facts.get(key)
            if session is None or key in batch.internal:
                continue
            # The identity stays; its runtime evidence loses authority until fresh evidence arrives.
            confirmed = session.confirmed_at if session.confirmed_at is not None else session.last_event_at
            batch.evidence.append(
                (
                    f"codex-catalog:{thread_id}:unconfirmed:{confirmed}",
                    Evidence(
                        provider=PROVIDER, session_id=thread_id, kind="CatalogUnconfirmed", at=now, source="catalog"
                    ),
                )
            )
