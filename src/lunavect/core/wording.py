"""Does a reply close with a decision question for its person?

"Shall I apply these changes?" at the end of a reply means the session waits for its person even though the
client reports nothing but a finished turn. This is a deliberately conservative inference from selected
English, Russian and German wording (the guide, "Closing questions from Claude"): unknown wording stays
"response ready", and statements such as "I'll wait for the subagent" are never questions. The hook shim
runs it on `Stop.last_assistant_message` and keeps only the verdict.

Standard library only: the hook shim imports this module on the agent's hot path.
"""

from __future__ import annotations

import re

# Only the tail of a reply can hold its closing question; looking further back would find questions the
# reply went on to answer itself.
_TAIL_CHARS = 600

_EN = [
    r"\b(?:shall|should|can|may) i\b",
    r"\b(?:shall|should) we\b",
    r"\bdo you want (?:me|us) to\b",
    r"\bwould you like (?:me|us) to\b",
    r"\bwould you like\b.*\b(?:instead|or)\b",
    r"\bwant me to\b",
    r"\bwould you prefer\b",
    r"\bdo you prefer\b",
    r"\bhow would you like (?:me|us) to\b",
    r"\bwhich (?:option|approach|one) (?:would you|do you|should i)\b",
    r"\bshould i (?:go ahead|proceed|continue)\b",
    r"\b(?:ok|okay) to (?:proceed|continue|apply|commit|push|delete|merge)\b",
    r"\bproceed\?$",
    r"\bready (?:for me )?to (?:proceed|apply|commit)\b",
    r"\blet me know (?:if|whether|which|how) you(?:'d| would) like\b",
]
_RU = [
    r"\b(?:мне|нам)\s+(?:стоит|нужно|следует)\b",
    r"\bхотите,?\s+чтобы\s+я\b",
    r"\bхочешь,?\s+чтобы\s+я\b",
    r"\bнужно\s+ли\b",
    r"\bстоит\s+ли\b",
    r"\bмогу\s+ли\s+я\b",
    r"\bприменить\b",
    r"\bпродолжить\b",
    r"\bпродолжаем\b",
    r"\bсделать\s+(?:это|так)\b",
    r"\b(?:закоммитить|запушить|удалить|исправить|внести|обновить|запустить|установить)\b",
    r"\bкакой\s+вариант\b",
    r"\bкак\s+(?:вы\s+)?хотите\b",
    r"^(?:давайте|давай)\b",
]
_DE = [
    r"\bsoll(?:en)? (?:ich|wir)\b",
    r"\bmöchtest du,? dass ich\b",
    r"\bmöchten sie,? dass ich\b",
    r"\bwillst du,? dass ich\b",
    r"\bwollen sie,? dass ich\b",
    r"\bdarf ich\b",
    r"\bkann ich\b.*\b(?:anwenden|übernehmen|fortfahren|committen|löschen)\b",
    r"\bwelche (?:option|variante)\b",
    r"\b(?:fortfahren|weitermachen|anwenden|übernehmen)\?$",
]
_QUESTION_RE = re.compile("|".join(f"(?:{p})" for p in _EN + _RU + _DE), re.IGNORECASE | re.MULTILINE)

# Rhetorical or self-directed questions that are not addressed to the person.
_NOT_FOR_PERSON_RE = re.compile(
    r"\b(?:why (?:did|does|is)|what (?:happened|went wrong)|how does this work)\b", re.IGNORECASE
)

_SENTENCE_END_RE = re.compile(r"(?<=[.!?…])\s+")
_TRAILING_DECORATION = " \t\r\n*_`>)\"'»“”"


def _last_sentence(text: str) -> str:
    tail = text[-_TAIL_CHARS:].rstrip(_TRAILING_DECORATION)
    # A closing question stands in the last paragraph, usually as its last sentence.
    paragraph = tail.split("\n\n")[-1].strip()
    lines = [line.strip(" -*•\t") for line in paragraph.splitlines() if line.strip()]
    last_line = lines[-1] if lines else ""
    sentences = _SENTENCE_END_RE.split(last_line)
    return sentences[-1].strip(_TRAILING_DECORATION) if sentences else ""


def is_closing_question(text: str | None) -> bool:
    """True when the reply ends with a decision question put to its person, in English, Russian or German."""
    if not text or not isinstance(text, str):
        return False
    sentence = _last_sentence(text)
    if not sentence.endswith("?"):
        return False
    if _NOT_FOR_PERSON_RE.search(sentence):
        return False
    return bool(_QUESTION_RE.search(sentence))
