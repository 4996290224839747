"""The words of closing decision questions, pleasantries and rhetorical questions (English, Russian, German).

Kept apart from the rules in `wording` so that adding a phrase never touches how a reply's end is read. Each
phrase is a string of adjacent words, or a tuple of such strings that must appear in this order with anything
between them; "^" first anchors a phrase at the sentence's start and "$" last at its end. Words are lowercase,
"ё" is written "е", and punctuation is gone ("Хотите, чтобы я" is "хотите чтобы я").

Standard library only and no `re`: the hook shim imports this on the agent's hot path.
"""

from __future__ import annotations

# -- decisions put to the person ------------------------------------------------------------------------------

_EN_DECISIONS: list[str | tuple[str, ...]] = [
    *(f"{verb} i" for verb in ("shall", "should", "can", "may")),
    *(f"{verb} we" for verb in ("shall", "should")),
    "do you want me to",
    "do you want to",
    "would you like to",
    "do you want us to",
    "would you like me to",
    "would you like us to",
    "want me to",
    "would you prefer",
    "do you prefer",
    "would you rather",
    "which do you prefer",
    ("which", "prefer"),
    ("which", "would you like"),
    ("which", "do you want"),
    ("which", "should i"),
    ("which", "should we"),
    ("which", "shall i"),
    ("which", "go with"),
    ("do you want", "or"),
    ("would you like", "or"),
    ("would you like", "instead"),
    "how would you like me to",
    "how would you like us to",
    "how would you like to proceed",
    "how do you want to proceed",
    "how do you want me to",
    "how should i proceed",
    "how should we proceed",
    "why don't i",
    "why don't we",
    *(
        f"{ok} to {verb}"
        for ok in ("ok", "okay", "safe")
        for verb in (
            "proceed",
            "continue",
            "apply",
            "commit",
            "push",
            "delete",
            "merge",
            "overwrite",
            "deploy",
            "go ahead",
        )
    ),
    *(
        f"ready {to} {verb}"
        for to in ("to", "for me to")
        for verb in ("proceed", "apply", "commit", "merge", "push", "deploy")
    ),
    *(f"let me know {how} {you} like" for how in ("if", "whether", "which", "how") for you in ("you'd", "you would")),
    ("go ahead", "$"),
    "sound good to you",
    "sounds good to you",
    "does that sound good",
    "does this sound good",
    "does that plan work",
    "does this plan work",
    "does that work for you",
    "does this work for you",
    "look good to you",
    "looks good to you",
    "ok with you",
    "okay with you",
    "fine with you",
    "is that ok",
    "is that okay",
    "is this ok",
    "is this okay",
    "any objections",
    "do i have your go ahead",
    "do i have the go ahead",
    "can you confirm",
    "could you confirm",
    "please confirm",
]

_RU_DECISIONS: list[str | tuple[str, ...]] = [
    *(f"{who} {verb}" for who in ("мне", "нам") for verb in ("стоит", "нужно", "следует", "лучше")),
    *((want, "чтобы я") for want in ("хотите", "хочешь", "хотели бы", "хотел бы", "хотела бы", "нужно", "надо")),
    "нужно ли",
    "надо ли",
    "стоит ли",
    "следует ли",
    "могу ли я",
    "можно ли",
    "может стоит",
    "может быть стоит",
    "можно я",
    "разрешите",
    "какой вариант",
    "какой из вариантов",
    "какой подход",
    "какой из них",
    "какой выбираете",
    "какой выбираешь",
    "что выбираете",
    "что выбираешь",
    "как хотите",
    "как вы хотите",
    "как ты хочешь",
    "как поступим",
    "как поступить",
    "как продолжим",
    "как будем",
    "вам подходит",
    "тебе подходит",
    "подходит такой",
    "такой вариант подходит",
    "устраивает",
    "согласны",
    "согласен",
    ("^", "идет", "$"),
    "делаем",
    "продолжаем",
    "оставляем",
    "сделаю",
    "применю",
    "закоммичу",
    "запушу",
    "удалю",
    ("^", "давайте"),
    ("^", "давай"),
    ("^", "или"),
]

_DE_DECISIONS: list[str | tuple[str, ...]] = [
    *(f"{verb} {who}" for verb in ("soll", "sollen", "sollte", "sollten") for who in ("ich", "wir")),
    *(f"{want} {you} dass ich" for want in ("möchtest", "willst") for you in ("du",)),
    *(f"{want} sie dass ich" for want in ("möchten", "wollen")),
    "hättest du gerne dass ich",
    "hätten sie gerne dass ich",
    "darf ich",
    "dürfen wir",
    *(
        ("kann ich", verb)
        for verb in ("anwenden", "übernehmen", "fortfahren", "committen", "löschen", "pushen", "mergen", "loslegen")
    ),
    "welche option",
    "welche variante",
    "welchen ansatz",
    "welcher ansatz",
    "welche lösung",
    "welche möchtest du",
    "welche bevorzugst du",
    "was bevorzugst du",
    "was bevorzugen sie",
    "wie möchtest du",
    "wie möchten sie",
    "wie sollen wir",
    "wie soll ich",
    "wie wollen wir",
    "wie gehen wir",
    "passt das",
    "passt dir das",
    "passt ihnen das",
    "ist das so ok",
    "ist das so okay",
    "ist das in ordnung",
    "ist das so in ordnung",
    "wäre das ok",
    "wäre das okay",
    "wäre das in ordnung",
    "einverstanden",
    "okay für dich",
    "ok für dich",
    "in ordnung für dich",
    "lieber",
    ("^", "oder"),
]

DECISION_PHRASES: list[str | tuple[str, ...]] = [*_EN_DECISIONS, *_RU_DECISIONS, *_DE_DECISIONS]

# A question that begins with a verb in its base form asks whether to do it: "Apply the fix to both handlers?"
START_VERBS_EN = set(
    "apply commit push merge proceed continue delete remove deploy run install update create open rename "
    "revert rebase go keep add fix retry publish release restart overwrite replace squash switch upgrade "
    "migrate drop tag bump regenerate rerun move split use".split()
)

# German questions without a subject end with the verb: "Die Änderungen jetzt übernehmen?"
END_VERBS_DE = set(
    "übernehmen anwenden fortfahren weitermachen committen pushen mergen löschen entfernen umbenennen "
    "ausführen installieren aktualisieren deployen starten beheben fixen hinzufügen einbauen anpassen "
    "zurücksetzen überschreiben veröffentlichen".split()
)

# Words that end like a Russian infinitive but are not one ("Есть ли ещё вопросы?").
NOT_INFINITIVES_RU = set(
    "часть память власть новость очередь скорость сложность возможность зависть плоть радость пусть опять "
    "десять девять почти пути сети шесть".split()
)

# -- what is not a decision --------------------------------------------------------------------------------------

# Offers of more help after the work is done.
PLEASANTRIES: list[str | tuple[str, ...]] = [
    "anything else",
    "something else",
    "anything more",
    "any other",
    "can i help",
    "i can help",
    "how can i help",
    "help you with",
    "what else",
    "what's next",
    "whats next",
    "what next",
    ("what would you like", "next"),
    ("what do you want", "next"),
    "что-нибудь еще",
    "что нибудь еще",
    "что-то еще",
    "что то еще",
    "что еще",
    "чем еще",
    "еще чем",
    "чем могу помочь",
    "чем я могу помочь",
    "могу ли я еще",
    "нужно что-то еще",
    "еще что-нибудь",
    "еще что нибудь",
    ("что", "дальше"),
    "sonst noch",
    "noch etwas",
    "noch was",
    "etwas anderes",
    "noch weitere",
    "weiter helfen",
    "weiterhelfen",
    "kann ich helfen",
    "kann ich dir helfen",
    "kann ich ihnen helfen",
    ("was", "als nächstes"),
]

# Questions that the reply asks of itself, or that look back rather than ahead.
NOT_A_DECISION: list[str | tuple[str, ...]] = [
    "should i have",
    "should we have",
    "could i have",
    "shouldn't i have",
    "what could go wrong",
    "what could possibly",
    "who knew",
    "who would have",
    "guess what",
    "make of this",
    "make of that",
    "isn't it",
    "aren't they",
    ("right", "$"),
    "make sense",
    "makes sense",
    ("^", "why not"),
    "кто бы мог",
    "что тут скажешь",
    "не так ли",
    "что могло пойти не так",
    "wer hätte das",
    "nicht wahr",
    "was soll's",
]

# First words of questions that explain rather than ask to decide: "Why did this fail?".
NOT_DECISION_STARTS: set[str | tuple[str, ...]] = {
    "why",
    ("how", "come"),
    "почему",
    "зачем",
    "отчего",
    ("как", "так"),
    "warum",
    "wieso",
    "weshalb",
    "weswegen",
}

# Words skipped at a sentence's start before its first real word: "So, apply it?"
LEADING_FILLERS = set(
    "so and then now also ok okay alright great next finally lastly итак так и а ну теперь наконец хорошо "
    "ладно тогда сразу und dann jetzt gut abschließend".split()
)

# A short closing line after the question that leaves the question standing: "Shall I merge? Let me know."
FILLERS = {
    "let me know",
    "just let me know",
    "let me know what you think",
    "just say the word",
    "your call",
    "дайте знать",
    "дай знать",
    "жду ответа",
    "жду вашего решения",
    "жду твоего решения",
    "sag bescheid",
    "sagen sie bescheid",
    "gib bescheid",
    "geben sie bescheid",
    "ich warte auf deine antwort",
}

# A period after these ends no sentence: "Should I use a queue, e.g. Redis?"
ABBREVIATIONS = set("e.g i.e etc vs z.b d.h u.a bzw ca т.е т.д т.п напр т.к".split())
