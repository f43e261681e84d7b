"""The teacher's own questions on the Class page, under AppTest against real databases
(``class_db_url``): written in the form, opened like a lesson's, answered, revealed with
the teacher's explanation and the view that settles it, counted in the results and the
exports. Everything typed is shown as text: no markup, link or maths comes out of it."""

from __future__ import annotations

import csv
import io
import re
from urllib.parse import parse_qs

import pytest
from app_helpers import button, class_texts, continue_teaching, join_class, start_class

from posenc_lab import course as lessons
from posenc_lab.classroom import follow as class_follow
from posenc_lab.classroom import questions as class_questions
from posenc_lab.classroom import report
from posenc_lab.classroom import session as classroom
from posenc_lab.classroom import store as class_store
from posenc_lab.classroom import views as class_views

Q = class_views.Q
PROMPT = "Is **this** <b>bold</b>? [see](http://evil.example) $x$"
RIGHT, WRONG = "the <i>right</i> one", "a *wrong* one"


def _write(teacher, kind: str = class_views.CHOICE_KIND, **values) -> None:
    teacher.radio(key=Q + "kind").set_value(kind).run()
    for name, value in values.items():
        widget = teacher.get("text_area") + teacher.get("text_input") + teacher.get("number_input")
        widget += teacher.get("checkbox")
        next(w for w in widget if w.key == Q + name).set_value(value)
    button(teacher, "Add the question").click().run()
    assert not teacher.exception, [e.message for e in teacher.exception]


def _note(teacher) -> str:
    return " ".join(m.value for m in [*teacher.success, *teacher.error] if "dded" in m.value or "Not added" in m.value)


def test_a_written_question_is_asked_answered_and_revealed_as_typed(db_url):
    teacher, code, key = start_class()
    student = join_class(code, "Ada")
    _write(
        teacher,
        prompt=PROMPT,
        options=f"{RIGHT}\n\n  {WRONG}  \n",
        why="Because *stars* stay stars.",
        view=f"http://localhost:8501/rope?view=rotation&base=500&class={code}&present=1",
    )
    assert "Added, and chosen above" in _note(teacher)
    (own,) = class_store.open_store(db_url).questions(code)
    assert (own.prompt, own.options, own.answer) == (PROMPT, (RIGHT, WRONG), 0.0)
    assert own.view == "rope?base=500&view=rotation"  # the class's names and presenter mode left out
    assert teacher.selectbox(key="class_poll").value == own.key
    assert teacher.text_area(key=Q + "prompt").value == ""  # the form is empty for the next one
    assert teacher.selectbox(key="class_poll").format_func(own.key) == f"Your question: {PROMPT}"

    button(teacher, "Open the vote").click().run()
    student.run()
    shown = class_texts(student)
    assert f"#### {classroom.plain(PROMPT)}" in shown and "**this**" not in shown.replace("\\*", "")
    (radio,) = student.radio
    assert sorted(radio.options) == sorted([classroom.plain(RIGHT), classroom.plain(WRONG)])
    radio.set_value(0)  # the values are the options' indices as written: 0 is the right one
    button(student, "Send my answer").click().run()
    assert f"Counted: **{classroom.plain(RIGHT)}**" in class_texts(student)

    button(teacher, "Reveal").click().run()
    student.run()
    shown = class_texts(student)
    assert f"The answer: **{classroom.plain(RIGHT)}**" in shown
    assert "right" in shown and classroom.plain("Because *stars* stay stars.") in shown
    (link,) = [el for el in student.get("page_link") if "Explore it" in el.proto.label]
    assert link.proto.label == "Explore it: RoPE"
    assert parse_qs(link.proto.query_string) == {"base": ["500"], "view": ["rotation"]}
    assert not student.exception and not teacher.exception

    # the results and the exports name it in words
    teacher.run()
    (summary,) = [t.value for t in teacher.dataframe if "shift, first round to last" in t.value.columns]
    assert summary.to_dict("records")[0]["question"] == f"Your question: {PROMPT}"
    record = class_store.open_store(db_url).class_record(code, key)
    own_columns = class_views.question_columns(
        lessons.COURSE, class_questions.own_polls(class_store.open_store(db_url), code)
    )
    rows = list(csv.reader(io.StringIO(report.gradebook_csv(record, [], own_columns))))
    # the question's columns right after the name and the join time
    assert rows[0][2:4] == [f"Your question: {PROMPT} (round 1)", f"Your question: {PROMPT} (round 1): right"]
    assert rows[1][0] == "Ada" and rows[1][2:4] == [RIGHT, "yes"]


def test_a_number_question_counts_within_its_tolerance(db_url):
    teacher, code, key = start_class()
    one, two = join_class(code), join_class(code)
    _write(
        teacher,
        kind=class_views.NUMBER_KIND,
        prompt="How many positions apart?",
        answer=40.0,
        tolerance=2.0,
        low=0.0,
        high=100.0,
        unit="positions",
    )
    assert "Added" in _note(teacher)
    button(teacher, "Open the vote").click().run()
    for student, value in ((one, 41.5), (two, 45.0)):
        student.run()
        student.number_input[0].set_value(value)
        button(student, "Send my answer").click().run()
    button(teacher, "Reveal").click().run()
    one.run()
    two.run()
    assert "The answer: **40 positions**" in class_texts(one)
    assert f"You answered **{classroom.plain('41.5 positions')}**: right" in class_texts(one)
    assert "You answered **45 positions**: not this time" in class_texts(two)
    assert not one.get("page_link") or not any("Explore it" in el.proto.label for el in one.get("page_link"))


#: Streamlit's shortcodes, as a teacher may type them: a Material icon, an emoji, a colour
SHORTCODES = ":material/home: :smile: :red[red]"


def _as_drawn(source: str) -> str:
    """A Markdown source as Streamlit's frontend draws it (StreamlitMarkdown): it first rewrites
    ":material/" to ":material_", escaped or not, then parses (the escapes go) and draws a text
    ":material_name:" as an icon and ":name:" as an emoji; word joiners are invisible."""
    text = re.sub(r"\\(.)", r"\1", source.replace(":material/", ":material_"))
    assert not re.search(r":[\w+-]+:", text), f"drawn as an icon or an emoji: {text!r}"
    return text.replace("\u2060", "")


def test_shortcodes_in_a_teachers_question_show_as_typed(db_url):
    """Issue 49: ":material/home:" typed in a question showed as ":material_home:"."""
    teacher, code, _ = start_class()
    student = join_class(code)
    prompt, options, why = f"Which {SHORTCODES}?", (f"{SHORTCODES} yes", ":material/close: no"), f"{SHORTCODES}."
    _write(teacher, prompt=prompt, options="\n".join(options), why=why)
    button(teacher, "Open the vote").click().run()
    student.run()
    headings = [m.value[5:] for m in [*teacher.markdown, *student.markdown] if m.value.startswith("#### ")]
    assert len(headings) == 2 and all(_as_drawn(h) == prompt for h in headings)
    assert sorted(_as_drawn(o) for o in student.radio[0].options) == sorted(options)
    student.radio[0].set_value(0)
    button(student, "Send my answer").click().run()
    button(teacher, "Reveal").click().run()
    student.run()
    assert why in [_as_drawn(m.value) for m in student.markdown]
    assert f"The answer: **{options[0]}**" in [_as_drawn(m.value) for m in student.success]

    # a number's unit: in the answer box's label and the teacher's preview
    unit = ":material/home:"
    _write(teacher, kind=class_views.NUMBER_KIND, prompt="How far?", answer=4.0, high=10.0, unit=unit)
    assert f"A number between 0 and 10 {unit}." in [_as_drawn(c.value) for c in teacher.caption]
    button(teacher, "Open the vote").click().run()
    student.run()
    assert _as_drawn(student.number_input[0].label) == f"Your answer ({unit})"
    assert not teacher.exception and not student.exception


def test_a_teachers_unit_is_text_on_the_votes_chart():
    """Plotly reads tags in a label (<b>, <a href>): a teacher's unit is drawn as typed."""
    unit = '<a href="http://evil.example">m</a>'
    question = class_store.Question("How far?", (), 4.0, 0.0, 0.0, 10.0, True, unit, key=class_store.OWN_PREFIX + "u")
    poll = class_questions.own_poll(question)
    fig = class_views.vote_figure(lessons.COURSE, poll, [("round 1", ["4"])], revealed=False)
    labels = [str(label) for label in fig.data[0].y]
    assert labels and all(label.endswith(' &lt;a href="http://evil.example"&gt;m&lt;/a&gt;') for label in labels)


@pytest.mark.parametrize(
    ("kind", "values", "said"),
    [
        (class_views.CHOICE_KIND, {"prompt": "Which?", "options": "only one"}, "options must be 2 to 6, got 1"),
        (class_views.CHOICE_KIND, {"prompt": "", "options": "a\nb"}, "prompt must be 1 to 300"),
        (
            class_views.CHOICE_KIND,
            {"prompt": "Which?", "options": "a\nb", "view": "http://x/nowhere"},
            "names no lesson",
        ),
        (class_views.NUMBER_KIND, {"prompt": "How many?"}, "type the answer"),
        (class_views.NUMBER_KIND, {"prompt": "How many?", "answer": 500.0, "high": 100.0}, "between low and high"),
    ],
)
def test_a_question_that_cannot_be_asked_is_refused_with_what_to_change(db_url, kind, values, said):
    teacher, code, _ = start_class()
    _write(teacher, kind=kind, **values)
    note = _note(teacher)
    assert note.startswith("Not added: ") and said in note
    assert class_store.open_store(db_url).questions(code) == []
    # what was typed stays in the form, to be mended
    if values.get("prompt"):
        assert teacher.text_area(key=Q + "prompt").value == values["prompt"]


def test_a_question_never_asked_can_be_removed_one_asked_stays(db_url):
    teacher, code, _ = start_class()
    _write(teacher, prompt="First?", options="yes\nno")
    _write(teacher, prompt="Second?", options="yes\nno")
    first, second = class_store.open_store(db_url).questions(code)
    assert teacher.selectbox(key="class_poll").value == second.key
    button(teacher, "Open the vote").click().run()
    button(teacher, "Remove this question").click().run()
    assert "was asked this question" in class_texts(teacher)
    teacher.selectbox(key="class_poll").set_value(first.key).run()
    button(teacher, "Remove this question").click().run()
    assert [q.key for q in class_store.open_store(db_url).questions(code)] == [second.key]
    assert not teacher.exception


def test_the_form_is_not_projected(db_url):
    teacher, code, key = start_class()
    projected = continue_teaching(code, key, {"present": "1"})
    assert projected.session_state[classroom.TEACHER] == (code, key)
    assert not [e for e in projected.expander if e.label == "Write your own question"]
    assert [e for e in teacher.expander if e.label == "Write your own question"]


@pytest.mark.parametrize(
    ("pasted", "address"),
    [
        ("", ""),
        ("  https://school.example/posenc/rope?view=rotation&base=500  ", "rope?base=500&view=rotation"),
        ("/alibi?teacher=k&student=s&class=ABC234&present=1&view=bias", "alibi?view=bias"),
        ("rope", "rope"),
        # a value the address may not hold as typed is sent encoded (the lesson refuses it plainly)
        ("rope?view=<script>", "rope?view=%3Cscript%3E"),
    ],
)
def test_a_pasted_link_becomes_the_views_address(pasted, address):
    assert class_follow.address_of_link(lessons.COURSE, pasted) == address


@pytest.mark.parametrize("pasted", ["https://x.example/", "nowhere?view=a", "javascript:alert(1)"])
def test_a_pasted_link_to_no_lesson_is_refused(pasted):
    with pytest.raises(ValueError, match="the view's address"):
        class_follow.address_of_link(lessons.COURSE, pasted)
