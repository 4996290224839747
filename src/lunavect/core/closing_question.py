"""Does a reply close with a decision question for its person?

"Shall I apply these changes?" at the end of a reply means the session waits for its person even though the
client reports nothing but a finished turn. This is a deliberately conservative inference from selected
English, Russian and German wording (the guide, "Closing questions from Claude"): only a *decision* put to the
person counts (a question, or "Would you like me to:" followed by the options). A pleasantry ("Anything
else?"), a rhetorical question, a question inside a code block or a quotation, and unknown wording all stay
"response ready". The hook shim runs it on `Stop.last_assistant_message` and keeps only the verdict.

Standard library only, and no `re`: the hook shim runs this on the agent's hot path, where importing and
compiling regular expressions would cost more than the rest of the shim. Phrases are matched as sequences of
whole words instead. The wording itself lives in `closing_phrases` so that the rules here stay readable.
"""

from __future__ import annotations

from lunavect.core.closing_phrases import (
    ABBREVIATIONS,
    DECISION_PHRASES,
    END_VERBS_DE,
    FILLERS,
    LEADING_FILLERS,
    NOT_A_DECISION,
    NOT_DECISION_STARTS,
    NOT_INFINITIVES_RU,
    PLEASANTRIES,
    START_VERBS_EN,
)

# Only the tail of a reply can hold its closing question (with its options); looking further back would find
# questions the reply went on to answer itself.
_TAIL_CHARS = 2400

_FENCES = ("```", "~~~")
_QUOTES = "\"'«»“”„‘’‚`"
_SENTENCE_ENDS = ".!?…"
_BULLETS = "-*•+–"
# Characters kept at the end of a sentence because they say what it is; anything else that is not a letter or
# digit (markdown emphasis, emoji, spaces) is decoration.
_MEANINGFUL_ENDS = set(_SENTENCE_ENDS + ":)" + _QUOTES)


def _phrase_groups(phrase: str | tuple[str, ...]) -> tuple[tuple[str, ...], ...]:
    parts = (phrase,) if isinstance(phrase, str) else phrase
    return tuple(tuple(part.split()) for part in parts)


_DECISIONS = [_phrase_groups(p) for p in DECISION_PHRASES]
_PLEASANTRIES = [_phrase_groups(p) for p in PLEASANTRIES]
_NOT_DECISIONS = [_phrase_groups(p) for p in NOT_A_DECISION]


def _words(sentence: str) -> list[str]:
    """Lowercase words; an apostrophe inside a word (you'd) belongs to it, other punctuation separates."""
    chars = []
    for char in sentence.lower().replace("’", "'").replace("ё", "е"):
        chars.append(char if char.isalnum() or char == "'" else " ")
    return [word.strip("'") for word in "".join(chars).split() if word.strip("'")]


def _find(words: list[str], group: tuple[str, ...], start: int) -> int:
    """The index just past the first occurrence of `group` at or after `start`, or -1."""
    size = len(group)
    for index in range(start, len(words) - size + 1):
        if tuple(words[index : index + size]) == group:
            return index + size
    return -1


def _matches(words: list[str], groups: tuple[tuple[str, ...], ...]) -> bool:
    """Each group in order: "^" first anchors at the sentence's start, "$" last at its end."""
    position = 0
    anchored = False
    for group in groups:
        if group == ("^",):
            anchored = True
            continue
        if group == ("$",):
            return position == len(words)
        if anchored:
            if tuple(words[: len(group)]) != group:
                return False
            position, anchored = len(group), False
            continue
        position = _find(words, group, position)
        if position < 0:
            return False
    return True


# -- the shape of the reply's end ----------------------------------------------------------------------------


def _is_item(line: str) -> bool:
    """A list item: "- x", "* x", "1. x", "2) x", "a) x"."""
    if line[:1] in _BULLETS and line[1:2] == " ":
        return True
    head, _, rest = line.partition(" ")
    if not rest or len(head) < 2 or head[-1] not in ".)":
        return False
    label = head[:-1].strip("*(")
    return label.isdigit() or (len(label) == 1 and label.isalpha())


def _closing_lines(text: str) -> tuple[str, list[str]] | None:
    """The reply's last prose line and the list items that follow it, or None when the reply ends in code or
    a quotation (a question there is shown, not asked)."""
    start = max(0, len(text) - _TAIL_CHARS)
    if start:
        start = text.find("\n", start) + 1  # whole lines, so that no fence is cut in two
    tail = text[start:]
    in_fence = sum(text.count(fence, 0, start) for fence in _FENCES) % 2 == 1
    kinds: list[tuple[str, str]] = []
    for raw in tail.splitlines():
        line = raw.strip()
        if line.startswith(_FENCES):
            in_fence = not in_fence
            kinds.append(("code", line))
        elif in_fence:
            kinds.append(("code", line))
        elif not line or line in ("---", "***", "___"):
            continue
        elif line.startswith(">"):
            kinds.append(("quote", line))
        elif _is_item(line) or (raw[:2] in ("  ", "\t") and kinds and kinds[-1][0] == "item"):
            kinds.append(("item", line))
        else:
            kinds.append(("text", line))
    if not kinds or kinds[-1][0] in ("code", "quote"):
        return None
    items: list[str] = []
    while kinds and kinds[-1][0] == "item":
        items.append(kinds.pop()[1])
    if not kinds or kinds[-1][0] != "text":
        # Only items (or items after code): the last item may itself be the question.
        return (items[0], []) if items else None
    return kinds[-1][1], items[::-1]


def _strip_end(sentence: str) -> str:
    """Drop trailing decoration (emphasis, emoji, a "(y/n)") while keeping the marks that say what it is."""
    while True:
        end = len(sentence)
        while end and not sentence[end - 1].isalnum() and sentence[end - 1] not in _MEANINGFUL_ENDS:
            end -= 1
        sentence = sentence[:end]
        if not sentence.endswith(")"):
            return sentence
        opening = sentence.rfind("(")
        if opening < 0:
            return sentence
        before, inside = sentence[:opening].rstrip(), sentence[opening + 1 : -1].strip()
        if before.endswith("?"):
            sentence = before  # "Shall I proceed? (y/n)"
        elif inside.endswith("?") and (not before or before[-1] in _SENTENCE_ENDS):
            sentence = inside  # "(Want me to add tests too?)"
        else:
            return sentence


def _sentences(line: str) -> list[str]:
    """The line's sentences; a period after an abbreviation (e.g., z.B.) ends none."""
    found, start = [], 0
    for index in range(len(line) - 1):
        if line[index] in _SENTENCE_ENDS and line[index + 1].isspace():
            word = line[start:index].rsplit(None, 1)[-1].lower() if line[start:index].strip() else ""
            if line[index] == "." and word.strip("(") in ABBREVIATIONS:
                continue
            found.append(line[start : index + 1].strip())
            start = index + 1
    found.append(line[start:].strip())
    return [sentence for sentence in found if sentence]


def _closing_sentence(line: str) -> str:
    """The line's last sentence; a closing "Let me know." after a question gives way to the question."""
    sentences = [_strip_end(sentence.strip(_BULLETS + " ")) for sentence in _sentences(_strip_end(line))]
    sentences = [sentence for sentence in sentences if sentence]
    while len(sentences) > 1 and " ".join(_words(sentences[-1])) in FILLERS:
        sentences.pop()
    return sentences[-1] if sentences else ""


# -- the wording -----------------------------------------------------------------------------------------------


def _without_leading_fillers(words: list[str]) -> list[str]:
    index = 0
    while index < len(words) - 1 and words[index] in LEADING_FILLERS:
        index += 1
    return words[index:]


def _is_russian_infinitive(word: str) -> bool:
    return len(word) >= 5 and word.endswith(("ть", "ться", "ти", "чь")) and word not in NOT_INFINITIVES_RU


def _is_decision(sentence: str) -> bool:
    """A question (or a lead-in to options) that puts a decision to the person, by its words alone."""
    every_word = _words(sentence)
    words = _without_leading_fillers(every_word)
    if not words:
        return False
    if (words[0] in NOT_DECISION_STARTS or tuple(words[:2]) in NOT_DECISION_STARTS) and words[1:2] != ["don't"]:
        return False  # "Why did this fail?", "How come ...?", but "Why don't I squash them first?"
    if any(_matches(words, groups) for groups in _PLEASANTRIES):
        return False
    if any(_matches(words, groups) for groups in _NOT_DECISIONS):
        return False
    if any(_matches(words, groups) or _matches(every_word, groups) for groups in _DECISIONS):
        return True  # "OK to proceed?" keeps its "ok"
    if words[0] in START_VERBS_EN or _is_russian_infinitive(words[0]):
        return True  # "Apply the same fix to the other handlers?", "Применить изменения?"
    return len(words) <= 6 and words[-1] in END_VERBS_DE  # "Änderungen übernehmen?"


def is_closing_question(text: str | None) -> bool:
    """True when the reply ends with a decision question put to its person, in English, Russian or German."""
    if not text or not isinstance(text, str):
        return False
    closing = _closing_lines(text)
    if closing is None:
        return False
    line, options = closing
    sentence = _closing_sentence(line)
    if options:
        # "Would you like me to:" or "Which do you prefer?" followed by the options to choose from.
        if sentence.endswith((":", "?")) and _is_decision(sentence[:-1]):
            return True
        sentence = _closing_sentence(options[-1])  # "Open questions:" then "2. Should I drop the old API?"
    if not sentence.endswith("?"):
        return False  # also a question that ends inside quotation marks or inline code: "... 'Shall I?'"
    return _is_decision(sentence)
