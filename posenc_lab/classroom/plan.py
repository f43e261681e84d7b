"""A class plan: today's views and questions in order, with the teacher's notes, kept in the
class database (``Store.set_plan``) and saved for reuse under a code (``Store.save_plan``).

- ``bar``: Previous / Next for the teacher, above a lesson and on the class page. A step
  sends the class to its view (its settings in the address) or opens its question, and takes
  the teacher's own page there too, so the projector shows what the room sees. The step's
  notes show on the teacher's own screen, never in presenter mode.
- ``editor``: on the teacher's class page, the steps (add, move, remove), saving the plan
  under a code, and loading a saved one into this class.
"""

from __future__ import annotations

import contextlib
import hashlib

import streamlit as st

from posenc_lab.classroom import each, session
from posenc_lab.classroom import follow as class_follow
from posenc_lab.classroom import questions as class_questions
from posenc_lab.classroom import store as class_store
from posenc_lab.ui import layout
from posenc_lab.ui.lesson import Course

#: session keys: an address or the class page this page goes to on its next run (a step
#: taken in a callback, where a page cannot switch), and a note of what an action did
GOTO = class_follow.PLAN_GOTO
NOTE = "_plan:note"  # (ok, text), shown once
P = "plan_"  # the editor's widget keys
VIEW_KIND, QUESTION_KIND = "A view", "A question"


def _db() -> class_store.Store:
    db = session.database()
    if db is None:
        raise class_store.StoreUnavailable(session.problem())
    return db


@contextlib.contextmanager
def _action():
    """Around a teacher's plan callback: the database, or a note of why nothing was done."""
    try:
        yield _db()
    except class_store.NotTeacher:
        st.session_state[NOTE] = (False, "Only the teacher link controls this class.")
    except class_store.JoinRefused as exc:
        # too many plans saved from this address: the store's sentence, with the wait
        st.session_state[NOTE] = (False, f"Not done: {session.plain(exc.reason)}")
    except class_store.StoreUnavailable as exc:
        session.lost(exc)
        st.session_state[NOTE] = (False, "Not done: " + session.said(exc) + ".")
    except ValueError as exc:
        # a typed plan code may be in the message: shown as typed
        st.session_state[NOTE] = (False, f"Not done: {session.plain(str(exc))}.")


def step_label(course: Course, polls: dict, step: class_store.PlanStep) -> str:
    """A step as the teacher reads it: "5. RoPE · Rotation" (with the settings it sends, if
    any: "5. RoPE · Rotation, head_dim 32, base 500, gap 7"), "Question 5. RoPE: ..." or
    "Your question: ..."."""
    if step.kind == "view":
        settings = class_follow.settings_of(step.target)
        return class_follow.describe(course, step.target) + (f", {settings}" if settings else "")
    poll = polls.get(step.target)
    if poll is None:
        return f"Question {step.target}"
    label = class_questions.poll_label(course, poll)
    return label if class_questions.is_own(poll) else f"Question {label}"


def _polls(course: Course, db: class_store.Store, code: str) -> dict:
    return {poll.key: poll for poll in class_questions.every_poll(course, db, code)}


# ------------------------------------------------------------------ Previous / Next


def bar(course: Course, url_path: str) -> None:
    """Previous / Next through the class plan, for the teacher (``url_path``: the lesson page
    it is drawn on, "" on the class page). Nothing for a class without a plan."""
    held = session.teacher()
    if held is None:
        return
    code, key = held
    goto = st.session_state.pop(GOTO, None)
    if goto is not None:
        if goto:
            class_follow.go(course, goto)
        elif url_path:
            _to_class_page(course)
    try:
        db = _db()
        plan = db.class_plan(code)
        polls = _polls(course, db, code) if plan.steps else {}
    except class_store.StoreUnavailable:
        return
    if not plan.steps:
        return
    n, at = len(plan.steps), plan.at
    with st.container(horizontal=True, vertical_alignment="center", gap="small", key="plan_bar"):
        st.button(
            "Previous",
            icon=":material/skip_previous:",
            key="plan_previous",
            disabled=at <= 0,
            on_click=_go,
            args=(course, code, key, at - 1, not url_path, at),
            help=session.plain(step_label(course, polls, plan.steps[at - 1])) if at > 0 else "The first step is on.",
        )
        following = plan.steps[at + 1] if at + 1 < n else None
        st.button(
            # a button's label is Markdown: a teacher's question is shown as typed
            "Next" if following is None else f"Next: {session.plain(_short(step_label(course, polls, following)))}",
            icon=":material/skip_next:",
            type="primary",
            key="plan_next",
            disabled=following is None,
            on_click=_go,
            args=(course, code, key, at + 1, not url_path, at),
            help="Sends the class to the step's view, or opens its question, and takes your page there.",
        )
        if at >= 0:
            st.caption(f"Step {at + 1} of {n}: {session.plain(step_label(course, polls, plan.steps[at]))}")
        else:
            st.caption(f"A plan of {n} steps: Next starts it.")
    note = st.session_state.pop(NOTE, None)
    if note is not None and not note[0]:
        st.error(note[1])
    if at >= 0 and plan.steps[at].notes and not layout.presenting():
        # the teacher's notes: on the teacher's own screen, never projected
        st.caption(":material/sticky_note_2: " + session.plain(plan.steps[at].notes))


def _short(label: str, limit: int = 48) -> str:
    return label if len(label) <= limit else label[: limit - 3] + "..."


def _to_class_page(course: Course) -> None:
    """To the class page, where a question step's vote is run."""
    st.switch_page(course.class_page.page_file, query_params=class_follow.presenter_param())


def _go(course: Course, code: str, key: str, at: int, in_console: bool = False, drawn_at: int | None = None) -> None:
    """Previous / Next: take the class to step ``at``. ``in_console``: pressed in the class
    page's console (a fragment, whose presses run it alone), where the press runs the page.
    ``drawn_at``: the step the button was drawn on; a press that reaches the server twice, or
    after another device moved the class, moves nothing (a Next delivered twice sent the class
    twice)."""
    with _action() as db:
        if drawn_at is not None and db.class_plan(code).at != drawn_at:
            return
        # a question step brings the class to the class page, where it is answered
        step = db.plan_go(code, key, at, question_page=course.class_page.url_path)
        class_follow.clear_follow_state()
        # the page switches on its next run (a callback cannot): to the view, or to the class page
        st.session_state[GOTO] = step.target if step.kind == "view" else ""
    if in_console:
        # the press runs the whole page, as it does above a lesson: the page it leaves, or
        # whose join panel folds to a line at the first question, is drawn by the run that
        # leaves it (a page switched to from the console's own run arrived without its
        # settings, and a held class was sent there a second time)
        st.rerun()


# ------------------------------------------------------------------ the editor


def editor(course: Course, code: str, key: str) -> None:
    """The plan's steps on the teacher's class page: add, move and remove them, with notes;
    save the plan under a code and load a saved one."""
    try:
        db = _db()
        plan = db.class_plan(code)
        polls = _polls(course, db, code)
    except class_store.StoreUnavailable as exc:
        session.lost(exc)
        return
    note = st.session_state.pop(NOTE + ":editor", None)
    title = (
        f"Class plan ({len(plan.steps)} step{'s' if len(plan.steps) != 1 else ''})" if plan.steps else "Plan this class"
    )
    with st.expander(title, icon=":material/format_list_numbered:", expanded=note is not None):
        if note is not None:
            (st.success if note[0] else st.error)(note[1])
        if not plan.steps:
            st.caption(
                "Pick today's views (with their settings) and questions in order, with notes for yourself; "
                "Next and Previous then take the class through them. Save a plan to reuse it with another class."
            )
        for i, step in enumerate(plan.steps):
            row = st.container(horizontal=True, vertical_alignment="center", gap="small", key=f"plan_step_{i}")
            here = " (the class is here)" if i == plan.at else ""
            row.markdown(f"**{i + 1}.** {session.plain(step_label(course, polls, step))}{here}")
            row.button(
                "",
                icon=":material/arrow_upward:",
                key=f"plan_up_{i}",
                disabled=i == 0,
                on_click=_move,
                args=(code, key, i, -1),
                help="Move up",
            )
            row.button(
                "",
                icon=":material/arrow_downward:",
                key=f"plan_down_{i}",
                disabled=i == len(plan.steps) - 1,
                on_click=_move,
                args=(code, key, i, 1),
                help="Move down",
            )
            row.button(
                "",
                icon=":material/close:",
                key=f"plan_remove_{i}",
                on_click=_remove,
                args=(code, key, i),
                help="Remove",
            )
            with row.popover("", icon=":material/edit:", help="Edit this step"):
                _edit_form(course, code, key, polls, i, step)
            if step.notes:
                st.caption(session.plain(step.notes))
        _add_step(course, code, key, polls, len(plan.steps))
        _save_and_load(course, db, code, key, bool(plan.steps))


def _view_addresses(course: Course) -> dict[str, str]:
    """Every view a step can send the class to, at its defaults: address -> its name."""
    out = {}
    for page in class_follow.places(course):
        if not page.views:  # a page of one view (why order matters, compare, the glossary)
            out[page.url_path] = class_follow.describe(course, page.url_path)
        for view in page.views.values():
            address = f"{page.url_path}?view={view.key}"
            out[address] = class_follow.describe(course, address)
    return out


def _add_step(course: Course, code: str, key: str, polls: dict, count: int) -> None:
    st.markdown("**Add a step**")
    kind = st.radio("Kind of step", [VIEW_KIND, QUESTION_KIND], horizontal=True, key=P + "kind")
    with st.form("plan_add", border=False, enter_to_submit=False):
        if kind == VIEW_KIND:
            views = _view_addresses(course)
            st.selectbox("View", list(views), format_func=views.get, key=P + "view")
            st.text_input(
                "Or its address, with your settings (optional)",
                key=P + "address",
                placeholder="/rope?view=rotation&base=500",
                help="Open the view in a lesson, set it as you want it, and copy the address bar here.",
            )
        else:
            st.selectbox(
                "Question",
                list(polls),
                format_func=lambda k: class_questions.poll_label(course, polls[k]),
                key=P + "question",
                help="A lesson's question, or one you wrote (Write your own question, above).",
            )
        st.text_area(
            "Notes for you (optional, never projected)", key=P + "notes", height=68, max_chars=class_store.NOTES_CHARS
        )
        st.form_submit_button(
            "Add the step",
            icon=":material/add:",
            disabled=count >= class_store.PLAN_STEPS,
            on_click=_add,
            args=(course, code, key, kind),
        )


def _edit_key(i: int, step: class_store.PlanStep) -> str:
    """The widget keys' stem of step ``i``'s edit form: named after the step as it is, so a
    form opened after the step changed (an edit, a move) starts from the step, not from what
    was typed for another."""
    digest = hashlib.sha256(f"{step.kind}\n{step.target}\n{step.notes}".encode()).hexdigest()[:10]
    return f"{P}edit_{i}_{digest}_"


def _edit_form(course: Course, code: str, key: str, polls: dict, i: int, step: class_store.PlanStep) -> None:
    """Change step ``i`` in place: a view step's address (with its settings) or a question
    step's question, and its notes."""
    stem = _edit_key(i, step)
    with st.form(stem + "form", border=False, enter_to_submit=False):
        if step.kind == "view":
            st.text_input(
                "The view's address, with its settings",
                value="/" + step.target,
                key=stem + "address",
                help="Open the view in a lesson, set it as you want it, and copy the address bar here.",
            )
        else:
            keys = list(polls)
            st.selectbox(
                "Question",
                keys,
                index=keys.index(step.target) if step.target in keys else 0,
                format_func=lambda k: class_questions.poll_label(course, polls[k]),
                key=stem + "question",
            )
        st.text_area(
            "Notes for you (never projected)",
            value=step.notes,
            key=stem + "notes",
            height=68,
            max_chars=class_store.NOTES_CHARS,
        )
        st.form_submit_button(
            "Save the step", icon=":material/check:", on_click=_edit, args=(course, code, key, i, step)
        )


def _edit(course: Course, code: str, key: str, i: int, was: class_store.PlanStep) -> None:
    stem = _edit_key(i, was)
    with _action() as db:
        steps = _steps(db, code)
        if i >= len(steps) or steps[i] != was:
            raise ValueError("the plan changed meanwhile (another of your screens?): look at it again and edit anew")
        if was.kind == "view":
            target = class_follow.address_of_link(course, st.session_state.get(stem + "address", ""))
            if not target:
                raise ValueError("a view step needs the view's address")
        else:
            target = st.session_state.get(stem + "question", was.target)
        steps[i] = class_store.PlanStep(was.kind, target, st.session_state.get(stem + "notes", ""))
        db.set_plan(code, key, steps)
        st.session_state[NOTE + ":editor"] = (True, f"Changed step {i + 1}.")
    _editor_note()


def _steps(db: class_store.Store, code: str) -> list[class_store.PlanStep]:
    return list(db.class_plan(code).steps)


def _add(course: Course, code: str, key: str, kind: str) -> None:
    with _action() as db:
        if kind == VIEW_KIND:
            typed = st.session_state.get(P + "address", "")
            target = class_follow.address_of_link(course, typed) if typed.strip() else st.session_state[P + "view"]
            step = class_store.PlanStep("view", target, st.session_state.get(P + "notes", ""))
        else:
            step = class_store.PlanStep(
                "question", st.session_state[P + "question"], st.session_state.get(P + "notes", "")
            )
        db.set_plan(code, key, [*_steps(db, code), step])
        st.session_state[P + "address"] = ""
        st.session_state[P + "notes"] = ""
        st.session_state[NOTE + ":editor"] = (True, f"Added step {len(_steps(db, code))}.")
    _editor_note()


def _move(code: str, key: str, i: int, by: int) -> None:
    with _action() as db:
        steps = _steps(db, code)
        steps[i], steps[i + by] = steps[i + by], steps[i]
        db.set_plan(code, key, steps)
        st.session_state[NOTE + ":editor"] = (True, f"Moved step {i + 1} to {i + by + 1}.")
    _editor_note()


def _remove(code: str, key: str, i: int) -> None:
    with _action() as db:
        steps = _steps(db, code)
        del steps[i]
        db.set_plan(code, key, steps)
        st.session_state[NOTE + ":editor"] = (True, f"Removed step {i + 1}.")
    _editor_note()


def _editor_note() -> None:
    # an action's failure is said inside the editor, where it was tried
    failed = st.session_state.pop(NOTE, None)
    if failed is not None:
        st.session_state[NOTE + ":editor"] = failed


def _save_and_load(course: Course, db: class_store.Store, code: str, key: str, has_steps: bool) -> None:
    st.markdown("**Save or load a plan**")
    left, right = st.columns(2, gap="large")
    with left, st.form("plan_save", border=False, enter_to_submit=False):
        st.text_input("Plan title", key=P + "title", max_chars=class_store.PLAN_TITLE_CHARS, placeholder="Week 3: RoPE")
        st.form_submit_button(
            "Save the plan",
            icon=":material/save:",
            disabled=not has_steps,
            on_click=_save,
            args=(code, key),
            help=f"Gives a code that loads this plan into another class; kept {class_store.PLAN_RETENTION_DAYS:.0f} "
            "days after it was last saved or loaded. Your own questions go with it.",
        )
    with right, st.form("plan_load", border=False, enter_to_submit=False):
        st.text_input("Plan code", key=P + "code", max_chars=16, placeholder="8 letters and digits")
        st.form_submit_button(
            "Load the plan",
            icon=":material/upload:",
            on_click=_load,
            args=(code, key),
            help="Replaces this class's plan with the saved one.",
        )
    # the plan as a file, for another installation of the app (a colleague's, next year's)
    name = f"posenc-lab_plan_{code}.json"
    title = st.session_state.get(P + "title", "")
    left.download_button(
        "Download as a file",
        data=session.kept_download(lambda: db.export_plan(code, key, title), name, "application/json"),
        file_name=name,
        mime="application/json",
        on_click="ignore",
        icon=":material/download:",
        disabled=not has_steps,
        help="A file of the plan's steps, notes and your own questions (no student data), which Import a plan "
        "file reads in any installation of this app.",
    )
    right.file_uploader(
        "Import a plan file",
        type=["json"],
        key=f"{P}file_{st.session_state.get(P + 'files', 0)}",
        max_upload_size=1,
        on_change=_import,
        args=(course, code, key),
        help="Replaces this class's plan with the file's (made by Download as a file).",
    )


def _save(code: str, key: str) -> None:
    with _action() as db:
        plan_code = db.save_plan(code, key, st.session_state.get(P + "title", ""), network=session.network_address())
        st.session_state[NOTE + ":editor"] = (
            True,
            f"Saved. Plan code **{plan_code}**: type it under Load the plan in another class.",
        )
    _editor_note()


def _import(course: Course, code: str, key: str) -> None:
    taken = st.session_state.get(P + "files", 0)
    upload = st.session_state.get(f"{P}file_{taken}")
    if upload is None:
        return
    # a new uploader next run: the file read is not read again, and another can follow
    st.session_state[P + "files"] = taken + 1
    with _action() as db:
        known = {poll.key for poll in [*course.all_polls(), *each.polls(course)]}
        title, plan = db.import_plan(code, key, upload.getvalue(), known=known)
        named = f" {session.plain(title)}" if title else ""
        st.session_state[NOTE + ":editor"] = (
            True,
            f"Imported the plan{named}: {len(plan.steps)} steps. Next starts it.",
        )
    _editor_note()


def _load(code: str, key: str) -> None:
    with _action() as db:
        title, plan = db.load_plan(code, key, st.session_state.get(P + "code", ""))
        named = f" {session.plain(title)}" if title else ""
        st.session_state[NOTE + ":editor"] = (True, f"Loaded the plan{named}: {len(plan.steps)} steps. Next starts it.")
    _editor_note()
