"""The notification escaper (`notify.markup`): the body is markup-escaped for a freedesktop server, the title
is plain text; both lose their control characters and are cut."""

from __future__ import annotations

import html

from lunavect.notify.markup import BODY_CHARS, TITLE_CHARS, body_text, title_text


def test_the_body_is_escaped_for_markup_and_keeps_its_lines() -> None:
    body = "a <b>b</b> & &amp; <a href='x'>l</a>\nsecond\x1b]0;t\x07"
    escaped = body_text(body, markup=True)
    assert "<" not in escaped and ">" not in escaped and "&amp;amp;" in escaped
    assert html.unescape(escaped) == "a <b>b</b> & &amp; <a href='x'>l</a>\nsecond\\x1b]0;t\\x07"
    assert body_text(body, markup=False) == "a <b>b</b> & &amp; <a href='x'>l</a>\nsecond\\x1b]0;t\\x07"


def test_the_title_is_plain_text_on_one_line_and_both_are_cut() -> None:
    assert title_text("<b>x</b> & y\nz") == "<b>x</b> & y\\x0az"
    assert len(title_text("t" * 100_000)) == TITLE_CHARS
    assert len(body_text("b" * 100_000, markup=False)) == BODY_CHARS
