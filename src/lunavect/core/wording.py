"""Does a reply close with a decision question for its person?

"Shall I apply these changes?" at the end of a reply means the session waits for its person even though the
client reports nothing but a finished turn. This is a deliberately conservative inference from selected
English, Russian and German wording (the guide, "Closing questions from Claude"): unknown wording stays
"response ready", and statements such as "I'll wait for the subagent" are never questions. The hook shim
runs it on `Stop.last_assistant_message` and keeps only the verdict.

Standard library only, and no `re`: the hook shim runs this on the agent's hot path, where importing and
compiling regular expressions would cost more than the rest of the shim. Phrases are matched as sequences of
whole words instead.
"""

from __future__ import annotations

# Only the tail of a reply can hold its closing question; looking further back would find questions the
# reply went on to answer itself.
_TAIL_CHARS = 600

# Each phrase is a tuple of word groups that must appear in this order in the last sentence: within a group
# the words are adjacent, between groups anything may stand. "^" as the first group anchors the phrase at the
# sentence's start; "$" as the last anchors it at its end.
_PHRASES: list[str | tuple[str, ...]] = [
    # English
    *(f"{verb} i" for verb in ("shall", "should", "can", "may")),
    "shall we",
    "should we",
    "do you want me to",
    "do you want us to",
    "would you like me to",
    "would you like us to",
    ("would you like", "instead"),
    ("would you like", "or"),
    "want me to",
    "would you prefer",
    "do you prefer",
    "how would you like me to",
    "how would you like us to",
    *(f"which {thing} {who}" for thing in ("option", "approach", "one") for who in ("would you", "do you", "should i")),
    *(
        f"{ok} to {verb}"
        for ok in ("ok", "okay")
        for verb in ("proceed", "continue", "apply", "commit", "push", "delete", "merge")
    ),
    ("proceed", "$"),
    *(f"ready to {verb}" for verb in ("proceed", "apply", "commit")),
    *(f"ready for me to {verb}" for verb in ("proceed", "apply", "commit")),
    *(f"let me know {how} {you} like" for how in ("if", "whether", "which", "how") for you in ("you'd", "you would")),
    # Russian
    *(f"{who} {verb}" for who in ("мне", "нам") for verb in ("стоит", "нужно", "следует")),
    "хотите чтобы я",
    "хочешь чтобы я",
    "нужно ли",
    "стоит ли",
    "могу ли я",
    "применить",
    "продолжить",
    "продолжаем",
    "сделать это",
    "сделать так",
    "закоммитить",
    "запушить",
    "удалить",
    "исправить",
    "внести",
    "обновить",
    "запустить",
    "установить",
    "какой вариант",
    "как хотите",
    "как вы хотите",
    ("^", "давайте"),
    ("^", "давай"),
    # German
    *(f"{verb} {who}" for verb in ("soll", "sollen") for who in ("ich", "wir")),
    "möchtest du dass ich",
    "möchten sie dass ich",
    "willst du dass ich",
    "wollen sie dass ich",
    "darf ich",
    *(("kann ich", verb) for verb in ("anwenden", "übernehmen", "fortfahren", "committen", "löschen")),
    "welche option",
    "welche variante",
    *((verb, "$") for verb in ("fortfahren", "weitermachen", "anwenden", "übernehmen")),
]

# Rhetorical or self-directed questions that are not addressed to the person.
_NOT_FOR_PERSON: list[str | tuple[str, ...]] = [
    "why did",
    "why does",
    "why is",
    "what happened",
    "what went wrong",
    "how does this work",
]

_SENTENCE_ENDS = ".!?…"
_TRAILING_DECORATION = " \t\r\n*_`>)\"'»“”"


def _phrase_groups(phrase: str | tuple[str, ...]) -> tuple[tuple[str, ...], ...]:
    parts = (phrase,) if isinstance(phrase, str) else phrase
    return tuple(tuple(part.split()) for part in parts)


_QUESTION_GROUPS = [_phrase_groups(p) for p in _PHRASES]
_RHETORICAL_GROUPS = [_phrase_groups(p) for p in _NOT_FOR_PERSON]


def _words(sentence: str) -> list[str]:
    """Lowercase words; an apostrophe inside a word (you'd) belongs to it, other punctuation separates."""
    chars = []
    for char in sentence.lower().replace("’", "'"):
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
    position = 0
    for number, group in enumerate(groups):
        if group == ("^",):
            if number != 0:
                return False
            continue
        if group == ("$",):
            return position == len(words)
        if number == 1 and groups[0] == ("^",):
            if tuple(words[: len(group)]) != group:
                return False
            position = len(group)
            continue
        position = _find(words, group, position)
        if position < 0:
            return False
    return True


def _last_sentence(text: str) -> str:
    tail = text[-_TAIL_CHARS:].rstrip(_TRAILING_DECORATION)
    # A closing question stands in the last paragraph, usually as its last sentence.
    paragraph = tail.split("\n\n")[-1].strip()
    lines = [line.strip(" -*•\t") for line in paragraph.splitlines() if line.strip()]
    last_line = lines[-1] if lines else ""
    # The last sentence starts after the last sentence end that is followed by white space.
    start = 0
    for index in range(len(last_line) - 1):
        if last_line[index] in _SENTENCE_ENDS and last_line[index + 1].isspace():
            start = index + 1
    return last_line[start:].strip(_TRAILING_DECORATION)


def is_closing_question(text: str | None) -> bool:
    """True when the reply ends with a decision question put to its person, in English, Russian or German."""
    if not text or not isinstance(text, str):
        return False
    sentence = _last_sentence(text)
    if not sentence.endswith("?"):
        return False
    words = _words(sentence)
    if any(_matches(words, groups) for groups in _RHETORICAL_GROUPS):
        return False
    return any(_matches(words, groups) for groups in _QUESTION_GROUPS)
