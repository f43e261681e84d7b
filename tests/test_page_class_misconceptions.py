"""A number question's named wrong answers (``Poll.misconceptions``) under AppTest, on SQLite
and PostgreSQL: listed in the teacher's own preview, named nowhere else before *Reveal* (the
room screen, the students, the closed vote's chart), then naming their bars on the teacher's
and the room screen's charts, and the wrong answers of the results table and the summary."""

from __future__ import annotations

import json

from app_helpers import button, class_texts, continue_teaching, join_class, open_page, start_class

from posenc_lab import course as lessons
from posenc_lab.classroom import views as class_views

PAGE = lessons.CLASS.path
POLL = next(p for p in lessons.all_polls() if p.key == "poll-sinusoidal-full-turns")


def _everything(at) -> str:
    """Every element the page holds, as its protos say it: what the browser is sent."""
    return "\n".join(str(getattr(node, "proto", "")) for node in at._tree)


def _fresh(*pages) -> None:
    for at in pages:
        class_views._class_state.clear()
        class_views._watched.clear()
        at.run()
        assert not at.exception, [e.message for e in at.exception]


def _bars(at, key: str) -> dict[str, int]:
    chart = next(el for el in at.get("plotly_chart") if str(el.key).startswith(key))
    bars = json.loads(chart.proto.spec)["data"][0]
    counts = bars["x"]
    if isinstance(counts, dict):  # a typed array, as the app sends numbers
        import base64

        import numpy as np

        counts = np.frombuffer(base64.b64decode(counts["bdata"]), dtype=counts["dtype"]).tolist()
    return dict(zip(bars["y"], counts, strict=True))


def _vote(student, value: int) -> None:
    student.run()
    student.number_input[0].set_value(value)
    button(student, "Send my answer").click().run()
    assert not student.exception


def test_misconceptions_are_named_on_the_charts_and_in_the_results_after_the_reveal_only(db_url):
    named = POLL.misconceptions()
    names = [name for _, name in named]
    (every, every_name), (half, half_name), _ = named
    answer = int(POLL.answer())
    teacher, code, key = start_class()
    students = [join_class(code, f"S{n}") for n in range(4)]
    screen = open_page(PAGE, {"room": code, "present": "1"})

    # the teacher's own preview lists them under the answer
    teacher.selectbox(key="class_poll").set_value(POLL.key).run()
    preview = next(e for e in teacher.expander if e.label.startswith("Preview the question"))
    texts = " ".join(str(m.value) for m in preview.markdown)
    assert "Wrong answers classes give" in texts and all(name in texts for name in names)
    assert f"{int(every)} pairs: {every_name}" in texts

    button(teacher, "Open the vote").click().run()
    for student, value in zip(students, (int(every), int(every), int(half), answer), strict=True):
        _vote(student, value)
    _fresh(screen, *students)
    for at in (screen, *students):
        assert not any(name in _everything(at) for name in names), "no name while the vote is open"

    button(teacher, "Close the vote").click().run()
    _fresh(teacher, screen, *students)
    before = _bars(teacher, "class_votes")
    assert not any(name in label for label in before for name in names), "even bins before the reveal"
    assert sum(before.values()) == 4
    projected = continue_teaching(code, key, {"present": "1"})  # the teacher's page on the projector
    assert projected.get("plotly_chart"), "the closed vote's chart"
    for at in (screen, projected, *students):
        assert not any(name in _everything(at) for name in names), "nothing named before the reveal"

    button(teacher, "Reveal").click().run()
    _fresh(teacher, screen)
    for shown in (_bars(teacher, "class_votes"), _bars(screen, "room_votes")):
        (every_bar,) = [label for label in shown if every_name in label]
        (half_bar,) = [label for label in shown if half_name in label]
        (right_bar,) = [label for label in shown if label.endswith(" (right)")]
        assert (shown[every_bar], shown[half_bar], shown[right_bar]) == (2, 1, 1)
        assert every_bar.startswith(f"{int(every - POLL.tolerance)} to {int(every)} pairs")

    # the results table and the summary say the wrong answers by their misconception's name
    (results,) = [t.value for t in teacher.dataframe if "most common wrong answers" in t.value.columns]
    (row,) = [r for r in results.to_dict("records") if r["round"] == "1"]
    assert row["most common wrong answers"] == (
        f"{int(every)} pairs ({every_name}) (2); {int(half)} pairs ({half_name}) (1)"
    )
    (summary,) = [t.value for t in teacher.dataframe if "shift, first round to last" in t.value.columns]
    assert summary.to_dict("records")[0]["most common wrong answers, first round"] == row["most common wrong answers"]
    assert not teacher.exception and not screen.exception
    # the student pages never draw the votes' chart: no name reaches them either
    _fresh(*students)
    assert not any(name in class_texts(at) for at in students for name in names)
