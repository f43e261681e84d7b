"""Lesson: attention without positions is permutation-equivariant."""

import numpy as np
import streamlit as st

import posenc
from posenc_lab import figures
from posenc_lab.lessons.why_order import exercises as why_order_exercises
from posenc_lab.ui import compute, figcache, layout, state
from posenc_lab.ui.lesson import Lesson

DEFAULT_SENTENCE = "dog bites man"

#: phenomena whose meaning rides on word order, by their URL key: (phenomenon, a sentence, the same
#: words in another order, what the order decides); each pair holds exactly the same words (a test
#: checks it)
PHENOMENA = {
    "roles": ("Word order (who does what)", "the dog bit the man", "the man bit the dog", "who bit whom"),
    "agreement": (
        "Agreement",
        "the key to the cabinets is lost",
        "the cabinets to the key is lost",
        "which noun the verb 'is' agrees with: the head noun, found by its place, not the nearest one",
    ),
    "negation": (
        "Negation scope",
        "I did not say that he was happy",
        "I did say that he was not happy",
        "what 'not' denies: the saying, or his being happy",
    ),
    "focus": (
        "Focus ('only')",
        "only she saw him",
        "she saw only him",
        "who is singled out: the one seeing or the one seen",
    ),
}
#: the shuffle button's key, and the session-state key counting its presses
SHUFFLE_KEY, SHUFFLE_COUNT = "why_shuffle", "why_shuffles"
#: the width of the word vectors the shuffled sentence is attended with
SHUFFLE_WIDTH = 16

LESSON = Lesson(
    __file__,
    "Why order matters",
    "why-order",
    question="Why can't attention tell 'dog bites man' from 'man bites dog' on its own?",
    icon=":material/shuffle:",
    exercises=why_order_exercises.EXERCISES,
    polls=why_order_exercises.POLLS,
    largest={"sentence": " ".join(f"w{i}" for i in range(16)), "width": "64", "positions": "1"},
)


@LESSON.page
def page() -> None:
    layout.lesson(
        "Why order matters",
        "Self-attention mixes every word with every other, weighted by how well their vectors "
        "match. Nothing in that recipe says *where* a word stands. Type a sentence, reorder it, "
        "and see that attention gives exactly the same answers, only reordered.",
    )

    state.sidebar().header("Controls")
    sentence = state.text("sentence", "Sentence", DEFAULT_SENTENCE, max_chars=200, help="Up to 16 words.")
    order = state.choice(
        "order",
        "New word order",
        ["reverse", "shuffle", "rotate"],
        "reverse",
        labels={"reverse": "reversed", "shuffle": "shuffled", "rotate": "first word last"},
        container=layout.key_control(),
    )
    shuffle_seed = state.int_slider("shuffle_seed", "Shuffle seed", 0, 99, 0) if order == "shuffle" else 0
    with_positions = state.toggle("positions", "Add sinusoidal positions", False, container=layout.key_control())
    d_model = state.int_slider("width", "Embedding width", 4, 64, 16, step=2)

    try:
        words = posenc.split_words(sentence, max_words=16)
    except ValueError as exc:
        layout.core_error(exc)
        st.caption(f"Using the example sentence instead: *{DEFAULT_SENTENCE}*.")
        sentence = DEFAULT_SENTENCE
        words = posenc.split_words(sentence)

    n = len(words)
    # perm_code: the same line for "Show the code"
    if order == "reverse":
        perm = np.arange(n)[::-1]
        perm_code = f"np.arange({n})[::-1]  # reversed"
    elif order == "rotate":
        perm = np.roll(np.arange(n), -1)
        perm_code = f"np.roll(np.arange({n}), -1)  # first word last"
    else:
        perm = np.random.default_rng(shuffle_seed).permutation(n)
        perm_code = f"np.random.default_rng({shuffle_seed}).permutation({n})  # shuffled"
    moved_words = [words[i] for i in perm]
    result = compute.word_attention(tuple(words), d_model, tuple(int(i) for i in perm), with_positions, 0)

    st.latex(r"\mathrm{Attention}(X) = \mathrm{softmax}\!\left(\frac{XW_Q\,(XW_K)^\top}{\sqrt{d}}\right) XW_V")
    st.markdown(
        "Each word gets a fixed pseudo-random vector (the same vector wherever it stands). "
        "Reordering the words multiplies $X$ by a permutation matrix $P$, and "
        "$PX W_Q (PX W_K)^\\top = P\\,(XW_Q (XW_K)^\\top)\\,P^\\top$, so:"
    )
    st.latex(r"\mathrm{Attention}(PX) = P\,\mathrm{Attention}(X)")

    if n == 1:
        st.info("With one word there is nothing to reorder: type at least two words.")

    left, right = st.columns(2)
    labels = [f"{i + 1}. {w}" for i, w in enumerate(words)]
    moved_labels = [f"{i + 1}. {w}" for i, w in enumerate(moved_words)]
    fig = figcache.figure(
        figures.heatmap_panels,
        [result["weights"], result["weights_moved"]],
        [" ".join(words), " ".join(moved_words)],
        title="Attention weights: who looks at whom",
        x_title="key (word attended to)",
        y_title="query (word looking)",
        x_name="key",
        y_name="query",
        value_name="weight",
        labels=[labels, moved_labels],
        signed=False,
        zmax=1.0,
    )
    # shared by both snippets: the two attention runs, as compute.word_attention makes them
    pe_code = (
        f"posenc.sinusoidal({n}, {d_model})  # positions stay in their slots"
        if with_positions
        else "None  # no positions"
    )
    attention_code = f"""
words = posenc.split_words({sentence!r})
perm = {perm_code}
x = posenc.word_embeddings(words, {d_model}, seed=0)  # (T, D): one fixed vector per word
w_q, w_k, w_v = posenc.projections({d_model}, seed=0)  # one attention head
pe = {pe_code}
out, weights = posenc.self_attention(x, pe=pe, w_q=w_q, w_k=w_k, w_v=w_v)
# the words in the new order (row t is word perm[t])
out_moved, weights_moved = posenc.self_attention(x[perm], pe=pe, w_q=w_q, w_k=w_k, w_v=w_v)
"""
    code = attention_code + "data = np.hstack([weights, weights_moved])  # (T, 2T): both panels side by side\n"
    weights_both = np.hstack([result["weights"], result["weights_moved"]])
    layout.chart(fig, key="why_weights", filename="attention_weights", code=code, data=weights_both)

    error = result["error"]
    metric_label = "max |Attention(PX) - P Attention(X)|"
    c1, c2 = st.columns([1, 2])
    c1.metric(metric_label, f"{error:.2e}")
    if with_positions:
        c2.markdown(
            "**With positions the equality breaks.** A position vector stays with its slot, not "
            "with its word, so after reordering each word carries a different position and its "
            "output changes. That difference is the information about order."
        )
    else:
        c2.markdown(
            "**Equal up to rounding** (about 1e-16 is the precision of a float64). The reordered "
            "sentence gets the same outputs, reordered: attention alone sees a *set* of words."
        )

    word_fig = figcache.figure(
        figures.grouped_bars,
        moved_labels,
        {"largest difference in the word's output": result["row_error"]},
        title="Does each word's output change when the words are reordered?",
        x_title="word (in the new order)",
        y_title="max |difference| (log scale)",
        # one fixed log axis for both settings: rounding (1e-16) stays at the bottom and a
        # real difference (about 1) near the top, instead of each filling the plot in turn
        log_y=True,
        y_range=(1e-17, 10.0),
        show_values=True,
        value_format=".1e",
    )
    code = attention_code + "data = np.abs(out_moved - out[perm]).max(axis=1)  # (T,): largest change per word\n"
    layout.chart(word_fig, key="why_rows", filename="output_difference", code=code)
    layout.notice(
        "without positions the right panel is the left one with rows and columns reordered, and "
        "every bar is at rounding level. Switch on *Add sinusoidal positions* and the bars jump: "
        "now 'dog bites man' and 'man bites dog' are different inputs."
    )

    phenomena()


def phenomena() -> None:
    """Which linguistic phenomena need order: a short table and a sentence to shuffle."""
    st.subheader("What order carries in language")
    layout.table(
        [
            {"Phenomenon": name, "Sentence": first, "Same words, another order": second, "Order decides": what}
            for name, first, second, what in PHENOMENA.values()
        ]
    )
    chosen = state.choice(
        "phenomenon",
        "Sentence to shuffle",
        list(PHENOMENA),
        "roles",
        labels={key: row[0] for key, row in PHENOMENA.items()},
        container=st.container(),
    )
    sentence = PHENOMENA[chosen][1]
    words = sentence.split()
    # each press draws the next seeded shuffle: the same presses give the same orders on every machine
    if st.button("Shuffle the words", key=SHUFFLE_KEY, icon=":material/shuffle:"):
        st.session_state[SHUFFLE_COUNT] = st.session_state.get(SHUFFLE_COUNT, 0) + 1
    presses = st.session_state.get(SHUFFLE_COUNT, 0)
    perm = tuple(int(i) for i in np.random.default_rng(presses).permutation(len(words)))
    shuffled = [words[i] for i in perm]
    plain = compute.word_attention(tuple(words), SHUFFLE_WIDTH, perm, False, 0)["error"]
    placed = compute.word_attention(tuple(words), SHUFFLE_WIDTH, perm, True, 0)["error"]
    st.markdown(f"*{sentence}*  \n→ *{' '.join(shuffled)}* (shuffle seed {presses})")
    cols = st.columns(3)
    cols[0].metric("Same bag of words", "yes" if sorted(shuffled) == sorted(words) else "no")
    cols[1].metric("Attention without positions: largest change", f"{plain:.1e}")
    cols[2].metric("With sinusoidal positions", f"{placed:.1e}")
    if shuffled == words:
        text = "this shuffle gives back the same sentence: press the button again."
    else:
        text = (
            f"the shuffled sentence holds the same {len(words)} words and reads differently, or not at all. "
            "A model that sees a bag of words gets the same input both times. Attention without positions changes "
            f"each word's output by at most {plain:.1e} once the outputs are put back in order (rounding); with "
            f"sinusoidal positions added, by {placed:.1e}."
        )
    layout.notice(text)
