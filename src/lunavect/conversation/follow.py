"""Following a conversation as it grows: each poll reads only the bytes appended since the last one and
reports only the messages that are new or changed (a call whose result arrived), with flat memory.

The follower holds the latest window's messages (at most `messages`) and the file's cursor
(lunavect.files.tail): a file replaced, cut shorter or rewritten before the cursor is read again as a new window,
and the poll says so (`reset`), so a viewer redraws everything once.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field

from lunavect.conversation.assemble import Assembly
from lunavect.conversation.message import Message
from lunavect.conversation.source import Source
from lunavect.conversation.window import DEFAULT_MESSAGES, read_assembled
from lunavect.conversation.window_parts import MAX_LINE_BYTES, Unreadable, parts_of
from lunavect.files.tail import TailFile, open_regular

# Appended bytes are read in chunks of this size, so a large append never sits in memory whole.
CHUNK_BYTES = 1024 * 1024


@dataclass
class Update:
    changed: list[Message] = field(default_factory=list)
    reset: bool = False
    bytes_read: int = 0
    # Lines skipped unread since the last poll (too long, not JSON, nested too deep): said, never raised.
    skipped: int = 0


class Follower:
    def __init__(self, source: Source, messages: int = DEFAULT_MESSAGES) -> None:
        self.source = source
        self.limit = messages
        self.assembly = Assembly()
        self.dev = self.ino = self.offset = 0
        self.head = self.mark = ""
        self.started = False
        # A compressed rollout is finished: it is read again only when the file itself changed (a stream of
        # records its client keeps elsewhere: when their signature changed).
        self.signature: object = None
        # The line being appended is longer than MAX_LINE_BYTES: its bytes are passed over up to its newline.
        self.passing_over = False
        self.skipped = 0

    @property
    def messages(self) -> list[Message]:
        return self.assembly.messages

    def _restart(self) -> Update:
        window, self.assembly = read_assembled(self.source, messages=self.limit)
        self.dev, self.ino, self.offset, self.head, self.mark = (
            window.dev,
            window.ino,
            window.end,
            window.head,
            window.mark,
        )
        self.started, self.passing_over = True, False
        return Update(list(window.messages), reset=True, bytes_read=window.bytes_read, skipped=window.skipped)

    def poll(self) -> Update:
        """What changed since the last poll (the first poll is the latest window, as a reset)."""
        if not self.started:
            return self._restart()
        if self.source.streamed:
            return self._poll_compressed()
        try:
            fd = open_regular(self.source.path)
        except OSError as exc:
            raise Unreadable(f"cannot read {self.source.path}: {exc.strerror or exc}") from None
        try:
            tf = TailFile(fd)
            st = os.fstat(fd)
            if not tf.resumes(st, self):
                return self._restart()
            if st.st_size <= self.offset:
                return Update(bytes_read=tf.bytes_read)
            self.skipped = 0
            end = self._read(tf, self.offset, st.st_size)
            if end <= self.offset:
                return Update(bytes_read=tf.bytes_read, skipped=self.skipped)
            self.offset = end
            self.head, self.mark = tf.marks(end)
            self.assembly.trim(self.limit)
            return Update(self.assembly.take_changed(), bytes_read=tf.bytes_read, skipped=self.skipped)
        finally:
            os.close(fd)

    def _poll_compressed(self) -> Update:
        """A stream is read again whole when its signature changed: a compressed file's identity, size and time,
        or what its client names (`Source.signature`)."""
        if self.source.signature is not None:
            signature: object = self.source.signature()
        else:
            try:
                st = os.stat(self.source.path)
            except OSError as exc:
                raise Unreadable(f"cannot read {self.source.path}: {exc.strerror}") from None
            signature = (st.st_ino, st.st_size, st.st_mtime_ns)
        if self.signature is None:
            self.signature = signature
        if signature == self.signature:
            return Update()
        self.signature = signature
        return self._restart()

    def _read(self, tf: TailFile, start: int, end: int) -> int:
        """Apply the complete lines in [start, end); where the last of them ends (a line still being
        written is read whole by a later poll). A line longer than MAX_LINE_BYTES is never held: once its
        start is that far behind, the reader passes over its bytes (and so does every later poll) to its
        newline, and counts it skipped."""
        at, carry = start, b""
        while at < end:
            chunk = tf.read(min(CHUNK_BYTES, end - at), at)
            if chunk is None:
                break
            at += len(chunk)
            if self.passing_over:
                newline = chunk.find(b"\n")
                if newline < 0:
                    continue
                self.passing_over, self.skipped = False, self.skipped + 1
                chunk = chunk[newline + 1 :]
            data = carry + chunk
            line_start = at - len(data)
            lines = data.split(b"\n")
            carry = lines.pop()
            for line in lines:
                parts = parts_of(self.source, line if len(line) <= MAX_LINE_BYTES else None, line_start)
                self.skipped += parts is None
                self.assembly.add(parts or ())
                line_start += len(line) + 1
            if len(carry) > MAX_LINE_BYTES:
                carry, self.passing_over = b"", True
            # Hold no more than a window's worth while a large append is read.
            self.assembly.trim(self.limit * 2)
        return at - len(carry)
