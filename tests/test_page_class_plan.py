"""A class plan on the Class page, under AppTest against real databases (``class_db_url``):
built in the editor (views with their settings, a lesson's question, the teacher's own),
stepped through with Next / Previous (the class follows, the question opens, the teacher's
page goes there), saved under a code and loaded into another class."""

from __future__ import annotations

from app_helpers import button, class_texts, join_class, start_class

from posenc_lab import course as lessons
from posenc_lab.classroom import follow as class_follow
from posenc_lab.classroom import plan as class_plan
from posenc_lab.classroom import session as classroom
from posenc_lab.classroom import store as class_store
from posenc_lab.classroom import views as class_views

P = class_plan.P
CHOICE = next(poll for poll in lessons.all_polls() if poll.options)


def _add_view(teacher, view: str, address: str = "", notes: str = "") -> None:
    teacher.radio(key=P + "kind").set_value(class_plan.VIEW_KIND).run()
    teacher.selectbox(key=P + "view").set_value(view)
    teacher.text_input(key=P + "address").set_value(address)
    teacher.text_area(key=P + "notes").set_value(notes)
    button(teacher, "Add the step").click().run()
    assert not teacher.exception, [e.message for e in teacher.exception]


def _add_question(teacher, key: str, notes: str = "") -> None:
    teacher.radio(key=P + "kind").set_value(class_plan.QUESTION_KIND).run()
    teacher.selectbox(key=P + "question").set_value(key)
    teacher.text_area(key=P + "notes").set_value(notes)
    button(teacher, "Add the step").click().run()
    assert not teacher.exception, [e.message for e in teacher.exception]


def _write_own(teacher) -> None:
    teacher.radio(key=class_views.Q + "kind").set_value(class_views.CHOICE_KIND).run()
    teacher.text_area(key=class_views.Q + "prompt").set_value("Which grows faster?")
    teacher.text_area(key=class_views.Q + "options").set_value("the fast pair\nthe slow pair")
    button(teacher, "Add the question").click().run()


def _next(teacher) -> None:
    next(b for b in teacher.button if b.key == "plan_next").click().run()
    assert not teacher.exception, [e.message for e in teacher.exception]


def test_a_plan_of_four_steps_takes_the_class_through_views_and_questions(db_url):
    teacher, code, key = start_class()
    student = join_class(code, "Ada")
    _write_own(teacher)
    db = class_store.open_store(db_url)
    (own,) = db.questions(code)
    _add_view(teacher, "rope?view=rotation", notes="Ask: what turns with m?")
    _add_question(teacher, own.key, notes="Then our own")
    _add_view(teacher, "alibi?view=slopes", address=f"http://localhost:8501/alibi?view=slopes&heads=4&class={code}")
    _add_question(teacher, CHOICE.key)
    plan = db.class_plan(code)
    assert [(s.kind, s.target) for s in plan.steps] == [
        ("view", "rope?view=rotation"),
        ("question", own.key),
        ("view", "alibi?heads=4&view=slopes"),  # the pasted address keeps its settings, not the class's names
        ("question", CHOICE.key),
    ]
    assert plan.at == -1
    assert "A plan of 4 steps: Next starts it." in class_texts(teacher)
    # a step's label names the settings it sends (a view at its defaults names none)
    slopes = class_follow.describe(lessons.COURSE, "alibi?view=slopes")
    shown = class_texts(teacher)
    assert classroom.plain(f"{slopes}, heads 4") in shown
    assert classroom.plain(class_follow.describe(lessons.COURSE, "rope?view=rotation") + ",") not in shown
    # the editor moves and removes: the fourth step up, then back, a step removed and added back
    next(b for b in teacher.button if b.key == "plan_up_3").click().run()
    assert [s.target for s in db.class_plan(code).steps][2:] == [CHOICE.key, "alibi?heads=4&view=slopes"]
    next(b for b in teacher.button if b.key == "plan_down_2").click().run()
    assert [s.target for s in db.class_plan(code).steps][2:] == ["alibi?heads=4&view=slopes", CHOICE.key]

    # step 1: the class and the teacher's page go to the view; the notes on the teacher's screen
    _next(teacher)
    assert db.follow(code).address == "rope?view=rotation"
    assert teacher.query_params.get("view") in ("rotation", ["rotation"])
    shown = class_texts(teacher)
    assert "Step 1 of 4" in shown and classroom.plain("Ask: what turns with m?") in shown
    # step 2, from the lesson page: the own question opens, the teacher's page goes to the class page
    _next(teacher)
    current = db.current_round(code)
    assert (current.poll_key, current.closed) == (own.key, None)
    assert db.follow(code).address == lessons.CLASS.url_path  # the class is brought to the question
    assert "Step 2 of 4" in class_texts(teacher) and "Which grows faster?" in class_texts(teacher)
    student.run()
    assert "Which grows faster?" in class_texts(student)
    # Previous goes back a step: the class is sent to step 1's view again
    next(b for b in teacher.button if b.key == "plan_previous").click().run()
    assert db.class_plan(code).at == 0 and (db.follow(code).seq, db.follow(code).address) == (3, "rope?view=rotation")
    _next(teacher)
    _next(teacher)
    assert db.follow(code).address == "alibi?heads=4&view=slopes" and db.class_plan(code).at == 2
    _next(teacher)
    assert db.current_round(code).poll_key == CHOICE.key and db.class_plan(code).at == 3
    assert not any(b.key == "plan_next" and not b.disabled for b in teacher.button)
    assert not teacher.exception and not student.exception


def test_a_saved_plan_loads_into_another_class(db_url):
    teacher, code, key = start_class()
    _write_own(teacher)
    db = class_store.open_store(db_url)
    (own,) = db.questions(code)
    _add_view(teacher, "rope?view=rotation", notes="start")
    _add_question(teacher, own.key)
    teacher.text_input(key=P + "title").set_value("Week 3")
    button(teacher, "Save the plan").click().run()
    (saved,) = [s.value for s in teacher.success if "Plan code" in s.value]
    plan_code = saved.split("**")[1]
    assert len(plan_code) == class_store.PLAN_CODE_LENGTH

    other, other_code, _ = start_class()
    other.text_input(key=P + "code").set_value(plan_code.lower())
    button(other, "Load the plan").click().run()
    assert "Loaded the plan Week 3: 2 steps" in class_texts(other)
    (copied,) = db.questions(other_code)
    assert copied.prompt == "Which grows faster?" and copied.key != own.key
    assert db.class_plan(other_code).steps == (
        class_store.PlanStep("view", "rope?view=rotation", "start"),
        class_store.PlanStep("question", copied.key, ""),
    )

    other.text_input(key=P + "code").set_value("NOPE1234")
    button(other, "Load the plan").click().run()
    assert "Not done: no saved plan has the code NOPE1234" in class_texts(other)
    assert not other.exception


def test_the_plan_editor_is_not_projected_and_the_bar_keeps_notes_off_the_projector(db_url):
    from app_helpers import continue_teaching

    teacher, code, key = start_class()
    _add_view(teacher, "rope?view=rotation", notes="secret notes")
    _next(teacher)
    projected = continue_teaching(code, key, {"present": "1"})
    assert projected.session_state[classroom.TEACHER] == (code, key)
    assert not [e for e in projected.expander if "plan" in e.label.lower()]
    assert "Step 1 of 1" in class_texts(projected) and "secret" not in class_texts(projected)
    assert "secret notes" in class_texts(teacher)


def test_presenter_mode_stays_on_through_every_plan_step(db_url):
    """The projector's page (presenter mode) steps the plan: a view, a question, back to the
    view. Presenter mode stayed off after the first Next (the view was opened as a link
    without it), and the next press projected the teacher's private screen: the question
    picker with its answers, the notes, the roster and the key switch."""
    from app_helpers import continue_teaching

    from posenc_lab.ui import layout

    teacher, code, key = start_class()
    _write_own(teacher)
    (own,) = class_store.open_store(db_url).questions(code)
    _add_view(teacher, "rope?view=rotation", notes="secret notes")
    _add_question(teacher, own.key, notes="secret too")
    projected = continue_teaching(code, key, {"present": "1"})
    assert projected.session_state[layout.PRESENTING]
    for press in ("plan_next", "plan_next", "plan_previous", "plan_next"):
        next(b for b in projected.button if b.key == press).click().run()
        assert not projected.exception, [e.message for e in projected.exception]
        assert projected.session_state[layout.PRESENTING], f"presenter mode went off after {press}"
        assert projected.query_params.get("present") in ("1", ["1"]), f"the address lost present=1 after {press}"
        assert "secret" not in class_texts(projected)


def test_one_next_on_a_held_class_sends_it_once(db_url):
    """Issue 49, 1.4: one Next moved the class two steps. On a lesson page with the class
    held, the press's run checked the bar before it switched to the step's view: the class,
    just sent on by the plan, was "behind" the teacher's page and was sent back to it."""
    from posenc_lab.classroom import follow as class_follow

    teacher, code, key = start_class()
    _add_view(teacher, "alibi?view=slopes")
    _add_view(teacher, "sinusoidal?view=waves")
    rope = next(lesson for lesson in lessons.LESSONS if lesson.url_path == "rope")
    teacher.switch_page(rope.path)
    teacher.query_params.update({"view": "rotation"})
    teacher.run()
    button(teacher, "Send the class here").click().run()
    teacher.toggle(key=class_follow.HOLD).set_value(True).run()
    with class_store.open_store(db_url) as db:
        before = db.follow(code)
    assert before.held
    next(b for b in teacher.button if b.key == "plan_next").click().run()
    assert not teacher.exception
    with class_store.open_store(db_url) as db:
        after = db.follow(code)
    assert (after.seq - before.seq, after.address) == (1, "alibi?view=slopes")


def test_one_next_sends_once_even_when_the_page_changed_its_address_in_that_run(db_url):
    """Issue 49, 1.4, seen in the class soak (1 class in 3, twice): the projector on a held
    class's view pressed Next to a question step; in that press's run the page's address was
    not the one its bar had last seen (the view came up as another), and the bar sent the
    class back to the page's new address 58 ms after the plan sent it to the question. The
    run of a Previous / Next press never sends the page's own address."""
    from posenc_lab.classroom import follow as class_follow

    teacher, code, key = start_class()
    _add_view(teacher, "sinusoidal?view=waves")
    _add_question(teacher, CHOICE.key)
    _next(teacher)  # to the view: the teacher's page goes there
    sinusoidal = next(lesson for lesson in lessons.LESSONS if lesson.url_path == "sinusoidal")
    teacher.switch_page(sinusoidal.path)
    teacher.run()
    teacher.toggle(key=class_follow.HOLD).set_value(True).run()
    with class_store.open_store(db_url) as db:
        before = db.follow(code)
    assert before.held and before.address.startswith("sinusoidal?")
    # as in the soak's run: the bar last saw another address of this page
    teacher.session_state[class_follow.BAR_SEEN] = (code, "sinusoidal?view=heatmap")
    _next(teacher)
    with class_store.open_store(db_url) as db:
        after = db.follow(code)
    assert (after.seq - before.seq, after.address) == (1, "class"), "one Next, one send: to the question"


def test_a_steps_settings_are_named_in_the_addresses_order_without_the_class_names():
    """The settings a view step sends, as its label reads them: the view and the class's
    own names (code, student, teacher, room, presenter mode) are not settings."""
    assert class_follow.settings_of("rope?view=rotation") == ""
    assert class_follow.settings_of("rope") == ""
    assert class_follow.settings_of("rope?head_dim=32&base=500&gap=7&view=rotation") == "head_dim 32, base 500, gap 7"
    assert class_follow.settings_of("alibi?heads=4&present=1&class=ABC123&view=slopes") == "heads 4"


def test_a_plan_file_downloaded_from_one_class_imports_into_another(db_url):
    """Download as a file holds the plan; Import a plan file reads it into another
    class, with its own question, and a file that is not a plan is refused in words."""
    teacher, code, key = start_class()
    _write_own(teacher)
    db = class_store.open_store(db_url)
    (own,) = db.questions(code)
    _add_view(teacher, "alibi?view=slopes", address="http://localhost:8501/alibi?view=slopes&heads=4", notes="look")
    _add_question(teacher, own.key, notes="ask")
    (download,) = [b for b in teacher.get("download_button") if b.proto.label == "Download as a file"]
    assert not download.proto.disabled
    text = db.export_plan(code, key)

    other, other_code, _ = start_class()
    uploader = other.file_uploader[0]
    assert uploader.label == "Import a plan file"
    uploader.upload("plan.json", text.encode(), "application/json").run()
    assert not other.exception, [e.message for e in other.exception]
    plan = db.class_plan(other_code)
    (copied,) = db.questions(other_code)
    assert [(s.kind, s.target, s.notes) for s in plan.steps] == [
        ("view", "alibi?heads=4&view=slopes", "look"),
        ("question", copied.key, "ask"),
    ]
    assert "Imported the plan: 2 steps." in class_texts(other)
    # a file that is not a plan: said where it was tried, the plan as it was
    other.file_uploader[0].upload("notes.json", b'{"hello": 1}', "application/json").run()
    assert not other.exception
    assert "Not done: the file is not a posenc-lab class plan" in class_texts(other, as_read=True)
    assert len(db.class_plan(other_code).steps) == 2


def test_a_step_is_edited_in_place_its_settings_question_and_notes(db_url):
    """The pencil beside a step: a view step's address (with settings) and notes, a question
    step's question; an address that names no lesson is refused in words, the step as it was."""
    teacher, code, key = start_class()
    _add_view(teacher, "rope?view=rotation", notes="first")
    _add_question(teacher, CHOICE.key, notes="ask")
    db = class_store.open_store(db_url)
    view, question = db.class_plan(code).steps
    stem = class_plan._edit_key(0, view)
    teacher.text_input(key=stem + "address").set_value("http://localhost:8501/rope?view=rotation&base=500&gap=7")
    teacher.text_area(key=stem + "notes").set_value("now at base 500")
    next(b for b in teacher.button if stem in str(b.key)).click().run()
    assert not teacher.exception, [e.message for e in teacher.exception]
    edited = db.class_plan(code).steps[0]
    assert (edited.target, edited.notes) == ("rope?base=500&gap=7&view=rotation", "now at base 500")
    assert "Changed step 1." in class_texts(teacher)
    assert classroom.plain(class_plan.step_label(lessons.COURSE, {}, edited)) in class_texts(teacher)

    other = next(p for p in lessons.all_polls() if p.options and p.key != CHOICE.key)
    stem = class_plan._edit_key(1, question)
    teacher.selectbox(key=stem + "question").set_value(other.key)
    next(b for b in teacher.button if stem in str(b.key)).click().run()
    assert db.class_plan(code).steps[1] == class_store.PlanStep("question", other.key, "ask")

    edited = db.class_plan(code).steps[0]
    stem = class_plan._edit_key(0, edited)
    teacher.text_input(key=stem + "address").set_value("https://example.org/nowhere")
    next(b for b in teacher.button if stem in str(b.key)).click().run()
    assert not teacher.exception
    assert "Not done: the view's address names no lesson" in class_texts(teacher, as_read=True)
    assert db.class_plan(code).steps[0] == edited


def test_a_next_press_delivered_twice_moves_the_class_once(db_url):
    """Issue 49, 1.4, seen in the class soak (tools/class_soak.py --runs 3, 1 class in 3): the
    console's Next to a question step moved the plan one step and sent the class twice, its
    callback run a second time with the arguments it was drawn with. A press carries the step
    its button was drawn on; once the class is past it, the press moves nothing."""
    polls = [poll for poll in lessons.all_polls() if poll.options]
    with class_store.open_store(db_url) as db:
        new = db.create_class("Twice")
        code, key = new.code, new.teacher_key
        steps = [class_store.PlanStep("view", "alibi", "")]
        steps += [class_store.PlanStep("question", poll.key, "") for poll in polls[:2]]
        db.set_plan(code, key, steps)
        db.plan_go(code, key, 0)
        before = db.follow(code).seq
    for _ in range(2):  # the same press, as drawn on step 1 of 3
        class_plan._go(lessons.COURSE, code, key, 1, False, 0)
    with class_store.open_store(db_url) as db:
        assert db.class_plan(code).at == 1
        assert db.follow(code).seq - before == 1, "one press, one send"
        assert len(db.rounds(code, polls[0].key)) == 1
