"""Gemini CLI's older chat files, read as history: one JSON object per file, as versions before 0.39 wrote them.

`session-<YYYY-MM-DDTHH-MM>-<first 8 of the id>.json` holds the whole session: `{sessionId, projectHash,
startTime, lastUpdated, messages: [...], summary?, kind?}`, each message of the shape a line of today's JSONL
file has. Gemini CLI still reads them, and a resume rewrites one as `.jsonl` (the two are then one session:
the `.jsonl` is read, the `.json` left alone). The file is rewritten whole at every change, so it is read whole,
again, whenever it changes: its messages go through the same fold as the lines of a JSONL file (title, folder,
times, tokens), and a file of such a session still changing is left until it has been quiet for
`QUIET_S`: what an older client running now does is never shown as live, only what it did.
"""

from __future__ import annotations

import os

import msgspec

from lunavect.clients.gemini.chat_read import READER, ChatRead, Cursor, Summary, fold_lines
from lunavect.core import bounded_json
from lunavect.files.tail import TailFile, open_regular

# A whole chat file larger than this is no session Gemini CLI kept in memory and rewrote at each change.
MAX_BYTES = 64 << 20
# How long a file must be left unchanged before it is read: beyond any hook's or event's authority, so what it
# says is history, never a state of now.
QUIET_S = 600.0


class _Chat(msgspec.Struct):
    sessionId: object = None
    startTime: object = None
    kind: object = None
    summary: object = None
    messages: list[msgspec.Raw] = []


_chat = msgspec.json.Decoder(_Chat)
_encode = msgspec.json.Encoder().encode


class TooLarge(ValueError):
    """A file past `MAX_BYTES`: set aside, never read."""


def replaced(path: str) -> bool:
    """Whether a resume has rewritten this file as today's `.jsonl` beside it (the session is read from that)."""
    return os.path.exists(path + "l")


def quiet(st: os.stat_result, now: float) -> bool:
    return now - st.st_mtime >= QUIET_S


def read_legacy(path: str, cwd: str | None, now: float) -> ChatRead:
    """The whole file, as history. OSError when it cannot be read; TooLarge or msgspec.DecodeError when it is no
    chat file (the source sets it aside until it changes)."""
    fd = open_regular(path)
    try:
        st = os.fstat(fd)
        if st.st_size > MAX_BYTES:
            raise TooLarge(f"{st.st_size} bytes")
        tf = TailFile(fd)
        data = tf.read(st.st_size, 0) or b""
        head, mark = tf.marks(len(data))
        chat = bounded_json.decode(_chat, data)
        read = ChatRead(
            path,
            Cursor(st.st_dev, st.st_ino, len(data), head, mark, len(data), st.st_mtime_ns),
            Summary(),
            reader=READER,
            restarted=True,
        )
        fold_lines(read, _lines(chat), cwd, now)
        read.bytes_read = tf.bytes_read
        return read
    finally:
        os.close(fd)


def _lines(chat: _Chat) -> list[bytes]:
    """The file as the lines a JSONL file of the same session would hold: its metadata, its messages, its title."""
    meta = {"sessionId": chat.sessionId, "startTime": chat.startTime, "kind": chat.kind}
    lines = [_encode(meta), *(bytes(message) for message in chat.messages)]
    if isinstance(chat.summary, str):
        lines.append(_encode({"$set": {"summary": chat.summary}}))
    return lines
