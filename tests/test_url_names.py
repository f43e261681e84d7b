"""URL names: a value stays in its lesson unless the concept is shared, a name means one
thing across the app, and old links open with renamed names (issue 37)."""

from __future__ import annotations

import ast
from collections import defaultdict

import pytest
from app_helpers import CHEAP, ROOT, assert_clean, open_page

from posenc_lab import course as lessons
from posenc_lab.ui import state

LESSONS_DIR = ROOT / "posenc_lab" / "lessons"
CONTROLS = ROOT / "posenc_lab" / "ui" / "controls.py"
KINDS = {"int_slider", "float_slider", "choice_slider", "choice", "toggle", "text", "int_list"}
#: URL names the shell owns on every page (ui.shell, ui.layout.view_picker, classroom.session)
SHELL_NAMES = {"present", "view", "class", "student", "teacher"}

#: URL names that several lessons use with labels, ranges or kinds of their own, each for
#: one thing (written down here; a name used alike by several lessons, as a helper of
#: ui/controls.py draws it, needs no entry). A name whose value crosses lessons is in
#: ``state.SHARED`` instead.
ONE_MEANING = {
    "causal": "the causal mask: a query sees no later key",
    "context": "the context length L a model is built for (a learned table's rows)",
    "dh": "the width of one attention head",
    "heads": "the number of attention heads H",
    "k": "an offset in positions: position p against position p + k",
    "n": "the number of positions, 0 to n - 1",
    "seed": "the seed of a random draw",
    "seq_len": "the length T of the sequence drawn",
    "shift": "how far the test phrase moves",
    "task": "the task of the train-short-test-long experiment (copy or marker)",
    "sigma": "the width sigma of a Gaussian (RBF) kernel over distances, in positions",
    "train_len": "the training length L",
    "width": "the width of the lesson's small model, the length of its vectors",
}


def _calls(tree: ast.AST):
    for node in ast.walk(tree):
        if (
            isinstance(node, ast.Call)
            and isinstance(node.func, ast.Attribute)
            and isinstance(node.func.value, ast.Name)
        ):
            yield node, node.func.value.id, node.func.attr


def _control(node: ast.Call, kind: str) -> tuple[str, str, str]:
    name, label = node.args[0], node.args[1]
    assert isinstance(name, ast.Constant) and isinstance(name.value, str), f"a URL name is a literal: {ast.dump(name)}"
    return name.value, kind, label.value if isinstance(label, ast.Constant) else ast.unparse(label)


def _helpers() -> dict[str, tuple[str, str, str]]:
    """ui/controls.py: helper -> the control it draws (URL name, kind, label)."""
    out = {}
    for node in ast.parse(CONTROLS.read_text()).body:
        if isinstance(node, ast.FunctionDef):
            drawn = [_control(call, attr) for call, mod, attr in _calls(node) if mod == "state" and attr in KINDS]
            if drawn:
                out[node.name] = drawn[0]
    return out


def controls_by_lesson() -> dict[str, set[tuple[str, str, str]]]:
    """Lesson folder -> every control its files draw: (URL name, kind, label)."""
    helpers = _helpers()
    found: dict[str, set] = defaultdict(set)
    for path in sorted(LESSONS_DIR.glob("*/*.py")):
        for call, mod, attr in _calls(ast.parse(path.read_text())):
            if mod == "state" and attr in KINDS:
                found[path.parent.name].add(_control(call, attr))
            elif mod == "controls" and attr in helpers:
                found[path.parent.name].add(helpers[attr])
    return dict(found)


CONTROLS_BY_LESSON = controls_by_lesson()


def _uses() -> dict[str, dict[str, set[tuple[str, str]]]]:
    """URL name -> lesson -> its (kind, label) under that name."""
    uses: dict[str, dict[str, set]] = defaultdict(lambda: defaultdict(set))
    for lesson, controls in CONTROLS_BY_LESSON.items():
        for name, kind, label in controls:
            uses[name][lesson].add((kind, label))
    return uses


def test_the_controls_are_found():
    assert {lesson.name for lesson in lessons.LESSONS} <= set(CONTROLS_BY_LESSON)
    names = {name for controls in CONTROLS_BY_LESSON.values() for name, _, _ in controls}
    assert {"d_model", "base", "n", "k", "copy_k", "p", "p_rope", "seed"} <= names


def test_a_url_name_means_one_thing_across_the_lessons():
    mixed = []
    for name, by_lesson in _uses().items():
        if len(by_lesson) < 2 or name in state.SHARED or name in ONE_MEANING:
            continue
        controls = set().union(*by_lesson.values())
        if len(controls) > 1:
            mixed.append(f"{name}: " + "; ".join(f"{lesson} {sorted(c)}" for lesson, c in sorted(by_lesson.items())))
    assert not mixed, "two lessons use one URL name for different controls:\n" + "\n".join(mixed)


def test_a_shared_name_is_one_kind_of_control_everywhere():
    # its one value goes from lesson to lesson: each must read it
    for name in state.SHARED:
        kinds = {kind for by_lesson in [_uses().get(name, {})] for c in by_lesson.values() for kind, _ in c}
        assert len(kinds) <= 1, (name, kinds)


def test_the_lists_hold_only_names_in_use():
    uses = _uses()
    for name in ONE_MEANING:
        assert len(uses.get(name, {})) >= 2, f"{name} is used by one lesson at most: drop it from ONE_MEANING"
    assert "d_model" in state.SHARED and len(uses["d_model"]) >= 2


def test_no_lesson_takes_a_name_of_the_shell():
    for lesson, controls in CONTROLS_BY_LESSON.items():
        assert not {name for name, _, _ in controls} & SHELL_NAMES, lesson


RENAMING = [lesson for lesson in lessons.LESSONS if getattr(lesson, "renamed", None)]


@pytest.mark.parametrize("lesson", RENAMING, ids=lambda x: x.name)
def test_a_renamed_name_is_gone_from_its_lesson_and_the_new_one_there(lesson):
    assert len(RENAMING) == 4
    names = {name for name, _, _ in CONTROLS_BY_LESSON[lesson.name]}
    for old, new in lesson.renamed.items():
        assert old not in names and new in names, (old, new)
    assert not set(lesson.largest) - names, "the largest settings use the names now"


def test_the_benchmarks_name_the_experiments_training_sliders_as_the_page_does():
    # classroom_load moves every other slider as a cheap one: a stale name there trains six
    # models on a move, and 40 students time out
    import sys

    sys.path.insert(0, str(ROOT / "benchmarks"))
    import classroom_load

    names = {name for name, kind, _ in CONTROLS_BY_LESSON["experiments"] if kind == "int_slider"}
    (training,) = classroom_load.TRAINING_SLIDERS.values()
    assert training <= names, training - names
    assert {"copy_k", "train_len", "width", "steps", "seed"} <= training


# under AppTest: a value stays in its lesson


def _go(at, page: str, view: str | None = None) -> None:
    """Move to ``page`` as the menu does, then to ``view`` with the view picker. Streamlit
    clears the address bar on a page switch (AppTest would keep it), so what the new page
    shows comes from the session alone."""
    at.query_params.clear()
    at.switch_page(page).run()
    if view is not None and at.radio(key="w:view").value != view:
        at.radio(key="w:view").set_value(view).run()


def test_the_sinusoids_offset_does_not_send_the_experiments_into_training(monkeypatch):
    from posenc_lab.lessons.experiments import compute

    def no_training(*args, **kwargs):
        raise AssertionError("the experiments page trained instead of showing its stored run")

    monkeypatch.setattr(compute, "run_now", no_training)
    at = open_page("posenc_lab/lessons/sinusoidal/page.py", {"view": "shift"})
    assert at.slider(key="w:k").value == 5
    _go(at, "posenc_lab/lessons/experiments/page.py")
    assert_clean(at)
    assert at.slider(key="w:copy_k").value == 3, "the experiments open at their own default"
    assert any(b.label == "Re-run these settings live" for b in at.button), "the stored run is shown"
    assert "k" not in at.query_params


@pytest.mark.parametrize(("view", "positions"), [("relative", 128), ("layouts", 256)])
def test_the_sinusoids_base_and_positions_do_not_reach_rope(view, positions):
    at = open_page("posenc_lab/lessons/sinusoidal/page.py", {"base": "1000", "n": "4096"})
    assert at.select_slider(key="w:base").value == 1000 and at.slider(key="w:n").value == 4096
    _go(at, "posenc_lab/lessons/rope/page.py", view)
    assert_clean(at)
    assert at.select_slider(key="w:base").value == 10_000, "RoPE's own base"
    assert at.slider(key="w:n").value == positions, "RoPE's own number of positions"
    # and the sinusoid keeps its own
    _go(at, "posenc_lab/lessons/sinusoidal/page.py")
    assert at.select_slider(key="w:base").value == 1000 and at.slider(key="w:n").value == 4096


@pytest.mark.parametrize(
    ("first", "then", "name"),
    [
        (("rope", "relative"), ("relative", None), "seed"),
        (("alibi", None), ("compare", None), "heads"),
        (("compare", None), ("choices", "cache"), "train_len"),
    ],
    ids=["seed", "heads", "train_len"],
)
def test_a_name_two_lessons_share_keeps_a_value_in_each(first, then, name):
    def page(lesson: str) -> str:
        return f"posenc_lab/lessons/{lesson}/page.py"

    at = open_page()
    _go(at, page(then[0]), then[1])
    default = at.slider(key=f"w:{name}").value
    at = open_page()
    _go(at, page(first[0]), first[1])
    slider = at.slider(key=f"w:{name}")
    moved = slider.max if slider.max != default else slider.min
    slider.set_value(moved).run()
    _go(at, page(then[0]), then[1])
    assert_clean(at)
    assert at.slider(key=f"w:{name}").value == default
    _go(at, page(first[0]), first[1])
    assert at.slider(key=f"w:{name}").value == moved


def test_d_model_still_goes_from_lesson_to_lesson():
    at = open_page("posenc_lab/lessons/sinusoidal/page.py")
    at.slider(key="w:d_model").set_value(64).run()
    for page in ("learned", "choices", "design", "sinusoidal"):
        _go(at, f"posenc_lab/lessons/{page}/page.py")
        assert_clean(at)
        assert at.slider(key="w:d_model").value == 64, page
        assert at.query_params["d_model"] == "64"


def test_a_shared_value_beyond_a_lessons_range_takes_its_nearest():
    at = open_page("posenc_lab/lessons/sinusoidal/page.py", {"d_model": "1024"})
    _go(at, "posenc_lab/lessons/design/page.py")
    assert_clean(at)
    assert at.slider(key="w:d_model").value == 256, "the design lab's widest"


# old links

OLD_LINKS = [
    ("rope", {"view": "scaling", "method": "proportional", "p": "0.25"}, "p_rope", 0.25),
    ("rope", {"view": "rotation", "frames": "20"}, "anim_frames", 20),
    ("experiments", {**CHEAP["posenc_lab/lessons/experiments/page.py"], "k": "2"}, "copy_k", 2),
    ("experiments", {**CHEAP["posenc_lab/lessons/experiments/page.py"], "reach": "10"}, "test_to", "10"),
    (
        "experiments",
        {**CHEAP["posenc_lab/lessons/experiments/page.py"], "view": "translation", "show": "rope"},
        "scores",
        "rope",
    ),
    ("choices", {"view": "hybrid", "w": "0.25"}, "weight", 0.25),
    ("design", {"pairs": "6"}, "n_pairs", 6),
]


def _value(at, name: str):
    for widgets in (at.slider, at.select_slider, at.radio):
        found = [w for w in widgets if w.key == f"w:{name}"]
        if found:
            return found[0].value
    raise AssertionError(f"no control w:{name}")


@pytest.mark.parametrize(("lesson", "query", "new", "value"), OLD_LINKS, ids=[f"{o[0]}-{o[2]}" for o in OLD_LINKS])
def test_an_old_link_opens_with_its_value_under_the_new_name(lesson, query, new, value):
    page = f"posenc_lab/lessons/{lesson}/page.py"
    old = next(name for name, now in lessons.lesson_by_path(page).renamed.items() if now == new)
    assert old in query
    at = open_page(page, query)
    assert_clean(at)
    assert not at.warning, [w.value for w in at.warning]
    assert _value(at, new) == value
    assert old not in at.query_params and at.query_params[new] == query[old]


def test_a_bad_value_under_an_old_name_is_named_as_the_link_has_it():
    at = open_page("posenc_lab/lessons/choices/page.py", {"view": "hybrid", "w": "abc"})
    assert_clean(at)
    assert "`w=abc`" in at.warning[0].value
    assert _value(at, "weight") == 0.5
