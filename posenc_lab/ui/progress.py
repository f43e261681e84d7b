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

# data: {key: storage key, save: [the session's solved keys], valid: [every key that exists],
# seed_key: storage key of the seed, seed: the session's seed}
_JS = """
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
      return;
    }
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


def restore(raw, valid: Collection[str]) -> set[str]:
    """The keys in a stored value that name real exercises (or guided steps).

    ``raw`` is what the browser reported: a JSON list of strings, or anything else
    (empty, too long, not JSON, not a list), which gives nothing.
    """
    if not isinstance(raw, str) or not raw or len(raw) > MAX_STORED_CHARS:
        return set()
    try:
        keys = json.loads(raw)
    except ValueError:
        return set()
    if not isinstance(keys, list):
        return set()
    return {key for key in keys if isinstance(key, str) and key in valid}


def keep(solved: MutableSet[str], valid: Collection[str]) -> None:
    """Mount the store: add to ``solved`` the stored keys the browser reported (those in
    ``valid``), and hand ``solved`` to the browser to save.

    Call it once per run, before anything counts ``solved``.
    """
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
        },
        default={"stored": None, "seed": None},
        on_stored_change=lambda: None,
        on_seed_change=lambda: None,
    )
    reported = result.get("seed")
    if isinstance(reported, str) and SEED_PATTERN.fullmatch(reported):
        # this browser's own seed, reported before this run: the options are drawn in its order
        st.session_state[SEED] = reported
    if forget:
        return  # what the browser reported before it forgot is not taken back
    # the report reaches the server before the run: counted in the same run that shows it
    solved |= restore(result.get("stored"), valid)


def seed() -> str:
    """The seed this session orders every question's options by: this browser's, once the
    store has reported it (``keep``), and until then one made for the session, which a
    browser that keeps none stores as its own."""
    return st.session_state.setdefault(SEED, secrets.token_hex(8))


def forget(solved: MutableSet[str]) -> None:
    """Forget this browser's progress (a callback: the next run clears the browser's store).
    A student in a class keeps what the class database holds; their link brings it back."""
    solved.clear()
    st.session_state[FORGET] = True
