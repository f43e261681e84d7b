"""Plans and questions: a class's plan (its steps and the one it is at), saved under a code
and loaded into another class, and the questions a teacher writes."""

from __future__ import annotations

import hashlib
import json
import secrets
from collections.abc import Collection
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
#: a plan as a file (``export_plan``, ``import_plan``): what it says it is, and how large it may be
PLAN_FILE_FORMAT = "posenc-lab class plan"
PLAN_FILE_VERSION = 1
PLAN_FILE_BYTES = 512_000


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

    def _portable_steps(self, tx: _Tx, code: str) -> list[dict]:
        """The class's plan as it travels (saved under a code, or as a file): each step a
        dict, a step of the class's own question with that question whole, its key left out."""
        plan = self._plan_of(tx, code)
        if not plan.steps:
            raise ValueError("the plan has no steps to save")
        rows = tx.all(f"SELECT {self._QUESTION_COLUMNS} FROM questions WHERE code = ?", code)
        own = {q.key: q for q in (self._question(r) for r in rows)}
        steps = []
        for step in plan.steps:
            saved = dict(step.__dict__)
            if step.target in own:
                q = own[step.target]
                saved["question"] = {**q.__dict__, "options": list(q.options), "key": ""}
            steps.append(saved)
        return steps

    def export_plan(self, code: str, teacher_key: str, title: str = "") -> str:
        """The class's plan as a file (JSON text) that ``import_plan`` reads in any other
        installation: its steps, notes and the class's own questions, no student data."""
        title = _clean_text(_require_str(title, "title"), PLAN_TITLE_CHARS)
        with self._tx() as tx:
            code = self._require_teacher(tx, code, teacher_key)
            steps = self._portable_steps(tx, code)
        body = {"format": PLAN_FILE_FORMAT, "version": PLAN_FILE_VERSION, "title": title, "steps": steps}
        return json.dumps(body, indent=1, ensure_ascii=False) + "\n"

    def import_plan(
        self, code: str, teacher_key: str, text: str | bytes, known: Collection[str] | None = None
    ) -> tuple[str, ClassPlan]:
        """Load a plan file (``export_plan``'s JSON, from this installation or another) into the
        class, as ``load_plan`` loads a saved one: whole or not at all. ValueError, in words
        for the teacher, for a file that is not such a plan or breaks a rule (steps, questions,
        addresses and texts are checked as the editor checks them); with ``known`` (the
        lessons' questions), a step that opens a question the file does not carry must name one."""
        if isinstance(text, bytes):
            if len(text) > PLAN_FILE_BYTES:
                raise ValueError(f"the file is larger than a plan file can be ({PLAN_FILE_BYTES // 1000} kB)")
            try:
                text = text.decode("utf-8-sig")
            except UnicodeDecodeError:
                raise ValueError("the file is not text (a plan file is JSON, UTF-8)") from None
        _require_str(text, "text")
        if len(text) > PLAN_FILE_BYTES:
            raise ValueError(f"the file is larger than a plan file can be ({PLAN_FILE_BYTES // 1000} kB)")
        try:
            body = json.loads(text)
        except (ValueError, RecursionError):
            raise ValueError("the file is not a plan file (it is not JSON)") from None
        if not isinstance(body, dict) or body.get("format") != PLAN_FILE_FORMAT:
            raise ValueError("the file is not a posenc-lab class plan (Download as a file makes one)")
        if body.get("version") != PLAN_FILE_VERSION:
            raise ValueError(f"the plan file's version {body.get('version')!r:.20} is not one this app reads")
        title = body.get("title", "")
        if not isinstance(title, str):
            raise ValueError("the plan file's title must be text")
        title = _clean_text(title, PLAN_TITLE_CHARS)
        with self._tx(write=True) as tx:
            code = self._require_teacher(tx, code, teacher_key)
            return title, self._load_steps(tx, code, body.get("steps"), None if known is None else frozenset(known))

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
            steps = self._portable_steps(tx, code)
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
            plan = self._load_steps(tx, code, saved)
            tx.run("UPDATE plans SET used = ? WHERE code = ?", self._clock(), plan_code)
            return title, plan

    #: what a travelling step and its question may hold
    _STEP_FIELDS = frozenset({"kind", "target", "notes", "question"})
    _QUESTION_FIELDS = frozenset(Question.__dataclass_fields__)

    def _load_steps(self, tx: _Tx, code: str, saved, known: frozenset[str] | None = None) -> ClassPlan:
        """``saved`` (``_portable_steps``' list, from the plans table or a file) as the class's
        plan, its questions added as the class's own, in ``tx``; ValueError naming the step
        for anything a plan may not hold, before anything is written."""
        if not isinstance(saved, list) or not saved:
            raise ValueError("a plan holds a list of one step or more")
        questions = {}
        for i, step in enumerate(saved):
            if not isinstance(step, dict) or not set(step) <= self._STEP_FIELDS:
                raise ValueError(f"step {i + 1} of the plan is not a step (kind, target, notes, question)")
            if "question" in step:
                fields = step["question"]
                if not isinstance(fields, dict) or not set(fields) <= self._QUESTION_FIELDS:
                    raise ValueError(f"step {i + 1}'s question holds fields a question does not have")
                fields = {k: v for k, v in fields.items() if k != "key"}
                options = fields.get("options", ())
                if not isinstance(options, list | tuple):
                    raise ValueError(f"step {i + 1}'s question: options must be a list")
                fields["options"] = tuple(options)
                try:
                    questions[i] = check_question(Question(**fields))
                except ValueError as exc:
                    raise ValueError(f"step {i + 1}'s question: {exc}") from None
        held = int(tx.value("SELECT COUNT(*) FROM questions WHERE code = ?", code))
        if held + len(questions) > QUESTIONS_PER_CLASS:
            raise ValueError(
                f"the plan brings {len(questions)} questions of its own and this class holds {held}: "
                f"a class holds at most {QUESTIONS_PER_CLASS}, so nothing was loaded"
            )
        if known is not None:
            for i, step in enumerate(saved):
                if i not in questions and step.get("kind") == "question" and step.get("target") not in known:
                    target = step.get("target")
                    raise ValueError(f"step {i + 1} opens a question this app does not have: {target!r:.60}")
        # every step checked before a question is written: a plan loads whole or not at all
        checked = _check_steps(
            [
                PlanStep("question", OWN_PREFIX + "0", step.get("notes", ""))
                if i in questions
                else PlanStep(step.get("kind"), step.get("target"), step.get("notes", ""))
                for i, step in enumerate(saved)
            ]
        )
        steps = [
            PlanStep("question", self._insert_question(tx, code, questions[i]), step.notes) if i in questions else step
            for i, step in enumerate(checked)
        ]
        self._write_plan(tx, code, steps)
        tx.run("UPDATE classes SET plan_at = -1 WHERE code = ?", code)
        return self._plan_of(tx, code)

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
            *self._question_row(question),
        )
        return key

    @staticmethod
    def _question_row(question: Question) -> tuple:
        """A checked question's columns, as ``_QUESTION_COLUMNS`` names them after its key."""
        options = json.dumps(list(question.options))
        return (question.prompt, options, question.answer, question.tolerance, question.low, question.high) + (
            int(question.integer),
            question.unit,
            question.why,
            question.view,
        )

    def update_question(self, code: str, teacher_key: str, key: str, question: Question) -> Question | None:
        """Change a question of the class's own that the class was never asked (its votes would
        be for the question as it was); returns it as kept, with its key, or None: it was
        asked, or is not the class's (the teacher copies it to ask it differently)."""
        _check_key(key, "key")
        question = check_question(question)
        with self._tx(write=True) as tx:
            code = self._require_teacher(tx, code, teacher_key)
            changed = tx.run(
                "UPDATE questions SET prompt = ?, options = ?, answer = ?, tolerance = ?, low = ?, high = ?, "
                "integer_only = ?, unit = ?, why = ?, view = ? WHERE code = ? AND key = ? AND NOT EXISTS "
                "(SELECT 1 FROM rounds WHERE rounds.code = questions.code AND rounds.poll_key = questions.key)",
                *self._question_row(question),
                code,
                key,
            )
        return replace(question, key=key) if changed else None

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
