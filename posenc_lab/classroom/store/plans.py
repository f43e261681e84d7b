"""Plans and questions: a class's plan (its steps and the one it is at), saved under a code
and loaded into another class, and the questions a teacher writes."""

from __future__ import annotations

import hashlib
import json
import secrets
from dataclasses import replace

from posenc_lab.classroom.address import limit_key
from posenc_lab.classroom.store.connect import _Tx
from posenc_lab.classroom.store.records import ClassPlan, PlanStep, Question
from posenc_lab.classroom.store.rules import (
    CODE_ALPHABET,
    OWN_PREFIX,
    _check_key,
    _check_steps,
    _clean_text,
    _require_str,
    _shown_code,
    check_question,
    normalize_code,
)

PLAN_SAVES_PER_ADDRESS = 60
#: questions one class may hold (a class is an hour or two; more is a script, not a teacher)
QUESTIONS_PER_CLASS = 60
PLAN_CODE_LENGTH = 8  # longer than a class code: the two are never mistaken
PLAN_TITLE_CHARS = 60
#: a saved plan is kept this long after it was last saved or loaded (it holds no student data)
PLAN_RETENTION_DAYS = 180.0


class Plans:
    """Class plans and the teacher's own questions (a part of ``Store``)."""

    def _plan_of(self, tx: _Tx, code: str) -> ClassPlan:
        row = tx.one("SELECT plan, plan_at FROM classes WHERE code = ?", code)
        if row is None:
            return ClassPlan()
        steps = tuple(PlanStep(s["kind"], s["target"], s.get("notes", "")) for s in json.loads(row[0]))
        return ClassPlan(steps, min(int(row[1]), len(steps) - 1))

    def class_plan(self, code: str) -> ClassPlan:
        """The class's plan and the step it is on (an empty plan for no such class)."""
        code = normalize_code(code)
        with self._tx() as tx:
            return self._plan_of(tx, code)

    def set_plan(self, code: str, teacher_key: str, steps) -> ClassPlan:
        """Replace the class's plan with ``steps`` (``check_step`` each; at most PLAN_STEPS).
        A question step names a lesson's question or one of the class's own; the class stays
        on the step it was on while there is one."""
        steps = _check_steps(steps)
        with self._tx(write=True) as tx:
            code = self._require_teacher(tx, code, teacher_key)
            return self._write_plan(tx, code, steps)

    def _write_plan(self, tx: _Tx, code: str, steps: list[PlanStep]) -> ClassPlan:
        """Make checked ``steps`` the class's plan; ValueError for a step that opens a
        question the class does not have."""
        own = {row[0] for row in tx.all("SELECT key FROM questions WHERE code = ?", code)}
        for step in steps:
            if step.kind == "question" and step.target.startswith(OWN_PREFIX) and step.target not in own:
                raise ValueError(f"a question step names a question this class does not have: {step.target}")
        tx.run(
            "UPDATE classes SET plan = ?, plan_at = CASE WHEN plan_at < ? THEN plan_at ELSE ? END WHERE code = ?",
            json.dumps([step.__dict__ for step in steps]),
            len(steps),
            len(steps) - 1,
            code,
        )
        return self._plan_of(tx, code)

    def plan_go(self, code: str, teacher_key: str, at: int, question_page: str = "") -> PlanStep:
        """Take the class to step ``at`` of its plan: a view step sends the class there, a
        question step shows the question (``resume_poll``: its latest round as it was, or its
        first) and, given ``question_page`` (the address where questions are answered), sends
        the class there. Returns the step.

        A step whose own question the class no longer has (a database of an earlier version)
        opens nothing: the class is on that step, so that Next goes past it, and a ValueError
        says so."""
        if isinstance(at, bool) or not isinstance(at, int):
            raise ValueError(f"at must be a step's index, got {at!r:.40}")
        with self._tx() as tx:
            code = self._require_teacher(tx, code, teacher_key)
            plan = self._plan_of(tx, code)
            if not 0 <= at < len(plan.steps):
                raise ValueError(f"at must be a step of the plan, 0 to {len(plan.steps) - 1}, got {at}")
            step = plan.steps[at]
            gone = (
                step.kind == "question"
                and step.target.startswith(OWN_PREFIX)
                and tx.one("SELECT 1 FROM questions WHERE code = ? AND key = ?", code, step.target) is None
            )
        if step.kind == "view":
            self.send_class(code, teacher_key, step.target)
        elif not gone:
            self.resume_poll(code, teacher_key, step.target)
            if question_page:
                self.send_class(code, teacher_key, question_page)
        with self._tx(write=True) as tx:
            tx.run("UPDATE classes SET plan_at = ? WHERE code = ?", at, code)
        if gone:
            raise ValueError(
                f"step {at + 1} opens a question this class no longer has, so nothing was opened; "
                "Next goes on to the step after it"
            )
        return step

    def save_plan(self, code: str, teacher_key: str, title: str = "", *, network: str = "") -> str:
        """Save the class's plan for reuse; returns its code (PLAN_CODE_LENGTH characters),
        which loads it into another class. The class's own questions go in whole.

        The same plan saved again (its steps, questions and title as they were) is the one
        already kept: its code, nothing stored. ``network`` is the address of whoever saves,
        which saves at most PLAN_SAVES_PER_ADDRESS plans in ADDRESS_WINDOW_S (then JoinRefused,
        with ``retry_after``)."""
        title = _clean_text(_require_str(title, "title"), PLAN_TITLE_CHARS)
        network = limit_key(_require_str(network, "network")[:200])
        with self._tx(write=True) as tx:
            code = self._require_teacher(tx, code, teacher_key)
            plan = self._plan_of(tx, code)
            if not plan.steps:
                raise ValueError("the plan has no steps to save")
            own = {
                q.key: q
                for q in (
                    self._question(r)
                    for r in tx.all(f"SELECT {self._QUESTION_COLUMNS} FROM questions WHERE code = ?", code)
                )
            }
            steps = []
            for step in plan.steps:
                saved = dict(step.__dict__)
                if step.target in own:
                    q = own[step.target]
                    saved["question"] = {**q.__dict__, "options": list(q.options), "key": ""}
                steps.append(saved)
            digest = hashlib.sha256(json.dumps([title, steps], sort_keys=True).encode()).hexdigest()
            now = self._clock()
            kept = tx.value("SELECT code FROM plans WHERE digest = ?", digest)
            if kept is not None:
                tx.run("UPDATE plans SET saved = ?, used = ? WHERE code = ?", now, now, kept)
                return kept
            self._count_use(tx, network, "plan", PLAN_SAVES_PER_ADDRESS, now, "Too many plans were saved")
            while True:
                plan_code = "".join(secrets.choice(CODE_ALPHABET) for _ in range(PLAN_CODE_LENGTH))
                if tx.one("SELECT 1 FROM plans WHERE code = ?", plan_code) is None:
                    break
            tx.run(
                "INSERT INTO plans (code, title, steps, saved, used, digest) VALUES (?, ?, ?, ?, ?, ?)",
                plan_code,
                title,
                json.dumps(steps),
                now,
                now,
                digest,
            )
        return plan_code

    def load_plan(self, code: str, teacher_key: str, plan_code: str) -> tuple[str, ClassPlan]:
        """Load a saved plan into the class (its questions become the class's own; the class
        starts before the first step). Returns the plan's title and the class's new plan;
        ValueError when no saved plan has that code, or when its questions would take the
        class past QUESTIONS_PER_CLASS. It loads whole or not at all: one transaction."""
        # a plan code is typed as a class code is: spaces and case do not matter
        plan_code = normalize_code(_require_str(plan_code, "plan_code"))
        with self._tx(write=True) as tx:
            code = self._require_teacher(tx, code, teacher_key)
            row = tx.one("SELECT title, steps FROM plans WHERE code = ?", plan_code)
            if row is None or len(plan_code) != PLAN_CODE_LENGTH:
                raise ValueError(f"no saved plan has the code {_shown_code(plan_code)}")
            title, saved = row[0], json.loads(row[1])
            questions = {}
            for i, step in enumerate(saved):
                if "question" in step:
                    fields = {k: v for k, v in step["question"].items() if k != "key"}
                    fields["options"] = tuple(fields.get("options", ()))
                    questions[i] = check_question(Question(**fields))
            held = int(tx.value("SELECT COUNT(*) FROM questions WHERE code = ?", code))
            if held + len(questions) > QUESTIONS_PER_CLASS:
                raise ValueError(
                    f"the plan brings {len(questions)} questions of its own and this class holds {held}: "
                    f"a class holds at most {QUESTIONS_PER_CLASS}, so nothing was loaded"
                )
            steps = [
                PlanStep("question", self._insert_question(tx, code, questions[i]), step.get("notes", ""))
                if i in questions
                else PlanStep(step["kind"], step["target"], step.get("notes", ""))
                for i, step in enumerate(saved)
            ]
            self._write_plan(tx, code, _check_steps(steps))
            tx.run("UPDATE classes SET plan_at = -1 WHERE code = ?", code)
            tx.run("UPDATE plans SET used = ? WHERE code = ?", self._clock(), plan_code)
            return title, self._plan_of(tx, code)

    _QUESTION_COLUMNS = "key, prompt, options, answer, tolerance, low, high, integer_only, unit, why, view"

    @staticmethod
    def _question(row) -> Question:
        key, prompt, options, answer, tolerance, low, high, integer, unit, why, view = row
        return Question(
            prompt,
            tuple(json.loads(options)),
            float(answer),
            float(tolerance),
            float(low),
            float(high),
            bool(integer),
            unit,
            why,
            view,
            key,
        )

    def add_question(self, code: str, teacher_key: str, question: Question) -> Question:
        """Keep a question the teacher wrote for the class; returns it cleaned, with its key
        (``OWN_PREFIX`` and a random part), which opens it like a lesson's question."""
        question = check_question(question)
        with self._tx(write=True) as tx:
            code = self._require_teacher(tx, code, teacher_key)
            key = self._insert_question(tx, code, question)
        return replace(question, key=key)

    def _insert_question(self, tx: _Tx, code: str, question: Question) -> str:
        """Write a checked question into the class; returns its key."""
        tx.run("UPDATE classes SET expires = expires WHERE code = ?", code)  # serializes seq
        held = int(tx.value("SELECT COUNT(*) FROM questions WHERE code = ?", code))
        if held >= QUESTIONS_PER_CLASS:
            raise ValueError(f"a class holds at most {QUESTIONS_PER_CLASS} questions of its own")
        seq = 1 + (tx.value("SELECT MAX(seq) FROM questions WHERE code = ?", code) or 0)
        key = OWN_PREFIX + secrets.token_hex(6)
        tx.run(
            f"INSERT INTO questions (code, seq, created, {self._QUESTION_COLUMNS}) "
            "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
            code,
            seq,
            self._clock(),
            key,
            question.prompt,
            json.dumps(list(question.options)),
            question.answer,
            question.tolerance,
            question.low,
            question.high,
            int(question.integer),
            question.unit,
            question.why,
            question.view,
        )
        return key

    def questions(self, code: str) -> list[Question]:
        """The class's own questions, in the order they were written."""
        code = normalize_code(code)
        with self._tx() as tx:
            rows = tx.all(f"SELECT {self._QUESTION_COLUMNS} FROM questions WHERE code = ? ORDER BY seq", code)
        return [self._question(row) for row in rows]

    def remove_question(self, code: str, teacher_key: str, key: str) -> bool:
        """Remove a question the class was never asked, with the plan's steps that open it
        (the class stays on its step, or goes back to the one before it), so that the plan
        names no question the class lacks. False: it was asked, or is not the class's (the
        votes of a question asked stay readable in the results)."""
        _check_key(key, "key")
        with self._tx(write=True) as tx:
            code = self._require_teacher(tx, code, teacher_key)
            removed = tx.run(
                "DELETE FROM questions WHERE code = ? AND key = ? AND NOT EXISTS "
                "(SELECT 1 FROM rounds WHERE rounds.code = questions.code AND rounds.poll_key = questions.key)",
                code,
                key,
            )
            if removed:
                plan = self._plan_of(tx, code)
                kept = [i for i, step in enumerate(plan.steps) if (step.kind, step.target) != ("question", key)]
                if len(kept) < len(plan.steps):
                    self._write_plan(tx, code, [plan.steps[i] for i in kept])
                    at = sum(1 for i in kept if i <= plan.at) - 1
                    tx.run("UPDATE classes SET plan_at = ? WHERE code = ?", at, code)
            return bool(removed)
