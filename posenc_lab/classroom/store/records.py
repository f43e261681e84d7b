"""What the store returns and what a caller catches: one frozen dataclass per record, and
the refusals (``JoinRefused``, ``NotTeacher``; ``connect.StoreUnavailable`` when the
database cannot be reached)."""

from __future__ import annotations

from dataclasses import dataclass, field


class JoinRefused(Exception):
    """A join that cannot go ahead, or one more class or saved plan from an address that
    stored many (``Store.create_class``, ``Store.save_plan``): ``reason`` for people,
    ``retry_after`` in seconds or None, and ``delay``: the seconds the page waits before it
    answers (a wrong code from an address that sent many)."""

    def __init__(self, reason: str, retry_after: float | None = None, delay: float = 0.0):
        super().__init__(reason)
        self.reason = reason
        self.retry_after = retry_after
        self.delay = delay


class NotTeacher(PermissionError):
    """A teacher-only action without the class's teacher key."""


#: students a class takes unless its teacher sets another cap (1 to MAX_CLASS_CAP)
CLASS_CAP = 200
MAX_CLASS_CAP = 1000


@dataclass(frozen=True)
class NewClass:
    code: str
    teacher_key: str
    expires: float


@dataclass(frozen=True)
class ClassInfo:
    code: str
    title: str
    created: float
    expires: float
    cap: int = CLASS_CAP
    locked: bool = False
    refused: int = 0  # joins refused: class locked, full, or too many from one address


@dataclass(frozen=True)
class Student:
    student_id: str
    nickname: str


@dataclass(frozen=True)
class Follow:
    """Where the teacher sent the class (``Store.send_class``): ``seq`` grows with every
    send (0 before the first, when ``address`` is ""); ``held``: the teacher holds the
    class there (a student who steps away is brought back)."""

    seq: int
    address: str
    held: bool
    at: float | None
    #: the send set the class to practise the lesson's exercises (``send_class(practice=True)``)
    practice: bool = False


@dataclass(frozen=True)
class Place:
    """A student on the teacher's roster: where their page is and when it last checked in
    (None before it first did), when they raised their hand (None: down), and the exercise
    keys they solved in the class."""

    student_id: str
    nickname: str
    place: str
    seen: float | None
    hand: float | None = None
    solved: frozenset[str] = frozenset()
    #: their practice record on the variant exercises, (key, n, kind, seq) entries
    #: (``Store.record_practice``), from which the roster counts mastery per skill
    practice: frozenset[tuple[str, int, str, int]] = frozenset()


@dataclass(frozen=True)
class Round:
    id: str
    code: str
    poll_key: str
    number: int
    opened: float
    closed: float | None
    revealed: float | None
    #: when a timer the teacher set closes the round by itself (None: no timer)
    deadline: float | None = None
    #: the student whose answer the room screen shows, without a name (``Store.show_answer``)
    shown: str | None = None

    @property
    def is_open(self) -> bool:
        return self.closed is None


@dataclass(frozen=True)
class Question:
    """A question the teacher wrote (``Store.add_question``): multiple choice when
    ``options`` holds two or more (``answer`` is the right one's index), else a number
    between ``low`` and ``high`` (right within ``tolerance``; ``integer``: whole numbers).
    Every text is plain text, cleaned and limited; ``view`` is an app address or ""."""

    prompt: str
    options: tuple[str, ...] = ()
    answer: float = 0.0
    tolerance: float = 0.0
    low: float = 0.0
    high: float = 1.0
    integer: bool = False
    unit: str = ""
    why: str = ""
    view: str = ""
    key: str = ""  # given by the store


@dataclass(frozen=True)
class PlanStep:
    """One step of a class plan: ``kind`` "view" (``target`` is an app address, which the
    step sends the class to) or "question" (``target`` is a question's key, which the step
    opens); ``notes`` are the teacher's, shown on the teacher's own screen only."""

    kind: str
    target: str
    notes: str = ""


@dataclass(frozen=True)
class ClassPlan:
    steps: tuple[PlanStep, ...] = ()
    at: int = -1  # the step the class is on; -1 before the first


@dataclass(frozen=True)
class Joined:
    student_id: str
    nickname: str
    joined: float


@dataclass(frozen=True)
class ClassRecord:
    """A class as its exports read it (``Store.class_record``).

    ``marks[(student_id, exercise_key)]``: True once solved, False when only tried;
    ``rounds`` in the order they were opened; ``votes[(round_id, student_id)]``: (vote, right).
    """

    code: str
    title: str
    students: tuple[Joined, ...]
    marks: dict[tuple[str, str], bool]
    rounds: tuple[Round, ...]
    votes: dict[tuple[str, str], tuple[str, bool]]
    #: ``practice[student_id]``: the student's practice record (``Store.record_practice``)
    practice: dict[str, frozenset[tuple[str, int, str, int]]] = field(default_factory=dict)


@dataclass(frozen=True)
class ItemSummary:
    key: str
    kind: str  # "exercise" | "poll"
    number: int  # the poll's round number; 0 for an exercise
    answered: int
    right: int
    wrong: tuple[tuple[str, int], ...]
