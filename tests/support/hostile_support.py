"""What the tests of hostile text hold every output to: nothing in it that a terminal would obey."""

from __future__ import annotations


def acts_on_a_terminal(text: str) -> bool:
    """Whether a terminal would obey something in `text` rather than draw it."""
    return any(ord(c) < 0x20 and c != "\n" or 0x7F <= ord(c) <= 0x9F or c in "\u2028\u2029\u202e" for c in text)
