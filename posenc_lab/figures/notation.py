"""TeX as plain Unicode text, for places that render no maths: Plotly's titles and legends
(the app loads no MathJax) and the teacher's dashboard, which shows an answer as words.

Only the little TeX the lessons write is known: Greek letters, a few operators, simple sub-
and superscripts (``q_{2i}`` -> ``q₂ᵢ``); a script with a character Unicode has no small
form for is written in brackets (``R_{n+m}`` -> ``R₍ₙ₊ₘ₎``, ``x_{ab}`` -> ``x_(ab)``).
"""

from __future__ import annotations

import functools
import re

_SYMBOLS = {
    "alpha": "α",
    "beta": "β",
    "gamma": "γ",
    "delta": "δ",
    "epsilon": "ε",
    "zeta": "ζ",
    "eta": "η",
    "theta": "θ",
    "lambda": "λ",
    "mu": "μ",
    "pi": "π",
    "sigma": "σ",
    "tau": "τ",
    "phi": "φ",
    "omega": "ω",
    "Sigma": "Σ",
    "Delta": "Δ",
    "Theta": "Θ",
    "cdot": "·",
    "times": "×",
    "le": "≤",
    "ge": "≥",
    "leq": "≤",
    "geq": "≥",
    "ne": "≠",
    "neq": "≠",
    "approx": "≈",
    "to": "→",
    "infty": "∞",
    "pm": "±",
    "dots": "…",
    "ldots": "…",
    "sum": "Σ",
    "top": "ᵀ",
    "in": "∈",
}
_SUB = dict(zip("0123456789+-=()aehijklmnoprstuvx", "₀₁₂₃₄₅₆₇₈₉₊₋₌₍₎ₐₑₕᵢⱼₖₗₘₙₒₚᵣₛₜᵤᵥₓ", strict=True))
_SUP = dict(zip("0123456789+-=()inT", "⁰¹²³⁴⁵⁶⁷⁸⁹⁺⁻⁼⁽⁾ⁱⁿᵀ", strict=True))


def _script(body: str, table: dict[str, str], mark: str) -> str:
    body = body.replace(" ", "").replace("−", "-")
    if all(c in table for c in body):
        return "".join(table[c] for c in body)
    return f"{mark}({body})"


#: every page run turns its texts and table cells to plain text again, and the texts repeat
#: from run to run (a lesson's table is a few hundred cells): each distinct text is
#: converted once per process, then looked up
_MEMO = functools.lru_cache(maxsize=8192)


@_MEMO
def plain(tex: str, *, words: bool = False) -> str:
    """``tex`` (a formula's source, no dollars) as plain Unicode text.

    With ``words``, ``tex`` is text with some notation in it (a figure's title): a name
    such as ``d_model`` is left alone, only a single letter takes a subscript (``M_k``,
    ``θ_i``, ``q_{2i}``), and braces stay unless a script used them.
    """
    text = re.sub(r"\\(?:mathrm|text|operatorname|mathbf|mathit)\{([^{}]*)\}", r"\1", tex)
    text = re.sub(r"\\sqrt\{([^{}]*)\}", lambda m: "√" + (m[1] if len(m[1]) == 1 else f"({m[1]})"), text)
    text = re.sub(r"\\frac\{([^{}]*)\}\{([^{}]*)\}", r"(\1)/(\2)", text)
    text = re.sub(r"\\tilde\s*\{?(\w)\}?", "\\1\u0303", text)
    text = re.sub(r"\\([A-Za-z]+)", lambda m: _SYMBOLS.get(m[1], m[1]), text)
    text = re.sub(r"\\[,;:! ]", " ", text)
    # a letter (not the end of a longer name, with words) and its script
    base = r"(?<![\w.])([A-Za-zα-ωΑ-Ω]\u0303?)" if words else r"(\S)"

    def scripted(table: dict[str, str], mark: str):
        # with words, a script Unicode cannot write small stays as it was (the page's
        # author writes it in words instead; tests/test_notation.py finds it)
        def replace(m: re.Match) -> str:
            small = _script(m[2], table, mark)
            return m[0] if words and small.startswith(mark) else m[1] + small

        return replace

    text = re.sub(base + r"_\{([^{}]*)\}", scripted(_SUB, "_"), text)
    text = re.sub(base + r"\^\{([^{}]*)\}", scripted(_SUP, "^"), text)
    tail = r"([A-Za-z0-9]{1,2})(?![\w])" if words else r"([A-Za-z0-9])"
    text = re.sub(base + "_" + tail, scripted(_SUB, "_"), text)
    text = re.sub(r"\^(T\b|ᵀ)", "ᵀ", text)
    if not words:
        text = re.sub(r"\^([A-Za-z0-9])", lambda m: _script(m[1], _SUP, "^"), text)
        text = text.replace("{", "").replace("}", "")
    return " ".join(text.split()) if not words else text


@_MEMO
def plain_markdown(markdown: str) -> str:
    """Markdown with ``$...$`` maths as plain text: the maths through ``plain``, then no
    ``$``, ``*`` or backticks left."""
    text = re.sub(r"\$([^$]+)\$", lambda m: plain(m[1]), markdown)
    return " ".join(text.replace("$", "").replace("*", "").replace("`", "").split())


#: a subscript of letters or digits Unicode cannot write small, as ``plain`` brackets it
_NAME_SCRIPT = re.compile(r"(?<=\w)_\(([A-Za-z0-9]+)\)")


def plain_title(markdown: str) -> str:
    """A title for a table or a file (the teacher's dashboard, the gradebook): Markdown as
    ``plain_markdown`` makes it, and a name keeps its symbols. ``d_model`` stays as written, and
    a maths name whose subscript Unicode cannot write small reads as code writes it
    (``$d_{model}$`` -> ``d_model``, not ``d_(model)``)."""
    return _NAME_SCRIPT.sub(r"_\1", plain_markdown(markdown))


#: Markdown that is left as it is: maths for KaTeX and code spans
_KEPT = re.compile(r"\$\$.*?\$\$|\$[^$]+\$|`[^`]*`", re.S)


@_MEMO
def plain_words_markdown(markdown: str) -> str:
    """``plain(..., words=True)`` on Markdown's words, leaving its maths and code spans as
    they are (KaTeX renders the one, the other shows a name as code writes it)."""
    out, at = [], 0
    for m in _KEPT.finditer(markdown):
        out += [plain(markdown[at : m.start()], words=True), m[0]]
        at = m.end()
    out.append(plain(markdown[at:], words=True))
    return "".join(out)
