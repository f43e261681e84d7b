"""The exercises at the end of each lesson, and the session's progress through them.

The shell (``ui.shell``) calls ``render(lesson)`` after each lesson page; the home page
shows ``progress()``. The questions, answers and explanations live beside each lesson
(``lessons/<lesson>_exercises.py``); their kinds in ``ui.exercise_kinds``.

Progress is kept in ``st.session_state`` under keys of our own starting with ``_ex:``, so
it survives page switches (Streamlit drops a widget's state when another page runs; these
keys are not widgets), and the solved keys are also kept in the browser's storage
(``ui.progress``), so they survive a reload: ``keep_progress()`` saves them on every run
and restores the ones the browser holds and the session lacks. The widgets use keys starting with ``ex_``. Unlike
lesson controls they are not mirrored in the URL: an answer is not part of a view one
shares.

A variant exercise (``exercise_kinds.Param``) shows the variant ``exercise_kinds.draw``
picks from the browser's seed (a class student's own seed in the class) and the exercise's
attempt number, which the practice record keeps (``ui.mastery``, in the session under
``_ex:practice``, in the browser beside the solved keys, and for a class student in the class
database): a reload shows the same variant, "Try another" the next one (one variant skipped
unanswered is forgiven in a row, a second breaks it: ``ui.mastery``). Its first check counts
toward its skill's mastery, shown at the top of the lesson's exercises, on the home page and,
in a class, on the teacher's roster; after two wrong answers on a variant its worked solution is offered.

Check buttons work through ``on_click`` callbacks, which run before the script: the
expander's "(k of n solved)" label and the home page's count are up to date in the very
run that shows the feedback.
"""

from __future__ import annotations

import streamlit as st

from posenc_lab.figures import notation
from posenc_lab.ui import exercise_kinds as kinds
from posenc_lab.ui import mastery
from posenc_lab.ui import progress as stored_progress
from posenc_lab.ui.exercise_kinds import Guided, MultipleChoice, Numeric
from posenc_lab.ui.lesson import Course

#: keys of the solved exercises and guided steps (a set)
SOLVED = "_ex:solved"
#: + exercise key: the last checked attempt, {"given", "picks", "ok", "text"}
ATTEMPT = "_ex:attempt:"
#: + exercise key: True once a wrong answer was checked (offers "Show the answer")
MISSED = "_ex:missed:"
#: the practice record of the variant exercises (``ui.mastery``: a set of strings)
PRACTICE = "_ex:practice"
#: pixels: room for a number, not a bar across the page
ANSWER_WIDTH = 260
PICK_WIDTH = 180


# progress


def _solved_keys() -> set[str]:
    return st.session_state.setdefault(SOLVED, set())


def _practice() -> set[str]:
    return st.session_state.setdefault(PRACTICE, set())


def variant_keys(course: Course) -> set[str]:
    """The keys of the exercises with variants: those the practice record may name."""
    return {ex.key for ex in course.all_exercises() if not isinstance(ex, Guided) and ex.params}


def progress_keys(course: Course) -> set[str]:
    """Every key the solved set may hold: each exercise's, and each step's of a guided one."""
    keys = set()
    for ex in course.all_exercises():
        if isinstance(ex, Guided):
            keys.update(step.key for step in ex.steps)
        else:
            keys.add(ex.key)
    return keys


def keep_progress(course: Course) -> None:
    """Restore the solved exercises this browser stored and save the current ones;
    called by ``render`` and by the home page before they count."""
    valid = progress_keys(course)
    # a student in a class gets back what the class database holds (another browser, a
    # restarted server), then the browser's own store adds its part and keeps the union
    course.class_mode.restore_solved(_solved_keys(), valid)
    course.class_mode.restore_practice(_practice(), variant_keys(course))
    stored_progress.keep(_solved_keys(), valid, _practice(), variant_keys(course))


def forget_progress(course: Course) -> None:
    """The home page's "Forget my progress" (a callback): this session's solved exercises,
    their attempts and the browser's stored copy."""
    stored_progress.forget(_solved_keys(), _practice())
    for key in [k for k in st.session_state if isinstance(k, str) and k.startswith((ATTEMPT, MISSED))]:
        del st.session_state[key]
    # a student in a class would get the class's record back at once: leave the class too
    # (on a shared computer the next person is not that student)
    course.class_mode.leave()


def choice_questions(course: Course) -> list[MultipleChoice]:
    """Every multiple-choice question of the course: an exercise, or a step of a guided one."""
    questions = []
    for ex in course.all_exercises():
        steps = ex.steps if isinstance(ex, Guided) else (ex,)
        questions += [step for step in steps if isinstance(step, MultipleChoice)]
    return questions


def choice_orders(course: Course) -> dict[str, list[int]]:
    """The order in which this student sees the choices of each of ``choice_questions``:
    key -> the choices' indices, top to bottom. Dealt over the whole bank from this
    browser's seed (``ui.progress.seed``), so that the right choice falls in every place
    alike and a reload keeps the order."""
    return kinds.deal_orders(choice_questions(course), stored_progress.seed())


def skill_keys(lesson, skill: str) -> list[str]:
    """The keys of ``lesson``'s exercises that practise ``skill``."""
    return [ex.key for ex in lesson.exercises if not isinstance(ex, Guided) and ex.skill == skill]


def skill_progress(lesson) -> list[tuple[str, int, bool, bool]]:
    """Each skill ``lesson`` names: (its label, right first answers in a row, mastered?, has
    the row right answers and used up the skips it forgives?)."""
    practice = _practice()
    rows = []
    for skill, label in lesson.skills.items():
        keys = skill_keys(lesson, skill)
        streak, forgiven = mastery.row(practice, keys)
        done = streak >= mastery.IN_A_ROW
        # the note matters once there is a row to lose
        rows.append((label, streak, done, streak > 0 and forgiven >= mastery.FREE_SKIPS))
    return rows


def mastery_text(label: str, streak: int, done: bool, skip_used: bool = False) -> str:
    """A skill's line: mastered, or how far its row of right answers has got (and, once the
    row has forgiven a skip, that the next one starts it again: the student knows the rule
    before it bites)."""
    if done:
        return f":material/workspace_premium: **{label}**: mastered"
    text = f"**{label}**: {min(streak, mastery.IN_A_ROW)} of {mastery.IN_A_ROW} right in a row"
    if skip_used:
        text += " (one variant skipped unanswered; skip another and the row starts again)"
    return text


def mastered_count(course: Course) -> tuple[int, int]:
    """(skills mastered, skills named) over the course's lessons."""
    rows = [row for lesson in course.lessons for row in skill_progress(lesson)]
    return sum(done for _, _, done, _ in rows), len(rows)


def practised(course: Course) -> bool:
    """Whether this browser has any practice on record (the home page then offers to forget it)."""
    return bool(_practice())


def is_solved(ex: kinds.Exercise) -> bool:
    if isinstance(ex, Guided):
        return all(step.key in _solved_keys() for step in ex.steps)
    return ex.key in _solved_keys()


def lesson_progress(lesson) -> tuple[int, int]:
    """(exercises of ``lesson`` answered correctly, exercises it has), as ``progress``."""
    return sum(is_solved(ex) for ex in lesson.exercises), len(lesson.exercises)


def progress(course: Course) -> tuple[int, int]:
    """(exercises answered correctly, in this session or restored from this browser's
    storage by ``keep_progress``, exercises in the bank)."""
    exercises = course.all_exercises()
    return sum(is_solved(ex) for ex in exercises), len(exercises)


# checking (callbacks: they run before the script, so every count drawn is current)


def _widget(key: str, part: str) -> str:
    return f"ex_{key}_{part}"


def _picks(ex: Numeric) -> dict[str, int]:
    return {p.name: int(st.session_state.get(_widget(ex.key, p.name), p.default)) for p in ex.picks}


def _record(
    course: Course, key: str, given, picks: dict, ok: bool | None, text: str, shown: str = "", n: int | None = None
) -> None:
    st.session_state[ATTEMPT + key] = {"given": given, "picks": picks, "ok": ok, "text": text}
    if ok is not None and n is not None:
        # a variant exercise: its first check counts toward its skill (``ui.mastery``), and in
        # a class the teacher's roster counts it too
        before = set(_practice())
        mastery.record_check(_practice(), key, n, ok)
        course.class_mode.record_practice(_practice() - before)
    if ok is not None:
        # in a class, the teacher's dashboard counts it (``shown``: the answer as a person reads it)
        course.class_mode.record_attempt(key, shown or str(given), ok)
    if ok:
        _solved_keys().add(key)
    elif ok is False:
        st.session_state[MISSED + key] = True


def _check_choice(ex: MultipleChoice, course: Course, n: int | None = None) -> None:
    given = st.session_state.get(_widget(ex.key, "choice"))
    chosen = dict(ex.chosen)
    if given is None:
        _record(course, ex.key, None, chosen, None, "Pick an answer first.")
        return
    choice = ex.choices[given]
    # the letter names the choice as written (A: the first), the same for every student
    # whatever order they saw: the dashboard counts a wrong answer once, however it was shown
    shown = f"{chr(ord('A') + given)}. {_plain_text(choice.text)}"
    _record(course, ex.key, given, chosen, choice.right, choice.why, shown=shown, n=n)


def _check_number(ex: Numeric, course: Course, n: int | None = None) -> None:
    given = st.session_state.get(_widget(ex.key, "value"))
    picks = _picks(ex)
    # the feedback shown belongs to these picks on this variant
    seen = picks | dict(ex.chosen)
    if given is None:
        _record(course, ex.key, None, seen, None, "Type a number first.")
        return
    try:
        ok, text, _ = kinds.numeric_feedback(ex, float(given), picks)
    except ValueError as exc:  # posenc refused the picks: say so, as the lessons do
        _record(course, ex.key, given, seen, None, str(exc))
        return
    # the teacher's dashboard reads the numbers the student worked from beside the answer
    shown = f"{float(given):.6g}" + "".join(f" ({name} {value})" for name, value in seen.items())
    _record(course, ex.key, given, seen, ok, text, shown=shown, n=n)


def _try_another(ex: MultipleChoice | Numeric, course: Course) -> None:
    """ "Try another" (a callback): the exercise's next variant, with a blank answer."""
    before = set(_practice())
    mastery.try_another(_practice(), ex.key)
    # in a class, the class keeps the attempt too: another device shows the same variant
    course.class_mode.record_practice(_practice() - before)
    for part in ("value", "choice", "reveal"):
        st.session_state.pop(_widget(ex.key, part), None)
    st.session_state.pop(ATTEMPT + ex.key, None)


def _plain_text(markdown: str) -> str:
    # the dashboard shows an option as plain words: its maths in Unicode (R((m + n)θ), not
    # R((m + n)\theta)), no $, *, ` from its Markdown
    return notation.plain_markdown(markdown)


# drawing


def render(lesson) -> None:
    """The exercises of ``lesson`` (a ``ui.lesson.Lesson``), in a collapsed expander at
    the end of the page."""
    exercises = lesson.exercises
    if not exercises:
        return
    keep_progress(lesson.course)
    # after keep_progress: it takes in the browser's seed, which orders the choices and
    # draws the variants, and the practice record, which numbers them
    orders = choice_orders(lesson.course)
    # a student in a class draws from a seed of their own in the class (the same on each of
    # their devices); anyone else from this browser's
    seed = lesson.course.class_mode.seed() or stored_progress.seed()
    done = sum(is_solved(ex) for ex in exercises)
    # the key fixes the expander's identity, so it stays open while its label counts up
    with st.expander(
        f"Exercises ({done} of {len(exercises)} solved)", icon=":material/edit:", expanded=False, key="ex_panel"
    ):
        for skill in skill_progress(lesson):
            st.caption(mastery_text(*skill))
        for number, ex in enumerate(exercises, start=1):
            if number > 1:
                st.divider()
            st.markdown(f"**{number}. {ex.title}**" + (" :material/check_circle: (solved)" if is_solved(ex) else ""))
            if isinstance(ex, Guided):
                _guided(ex, orders, lesson.course)
                continue
            n = mastery.attempt(_practice(), ex.key) if ex.params else None
            shown = kinds.concrete(ex, kinds.draw(ex, seed, n)) if ex.params else ex
            if isinstance(ex, MultipleChoice):
                _multiple_choice(shown, orders[ex.key], lesson.course, n)
            else:
                _numeric(shown, lesson.course, n)


def _multiple_choice(ex: MultipleChoice, order: list[int], course: Course, n: int | None = None) -> None:
    """A multiple-choice question (of one variant, numbered ``n``, when it has variants)."""
    st.markdown(ex.question)
    if ex.latex:
        st.latex(ex.latex)
    # each student sees the choices in an order of their own (a reload keeps it); the
    # radio's values stay the choices' indices as written, which the check reads
    given = st.radio(
        "Your answer",
        order,
        index=None,
        format_func=lambda i: ex.choices[i].text,
        key=_widget(ex.key, "choice"),
        label_visibility="collapsed",
    )
    _check_and_hint(ex, _check_choice, course, n)
    _feedback(ex, given, dict(ex.chosen))
    if _offer_answer(ex, n):
        right = ex.choices[ex.answer_index]
        # an option is often a phrase ("The slow pairs"): a full stop keeps it apart from the why
        text = right.text if right.text.rstrip().endswith((".", "!", "?")) else f"{right.text.rstrip()}."
        st.info(f"**Answer:** {text} {right.why}", icon=":material/key:")


def _numeric(ex: Numeric, course: Course, n: int | None = None) -> None:
    """A numeric question (of one variant, numbered ``n``, when it has variants)."""
    st.markdown(ex.question)
    if ex.latex:
        st.latex(ex.latex)
    picks = {}
    if ex.picks:
        row = st.container(horizontal=True, gap="medium")
        for pick in ex.picks:
            picks[pick.name] = row.number_input(
                pick.label,
                min_value=pick.min_value,
                max_value=pick.max_value,
                value=pick.default,
                step=1,
                key=_widget(ex.key, pick.name),
                width=PICK_WIDTH,
            )
    if ex.shown is not None:
        st.markdown(ex.shown(**picks))
    given = st.number_input(
        "Your answer",
        value=None,
        step=ex.step,
        format=ex.fmt,
        placeholder="type a number",
        key=_widget(ex.key, "value"),
        width=ANSWER_WIDTH,
    )
    st.caption(kinds.tolerance_text(ex))
    _check_and_hint(ex, _check_number, course, n)
    _feedback(ex, given, picks | dict(ex.chosen))
    if _offer_answer(ex, n):
        answer = float(ex.answer(**picks))
        st.info(f"**Answer:** {ex.fmt % answer}. {ex.explain(answer, **picks)}", icon=":material/key:")


def _guided(ex: Guided, orders: dict[str, list[int]], course: Course) -> None:
    st.markdown(ex.intro)
    if ex.latex:
        st.latex(ex.latex)
    total = len(ex.steps)
    for index, step in enumerate(ex.steps):
        if index > 0 and step.key not in _solved_keys() and ex.steps[index - 1].key not in _solved_keys():
            st.caption(f":material/lock: Step {index + 1} of {total} opens when step {index} is right.")
            return
        mark = " :material/check_circle: (solved)" if step.key in _solved_keys() else ""
        st.markdown(f"**Step {index + 1} of {total}:** {step.title}{mark}")
        if isinstance(step, MultipleChoice):
            _multiple_choice(step, orders[step.key], course)
        else:
            _numeric(step, course)
    if is_solved(ex):
        st.success(ex.conclusion, icon=":material/school:")


def _check_and_hint(ex: MultipleChoice | Numeric, check, course: Course, n: int | None = None) -> None:
    """The Check button and, beside it, the hint switch (and, for a variant exercise, "Try
    another", on every run: the row keeps its shape); the hint shows below them."""
    row = st.container(horizontal=True, vertical_alignment="center", gap="large")
    row.button("Check", key=_widget(ex.key, "check"), on_click=check, args=(ex, course, n), type="primary")
    if n is not None:
        row.button(
            "Try another",
            key=_widget(ex.key, "another"),
            on_click=_try_another,
            args=(ex, course),
            icon=":material/autorenew:",
            help="The same question with other numbers. Skipping one unanswered is forgiven once in a row of "
            "right answers; a second skip starts the row again.",
        )
    if row.toggle("Show a hint", key=_widget(ex.key, "hint")):
        st.info(ex.hint, icon=":material/lightbulb:")


def _feedback(ex: MultipleChoice | Numeric, given, picks: dict[str, int]) -> None:
    """What the last Check said, as long as the answer on screen is the one checked."""
    attempt = st.session_state.get(ATTEMPT + ex.key)
    if attempt is None or attempt["given"] != given or attempt["picks"] != picks:
        return
    if attempt["ok"]:
        st.success(kinds.feedback(True, attempt["text"]), icon=":material/check_circle:")
    elif attempt["ok"] is False:
        st.error(kinds.feedback(False, attempt["text"]), icon=":material/cancel:")
    else:
        st.warning(attempt["text"])


def _offer_answer(ex: MultipleChoice | Numeric, n: int | None = None) -> bool:
    """A switch that reveals the answer: for a fixed exercise after a wrong attempt (and
    until solved); for variant ``n`` of a variant exercise, its worked solution after two
    wrong answers on it (its first check was wrong: it no longer counts toward mastery)."""
    if n is not None:
        if mastery.wrong_count(_practice(), ex.key, n) < mastery.WRONG_BEFORE_SOLUTION:
            return False
        return st.toggle("Show the worked solution", key=_widget(ex.key, "reveal"))
    if ex.key in _solved_keys() or not st.session_state.get(MISSED + ex.key):
        return False
    return st.toggle("Show the answer", key=_widget(ex.key, "reveal"))
