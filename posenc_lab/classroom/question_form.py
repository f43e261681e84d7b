"""*Write your own question*, on the teacher's screen: the form (multiple choice or a
number), the question it makes (``question_from_form``), adding it to the class, and
removing one never asked. The question bank's other two moves fill the same form: a copy of
any question (a lesson's or the teacher's own, ``copy_into_form``) to change and add as the
teacher's own, and the teacher's own question never asked, to change in place
(``edit_in_form``)."""

from __future__ import annotations

import streamlit as st

from posenc_lab.classroom import follow as class_follow
from posenc_lab.classroom import questions as class_questions
from posenc_lab.classroom import session, views
from posenc_lab.classroom import store as class_store
from posenc_lab.classroom.poll import Poll
from posenc_lab.figures import notation
from posenc_lab.ui.lesson import Course


def _write_question(course: Course, code: str, key: str) -> None:
    """The teacher's own question: multiple choice or a number, in plain text, with what the
    reveal says and, if wanted, the view that settles it (its address, settings and all)."""
    note = st.session_state.pop(views.Q_NOTE, None)
    editing = st.session_state.get(views.Q_EDITING)
    with st.expander("Write your own question", icon=":material/edit_note:", expanded=note is not None):
        if note is not None:
            (st.success if note[0] else st.error)(note[1])
        if editing is not None:
            st.button(
                "Stop changing it (clear the form)",
                icon=":material/close:",
                key="class_q_stop_editing",
                on_click=_clear_form,
            )
        for name, value in views.Q_BLANK.items():
            st.session_state.setdefault(name, value)
        kind = st.radio("Kind", [views.CHOICE_KIND, views.NUMBER_KIND], horizontal=True, key=views.Q + "kind")
        with st.form("class_q_form", border=False, enter_to_submit=False):
            st.text_area(
                "Question",
                max_chars=class_store.PROMPT_CHARS,
                key=views.Q + "prompt",
                height=80,
                placeholder="What do you predict ...?",
                help="Plain text, shown as typed (no formatting).",
            )
            if kind == views.CHOICE_KIND:
                st.text_area(
                    f"Options, one per line ({views.OPTIONS_RANGE}): the right one first",
                    key=views.Q + "options",
                    height=130,
                    help="Each student sees the options in an order of their own; the projector keeps yours.",
                )
            else:
                cols = st.columns(4)
                cols[0].number_input("The answer", key=views.Q + "answer", format="%g", step=None)
                cols[1].number_input("Right within ±", min_value=0.0, key=views.Q + "tolerance", format="%g", step=None)
                cols[2].number_input("Lowest answer", key=views.Q + "low", format="%g", step=None)
                cols[3].number_input("Highest answer", key=views.Q + "high", format="%g", step=None)
                cols = st.columns([1, 3], vertical_alignment="bottom")
                cols[0].checkbox("Whole numbers", key=views.Q + "integer")
                cols[1].text_input("Unit (optional)", max_chars=class_store.UNIT_CHARS, key=views.Q + "unit")
            st.text_area(
                "Why: what the reveal says (optional)",
                max_chars=class_store.WHY_CHARS,
                key=views.Q + "why",
                height=80,
            )
            st.text_input(
                "The view that settles it (optional): its address",
                key=views.Q + "view",
                placeholder="/rope?view=rotation&base=500",
                help="Open the view in a lesson with the settings you want and copy the address bar here: "
                "after the reveal, Explore it opens it for everyone.",
            )
            if editing is None:
                st.form_submit_button(
                    "Add the question", icon=":material/add:", on_click=_add_question, args=(course, code, key, kind)
                )
            else:
                st.form_submit_button(
                    "Save the changes",
                    icon=":material/save:",
                    on_click=_save_question,
                    args=(course, code, key, kind, editing),
                )


def question_from_form(course: Course, kind: str, values: dict) -> class_store.Question:
    """The teacher's question from the form's ``values`` (widget key -> value), checked:
    ValueError saying what to change."""
    view = class_follow.address_of_link(course, values[views.Q + "view"] or "")
    why = values[views.Q + "why"] or ""
    if kind == views.CHOICE_KIND:
        options = [line for line in (values[views.Q + "options"] or "").splitlines() if line.strip()]
        # the first is the right one; every student sees them shuffled
        question = class_store.Question(values[views.Q + "prompt"] or "", tuple(options), 0.0, why=why, view=view)
    else:
        answer = values[views.Q + "answer"]
        if answer is None:
            raise ValueError("type the answer")
        question = class_store.Question(
            values[views.Q + "prompt"] or "",
            (),
            float(answer),
            float(values[views.Q + "tolerance"] or 0.0),
            float(values[views.Q + "low"]),
            float(values[views.Q + "high"]),
            bool(values[views.Q + "integer"]),
            values[views.Q + "unit"] or "",
            why,
            view,
        )
    return class_store.check_question(question)


def form_values(course: Course, poll: Poll, question: class_store.Question | None = None) -> tuple[str, dict]:
    """The form's kind and values (widget key -> value) that write ``poll`` again: a teacher's
    own from its stored ``question`` as typed; a lesson's in plain text (its maths in words,
    ``notation.plain_title``), its options with the right one first (the form's rule), its
    reveal's words as the why and its view's address. Texts are cut to the form's limits."""
    values = dict(views.Q_BLANK)
    if question is not None:
        options, why, view = list(question.options), question.why, question.view
        if options:  # the right one first, as the form writes it
            options.insert(0, options.pop(int(question.answer)))
        prompt, answer = question.prompt, question.answer
        tolerance, low, high, integer, unit = (
            question.tolerance,
            question.low,
            question.high,
            question.integer,
            question.unit,
        )
    else:
        right = int(views.answer_of(course, poll)) if poll.options else None
        options = list(poll.options)
        if right is not None:
            options.insert(0, options.pop(right))
        prompt = notation.plain_title(poll.prompt)
        answer = None if poll.options else views.answer_of(course, poll)
        why = notation.plain_title(views.reveal_text_of(course, poll))
        view = f"/{poll.view}" if poll.view else ""
        tolerance, low, high, integer, unit = poll.tolerance, poll.low, poll.high, poll.integer, poll.unit
    values.update(
        {
            views.Q + "prompt": prompt[: class_store.PROMPT_CHARS],
            views.Q + "options": "\n".join(o[: class_store.OPTION_CHARS] for o in options),
            views.Q + "why": why[: class_store.WHY_CHARS],
            views.Q + "view": view,
        }
    )
    if not options:
        values.update(
            {
                views.Q + "answer": float(answer),
                views.Q + "tolerance": float(tolerance),
                views.Q + "low": float(low),
                views.Q + "high": float(high),
                views.Q + "integer": bool(integer),
                views.Q + "unit": unit[: class_store.UNIT_CHARS],
            }
        )
    return (views.CHOICE_KIND if options else views.NUMBER_KIND), values


def _fill(kind: str, values: dict, editing: str | None, note: str) -> None:
    st.session_state.update(values)
    st.session_state[views.Q + "kind"] = kind
    st.session_state[views.Q_EDITING] = editing
    st.session_state[views.Q_NOTE] = (True, note)


def _clear_form() -> None:
    st.session_state.update(views.Q_BLANK)
    st.session_state[views.Q_EDITING] = None


def _own_question(code: str, poll_key: str) -> class_store.Question | None:
    db = session.database()
    return None if db is None else next((q for q in db.questions(code) if q.key == poll_key), None)


def copy_into_form(course: Course, code: str, poll: Poll) -> None:
    """A copy of ``poll`` in the form, to change and add as the teacher's own."""
    own = _own_question(code, poll.key) if class_questions.is_own(poll) else None
    kind, values = form_values(course, poll, own)
    _fill(kind, values, None, "A copy is in the form below: change what you like, then press Add the question.")


def edit_in_form(course: Course, code: str, poll: Poll) -> None:
    """The teacher's own question in the form, to change in place (Save the changes)."""
    own = _own_question(code, poll.key)
    if own is None:
        st.session_state[views.FLASH] = "That question is gone."
        return
    kind, values = form_values(course, poll, own)
    _fill(kind, values, poll.key, "Your question is in the form below: change it, then press Save the changes.")


def _form_question(course: Course, kind: str, refused: str) -> class_store.Question | None:
    """The question the form holds, or None with the note of what to change (``refused``:
    "Not added", "Not saved")."""
    values = {name: st.session_state.get(name, blank) for name, blank in views.Q_BLANK.items()}
    try:
        return question_from_form(course, kind, values)
    except ValueError as exc:
        st.session_state[views.Q_NOTE] = (False, f"{refused}: {session.plain(str(exc))}.")
        return None


def _save_question(course: Course, code: str, key: str, kind: str, editing: str) -> None:
    question = _form_question(course, kind, "Not saved")
    if question is None:
        return
    with views._teacher_call() as db:
        saved = db.update_question(code, key, editing, question)
        if saved is None:
            st.session_state[views.Q_NOTE] = (
                False,
                "Not saved: the class was asked this question, and its votes are for it as it was. "
                "Copy it to ask it another way.",
            )
            return
        _clear_form()
        st.session_state["class_poll"] = saved.key
        st.session_state[views.Q_NOTE] = (True, "Saved, and chosen above: preview it, then open the vote.")


def _add_question(course: Course, code: str, key: str, kind: str) -> None:
    question = _form_question(course, kind, "Not added")
    if question is None:
        return
    added = None
    with views._teacher_call() as db:
        try:
            added = db.add_question(code, key, question)
        except ValueError as exc:  # the class holds as many as it may
            st.session_state[views.Q_NOTE] = (False, f"Not added: {session.plain(str(exc))}.")
    if added is not None:
        st.session_state.update(views.Q_BLANK)
        st.session_state["class_poll"] = added.key  # ready to open
        st.session_state[views.Q_NOTE] = (True, "Added, and chosen above: preview it, then open the vote.")


def _remove_question(code: str, key: str, poll_key: str) -> None:
    with views._teacher_call() as db:
        # the plan's steps that open it go with it (Store.remove_question): named for the teacher
        steps = [i for i, step in enumerate(db.class_plan(code).steps, 1) if step.target == poll_key]
        if db.remove_question(code, key, poll_key):
            st.session_state.pop("class_poll", None)
            named = ", ".join(str(i) for i in steps)
            with_steps = (
                f", with step{'s' if len(steps) > 1 else ''} {named} of the plan, which opened it" if steps else ""
            )
            st.session_state[views.Q_NOTE] = (True, f"Removed{with_steps}.")
        else:
            st.session_state[views.FLASH] = "The class was asked this question: it stays, with its votes."
