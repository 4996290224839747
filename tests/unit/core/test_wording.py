"""Closing questions: does a reply end with a decision question for its person (EN, RU, DE)?"""

from __future__ import annotations

import pytest

from lunavect.core.closing_question import is_closing_question

QUESTIONS = [
    # English
    "Shall I apply these changes?",
    "Would you like me to commit this?",
    "Do you want me to proceed?",
    "Should I go ahead and merge?",
    "Want me to open a PR for this?",
    "Should we also update the docs?",
    "Which option would you prefer?",
    "Ready to proceed?",
    "I refactored the parser and all 42 tests pass.\n\nShall I apply these changes?",
    "Here is the plan:\n\n1. Split the module\n2. Add tests\n\nWould you like me to proceed?",
    "Done with the first part. Shall I continue with the second?",
    "**Shall I push the branch?**",
    "Shall I apply these changes?\n\n",
    "Let me know if you would like me to apply it? ",
    # Russian
    "Применить эти изменения?",
    "Хотите, чтобы я закоммитил?",
    "Хочешь, чтобы я запушил ветку?",
    "Я поправил тесты. Продолжить?",
    "Нужно ли обновить документацию?",
    # German
    "Soll ich die Änderungen übernehmen?",
    "Möchtest du, dass ich fortfahre?",
    "Möchten Sie, dass ich die Datei lösche?",
    "Sollen wir das mergen?",
    "Darf ich die Datei löschen?",
    "Alle Tests laufen. Soll ich committen?",
]

NOT_QUESTIONS = [
    "",
    None,
    "I'll wait for the subagent.",
    "Done. All tests pass.",
    "Shall I apply these changes? I went ahead and applied them anyway.",
    "Why did this fail? Because X.",
    "Why did this fail? Because the fixture was missing. I added it and the suite passes now.",
    "Why did this fail?",
    "What went wrong?",
    "What happened here?",
    "The function returns None. Why does it do that? It is the default.",
    "Is this what you expected?",  # a question, but not a decision put to the person
    "What is 2 + 2?",
    "Let me know if you have questions.",
    "I'll wait for the background build to finish.",
    "Готово. Все тесты проходят.",
    "Почему это упало? Потому что не было фикстуры.",
    "Ich warte auf den Subagenten.",
    "Fertig. Alle Tests laufen.",
    "Warum ist das fehlgeschlagen? Weil X.",
    "Soll ich fortfahren? Ich habe es bereits getan.",
    # A question long before the end is not a closing question.
    "Shall I apply these changes?\n\n" + "Details of the change follow. " * 40 + "That is all.",
    "Should I use a dict here? A list would be slower, so I used a dict.",
]


@pytest.mark.parametrize(("text", "closing"), [(t, True) for t in QUESTIONS] + [(t, False) for t in NOT_QUESTIONS])
def test_closing_questions(text, closing):
    assert is_closing_question(text) is closing


def test_only_the_tail_counts():
    long_reply = "Shall I apply these changes?\n" + ("x " * 5000) + "\n\nDone."
    assert is_closing_question(long_reply) is False
    assert is_closing_question(("x " * 5000) + "\n\nShall I apply these changes?") is True


@pytest.mark.parametrize("value", [42, ["Shall I?"], {"text": "Shall I?"}, b"Shall I apply these changes?"])
def test_non_text_is_no_question(value):
    assert is_closing_question(value) is False  # type: ignore[arg-type]


def test_fast_on_a_huge_reply():
    import time

    reply = ("a" * 10_000 + "\n") * 20 + "Shall I apply these changes?"
    started = time.perf_counter()
    for _ in range(20):
        assert is_closing_question(reply) is True
    assert time.perf_counter() - started < 2.0  # no catastrophic backtracking (loose: CI machines are busy)
