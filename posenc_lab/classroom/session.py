"""Class mode's Streamlit glue: this server's class database, who this browser session is
in a class (a student or the teacher), and a student's exercise answers sent to the class.

The database (``classroom.store``) holds everything shared between students: classes,
votes, progress. A session only remembers *which* class and student it is:

- a student's link carries the class code and an anonymous student id
  (``/class?class=K7QM3P&student=...``); the shell keeps both in the address bar on every
  page, so a reload, a bookmark or a server restart brings back the same student, and
  the exercises solved in class come back from the database;
- the teacher types the class code and the teacher key (*Continue teaching a class*), so the
  key is in no link, browser history or log; it is kept in the session and in the tab's
  sessionStorage. An older teacher link (``?teacher=KEY``) still works: its key is read once
  and taken out of the address bar.

When the database cannot be reached the class page says so, and the lessons go on: an
exercise answer that cannot be sent is kept in the browser as always (``ui.progress``).
"""

from __future__ import annotations

import hashlib
import ipaddress
import json
import logging
import os
import re
import socket
import time
from collections.abc import Callable
from dataclasses import dataclass
from urllib.parse import urlencode, urlsplit

import streamlit as st

from posenc_lab.classroom import address as client_address
from posenc_lab.classroom import store as class_store
from posenc_lab.ui import mastery, state

_LOG = logging.getLogger(__name__)

#: URL names: the class code, a student's id, the teacher's key
CODE_PARAM, STUDENT_PARAM, TEACHER_PARAM = "class", "student", "teacher"
#: URL name of the room screen's link: the class code alone (``classroom.room``)
ROOM_PARAM = "room"
#: session keys
MEMBER = "_class:member"  # Member, for a student
TEACHER = "_class:teacher"  # (code, key), for the teacher
ROOM = "_class:room"  # the class code, for a room screen (it is neither teacher nor student)
RESTORED = "_class:restored"  # the (code, student id) whose solved exercises were loaded
UNSENT = "_class:unsent"  # True once an answer could not be sent (said once)
PENDING = "_class:pending"  # exercise answers not sent yet: (code, student id, key, answer, right)
PENDING_MAX = 500  # a session's unsent answers kept at most (a lesson has a few dozen exercises)
#: practice entries not sent yet (``ui.mastery``'s record): (code, student id, entries)
PRACTICE_PENDING = "_class:practice_pending"
#: the (code, student id) whose practice record was loaded from the class
PRACTICE_RESTORED = "_class:practice_restored"
#: a failed connection is tried again after RETRY_FIRST_S, twice as long after each further
#: failure, up to RETRY_MAX_S: a database restart of a fraction of a second is over before
#: most students notice, and one that stays down is not asked on every run
RETRY_FIRST_S = 0.25
RETRY_MAX_S = 10.0
#: the app's public address for join links and QR codes, when the browser's is not it
PUBLIC_URL = "POSENC_PUBLIC_URL"


@dataclass(frozen=True)
class Member:
    code: str
    student_id: str
    nickname: str


# the database


@dataclass
class _Connection:
    store: class_store.Store | None
    error: str  # the sentence pages show (no host, user, path or secret: the log has those)
    at: float
    failures: int = 0  # failed tries in a row
    #: the SQLite file was deleted under the running app: never opened again by this process
    #: (SQLite would make a new, empty one), until the app restarts, as the message says
    gone: bool = False


@st.cache_resource(show_spinner=False)
def _connections() -> dict[str, _Connection]:
    # one Store (a connection pool) per database URL per server process, shared by sessions
    return {}


def retry_after(failures: int) -> float:
    """Seconds before a database that failed ``failures`` times in a row is tried again:
    RETRY_FIRST_S, doubling up to RETRY_MAX_S."""
    return min(RETRY_MAX_S, RETRY_FIRST_S * 2 ** max(0, failures - 1))


def said(exc: class_store.StoreUnavailable) -> str:
    """What a page says about a database failure: a plain sentence for everyone, naming the
    cause only when it is one of the app's own (a deleted file, a full disk)."""
    if exc.reason == class_store.DELETED_FILE:
        return f"the class database cannot be used: {exc.reason}"
    if "disk is full" in exc.reason or "disk I/O error" in exc.reason:
        return "the class database cannot be written: the server's disk is full or failing"
    return "the class database cannot be reached right now"


def _failed(url: str, exc: class_store.StoreUnavailable, before: _Connection | None) -> _Connection:
    failures = (before.failures if before is not None and before.store is None else 0) + 1
    if failures == 1:  # the first of a run of failures; the details stay in the server's log
        _LOG.warning("%s", exc)
    gone = exc.reason == class_store.DELETED_FILE or (before is not None and before.gone)
    return _Connection(None, said(exc), time.monotonic(), failures, gone)


def database() -> class_store.Store | None:
    """This server's class database, or None when it cannot be reached (``problem()`` says why)."""
    url = class_store.database_url()
    held = _connections().get(url)
    if held is not None and held.gone and not _restored(url):
        return None
    if held is not None and (held.store is not None or time.monotonic() - held.at < retry_after(held.failures)):
        if held.store is not None:
            purge_old(held.store)
        return held.store
    try:
        fresh = _Connection(class_store.open_store(url), "", time.monotonic())
    except class_store.StoreUnavailable as exc:
        fresh = _failed(url, exc, held)
    _connections()[url] = fresh
    if fresh.store is not None:
        purge_old(fresh.store)
    return fresh.store


def _restored(url: str) -> bool:
    """Whether the deleted SQLite file is back (restored from a backup): then it is opened."""
    try:
        path = class_store.sqlite_file(url)
    except ValueError:
        return False
    return path is not None and os.path.exists(path)


def purge_old(db: class_store.Store) -> None:
    """Delete the classes that ended more than the retention ago (POSENC_CLASS_RETENTION_DAYS),
    at most once an hour per process: ``database()`` calls it whenever a page uses the database
    (a check of the clock until a purge is due)."""
    try:
        days = class_store.retention_days()
    except ValueError as exc:
        _LOG.warning("%s; keeping classes %g days", exc, class_store.RETENTION_DAYS)
        days = class_store.RETENTION_DAYS
    try:
        db.purge_if_due(days)
    except class_store.StoreUnavailable as exc:
        _LOG.warning("purging old classes failed: %s", exc.reason)


def problem() -> str:
    """Why the database could not be reached, as a page may say it ("" when it can)."""
    held = _connections().get(class_store.database_url())
    return held.error if held is not None else ""


def lost(exc: class_store.StoreUnavailable) -> None:
    """Forget a connection that failed mid-class: the next call tries again (``retry_after``)."""
    url = class_store.database_url()
    old = _connections().get(url)
    _connections()[url] = _failed(url, exc, old)
    if old is not None and old.store is not None:
        try:
            old.store.close()
        except Exception:  # noqa: BLE001 - closing a broken pool must not hide the real message
            pass


# who this session is


def member() -> Member | None:
    return st.session_state.get(MEMBER)


def teacher() -> tuple[str, str] | None:
    return st.session_state.get(TEACHER)


def room() -> str | None:
    """The class code this run's room screen follows (its address names it; None: not a room
    screen)."""
    return st.session_state.get(ROOM)


def set_member(new: Member | None) -> None:
    if new is None:
        st.session_state.pop(MEMBER, None)
        st.session_state.pop(RESTORED, None)
        st.session_state.pop(PRACTICE_RESTORED, None)
    else:
        st.session_state[MEMBER] = new


def leave() -> None:
    """Leave the class on this device: no student, and no class link in the address bar."""
    set_member(None)
    for name in (CODE_PARAM, STUDENT_PARAM):
        st.query_params.pop(name, None)


def set_teacher(code: str, key: str) -> None:
    st.session_state[TEACHER] = (code, key)


def follow_link() -> None:
    """Called by the shell at the start of every run, on every page: take a student's
    class and id from the link (once a session), and keep them in the address bar."""
    params = st.query_params
    if ROOM_PARAM in params:
        # a room screen (``classroom.room``), or a view it shows, is nobody in the class: no
        # student link is taken from its address, and its code stays in the address bar (a
        # reload or a restarted server brings the same room screen back)
        st.session_state[ROOM] = class_store.normalize_code(str(params[ROOM_PARAM]))[:12]
        state.own(ROOM_PARAM)
        return
    st.session_state.pop(ROOM, None)
    code, student_id = params.get(CODE_PARAM), params.get(STUDENT_PARAM)
    current = member()
    if code and student_id and (current is None or (current.code, current.student_id) != (code, student_id)):
        _follow(class_store.normalize_code(code), student_id)
    current = member()
    if current is not None:
        params[CODE_PARAM] = current.code
        params[STUDENT_PARAM] = current.student_id
        state.own(CODE_PARAM, STUDENT_PARAM)
    send_pending()


def _is_class_link(code: str, student_id: str) -> bool:
    """Whether a link's (normalized) class code and student id have the shape the class
    database gives them: a code of CODE_LENGTH letters and digits of its alphabet, an id of
    printable characters without spaces at either end."""
    return (
        len(code) == class_store.CODE_LENGTH
        and all(c in class_store.CODE_ALPHABET for c in code)
        and 0 < len(student_id) <= class_store.ID_CHARS
        and student_id.isprintable()
        and student_id == student_id.strip()
    )


def _follow(code: str, student_id: str) -> None:
    if not _is_class_link(code, student_id):
        # no class has it, whether or not the database answers; kept while it is down, a
        # crafted code would be this session's class code, written on the page once it is back
        _no_student()
        return
    db = database()
    if db is None:
        # keep the link as it is: it works again once the database is back
        set_member(Member(code, student_id, ""))
        return
    try:
        found = db.student(code, student_id)
    except class_store.StoreUnavailable as exc:
        lost(exc)
        set_member(Member(code, student_id, ""))
        return
    except ValueError:  # not even the shape of a code or an id
        found = None
    if found is not None:
        set_member(Member(code, found.student_id, found.nickname))
    else:
        _no_student()


def _no_student() -> None:
    state.note(
        f"`{CODE_PARAM}`, `{STUDENT_PARAM}`: this class link names no student of a class; open the class page to join."
    )


def refuse_teacher_link() -> str | None:
    """On the class page: an address that carries a teacher key (``?teacher=``, as links
    made before the key was typed) is refused and the key leaves the address bar at once.
    A browser keeps every address it opens in its history, and a proxy may log it; the key
    is typed in "Continue teaching a class" instead. Returns the message to show, or None."""
    params = st.query_params
    if TEACHER_PARAM not in params:
        return None
    del params[TEACHER_PARAM]
    return (
        "Links that carry a teacher key are no longer accepted: a browser keeps every address it opens "
        'in its history. Open "Continue teaching a class" below and type your class code and teacher key.'
    )


# the teacher's key in the browser tab

#: sessionStorage, not localStorage: the key lasts while the tab is open (a reload, the server
#: restarting) and not for the next person at a shared classroom computer
TAB_KEY = "posenc-lab:teacher:v1"
_TAB_JS = """
export default function ({ data, setStateValue }) {
  let storage = null;
  try { storage = window.sessionStorage; } catch (e) { return; }
  try {
    if (data.forget) { storage.removeItem(data.key); return; }
    if (data.save) { storage.setItem(data.key, JSON.stringify(data.save)); return; }
    const raw = storage.getItem(data.key);
    if (raw && raw.length < 400) setStateValue('stored', raw);
  } catch (e) { /* blocked: the private link is the way back */ }
}
"""
_TAB = st.components.v2.component("posenc_teacher_tab", js=_TAB_JS)
FORGET = "_class:forget_tab"


def keep_teacher_in_tab() -> str | None:
    """On the class page: keep the teacher's (code, key) in this tab's sessionStorage, so a
    reload or a server restart mid-class brings the teacher view back without the key
    ever showing in the address bar; and take it back from there when the session lost it.
    Returns a message when the key the tab remembered no longer opens its class (a new
    teacher link replaced it), and forgets it."""
    current = teacher()
    forget = st.session_state.pop(FORGET, False)
    result = _TAB(
        key="class_teacher_tab",
        data={"key": TAB_KEY, "save": list(current) if current else None, "forget": forget},
        default={"stored": None},
        on_stored_change=lambda: None,
    )
    if current is not None or forget:
        return None
    raw = result.get("stored")
    try:
        code, key = json.loads(raw) if isinstance(raw, str) else (None, None)
    except (ValueError, TypeError):
        return None
    if not (isinstance(code, str) and isinstance(key, str)):
        return None
    db = database()
    try:
        if db is None:
            return None
        if db.is_teacher(class_store.normalize_code(code), key):
            set_teacher(class_store.normalize_code(code), key)
            return None
    except (class_store.StoreUnavailable, ValueError):
        return None
    stop_teaching()  # the tab forgets the stale key on the next run
    return (
        "The teacher link this tab remembered no longer works: a new teacher link replaced it, "
        "or the class ended and was deleted."
    )


# "share this view" for a student in a class

#: the link is made in the browser from the address bar as it is when pressed (a lesson's
#: controls change it without a new run of the page), minus the class code and student id
_SHARE_HTML = """
<div class="posenc-share">
  <button type="button">Link to this view, without your class</button>
  <input type="text" readonly aria-label="Link to this view" hidden>
  <span role="status"></span>
</div>
"""
_SHARE_JS = """
export default function ({ parentElement }) {
  const root = parentElement.querySelector('.posenc-share');
  if (!root || root.dataset.ready) return;
  root.dataset.ready = '1';
  const button = root.querySelector('button');
  const field = root.querySelector('input');
  const status = root.querySelector('span');
  button.addEventListener('click', () => {
    const url = new URL(window.location.href);
    for (const name of ['class', 'student']) url.searchParams.delete(name);
    field.value = url.toString();
    field.hidden = false;
    field.select();
    const copied = () => { status.textContent = 'Copied: anyone with it sees this view, not your class.'; };
    const shown = () => { status.textContent = 'Copy it from the box: it does not name your class.'; };
    try {
      navigator.clipboard.writeText(field.value).then(copied, shown);
    } catch (e) { shown(); }
  });
}
"""
_SHARE_CSS = """
.posenc-share { display: flex; flex-wrap: wrap; gap: 0.5rem; align-items: center; }
.posenc-share button { font: inherit; padding: 0.25rem 0.75rem; border-radius: 0.5rem;
  border: 1px solid rgba(49, 51, 63, 0.3); background: transparent; color: inherit; cursor: pointer; }
.posenc-share input { font: inherit; flex: 1 1 16rem; min-width: 0; max-width: 100%; padding: 0.25rem; }
.posenc-share span { font-size: 0.875rem; }
"""
_SHARE = st.components.v2.component("posenc_share_view", html=_SHARE_HTML, js=_SHARE_JS, css=_SHARE_CSS)


def share_view() -> None:
    """For a student in a class, on a lesson page: a link to the view they see that does not
    carry their class code and student id (the address bar does, to keep them in the class)."""
    if member() is not None:
        _SHARE(key="class_share_view")


def stop_teaching() -> None:
    """Leave the teacher view on this device (the private link brings it back)."""
    st.session_state.pop(TEACHER, None)
    st.session_state[FORGET] = True


# a student's exercises


def _once_a_session(flag: str, read: Callable[[class_store.Store, Member], set]) -> set:
    """What ``read`` gives of this student from the class database, once a session (marked
    under ``flag``): the server may have restarted, the browser may be another one. Empty
    outside a class, when done already, or while the database cannot be reached (the next
    run tries again)."""
    current = member()
    if current is None or st.session_state.get(flag) == (current.code, current.student_id):
        return set()
    db = database()
    if db is None:
        return set()
    try:
        found = read(db, current)
    except class_store.StoreUnavailable as exc:
        lost(exc)
        return set()
    st.session_state[flag] = (current.code, current.student_id)
    return found


def restore_solved(solved: set[str], valid) -> None:
    """Add the exercises this student solved in class (from the database) to ``solved``."""
    found = _once_a_session(RESTORED, lambda db, m: db.solved(m.code, m.student_id))
    solved.update(key for key in found if key in valid)


def record_attempt(key: str, answer: str, right: bool) -> None:
    """Send a checked exercise answer to the class (nothing outside a class); one that cannot
    be sent waits in this session and goes when the database is back (``send_pending``)."""
    current = member()
    if current is None:
        return
    pending = st.session_state.setdefault(PENDING, [])
    if len(pending) < PENDING_MAX:
        pending.append((current.code, current.student_id, key, answer[:64], right))
    send_pending()


def seed() -> str | None:
    """The seed a student in a class draws the variant exercises from: their own in the class,
    the same on every device their class link opens (the practice record the class keeps
    numbers the variants, so both name the same numbers); None outside a class."""
    current = member()
    return None if current is None else member_seed(current.code, current.student_id)


def member_seed(code: str, student_id: str) -> str:
    """A class student's seed for the variants: made from their class and id alone, so any
    device that opens their class link draws the same ones (and the seed holds no secret)."""
    return hashlib.sha256(f"posenc-lab:variants:{code}:{student_id}".encode()).hexdigest()[:16]


def restore_practice(practice: set[str], keys) -> None:
    """Add this student's practice record in the class (from the database) to ``practice``,
    once a session, as ``restore_solved`` does for the solved exercises."""
    found = _once_a_session(PRACTICE_RESTORED, lambda db, m: db.practice(m.code, m.student_id))
    practice |= {str(mastery.Entry(*entry)) for entry in found if entry[0] in keys}


def record_practice(entries: set[str]) -> None:
    """Send the entries a student's practice just added (``ui.mastery``: a variant asked for, a
    first check, a second miss) to the class, which counts their mastery for the teacher. Only
    what this server recorded in a class is sent, never the browser's own copy: the roster
    shows practice done in class. One that cannot be sent waits as an answer does."""
    current = member()
    parsed = mastery.parse(entries)
    if current is None or not parsed:
        return
    pending = st.session_state.setdefault(PRACTICE_PENDING, [])
    if len(pending) < PENDING_MAX:
        pending.append((current.code, current.student_id, [(e.key, e.n, e.kind, e.seq) for e in parsed]))
    send_pending()


def send_pending() -> None:
    """Send the exercise answers and practice this session could not send (every run calls
    it; nothing to do unless the database was down)."""
    pending = st.session_state.get(PENDING)
    practice = st.session_state.get(PRACTICE_PENDING)
    if not pending and not practice:
        return
    pending, practice = pending or [], practice or []
    db = database()
    try:
        if db is None:
            raise class_store.StoreUnavailable(problem() or "the class database cannot be reached right now")
        while pending:
            db.record_attempt(*pending[0])
            pending.pop(0)
        while practice:
            db.record_practice(*practice[0], keep=mastery.KEEP)
            practice.pop(0)
    except class_store.StoreUnavailable as exc:
        if db is not None:
            lost(exc)
        if not st.session_state.get(UNSENT):
            st.session_state[UNSENT] = True
            st.toast(
                "The class database cannot be reached: your answer waits in this tab and goes to the class "
                "when the database is back (keep the tab open). Your progress stays in this browser."
            )
        return
    if st.session_state.pop(UNSENT, False):
        st.toast("The class database is back: your answers have reached the class.")


# the teacher's files: made when pressed, kept until the browser has fetched them

#: how long a file made by a download button stays in this process after the press. Streamlit
#: stores a file made on click referenced by no session, and every script run of every session
#: in the process ends by deleting such files (a first run marks one, the next deletes it): the
#: teacher's page alone runs twice a second, a class dozens of times, so a browser that asked
#: a moment later (classroom wifi, a busy server, nginx in between) was answered 404
KEEP_DOWNLOAD_S = 600.0
#: the holders (Streamlit's "sessions" of media files) this module keeps files under, each
#: "posenc-lab:kept:<when it lets go, epoch seconds>:<file id>"
_KEPT = "posenc-lab:kept:"


def kept_download(make: Callable[[], str], file_name: str, mime: str) -> Callable[[], bytes]:
    """``data`` for ``st.download_button``: ``make`` runs when the button is pressed (in a thread
    of Streamlit's server, outside any script run: it draws nothing and calls no ``st`` cache),
    and the file it makes stays in this process for KEEP_DOWNLOAD_S. A press in a tab served
    through nginx reaches the process that holds the session (the websocket, sticky by cookie:
    docs/deploy.md), which keeps the file its ``/media/`` request asks for.

    Drawing the button lets go of the files kept longer than that (``release_kept``)."""
    release_kept()

    def data() -> bytes:
        body = make().encode("utf-8")  # as Streamlit encodes a str, so the file id is the one it stores
        _keep(body, mime, file_name)
        return body

    return data


def _media_files():
    """This process's media file manager, when it keeps files the way ``_keep`` knows (the
    in-memory storage of Streamlit 1.67); None under AppTest, or with another storage."""
    from streamlit import runtime

    if not runtime.exists():
        return None
    manager = runtime.get_instance().media_file_mgr
    ok = manager.can_read_files and hasattr(manager, "_lock") and hasattr(manager, "_files_by_session_and_coord")
    return manager if ok else None


def _keep(body: bytes, mime: str, file_name: str) -> None:
    """Hold the file Streamlit is about to store for this press (the same bytes, type and name
    give the same id) under a holder of its own, which no script run clears: Streamlit deletes
    only files that nothing holds. Its private fields are read here alone."""
    from streamlit.runtime.memory_media_file_storage import _calculate_file_id

    manager = _media_files()
    if manager is None:
        return
    file_id = _calculate_file_id(body, mime, file_name)
    holder = f"{_KEPT}{time.time() + KEEP_DOWNLOAD_S:.0f}:{file_id}"
    with manager._lock:
        manager._files_by_session_and_coord[holder][file_id] = file_id


def release_kept(now: float | None = None) -> int:
    """Let go of the files kept past their time (Streamlit deletes them at the end of the next
    script runs); returns how many."""
    manager = _media_files()
    if manager is None:
        return 0
    now = time.time() if now is None else now
    with manager._lock:
        expired = [
            holder
            for holder in manager._files_by_session_and_coord
            if holder.startswith(_KEPT) and float(holder[len(_KEPT) :].partition(":")[0]) <= now
        ]
    for holder in expired:
        manager.clear_session_refs(holder)
    return len(expired)


# links


def _peer() -> str:
    """The address of this session's websocket peer, loopback included (``st.context.ip_address``
    gives None for 127.0.0.1 and ::1, which behind nginx on the same host is every student)."""
    from streamlit import runtime
    from streamlit.runtime.scriptrunner import get_script_run_ctx

    ctx = get_script_run_ctx()
    if ctx is None or not runtime.exists():
        return ""
    client = runtime.get_instance().get_client(ctx.session_id)
    remote = getattr(getattr(client, "client_context", None), "remote_ip", None)
    return remote if isinstance(remote, str) else ""


def network_address() -> str:
    """The address a request came from, for the limits on join codes and joins. Behind a
    trusted proxy (``POSENC_TRUSTED_PROXIES``, loopback by default: deploy/nginx.conf) the
    proxy's ``X-Real-IP`` names the student; from anyone else those headers are ignored,
    since a guesser could change them on every try."""
    try:
        trusted = client_address.trusted_proxies()
    except ValueError as exc:
        _LOG.warning("%s; no proxy is trusted", exc)
        trusted = ()
    headers = st.context.headers
    return client_address.client_address(_peer(), dict(headers) if headers else {}, trusted)


def client_id() -> str:
    """Who is typing join codes: this browser session at its address (each has a few
    tries; the address as a whole has more, ``network_address``)."""
    from streamlit.runtime.scriptrunner import get_script_run_ctx

    ctx = get_script_run_ctx()
    return f"{network_address()}|{ctx.session_id if ctx else id(st.session_state)}"


def public_base() -> str:
    """The address students use: POSENC_PUBLIC_URL if set, else the one this browser used."""
    configured = os.environ.get(PUBLIC_URL, "").strip().rstrip("/")
    if configured:
        return configured
    url = st.context.url or ""
    parts = urlsplit(url)
    if parts.scheme and parts.netloc:
        return f"{parts.scheme}://{parts.netloc}"
    return "http://localhost:8501"


def is_local(base: str) -> bool:
    """Whether an address only works on this computer (students' phones cannot reach it)."""
    host = urlsplit(base).hostname or ""
    if host in ("localhost", ""):
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


def lan_guess() -> str | None:
    """This machine's address on the local network, to suggest in place of localhost."""
    try:
        with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as probe:
            probe.connect(("10.255.255.255", 1))  # no packet is sent: it only picks a route
            address = probe.getsockname()[0]
    except OSError:
        return None
    return None if ipaddress.ip_address(address).is_loopback else address


def join_link(base: str, code: str) -> str:
    return f"{base}/class?{urlencode({CODE_PARAM: code})}"


def room_link(base: str, code: str) -> str:
    """The room screen's link (``classroom.room``): the class code and presenter mode, nothing else."""
    return f"{base}/class?{urlencode({ROOM_PARAM: code, 'present': '1'})}"


def student_link(base: str, code: str, student_id: str) -> str:
    return f"{base}/class?{urlencode({CODE_PARAM: code, STUDENT_PARAM: student_id})}"


_MARKDOWN = re.compile(r"([\\`*_{}\[\]()#+\-.!|<>~$&:])")
#: what ``plain`` writes for each character Markdown (or Streamlit's renderer) reads:
#: a backslash escape, and an invisible word joiner (U+2060) where an escape is not enough.
#: Before ".", "@" and ":": the renderer turns www.example.org, a@example.org and http://...
#: into links even when escaped (and takes a joiner after the dot as part of the domain), but
#: finds no "www.", no address and no scheme once the joiner stands before the dot, the @ or
#: the colon. After ":" too: Streamlit's frontend rewrites ":material/" to ":material_" in the
#: source before it parses it, escapes or not, so a typed ":material/home:" came out as
#: ":material_home:"; with a joiner on each side no colon starts or ends a shortcode (an icon,
#: an emoji such as ":smile:", a colour such as ":red[...]") and the text shows as typed.
_PLAIN = re.compile(r"([\\`*_{}\[\]()#+\-.!|<>~$&:@])")
_PLAIN_AS = {".": "\u2060\\.", "@": "\u2060@", ":": "\u2060\\:\u2060"}


def address_text(url: str) -> str:
    """The app's own address (``public_base``) as Markdown: escaped, and left for the renderer
    to link, so that the teacher can open it."""
    return _MARKDOWN.sub(r"\\\1", url)


def plain(text: str) -> str:
    """A person's text (a nickname, a class name) as Markdown that shows it literally:
    no link, image, emphasis, HTML or shortcode (``:material/home:``, ``:smile:``) can come
    out of it, and it reads as typed."""
    return _PLAIN.sub(lambda m: _PLAIN_AS.get(m.group(1), "\\" + m.group(1)), text)
