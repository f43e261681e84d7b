"""The exercises a student has solved, kept in the browser (``localStorage``) so they
survive a reload, a closed tab or a new session.

A small ``st.components.v2`` component with no visible part runs in the app's own page.
Every run hands it the session's solved keys and the keys that exist; it writes the
solved ones into storage, added to what is stored there (so a first run that knows
nothing yet, or a second open tab, never erases anything). When storage holds a real
exercise the session has not counted, it reports the stored value back (one rerun, only
then: a fresh browser or a fully restored session costs nothing), and the server keeps
only the keys that name real exercises (``restore``). Nothing leaves the browser but
that report to the app's own server. Where storage is blocked (private modes, strict
settings) every access is caught and progress lasts for the session only.

Beside them it keeps the record of practice on the variant exercises (``ui.mastery``:
which variant each exercise shows, and the first checks that count toward mastery), a set
of short strings merged the same way, by union, and pruned by the same rule on both sides
(``mastery.prune``), so a reload shows the same variant and the same mastery.

The same storage keeps this browser's seed for the order of the exercises' options
(``seed()``, ``exercise_kinds.option_order``): a random string, made by the first session
and kept, so that a reload or a new session lists every question's options as before.
"""

from __future__ import annotations

import json
import re
import secrets
from collections.abc import Collection, MutableSet

import streamlit as st

from posenc_lab.ui import mastery

#: the browser's storage key; a new format gets a new version
STORAGE_KEY = "posenc-lab:solved:v1"
#: the component's key (its state holds what the browser last reported)
COMPONENT_KEY = "ex_progress_store"
#: session key: clear the browser's store on the next run
FORGET = "_progress:forget"
#: a stored value longer than this is not read (the whole bank is a few hundred characters)
MAX_STORED_CHARS = 20_000
#: the browser's storage key of its seed for the order of options
SEED_KEY = "posenc-lab:order:v1"
#: session key: the seed this session orders options by
SEED = "_progress:seed"
#: what a seed looks like (a stored value of another shape is replaced)
SEED_PATTERN = re.compile(r"[0-9a-f]{16}")
#: session keys: what the browser last reported (its stored solved keys and practice), and
#: what it had reported when the student pressed "Forget my progress": the browser keeps
#: resending a report with every rerun until it makes a new one, and a forgotten one must
#: not come back
REPORTED = "_progress:reported"
IGNORED = "_progress:ignored"
#: the browser's storage key of the practice record (``ui.mastery``)
PRACTICE_KEY = "posenc-lab:practice:v1"
#: a stored practice record longer than this is not read (pruned, it stays a few kilobytes)
MAX_PRACTICE_CHARS = 60_000

# data: {key: storage key, save: [the session's solved keys], valid: [every key that exists],
# seed_key: storage key of the seed, seed: the session's seed}
_JS = r"""
// the practice record: the stored entries and the session's, united and pruned as
// mastery.prune does (well-formed entries of real exercises, each exercise's last KEEP variants)
function keepPractice(storage, data, setStateValue) {
  const valid = new Set(data.practice_valid);
  const shape = /^([a-z0-9_]{1,60})\|(\d{1,6})\|([arwx])\|(\d{1,9})$/;
  let stored = [];
  const raw = storage.getItem(data.practice_key);
  if (raw && raw.length <= data.max_practice_chars) {
    try {
      const parsed = JSON.parse(raw);
      if (Array.isArray(parsed)) stored = parsed.filter(e => typeof e === 'string');
    } catch (e) { /* unreadable: replaced below */ }
  }
  const entries = [];
  for (const text of new Set(stored.concat(data.practice))) {
    const m = shape.exec(text);
    if (m && valid.has(m[1])) entries.push({ text, key: m[1], n: Number(m[2]) });
  }
  const newest = {};
  for (const e of entries) newest[e.key] = Math.max(newest[e.key] ?? 0, e.n);
  const kept = entries.filter(e => e.n > newest[e.key] - data.keep).map(e => e.text).sort();
  if (raw !== JSON.stringify(kept)) storage.setItem(data.practice_key, JSON.stringify(kept));
  const session = new Set(data.practice);
  if (kept.some(e => !session.has(e))) setStateValue('practice', JSON.stringify(kept));
}

export default function ({ data, setStateValue }) {
  let storage = null;
  try {
    storage = window.localStorage;
  } catch (e) {
    return;  // blocked: the session keeps its own progress
  }
  try {
    // the order of the options: the seed this browser keeps, or the session's, kept from now on
    const seed = storage.getItem(data.seed_key);
    if (seed && /^[0-9a-f]{16}$/.test(seed)) {
      if (seed !== data.seed) setStateValue('seed', seed);
    } else {
      storage.setItem(data.seed_key, data.seed);
    }
  } catch (e) { /* blocked or full: the session keeps its own seed */ }
  try {
    if (data.forget) {  // "Forget my progress": a shared computer's next student starts afresh
      storage.removeItem(data.key);
      storage.removeItem(data.practice_key);
      return;
    }
    keepPractice(storage, data, setStateValue);
    const valid = new Set(data.valid);
    let stored = [];
    const raw = storage.getItem(data.key);
    if (raw && raw.length <= data.max_chars) {
      try {
        const parsed = JSON.parse(raw);
        if (Array.isArray(parsed)) stored = parsed.filter(k => typeof k === 'string' && valid.has(k));
      } catch (e) { /* unreadable: replaced below */ }
    }
    const all = Array.from(new Set(stored.concat(data.save))).sort();
    if (raw !== JSON.stringify(all)) storage.setItem(data.key, JSON.stringify(all));
    const session = new Set(data.save);
    if (stored.some(k => !session.has(k))) setStateValue('stored', JSON.stringify(stored));
  } catch (e) {
    /* blocked, full or in a private mode: nothing to keep */
  }
}
"""

_STORE = st.components.v2.component("posenc_progress_store", js=_JS)


def _stored_list(raw, max_chars: int) -> list:
    """The list in a stored value the browser reported (a JSON list), or an empty one for
    anything else: empty, too long, not JSON, not a list."""
    if not isinstance(raw, str) or not raw or len(raw) > max_chars:
        return []
    try:
        value = json.loads(raw)
    except ValueError:
        return []
    return value if isinstance(value, list) else []


def restore(raw, valid: Collection[str]) -> set[str]:
    """The keys in a stored value that name real exercises (or guided steps).

    ``raw`` is what the browser reported: a JSON list of strings, or anything else
    (empty, too long, not JSON, not a list), which gives nothing.
    """
    return {key for key in _stored_list(raw, MAX_STORED_CHARS) if isinstance(key, str) and key in valid}


def restore_practice(raw, keys: Collection[str]) -> set[str]:
    """The well-formed entries of exercises in ``keys`` in a stored practice record
    (``ui.mastery``); anything else the browser reported gives nothing."""
    return mastery.prune(_stored_list(raw, MAX_PRACTICE_CHARS), keys)


def keep(
    solved: MutableSet[str],
    valid: Collection[str],
    practice: MutableSet[str] | None = None,
    practice_keys: Collection[str] = (),
) -> None:
    """Mount the store: add to ``solved`` the stored keys the browser reported (those in
    ``valid``), and to ``practice`` the practice record it reported (entries of the
    exercises in ``practice_keys``), and hand both to the browser to save.

    Call it once per run, before anything counts ``solved`` or reads ``practice``.
    """
    practice = set() if practice is None else practice
    forget = st.session_state.pop(FORGET, False)
    result = _STORE(
        key=COMPONENT_KEY,
        data={
            "key": STORAGE_KEY,
            "save": sorted(solved),
            "valid": sorted(valid),
            "max_chars": MAX_STORED_CHARS,
            "forget": forget,
            "seed_key": SEED_KEY,
            "seed": seed(),
            "practice_key": PRACTICE_KEY,
            "practice": sorted(practice),
            "practice_valid": sorted(practice_keys),
            "max_practice_chars": MAX_PRACTICE_CHARS,
            "keep": mastery.KEEP,
        },
        default={"stored": None, "seed": None, "practice": None},
        on_stored_change=lambda: None,
        on_seed_change=lambda: None,
        on_practice_change=lambda: None,
    )
    own_seed = result.get("seed")
    if isinstance(own_seed, str) and SEED_PATTERN.fullmatch(own_seed):
        # this browser's own seed, reported before this run: the options are drawn in its order
        st.session_state[SEED] = own_seed
    reported = (result.get("stored"), result.get("practice"))
    st.session_state[REPORTED] = reported
    if forget:
        return  # what the browser reported before it forgot is not taken back
    ignored = st.session_state.get(IGNORED, (None, None))
    stored, stored_practice = (None if new == old else new for new, old in zip(reported, ignored, strict=True))
    # the report reaches the server before the run: counted in the same run that shows it
    solved |= restore(stored, valid)
    united = mastery.prune(practice | restore_practice(stored_practice, practice_keys), practice_keys)
    practice.clear()
    practice |= united


def seed() -> str:
    """The seed this session orders every question's options by: this browser's, once the
    store has reported it (``keep``), and until then one made for the session, which a
    browser that keeps none stores as its own."""
    return st.session_state.setdefault(SEED, secrets.token_hex(8))


def forget(solved: MutableSet[str], practice: MutableSet[str] | None = None) -> None:
    """Forget this browser's progress and practice (a callback: the next run clears the
    browser's store). A student in a class keeps what the class database holds; their link
    brings it back."""
    solved.clear()
    if practice is not None:
        practice.clear()
    st.session_state[IGNORED] = st.session_state.get(REPORTED, (None, None))
    st.session_state[FORGET] = True
