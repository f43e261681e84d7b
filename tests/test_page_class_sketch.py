"""A drawn prediction on the Class page under AppTest, against real databases: the teacher
opens the sketch question, students' sketches (as their drawing area sends them: a vote of
24 heights) are overlaid on the projector with their median, and the reveal draws the
measured curve over them and tells each student how far off their sketch was. The drawing
itself (finger, mouse, keyboard) is driven in Chromium: tests/test_browser_class.py."""

from __future__ import annotations

import json

import numpy as np
from app_helpers import button, class_texts, join_class, start_class

from posenc_lab import course as lessons
from posenc_lab.classroom import session as classroom
from posenc_lab.classroom import sketch
from posenc_lab.classroom import store as class_store
from posenc_lab.classroom import views as class_views

POLL = lessons.COURSE.poll_by_key("poll-sinusoidal-sketch-similarity")


def _chart(at, key: str) -> dict:
    (spec,) = [json.loads(el.proto.spec) for el in at.get("plotly_chart") if str(el.key) == key]
    return spec


def test_sketches_are_overlaid_and_the_reveal_draws_the_measured_curve(db_url):
    teacher, code, key = start_class()
    ada, bo = join_class(code, "Ada"), join_class(code, "Bo")
    teacher.selectbox(key="class_poll").set_value(POLL.key).run()
    button(teacher, "Open the vote").click().run()
    ada.run()
    assert "Sketch PE[0] · PE[p]" in class_texts(ada)
    send = next(b for b in ada.button if b.label == "Send my sketch")
    assert send.disabled, "nothing drawn yet: nothing to send"

    # what each drawing area sends: Ada follows the curve, Bo lets it die out to 0
    measured = POLL.measured()
    on_curve = sketch.encode([min(99, round(100 * v)) for v in measured])
    to_zero = sketch.encode([max(0, 99 - 9 * i) for i in range(sketch.POINTS)])
    db = class_store.open_store(db_url)
    rnd = db.current_round(code)
    members = {at.session_state[classroom.MEMBER].student_id: at for at in (ada, bo)}
    for (sid, _), vote in zip(members.items(), (on_curve, to_zero), strict=True):
        assert db.answer(rnd.id, sid, vote, POLL.is_right_vote(vote, measured=measured))
    assert sorted(ok for _, ok in db.votes(rnd.id)) == [False, True]

    button(teacher, "Close the vote").click().run()
    chart = _chart(teacher, "class_votes")
    names = [t.get("name") for t in chart["data"]]
    assert names == ["a sketch", "a sketch", "the class's median"], "no measured curve before the reveal"
    median = np.median([sketch.decode(on_curve), sketch.decode(to_zero)], axis=0) * 64
    np.testing.assert_allclose(chart["data"][2]["y"], median)

    button(teacher, "Reveal").click().run()
    chart = _chart(teacher, "class_votes")
    (curve,) = [t for t in chart["data"] if t.get("name") == "measured"]
    x, y = POLL.sketch.curve()
    np.testing.assert_allclose(curve["y"], y)
    ada.run()
    bo.run()
    shown = class_texts(ada)
    assert "The answer: **the measured curve, dashed on the chart**" in shown
    off = sketch.error(on_curve, measured)
    assert f"Your sketch lies {round(100 * off)}% of the height from the measured curve" in shown and "right." in shown
    assert "not this time" in class_texts(bo)
    mine = _chart(ada, f"reveal_sketch_{POLL.key}")
    assert [t.get("name") for t in mine["data"]] == ["your sketch", "measured"]

    # the summary names the sketches by how far off they were
    teacher.run()
    (summary,) = [t.value for t in teacher.dataframe if "shift, first round to last" in t.value.columns]
    row = summary.to_dict("records")[0]
    assert row["right by round"] == "50%"
    assert row["most common wrong answers, first round"].startswith("a sketch ")
    assert not teacher.exception and not ada.exception and not bo.exception


def test_the_teachers_preview_shows_the_measured_curve(db_url):
    teacher, _, _ = start_class()
    teacher.selectbox(key="class_poll").set_value(POLL.key).run()
    preview = _chart(teacher, f"preview_sketch_{POLL.key}")
    assert [t.get("name") for t in preview["data"]] == ["measured"]
    assert "within 10% of the height" in class_texts(teacher)
    assert class_views.vote_words(lessons.COURSE, POLL, "x") == "your sketch"
