"""The class database's schema: its migrations, applied in order when a store opens
(``connect.Connections._migrate``), the same statements on SQLite and PostgreSQL. A new
table or column is a new migration at the end of the list, never an edit of one applied."""

from __future__ import annotations

from posenc_lab.classroom.store.records import CLASS_CAP

# an arbitrary constant: the key of the PostgreSQL advisory lock that serializes migrations
MIGRATION_LOCK = 7_281_913_013
MIGRATIONS: list[tuple[int, tuple[str, ...]]] = [
    (
        1,
        (
            """CREATE TABLE classes (
                code TEXT PRIMARY KEY,
                teacher_hash TEXT NOT NULL,
                title TEXT NOT NULL,
                created DOUBLE PRECISION NOT NULL,
                expires DOUBLE PRECISION NOT NULL)""",
            "CREATE INDEX classes_expires ON classes (expires)",
            """CREATE TABLE students (
                code TEXT NOT NULL,
                student_id TEXT NOT NULL,
                nickname TEXT NOT NULL,
                joined DOUBLE PRECISION NOT NULL,
                PRIMARY KEY (code, student_id))""",
            # seq orders a class's rounds even when two are opened within one clock tick
            """CREATE TABLE rounds (
                id TEXT PRIMARY KEY,
                code TEXT NOT NULL,
                poll_key TEXT NOT NULL,
                number INTEGER NOT NULL,
                seq INTEGER NOT NULL,
                opened DOUBLE PRECISION NOT NULL,
                closed DOUBLE PRECISION,
                revealed DOUBLE PRECISION)""",
            # the pages poll "the class's current round" every second
            "CREATE UNIQUE INDEX rounds_code_seq ON rounds (code, seq)",
            "CREATE UNIQUE INDEX rounds_code_poll_number ON rounds (code, poll_key, number)",
            # is_right: RIGHT is reserved in PostgreSQL; the primary key also serves count(round)
            """CREATE TABLE answers (
                round_id TEXT NOT NULL,
                student_id TEXT NOT NULL,
                vote TEXT NOT NULL,
                is_right INTEGER NOT NULL,
                at DOUBLE PRECISION NOT NULL,
                PRIMARY KEY (round_id, student_id))""",
            """CREATE TABLE attempts (
                code TEXT NOT NULL,
                student_id TEXT NOT NULL,
                exercise_key TEXT NOT NULL,
                answer TEXT NOT NULL,
                is_right INTEGER NOT NULL,
                at DOUBLE PRECISION NOT NULL)""",
            "CREATE INDEX attempts_code_key ON attempts (code, exercise_key)",
            "CREATE INDEX attempts_code_student ON attempts (code, student_id)",
            "CREATE TABLE join_failures (client TEXT NOT NULL, at DOUBLE PRECISION NOT NULL)",
            "CREATE INDEX join_failures_client_at ON join_failures (client, at)",
            "CREATE INDEX join_failures_at ON join_failures (at)",
        ),
    ),
    (
        2,
        (
            # the teacher's cap on students, closing the class to new joins, and how many joins
            # were refused (locked, full, or too many from one address), shown to the teacher
            f"ALTER TABLE classes ADD COLUMN cap INTEGER NOT NULL DEFAULT {CLASS_CAP}",
            "ALTER TABLE classes ADD COLUMN locked INTEGER NOT NULL DEFAULT 0",
            "ALTER TABLE classes ADD COLUMN refused INTEGER NOT NULL DEFAULT 0",
            # new students per network address, kept only for the rate window
            "CREATE TABLE network_joins (network TEXT NOT NULL, at DOUBLE PRECISION NOT NULL)",
            "CREATE INDEX network_joins_network_at ON network_joins (network, at)",
            "CREATE INDEX network_joins_at ON network_joins (at)",
        ),
    ),
    (
        3,
        (
            # follow me: the address the teacher last sent the class to (a lesson's view with
            # its settings, as its URL holds them), a number that grows with each send, and
            # whether the class is held there
            "ALTER TABLE classes ADD COLUMN follow_address TEXT NOT NULL DEFAULT ''",
            "ALTER TABLE classes ADD COLUMN follow_seq INTEGER NOT NULL DEFAULT 0",
            "ALTER TABLE classes ADD COLUMN follow_held INTEGER NOT NULL DEFAULT 0",
            "ALTER TABLE classes ADD COLUMN follow_at DOUBLE PRECISION",
            # the roster: where each student's page is, when it last checked in
            "ALTER TABLE students ADD COLUMN place TEXT NOT NULL DEFAULT ''",
            "ALTER TABLE students ADD COLUMN seen DOUBLE PRECISION",
        ),
    ),
    (
        4,
        (
            # a raised hand ("I'm stuck"): when it went up, NULL when down
            "ALTER TABLE students ADD COLUMN hand DOUBLE PRECISION",
        ),
    ),
    (
        5,
        (
            # questions the teacher writes for a class: plain text; options as a JSON list
            # ("[]": a number is asked), the answer (an option's index, or the number)
            """CREATE TABLE questions (
                key TEXT PRIMARY KEY,
                code TEXT NOT NULL,
                seq INTEGER NOT NULL,
                prompt TEXT NOT NULL,
                options TEXT NOT NULL,
                answer DOUBLE PRECISION NOT NULL,
                tolerance DOUBLE PRECISION NOT NULL,
                low DOUBLE PRECISION NOT NULL,
                high DOUBLE PRECISION NOT NULL,
                integer_only INTEGER NOT NULL,
                unit TEXT NOT NULL,
                why TEXT NOT NULL,
                view TEXT NOT NULL,
                created DOUBLE PRECISION NOT NULL)""",
            "CREATE UNIQUE INDEX questions_code_seq ON questions (code, seq)",
            # the class's plan (a JSON list of steps) and the step it is on (-1: not started)
            "ALTER TABLE classes ADD COLUMN plan TEXT NOT NULL DEFAULT '[]'",
            "ALTER TABLE classes ADD COLUMN plan_at INTEGER NOT NULL DEFAULT -1",
            # plans saved for reuse: steps as JSON, a teacher's own questions written out whole
            """CREATE TABLE plans (
                code TEXT PRIMARY KEY,
                title TEXT NOT NULL,
                steps TEXT NOT NULL,
                saved DOUBLE PRECISION NOT NULL,
                used DOUBLE PRECISION NOT NULL)""",
            "CREATE INDEX plans_used ON plans (used)",
        ),
    ),
    (
        6,
        (
            # what each network address stored (a class started, a plan saved), kept for the
            # rate window only
            "CREATE TABLE address_uses (network TEXT NOT NULL, action TEXT NOT NULL, at DOUBLE PRECISION NOT NULL)",
            "CREATE INDEX address_uses_network_action_at ON address_uses (network, action, at)",
            "CREATE INDEX address_uses_at ON address_uses (at)",
            # a saved plan's fingerprint: the same plan saved again is the one already kept
            "ALTER TABLE plans ADD COLUMN digest TEXT NOT NULL DEFAULT ''",
            "CREATE INDEX plans_digest ON plans (digest)",
        ),
    ),
    (
        7,
        (
            # each student's practice on the variant exercises, as the lesson keeps it
            # (``ui.mastery``'s record: the exercise, its variant number, what happened, in
            # what order), so the teacher's roster and gradebook count mastery per skill
            """CREATE TABLE practice (
                code TEXT NOT NULL,
                student_id TEXT NOT NULL,
                exercise_key TEXT NOT NULL,
                n INTEGER NOT NULL,
                kind TEXT NOT NULL,
                seq INTEGER NOT NULL,
                PRIMARY KEY (code, student_id, exercise_key, n, kind, seq))""",
        ),
    ),
    (
        8,
        (
            # the last send set the class to practise that lesson's exercises (each student their
            # own variants; their pages say so in a banner)
            "ALTER TABLE classes ADD COLUMN follow_practice INTEGER NOT NULL DEFAULT 0",
        ),
    ),
    (
        9,
        (
            # a vote's timer: when the round closes by itself (NULL: no timer); whichever page
            # checks first after it closes it (``Rounds.live_round``), and a vote after it is refused
            "ALTER TABLE rounds ADD COLUMN deadline DOUBLE PRECISION",
        ),
    ),
    (
        10,
        (
            # the student whose answer the room screen shows, without their name, to discuss
            # it (NULL: none); the teacher picks it once the round is closed
            "ALTER TABLE rounds ADD COLUMN shown TEXT",
        ),
    ),
]
