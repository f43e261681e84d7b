"""Retention: how long a class's data is kept after it ends (``POSENC_CLASS_RETENTION_DAYS``),
the purge that deletes what is older (and the expired counts of wrong codes, joins and uses
per address, and plans unused for PLAN_RETENTION_DAYS), and deleting a class now."""

from __future__ import annotations

import math
import os
from collections.abc import Mapping

from posenc_lab.classroom.store.classes import ADDRESS_WINDOW_S, JOIN_FAILURE_WINDOW_S
from posenc_lab.classroom.store.plans import PLAN_RETENTION_DAYS

#: days a class's data is kept after it ends (POSENC_CLASS_RETENTION_DAYS), and how often a
#: process deletes what is older
RETENTION_SETTING = "POSENC_CLASS_RETENTION_DAYS"
RETENTION_DAYS = 7.0
PURGE_EVERY_S = 3600.0


def retention_days(environ: Mapping[str, str] = os.environ) -> float:
    """Days a class's data is kept after the class ends: ``$POSENC_CLASS_RETENTION_DAYS``
    (a number from 0; 0 deletes it within the hour after it ends), else RETENTION_DAYS."""
    text = (environ.get(RETENTION_SETTING) or "").strip()
    if not text:
        return RETENTION_DAYS
    try:
        days = float(text)
    except ValueError:
        days = -1.0
    if not math.isfinite(days) or days < 0:
        raise ValueError(f"{RETENTION_SETTING} must be a number of days from 0, got {text!r:.40}")
    return days


class Retention:
    """The purge and deleting a class (a part of ``Store``)."""

    def purge(self, older_than_days: float = 30.0) -> int:
        if (
            isinstance(older_than_days, bool)
            or not isinstance(older_than_days, int | float)
            or not math.isfinite(older_than_days)
            or older_than_days < 0
        ):
            raise ValueError(f"older_than_days must be a finite number >= 0, got {older_than_days!r}")
        with self._tx(write=True) as tx:
            now = self._clock()
            cutoff = now - older_than_days * 86400.0
            old = "SELECT code FROM classes WHERE expires < ?"
            tx.run(f"DELETE FROM answers WHERE round_id IN (SELECT id FROM rounds WHERE code IN ({old}))", cutoff)
            for table in ("rounds", "students", "attempts", "practice", "questions"):
                tx.run(f"DELETE FROM {table} WHERE code IN ({old})", cutoff)
            deleted = tx.run("DELETE FROM classes WHERE expires < ?", cutoff)
            tx.run("DELETE FROM join_failures WHERE at <= ?", now - JOIN_FAILURE_WINDOW_S)
            tx.run("DELETE FROM network_joins WHERE at <= ?", now - JOIN_FAILURE_WINDOW_S)
            tx.run("DELETE FROM address_uses WHERE at <= ?", now - ADDRESS_WINDOW_S)
            tx.run("DELETE FROM plans WHERE used < ?", now - PLAN_RETENTION_DAYS * 86400.0)
        return int(deleted)

    def purge_if_due(self, retention_days: float = RETENTION_DAYS) -> int | None:
        """``purge(retention_days)`` at most once every PURGE_EVERY_S in this store (the app
        calls it whenever it uses the database); None when it was not due."""
        with self._lock:
            now = self._clock()
            if self._purged_at is not None and now - self._purged_at < PURGE_EVERY_S:
                return None
            self._purged_at = now
        return self.purge(retention_days)

    def delete_class(self, code: str, teacher_key: str) -> None:
        """Delete a class and everything in it (students, votes, exercises) now; its teacher
        and student links stop working."""
        with self._tx(write=True) as tx:
            code = self._require_teacher(tx, code, teacher_key)
            tx.run("DELETE FROM answers WHERE round_id IN (SELECT id FROM rounds WHERE code = ?)", code)
            for table in ("rounds", "students", "attempts", "practice", "questions", "classes"):
                tx.run(f"DELETE FROM {table} WHERE code = ?", code)
