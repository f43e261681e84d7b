"""What the store accepts: class codes, nicknames (look-alike letters and stacked marks
included), view addresses, a teacher's questions and a plan's steps, each within its
limits; anything else is a ValueError that names it. Also the ids and keys the store makes."""

from __future__ import annotations

import functools
import hashlib
import json
import math
import re
import secrets
import unicodedata

from posenc_lab.classroom.store.records import PlanStep, Question

NICKNAME_CHARS = 24
TITLE_CHARS = 60
CODE_ALPHABET = "ABCDEFGHJKLMNPQRSTUVWXYZ23456789"
CODE_LENGTH = 6
VOTE_CHARS = 64
ATTEMPT_CHARS = 200
ID_CHARS = 64
KEY_PATTERN = re.compile(r"[a-z0-9][a-z0-9_.:-]{0,63}")
#: a teacher-written question's key: this prefix and a random part (``Store.add_question``)
OWN_PREFIX = "own."
#: what a teacher may write: a question, its options, its explanation, its unit
PROMPT_CHARS = 300
OPTION_CHARS = 120
OPTIONS_MIN, OPTIONS_MAX = 2, 6
WHY_CHARS = 600
UNIT_CHARS = 20
#: a numeric question's bounds: finite and within this (the vote's input takes them as is)
NUMBER_LIMIT = 1e12
#: a class plan: its steps at most, a step's speaker notes, a saved plan's code and title
PLAN_STEPS = 40
NOTES_CHARS = 400


def _require_str(value, name: str) -> str:
    if not isinstance(value, str):
        raise ValueError(f"{name} must be a string, got {type(value).__name__}")
    return value


def normalize_code(text: str) -> str:
    """A join code as typed, made comparable: stripped, upper case, no spaces or dashes.

    >>> normalize_code(" k7q-m3p ")
    'K7QM3P'
    """
    _require_str(text, "code")
    return re.sub(r"[\s\-\u2010-\u2015\u2212]+", "", text).upper()


def _clean_text(text: str, limit: int) -> str:
    text = unicodedata.normalize("NFC", text)
    # line and paragraph breaks become spaces before the other invisible characters go
    text = "".join(" " if ch.isspace() else ch for ch in text)
    text = "".join(ch for ch in text if not unicodedata.category(ch).startswith("C"))
    return " ".join(text.split())[:limit].strip()


#: letters and symbols that draw nothing (Hangul fillers, the blank Braille pattern, the
#: Mongolian vowel separator, ...): a name made of them looks empty, or like someone else's
BLANK_LOOKING = frozenset("\u115f\u1160\u3164\uffa0\u2800\u180e\u17b4\u17b5\u034f\ufffc")
#: combining marks kept on one letter: enough for any script's accents, not for a tower
MARKS_PER_LETTER = 2
RESERVED_NAMES = ("teacher",)
#: digits read as letters ("T3acher", "7eacher"): Unicode's confusables map 0 and 1 (to O and
#: l) and no other digit, so a name is also checked against the teacher's with these as letters
_DIGITS_AS_LETTERS = str.maketrans("0123456789", "olzeasbtbg")


def _bare(text: str) -> str:
    # the left-to-right marks the data keeps around right-to-left letters are not part of them
    return text.replace("\u200e", "").replace("\u200f", "")


@functools.cache
def _prototypes() -> dict[str, str]:
    """Unicode's confusable mapping (UTS #39, confusables.txt): each character that looks like
    another to its prototype ("Ꭲ" -> "T", "т" -> "ᴛ", "m" -> "rn").

    confusable_homoglyphs ships the file's pairs both ways, without their direction. Each group
    is a prototype and the characters mapped to it (the mapping is idempotent: a prototype maps
    to nothing), so a character paired with a string of several, or with one that is paired with
    others, maps to it; in a group of two characters the one the file lists first maps to the
    other (each line is written source first, and the data keeps the file's order)."""
    from importlib.resources import files

    data = json.loads(files("confusable_homoglyphs").joinpath("confusables.json").read_text(encoding="utf-8"))
    linked: dict[str, set[str]] = {}
    order: dict[str, int] = {}
    for key, entries in data.items():
        order.setdefault(_bare(key), len(order))
        for entry in entries:
            linked.setdefault(_bare(key), set()).add(_bare(entry["c"]))
            linked.setdefault(_bare(entry["c"]), set()).add(_bare(key))
    table = {}
    for text, others in linked.items():
        if len(text) != 1 or len(others) != 1:
            continue  # a prototype: several characters, or paired with several
        (other,) = others
        if len(other) > 1 or len(linked[other]) > 1 or order[text] < order[other]:
            table[text] = other
    return table


def skeleton(text: str) -> str:
    """The skeleton of ``text`` (UTS #39): decomposed (NFD), each character replaced by its
    confusable prototype, decomposed again. Strings with one skeleton look alike.

    >>> skeleton("\u13a2\u13ac\u13aa\u13df\u13bb\u13ac\u13a1")  # Cherokee
    'TEACHER'
    """
    table = _prototypes()
    decomposed = unicodedata.normalize("NFD", text)
    return unicodedata.normalize("NFD", "".join(table.get(ch, ch) for ch in decomposed))


@functools.cache
def _small_capitals() -> dict[int, str]:
    """Small capitals as their letter ("ᴛ" -> "T"): UTS #39 keeps them apart from Latin letters
    (the prototype of "т" is "ᴛ"), but in a name they read as the letter."""
    letter = re.compile(r"LATIN LETTER SMALL CAPITAL ([A-Z])")
    table = {}
    for cp in range(0x10000):  # every small capital is in the Basic Multilingual Plane
        found = letter.fullmatch(unicodedata.name(chr(cp), ""))
        if found:
            table[cp] = found[1]
    return table


@functools.lru_cache(maxsize=8192)
def _name_keys(name: str) -> frozenset[str]:
    """Keys that two names which look alike share: the skeleton of the name as typed and in
    lower case (UTS #39 reads "ТЕАСНЕR" as "TEACHER" only in capitals, and a capital I as an
    l), and of its compatibility form (fullwidth, bold, superscript letters as plain ones);
    small capitals as their letters, case folded, accents and anything not a letter or digit
    dropped."""
    keys = set()
    # compatibility forms read as plain letters too, beside (not instead of) the name as typed:
    # the lunate sigma "Ϲ" looks like a C, its compatibility form "Σ" does not
    for base in {name, unicodedata.normalize("NFKD", name)}:
        for form in (base, base.casefold()):
            folded = skeleton(form).translate(_small_capitals()).casefold()
            keys.add("".join(ch for ch in folded if ch.isalnum()) or form.casefold())
    return frozenset(keys)


def _reads_as_reserved(name: str) -> bool:
    """Whether ``name`` reads as one of RESERVED_NAMES, in any script, case or spacing, with
    digits for letters, alone or within a longer name."""
    keys = _name_keys(name)
    keys |= {key.translate(_DIGITS_AS_LETTERS) for key in keys}
    return any(word in key for reserved in RESERVED_NAMES for word in _name_keys(reserved) for key in keys)


def clean_nickname(text: str) -> str:
    """Plain text for a nickname: control and format characters (bidi overrides, zero-width
    joiners) and blank-looking letters removed, at most MARKS_PER_LETTER accents on a letter,
    whitespace collapsed to single spaces, cut to NICKNAME_CHARS.

    Markdown and HTML are left as typed: the page shows the text escaped. "" is allowed
    (an anonymous student); ``check_nickname`` refuses the names a class must not have.

    >>> clean_nickname("  Ada\\n\\u202eLovelace  ")
    'Ada Lovelace'
    """
    # decomposed, so that an accent a letter carries counts as one of its marks
    text = unicodedata.normalize("NFD", _require_str(text, "nickname"))
    kept, marks = [], 0
    for ch in text:
        if ch in BLANK_LOOKING:
            continue
        marks = marks + 1 if unicodedata.combining(ch) else 0
        if marks <= MARKS_PER_LETTER:
            kept.append(ch)
    return _clean_text("".join(kept), NICKNAME_CHARS)


def check_nickname(typed: str) -> str:
    """The nickname to store for ``typed``, or ValueError (a sentence for the student) for a
    name with nothing visible in it or one that passes for the teacher's."""
    name = clean_nickname(typed)
    if typed.strip() and not any(ch.isalnum() or unicodedata.category(ch)[0] in "PS" for ch in name):
        raise ValueError("A nickname needs a visible letter or digit. Leave it empty to stay anonymous.")
    if _reads_as_reserved(name):
        raise ValueError("Pick another nickname: names that read as “Teacher” are kept for the teacher.")
    return name


#: the longest address the teacher can send (a lesson's path and every setting of a view)
ADDRESS_CHARS = 600
#: a page's path in the app, then its query: names of letters, digits and underscores, values
#: of URL-safe characters (percent-escapes included)
ADDRESS = re.compile(
    r"[a-z0-9][a-z0-9_-]{0,63}(\?[A-Za-z0-9_]{1,40}=[A-Za-z0-9_.~%+-]{0,200}(&[A-Za-z0-9_]{1,40}=[A-Za-z0-9_.~%+-]{0,200})*)?"
)


def check_address(value, name: str = "address") -> str:
    """An app address as the teacher sends it (``rope?view=rotation&step=1``): ValueError
    for anything else (another host, a scheme, a fragment, spaces, quotes, markup)."""
    _require_str(value, name)
    if len(value) > ADDRESS_CHARS or not ADDRESS.fullmatch(value):
        raise ValueError(
            f"{name} must be an app path with an optional query of name=value pairs, at most "
            f"{ADDRESS_CHARS} characters, got {value!r:.60}"
        )
    return value


def _finite(value, name: str) -> float:
    if isinstance(value, bool) or not isinstance(value, int | float) or not math.isfinite(value):
        raise ValueError(f"{name} must be a finite number, got {value!r:.40}")
    if abs(value) > NUMBER_LIMIT:
        raise ValueError(f"{name} must be between -{NUMBER_LIMIT:g} and {NUMBER_LIMIT:g}, got {value!r:.40}")
    return float(value)


def check_question(question: Question) -> Question:
    """A teacher's question cleaned (plain text, spaces collapsed) and checked: ValueError
    naming the field and what it allows. Markup stays as typed: pages show it as text."""
    if not isinstance(question, Question):
        raise ValueError(f"question must be a Question, got {type(question).__name__}")
    prompt = _check_text(question.prompt, "prompt", PROMPT_CHARS)
    if isinstance(question.options, str) or not isinstance(question.options, tuple | list):
        raise ValueError("options must be a list of texts (none for a question that asks for a number)")
    options = tuple(_check_text(o, "each option", OPTION_CHARS) for o in question.options)
    why = _clean_text(_require_str(question.why, "why"), WHY_CHARS + 1)
    if len(why) > WHY_CHARS:
        raise ValueError(f"why must be at most {WHY_CHARS} characters, got {len(why)}")
    view = "" if question.view == "" else check_address(question.view, "view")
    answer = _finite(question.answer, "answer")
    if options:
        if not OPTIONS_MIN <= len(options) <= OPTIONS_MAX:
            raise ValueError(f"options must be {OPTIONS_MIN} to {OPTIONS_MAX}, got {len(options)}")
        if len(set(options)) != len(options):
            raise ValueError("options must differ from one another")
        if answer != int(answer) or not 0 <= answer < len(options):
            raise ValueError(f"answer must be an option's index, 0 to {len(options) - 1}, got {answer:g}")
        return Question(prompt, options, float(int(answer)), why=why, view=view)
    low, high = _finite(question.low, "low"), _finite(question.high, "high")
    tolerance = _finite(question.tolerance, "tolerance")
    if question.integer not in (True, False):
        raise ValueError(f"integer must be True or False, got {question.integer!r:.40}")
    integer = bool(question.integer)
    if not low < high:
        raise ValueError(f"low must be below high, got {low:g} and {high:g}")
    if not low <= answer <= high:
        raise ValueError(f"answer must be between low and high ({low:g} to {high:g}), got {answer:g}")
    if tolerance < 0:
        raise ValueError(f"tolerance must be 0 or more, got {tolerance:g}")
    if integer and not (low == int(low) and high == int(high) and answer == int(answer)):
        raise ValueError("a question of whole numbers needs whole low, high and answer")
    unit = _clean_text(_require_str(question.unit, "unit"), UNIT_CHARS + 1)
    if len(unit) > UNIT_CHARS:
        raise ValueError(f"unit must be at most {UNIT_CHARS} characters, got {len(unit)}")
    return Question(prompt, (), answer, tolerance, low, high, integer, unit, why, view)


def check_step(step: PlanStep) -> PlanStep:
    """A plan step checked (ValueError naming what is wrong), its notes cleaned."""
    if not isinstance(step, PlanStep):
        raise ValueError(f"step must be a PlanStep, got {type(step).__name__}")
    if step.kind == "view":
        target = check_address(step.target, "a view step's address")
    elif step.kind == "question":
        target = _check_key(step.target, "a question step's key")
    else:
        raise ValueError(f"a step's kind must be 'view' or 'question', got {step.kind!r:.40}")
    notes = _clean_text(_require_str(step.notes, "notes"), NOTES_CHARS + 1)
    if len(notes) > NOTES_CHARS:
        raise ValueError(f"notes must be at most {NOTES_CHARS} characters, got {len(notes)}")
    return PlanStep(step.kind, target, notes)


def _check_steps(steps) -> list[PlanStep]:
    """A plan's steps checked (``check_step``), at most PLAN_STEPS of them."""
    if isinstance(steps, str | PlanStep) or not isinstance(steps, list | tuple):
        raise ValueError("steps must be a list of PlanStep")
    steps = [check_step(step) for step in steps]
    if len(steps) > PLAN_STEPS:
        raise ValueError(f"a plan has at most {PLAN_STEPS} steps, got {len(steps)}")
    return steps


def _check_key(value, name: str) -> str:
    _require_str(value, name)
    if not KEY_PATTERN.fullmatch(value):
        raise ValueError(
            f"{name} must be 1 to 64 characters of a-z, 0-9 and _ . : - starting with a letter or digit, "
            f"got {value!r:.80}"
        )
    return value


def _check_id(value, name: str) -> str:
    _require_str(value, name)
    if not value or len(value) > ID_CHARS or not value.isprintable() or value != value.strip():
        raise ValueError(f"{name} must be 1 to {ID_CHARS} printable characters, got {value!r:.80}")
    return value


def _check_right(value) -> bool:
    if value not in (True, False):
        raise ValueError(f"right must be True or False, got {value!r:.40}")
    return bool(value)


def _check_text(value, name: str, limit: int) -> str:
    _require_str(value, name)
    cleaned = _clean_text(value, limit + 1)
    if not cleaned or len(cleaned) > limit:
        raise ValueError(f"{name} must be 1 to {limit} characters, got {len(value)}")
    return cleaned


def _new_id(nbytes: int) -> str:
    """A random URL-safe id that starts with a letter or digit (never "-": a CSV formula guard
    would prefix it in the gradebook, and a leading dash reads as an option in a shell)."""
    while True:
        token = secrets.token_urlsafe(nbytes)
        if token[0].isalnum():
            return token


def _hash_key(teacher_key: str) -> str:
    return hashlib.sha256(teacher_key.encode("utf-8", "surrogatepass")).hexdigest()


def _shown_code(code: str) -> str:
    """A code as it may appear in a message: short and printable whatever was typed."""
    shown = _clean_text(code, 16)
    return shown if len(shown) <= 12 else shown[:12] + "..."


def _float_or_none(value) -> float | None:
    return None if value is None else float(value)


#: a vote's timer, in seconds: the teacher's quick choices (30 s, 1 min, 2 min) and the bounds
#: of a custom one
TIMER_CHOICES_S = (30, 60, 120)
TIMER_MIN_S = 5
TIMER_MAX_S = 600


def check_timer(seconds) -> float:
    """A vote timer's length in seconds, whole, from ``TIMER_MIN_S`` to ``TIMER_MAX_S``;
    a ValueError that says so for people otherwise."""
    message = f"A timer runs from {TIMER_MIN_S} seconds to {TIMER_MAX_S // 60} minutes ({TIMER_MAX_S} seconds)"
    if isinstance(seconds, bool) or not isinstance(seconds, (int, float)):
        raise ValueError(message + ": type a number of seconds.")
    if (isinstance(seconds, float) and not math.isfinite(seconds)) or not TIMER_MIN_S <= seconds <= TIMER_MAX_S:
        raise ValueError(message + ".")
    return float(round(seconds))
