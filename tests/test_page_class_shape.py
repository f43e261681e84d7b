"""The class pages keep one shape at every class state (issue 49, 1.2 and 1.3).

Streamlit names a fragment by its function and its place in the page (its delta path). A run
that moves a fragment (an element added above it, a branch that draws it elsewhere) makes it
a new fragment, and a check of the old one still on its way draws into whatever now stands at
the old place: in the browser, "'setIn' cannot be called on an ElementNode" and a blank
page (a projector went blank on Reveal, and on a Close pressed in another tab), or a question's
heading replaced. So every fragment of a class page must keep its place, and its name, through
every change a class goes through: no question, voting, closed, revealed, a second round,
ended; projected or not.

The names are read from the app's fragment storage (AppTest keeps it across runs; a full run
keeps only the fragments it drew).
"""

from __future__ import annotations

from app_helpers import button, continue_teaching, join_class, open_page, start_class

from posenc_lab import course as lessons
from posenc_lab.classroom import follow as class_follow
from posenc_lab.classroom import session as classroom
from posenc_lab.classroom import store as class_store
from posenc_lab.classroom import views as class_views

CHOICE = next(poll for poll in lessons.all_polls() if poll.options)
ROPE = next(lesson for lesson in lessons.LESSONS if lesson.url_path == "rope")


def _fragments(at) -> frozenset[str]:
    """The names (ids) of the fragments the page's last full run drew."""
    assert not at.exception, at.exception
    return frozenset(at._fragment_storage._fragments)


def _fresh(at):
    class_views._class_state.clear()
    class_views._watched.clear()
    class_follow.clear_follow_state()
    return at.run()


def _class_states(code: str, key: str, practise: str = ""):
    """Drive a class through the states a class goes through; yields each state's name after
    the database has it. With ``practise`` (an address), the class is then set to practise
    there, and sent there again without it."""
    with class_store.open_store() as db:
        yield "no question"
        db.open_poll(code, key, CHOICE.key)
        yield "voting"
        db.set_timer(code, key, 30)
        yield "voting with a timer"
        db.close_round(code, key)
        yield "closed"
        db.open_poll(code, key, CHOICE.key)
        yield "second round"
        db.close_round(code, key)
        db.reveal(code, key)
        yield "revealed"
        db.end_class(code, key)
        yield "ended"
        db.extend_class(code, key, 1.0)
        yield "extended"
        if practise:
            db.send_class(code, key, practise, practice=True)
            yield "practising"
            db.send_class(code, key, practise)
            yield "practice over"


def _same_fragments_at_every_state(at, code: str, key: str, practise: str = "") -> frozenset[str]:
    seen: dict[str, frozenset[str]] = {}
    for state in _class_states(code, key, practise):
        seen[state] = _fragments(_fresh(at))
    assert not practise or "practising" in seen
    first = seen["no question"]
    moved = {state: sorted(ids ^ first) for state, ids in seen.items() if ids != first}
    assert not moved, f"fragments moved or appeared: {moved} (drawn at the start: {sorted(first)})"
    assert first, "the page draws its live parts as fragments"
    return first


def test_the_teachers_page_keeps_its_fragments_in_place_through_a_class(db_url):
    teacher, code, key = start_class("Shape")
    join_class(code, "Ada")
    drawn = _same_fragments_at_every_state(teacher, code, key)
    assert len(drawn) == 4  # the joined count, the votes, the roster, the results


def test_the_projected_page_keeps_its_fragments_in_place_and_shares_them_with_the_teachers(db_url):
    teacher, code, key = start_class("Shape")
    join_class(code)
    private = _fragments(teacher)
    projector = continue_teaching(code, key, {"present": "1"})
    projected = _same_fragments_at_every_state(projector, code, key)
    # the projector draws the joined count and the votes where the teacher's page does
    # (turning presenter mode on or off moves neither); the roster and results are private
    assert projected < private and len(projected) == 2


def test_a_students_page_keeps_its_check_in_place_through_a_class(db_url):
    _, code, key = start_class()
    student = join_class(code, "Ada")
    assert len(_same_fragments_at_every_state(student, code, key)) == 1


def test_a_student_on_a_lesson_keeps_its_banner_in_place_through_a_class(db_url):
    _, code, key = start_class()
    me = join_class(code).session_state[classroom.MEMBER]
    lesson = open_page(ROPE.path, {"class": code, "student": me.student_id, "view": "rotation"})
    # the practice banner comes and goes inside the check's own places
    _same_fragments_at_every_state(lesson, code, key, practise="rope?view=rotation")
    assert not any("**Practice:" in i.value for i in lesson.info), "the send without practice ended the banner"


def test_the_teachers_bar_on_a_lesson_keeps_its_place_sent_held_and_ended(db_url):
    teacher, code, key = start_class()
    teacher.switch_page(ROPE.path).run()
    assert not teacher.exception
    seen = {"not sent": _fragments(_fresh(teacher))}
    button(teacher, "Send the class here").click().run()
    seen["sent"] = _fragments(_fresh(teacher))
    teacher.toggle(key=class_follow.HOLD).set_value(True).run()
    seen["held"] = _fragments(_fresh(teacher))
    button(teacher, "Practise here").click().run()
    seen["practising"] = _fragments(_fresh(teacher))
    with class_store.open_store() as db:
        db.end_class(code, key)
    seen["ended"] = _fragments(_fresh(teacher))
    assert len(set(seen.values())) == 1, seen


def test_no_class_page_draws_a_place_empty_before_filling_it():
    """Class mode's places are containers, never ``st.empty()``: a check that reruns every
    second or five sends an ``st.empty()`` place empty first and fills it after, so for a
    moment the page is shorter. On the teacher's page, scrolled to its end, the main column
    then scrolled by itself (966 -> 940 -> 966 px) and an open drop-down ("Remove a student")
    closed about two seconds after it opened (``tests/test_browser_class.py`` watches it in
    Chromium). A container keeps what the run before drew until the new element replaces it."""
    import ast
    from pathlib import Path

    package = Path(class_views.__file__).parent
    found = []
    for path in sorted(package.rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(), filename=str(path))):
            if (
                isinstance(node, ast.Call)
                and isinstance(node.func, ast.Attribute)
                and node.func.attr == "empty"
                and isinstance(node.func.value, ast.Name)
                and node.func.value.id == "st"
            ):
                found.append(f"{path.relative_to(package.parent)}:{node.lineno}")
    assert len(list(package.rglob("*.py"))) > 10, "the class package was not found"
    assert not found, f"st.empty() places in class mode: {found}"
