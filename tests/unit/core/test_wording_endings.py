"""The guide's closing-question rule, ending by ending: real reply endings in English, Russian and German.

Each row is how a reply to a coding task actually ends (written for this table, varied in form: plain
questions, option lists, markdown, code, quotations, polite closings). INPUT rows are decisions put to the
person: the session waits for them. READY rows are pleasantries, rhetorical questions, questions shown inside
code or quoted, open questions that decide nothing, statements and unknown wording: the response is ready.
"""

from __future__ import annotations

import pytest

from lunavect.core.closing_question import is_closing_question

INPUT, READY = True, False

ENGLISH = [
    ("I refactored the parser; all 42 tests pass.\n\nShall I apply these changes?", INPUT),
    (
        "Would you like me to:\n1. Apply the fix to all three handlers\n2. Only fix `post_upload`\n3. Leave it as is",
        INPUT,
    ),
    ("Would you like me to:\n- open a PR\n- or just push the branch", INPUT),
    ("Do you want me to proceed with the migration?", INPUT),
    ("Should I go ahead and merge `feature/auth` into `main`?", INPUT),
    ("Want me to add a regression test for this too?", INPUT),
    ("The lockfile is out of date. Should I regenerate it?", INPUT),
    ("Ready to commit?", INPUT),
    ("OK to proceed?", INPUT),
    ("Proceed?", INPUT),
    ("Apply the same change to the other two services?", INPUT),
    ("Commit and push?", INPUT),
    ("**Shall I push the branch?**", INPUT),
    ("Shall I proceed? (y/n)", INPUT),
    ("Which approach would you prefer: the cache layer or the batched query?", INPUT),
    ("There are two ways to do this:\n\n1. Keep the sync API\n2. Switch to async\n\nWhich do you prefer?", INPUT),
    ("Which option should I go with?\n\n- **A**: rename the column\n- **B**: add a view", INPUT),
    ("How would you like to proceed?", INPUT),
    ("How do you want me to handle the failing snapshot tests?", INPUT),
    ("Do you want to keep the old endpoint or remove it?", INPUT),
    ("Would you rather I split this into two PRs?", INPUT),
    ("Should we also bump the minor version?", INPUT),
    ("Does this plan work for you?", INPUT),
    ("Does that sound good to you?", INPUT),
    ("I'd delete the three unused fixtures. Is that OK?", INPUT),
    ("Can I go ahead and overwrite `config.yaml`?", INPUT),
    ("Let me know if you'd like me to revert it?", INPUT),
    ("Should I use a queue here, e.g. Redis?", INPUT),
    ("Shall I rebase onto `main` first? Let me know.", INPUT),
    ("Everything is staged.\n\nWant me to commit it? 🙂", INPUT),
    ("(Want me to add type hints while I'm at it?)", INPUT),
    ("Open questions:\n1. The default timeout is 30 s.\n2. Should I drop the deprecated flag?", INPUT),
    ("So, run the full suite now?", INPUT),
    ("Why don't I squash these commits before you review?", INPUT),
    ("Do you want me to update the changelog as well, or leave that to the release script?", INPUT),
    # Pleasantries
    ("Done! Can I help with anything else?", READY),
    ("Anything else?", READY),
    ("Is there anything else you'd like me to look at?", READY),
    ("Would you like me to help with anything else?", READY),
    ("Let me know if there's anything else I can do!", READY),
    ("What would you like to work on next?", READY),
    ("Is there something else I can help you with today?", READY),
    # Rhetorical
    ("Why did the test pass locally? Because the fixture was cached.", READY),
    ("Why did this only fail on CI?", READY),
    ("Should I have caught this earlier? Probably, yes.", READY),
    ("Should I have caught that in the first review?", READY),
    ("Who knew a trailing slash could break routing?", READY),
    ("Makes sense?", READY),
    ("The fix is one line, right?", READY),
    # Inside code or quoted
    ("Here is the prompt helper:\n\n```python\ninput('Shall I apply these changes? [y/N] ')\n```", READY),
    ("The CLI now asks:\n\n```\nShall I delete 3 files? [y/N]\n```", READY),
    ("Your issue says:\n\n> Should we drop Python 3.8 support?", READY),
    ('The confirmation text is now "Shall I apply these changes?"', READY),
    ("I changed the prompt to `Proceed?`", READY),
    ("Shall I apply this patch?\n\n```diff\n- old\n+ new\n```", READY),
    # Open questions, statements and unknown wording
    ("Is this what you expected?", READY),
    ("Does this help?", READY),
    ("Any questions?", READY),
    ("Did the build pass on your machine?", READY),
    ("All 212 tests pass. The change is ready for review.", READY),
    ("I'll wait for the background build to finish.", READY),
    ("Shall I apply these changes? I went ahead and applied them anyway.", READY),
    ("Here are the options:\n- rename the column\n- add a view", READY),
    ("Changed files:\n- src/app.py\n- tests/test_app.py", READY),
    ("Let me know which option you prefer.", READY),
    ("What is the expected behaviour when the list is empty?", READY),
]

RUSSIAN = [
    ("Я поправил парсер, все тесты проходят.\n\nПрименить эти изменения?", INPUT),
    ("Хотите, чтобы я закоммитил изменения?", INPUT),
    ("Хочешь, чтобы я запушил ветку?", INPUT),
    ("Хотите, чтобы я:\n1. Исправил все три обработчика\n2. Исправил только `upload`\n3. Ничего не менял", INPUT),
    ("Продолжить?", INPUT),
    ("Удалить неиспользуемые фикстуры?", INPUT),
    ("Закоммитить и запушить?", INPUT),
    ("Обновить документацию заодно?", INPUT),
    ("Нужно ли обновить CHANGELOG?", INPUT),
    ("Стоит ли переносить это в отдельный модуль?", INPUT),
    ("Мне стоит добавить тесты на граничные случаи?", INPUT),
    ("Может, стоит разбить PR на два?", INPUT),
    ("Какой вариант выбираете: кэш или пакетный запрос?", INPUT),
    ("Есть два пути:\n\n1. Оставить синхронный API\n2. Перейти на async\n\nКакой вариант вам ближе?", INPUT),
    ("Как поступим с падающими снапшот-тестами?", INPUT),
    ("Как вы хотите, чтобы я назвал новый модуль?", INPUT),
    ("Вам подходит такой план?", INPUT),
    ("Согласны?", INPUT),
    ("Идёт?", INPUT),
    ("Делаем так?", INPUT),
    ("Продолжаем?", INPUT),
    ("Давайте я сразу поправлю и второй сервис?", INPUT),
    ("Могу ли я перезаписать `config.yaml`?", INPUT),
    ("Можно я удалю старую миграцию?", INPUT),
    ("**Применить патч?**", INPUT),
    ("Запустить полный прогон тестов? (да/нет)", INPUT),
    ("Или оставить как есть?", INPUT),
    ("Тогда удалить старый эндпоинт?", INPUT),
    ("Сделать ребейз на `main` перед мержем? Дайте знать.", INPUT),
    ("Всё готово к коммиту.\n\nЗакоммитить? 🙂", INPUT),
    ("Открытые вопросы:\n1. Таймаут по умолчанию 30 с.\n2. Удалить устаревший флаг?", INPUT),
    ("Нам следует поднять минорную версию?", INPUT),
    ("Мне:\n- открыть PR\n- или просто запушить ветку?", INPUT),
    ("Переименовать колонку или добавить представление?", INPUT),
    ("Хотели бы вы, чтобы я обновил зависимости?", INPUT),
    # Pleasantries
    ("Готово! Чем ещё могу помочь?", READY),
    ("Что-нибудь ещё?", READY),
    ("Нужно что-то ещё?", READY),
    ("Могу ли я ещё чем-то помочь?", READY),
    ("Если нужно что-то ещё, дайте знать!", READY),
    ("Что делаем дальше?", READY),
    ("Есть ещё вопросы?", READY),
    # Rhetorical
    ("Почему тест проходил локально? Потому что фикстура была закэширована.", READY),
    ("Почему это падало только на CI?", READY),
    ("Зачем нам вообще этот флаг?", READY),
    ("Кто бы мог подумать, что слэш в конце ломает роутинг?", READY),
    ("Работает быстрее, не так ли?", READY),
    ("Как так вышло, что кэш не сбрасывался?", READY),
    # Inside code or quoted
    ("Вот помощник для подтверждения:\n\n```python\ninput('Применить изменения? [y/N] ')\n```", READY),
    ("В задаче написано:\n\n> Удалить поддержку Python 3.8?", READY),
    ("Текст подтверждения теперь «Применить эти изменения?»", READY),
    ("Я поменял подсказку на `Продолжить?`", READY),
    ("Применить этот патч?\n\n```diff\n- old\n+ new\n```", READY),
    # Open questions, statements and unknown wording
    ("Это то, что вы ожидали?", READY),
    ("Помогло?", READY),
    ("Сборка у вас прошла?", READY),
    ("Готово. Все 212 тестов проходят.", READY),
    ("Жду, пока закончится фоновая сборка.", READY),
    ("Применить изменения? Я уже применил их и прогнал тесты.", READY),
    ("Варианты:\n- переименовать колонку\n- добавить представление", READY),
    ("Изменённые файлы:\n- src/app.py\n- tests/test_app.py", READY),
    ("Дайте знать, какой вариант вам больше нравится.", READY),
    ("Что должно происходить, когда список пуст?", READY),
]

GERMAN = [
    ("Ich habe den Parser überarbeitet, alle 42 Tests laufen.\n\nSoll ich die Änderungen übernehmen?", INPUT),
    ("Möchtest du, dass ich die Änderungen committe?", INPUT),
    ("Möchten Sie, dass ich die Datei lösche?", INPUT),
    ("Möchtest du, dass ich:\n1. alle drei Handler anpasse\n2. nur `upload` anpasse\n3. nichts ändere", INPUT),
    ("Soll ich:\n- einen PR öffnen\n- oder nur den Branch pushen", INPUT),
    ("Sollen wir das mergen?", INPUT),
    ("Darf ich die `config.yaml` überschreiben?", INPUT),
    ("Alle Tests laufen. Soll ich committen?", INPUT),
    ("Willst du, dass ich die Migration gleich mit anlege?", INPUT),
    ("Die Änderungen jetzt übernehmen?", INPUT),
    ("Fortfahren?", INPUT),
    ("Branch pushen?", INPUT),
    ("Unbenutzte Fixtures löschen?", INPUT),
    ("Welche Variante bevorzugst du: Cache oder gebündelte Abfrage?", INPUT),
    ("Es gibt zwei Wege:\n\n1. Sync-API behalten\n2. Auf async umstellen\n\nWelche Option ist dir lieber?", INPUT),
    ("Wie möchtest du weiter vorgehen?", INPUT),
    ("Wie sollen wir mit den fehlschlagenden Snapshot-Tests umgehen?", INPUT),
    ("Passt das so?", INPUT),
    ("Ist das so in Ordnung für dich?", INPUT),
    ("Wäre das okay?", INPUT),
    ("Einverstanden?", INPUT),
    ("Sollte ich die Version gleich mit anheben?", INPUT),
    ("**Soll ich den Patch anwenden?**", INPUT),
    ("Soll ich fortfahren? (j/n)", INPUT),
    ("Soll ich vorher auf `main` rebasen? Sag Bescheid.", INPUT),
    ("Alles ist gestaged.\n\nSoll ich committen? 🙂", INPUT),
    ("Offene Punkte:\n1. Das Timeout ist 30 s.\n2. Soll ich das veraltete Flag entfernen?", INPUT),
    ("Oder lieber alles so lassen?", INPUT),
    ("Spalte umbenennen oder eine View hinzufügen?", INPUT),
    ("Möchten Sie lieber zwei getrennte PRs?", INPUT),
    ("Und dann den ganzen Testlauf neu starten?", INPUT),
    ("Soll ich z.B. Redis als Queue nehmen?", INPUT),
    ("Hättest du gerne, dass ich die Abhängigkeiten aktualisiere?", INPUT),
    ("Wie soll ich das neue Modul nennen?", INPUT),
    ("Dürfen wir die alte Migration entfernen?", INPUT),
    # Pleasantries
    ("Fertig! Kann ich sonst noch helfen?", READY),
    ("Noch etwas?", READY),
    ("Sonst noch etwas?", READY),
    ("Kann ich dir noch bei etwas anderem helfen?", READY),
    ("Gibt es noch weitere Wünsche?", READY),
    ("Was steht als Nächstes an?", READY),
    ("Womit kann ich dir weiterhelfen?", READY),
    # Rhetorical
    ("Warum lief der Test lokal durch? Weil die Fixture gecacht war.", READY),
    ("Warum schlug das nur auf CI fehl?", READY),
    ("Wieso brauchen wir dieses Flag überhaupt?", READY),
    ("Wer hätte gedacht, dass ein Schrägstrich das Routing bricht? Wer hätte das gedacht?", READY),
    ("Jetzt ist es schneller, nicht wahr?", READY),
    ("Was soll's?", READY),
    # Inside code or quoted
    ("Hier der Bestätigungsdialog:\n\n```python\ninput('Änderungen übernehmen? [j/N] ')\n```", READY),
    ("Im Issue steht:\n\n> Sollen wir Python 3.8 streichen?", READY),
    ("Der Bestätigungstext lautet jetzt „Soll ich die Änderungen übernehmen?“", READY),
    ("Ich habe die Abfrage in `Fortfahren?` geändert.", READY),
    ("Soll ich diesen Patch anwenden?\n\n```diff\n- alt\n+ neu\n```", READY),
    # Open questions, statements and unknown wording
    ("Ist es das, was du erwartet hast?", READY),
    ("Hilft dir das?", READY),
    ("Lief der Build bei dir durch?", READY),
    ("Fertig. Alle 212 Tests laufen.", READY),
    ("Ich warte, bis der Build im Hintergrund fertig ist.", READY),
    ("Soll ich fortfahren? Ich habe es bereits getan.", READY),
    ("Die Optionen:\n- Spalte umbenennen\n- View hinzufügen", READY),
    ("Geänderte Dateien:\n- src/app.py\n- tests/test_app.py", READY),
    ("Sag mir, welche Variante dir lieber ist.", READY),
    ("Was soll passieren, wenn die Liste leer ist?", READY),
]


def _rows(table):
    return [
        pytest.param(text, expected, id=f"{'input' if expected else 'ready'}-{number}")
        for number, (text, expected) in enumerate(table)
    ]


@pytest.mark.parametrize(("text", "expected"), _rows(ENGLISH))
def test_english_endings(text, expected):
    assert is_closing_question(text) is expected


@pytest.mark.parametrize(("text", "expected"), _rows(RUSSIAN))
def test_russian_endings(text, expected):
    assert is_closing_question(text) is expected


@pytest.mark.parametrize(("text", "expected"), _rows(GERMAN))
def test_german_endings(text, expected):
    assert is_closing_question(text) is expected


@pytest.mark.parametrize("table", [ENGLISH, RUSSIAN, GERMAN], ids=["en", "ru", "de"])
def test_each_language_has_sixty_endings_of_both_kinds(table):
    assert len(table) >= 60
    assert len({text for text, _ in table}) == len(table)
    assert sum(1 for _, expected in table if expected) >= 25
    assert sum(1 for _, expected in table if not expected) >= 25


@pytest.mark.parametrize(("text", "expected"), _rows(ENGLISH[:10] + RUSSIAN[:10] + GERMAN[:10]))
def test_an_ending_after_a_long_reply_counts_alone(text, expected):
    """The same ending after pages of prose (with closed code blocks and a question answered inside them)."""
    body = "Why did it fail? The handler read the body twice.\n\n```python\nbody = await request.body()\n```\n\n" * 300
    assert is_closing_question(body + text) is expected
