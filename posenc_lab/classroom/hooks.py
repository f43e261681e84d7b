"""Class mode's part of every page. The shell (``ui.shell``) and the exercises
(``ui.exercises``) call it through the course (``Course.class_mode`` is this module, a
``ui.lesson.ClassMode``) and import nothing of class mode, so the layers run one way.

- ``follow_link``: a student's class link stays in the address bar on every page;
- ``share_view``: at the foot of a lesson, the view's own link, without the class;
- ``bars``: above a page, a student's banner, the teacher's bar and the plan's steps;
- ``restore_solved``, ``record_attempt``, ``leave``: a student's exercises and the class;
- ``seed``, ``restore_practice``, ``record_practice``: a student's variants and practice in
  the class (the teacher's roster counts their mastery from it).
"""

from __future__ import annotations

import streamlit as st

from posenc_lab.classroom import follow as class_follow
from posenc_lab.classroom import plan as class_plan
from posenc_lab.classroom import session, student
from posenc_lab.ui.lesson import Course

follow_link = session.follow_link
share_view = session.share_view
restore_solved = session.restore_solved
record_attempt = session.record_attempt
leave = session.leave
seed = session.seed
restore_practice = session.restore_practice
record_practice = session.record_practice


def bars(course: Course, url_path: str) -> None:
    """The class's bars above the page at ``url_path``, drawn last (the shell's run ends
    with them): by now the address holds every setting of the view (its controls write them
    as the page runs), so the address the teacher sends and the one a student's page
    reports name one view in one way. A room screen's page (``classroom.room``: a view it
    shows) has none: nobody there is a teacher or a student, whatever the tab remembers."""
    if session.room() is not None:
        return
    if session.teacher() is None and session.member() is None and url_path != course.class_page.url_path:
        # a teacher's tab reloaded on a lesson (or its server restarted) takes its key back
        # from the tab's storage, as the class page does; the bar follows on that run. The
        # reader has no visible part: in the side panel, it moves nothing on the lesson
        with st.sidebar:
            note = session.keep_teacher_in_tab()
        if note:
            st.toast(note)
    if session.member() is not None and url_path != course.class_page.url_path:
        student.banner(course, session.member().code, url_path)
    if session.teacher() is not None:
        class_follow.teacher_bar(course, url_path)
        if url_path != course.class_page.url_path:  # the class page draws its own
            class_plan.bar(course, url_path)
