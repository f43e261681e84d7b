"""The real app in headless Chromium: every page renders and charts draw (sliders moved by
key presses, and views reached by their picker: tests/test_browser_hands.py).

The ``server`` and ``browser`` fixtures (conftest.py, browser_support.py) start
``streamlit run app.py`` on a free loopback port and Debian's chromium under Playwright.
That every page renders, at 1280 px and on a phone, is read off the classroom
measurement's loads of those pages (the ``measured`` fixture; tests/test_browser_classroom.py).
Screenshots land in ``artifacts/screenshots``.
"""

from __future__ import annotations

import json

import pytest
from browser_support import (
    CLASSROOM_PAGES,
    FIRST_SCREEN,
    PAGES,
    SHOTS,
    budget_ms,
    open_in_browser,
    wait_idle,
    wait_ready,
    wait_shown,
    wait_still,
    wait_until,
)

pytestmark = pytest.mark.browser


@pytest.mark.parametrize(("name", "path"), PAGES, ids=[p[0] for p in PAGES])
def test_page_renders_without_exception_and_draws_charts(measured, name, path):
    """At 1280 x 2600, on the classroom measurement's load (``measured``: no exception, a
    visible chart): home's method table really drawn (a tuple of rows once rendered as
    nothing), nothing asked of a host outside localhost, and the whole page kept as
    ``{name}.png``."""
    result = measured(name, path, "desktop")
    if name == "home":
        cells = result["table_cells"]
        assert sum("alibi (press et al. 2021)" in cell.lower() for cell in cells) == 1, cells
    assert not result["outside"], f"requests left localhost: {result['outside'][:5]}"
    assert str(SHOTS / f"{name}.png") in result["shots"]


@pytest.mark.parametrize(("name", "path"), PAGES, ids=[p[0] for p in PAGES])
def test_phone_width_screenshot(measured, name, path):
    """A 390 px wide view of every page (a phone), for a person to look at, on the
    classroom measurement's load (``measured``: no exception, a visible chart): nothing
    asked of a host outside localhost, and ``phone_tall_{name}.png`` written."""
    result = measured(name, path, "phone")
    assert not result["outside"], f"requests left localhost: {result['outside'][:5]}"
    assert str(SHOTS / f"phone_tall_{name}.png") in result["shots"]


# the RoPE rotation animation: Plotly's play button advances frames, smoothly

FRAME_STATE_JS = """() => {
  const gd = document.querySelector('.js-plotly-plot');
  const full = gd && gd._fullLayout;
  const texts = Array.from(gd.querySelectorAll('.textpoint text')).map(t => t.textContent).join('|');
  return {frame: (full && full._currentFrame) || null, texts: texts,
          frames: (gd._transitionData && gd._transitionData._frames || []).length};
}"""
#: Plotly's animation loop is not running: it clears its frame request when it stops
STOPPED_JS = """() => {
  const gd = document.querySelector('.js-plotly-plot');
  return !!gd && !!gd._transitionData && !gd._transitionData._animationRaf;
}"""


def test_rope_rotation_plays_pauses_and_steps_from_the_keyboard(server, browser):
    page, outside = open_in_browser(browser, f"{server}/rope?view=rotation&anim_frames=64&step=1")
    try:
        wait_idle(page)
        wait_shown(page.locator(".js-plotly-plot .main-svg").first)
        start = page.evaluate(FRAME_STATE_JS)
        assert start["frames"] == 64, start
        # real buttons: focus Play and press Enter, as a keyboard user would
        play = page.get_by_role("button", name="Play", exact=True)
        play.focus()
        page.keyboard.press("Enter")
        wait_until(page, f"() => ({FRAME_STATE_JS})().frame !== null", timeout_ms=budget_ms(5_000), what="a frame")
        first = page.evaluate(FRAME_STATE_JS)
        t0 = page.evaluate("() => performance.now()")
        # the span the playback is measured over (the verdict reads the time that passed)
        page.wait_for_timeout(2_000)
        later = page.evaluate(FRAME_STATE_JS)
        elapsed = (page.evaluate("() => performance.now()") - t0) / 1000
        # default gap r = 2: frame i shows the query at m = i + 2 and the key at n = i
        index = {f"query at m = {2 + i}, key at n = {i}": i for i in range(64)}
        advanced = index[later["frame"]] - index[first["frame"]]
        expected = elapsed * 1000 / 120  # frame duration 120 ms
        print(f"rope rotation: {advanced} frames in {elapsed:.2f} s, expected about {expected:.1f}")
        assert later["texts"] != start["texts"], "the angle written under each plane changes"
        assert advanced >= 0.4 * expected, f"{advanced} frames in {elapsed:.2f} s: playback is not smooth"
        # Pause, then step forward and back with the arrow keys
        page.get_by_role("button", name="Pause", exact=True).focus()
        page.keyboard.press("Enter")
        # paused: Plotly's animation loop has stopped (its frame request cleared), so no
        # frame comes after the one it shows
        wait_until(page, STOPPED_JS, timeout_ms=budget_ms(5_000), what="the animation loop stopped (paused)")
        paused = page.evaluate(FRAME_STATE_JS)["frame"]
        page.keyboard.press("ArrowRight")
        wait_until(page, f"() => ({FRAME_STATE_JS})().frame !== {paused!r}", timeout_ms=budget_ms(5_000))
        assert index[page.evaluate(FRAME_STATE_JS)["frame"]] == (index[paused] + 1) % 64
        page.keyboard.press("ArrowLeft")
        wait_until(page, f"() => ({FRAME_STATE_JS})().frame === {paused!r}", timeout_ms=budget_ms(5_000))
        # the counter names the positions the frame draws, not only its number
        status = page.get_by_role("status").first.text_content()
        assert status.startswith("frame ") and f": {page.evaluate(FRAME_STATE_JS)['frame']}" in status, status
        assert page.locator('[data-testid="stException"]').count() == 0
        assert not outside
    finally:
        page.close()


#: the main area's first table: the words of its text broken across two lines (split at
#: spaces, hyphens and slashes, where a line may end), its sideways overflow, and how its
#: rows are laid out
TABLE_WORDS_JS = r"""() => {
  const table = document.querySelector('[data-testid="stMain"] [data-testid="stTable"]');
  // a header row not shown (on a phone the column names are in every row) is not read
  const shown = e => {
    const r = e.closest('thead, tbody').getBoundingClientRect();
    return r.width > 1 && r.height > 1;
  };
  const broken = [];
  const walker = document.createTreeWalker(table, NodeFilter.SHOW_TEXT);
  for (let node = walker.nextNode(); node; node = walker.nextNode()) {
    if (!node.parentElement.closest('thead, tbody') || !shown(node.parentElement)) continue;
    for (const m of node.data.matchAll(/[^\s\-\/]+/g)) {
      const range = document.createRange();
      range.setStart(node, m.index);
      range.setEnd(node, m.index + m[0].length);
      const lines = new Set(Array.from(range.getClientRects()).filter(r => r.width > 0).map(r => Math.round(r.top)));
      if (lines.size > 1) broken.push(m[0]);
    }
  }
  const wide = Array.from(table.querySelectorAll('*'))
    .filter(e => (!e.closest('thead, tbody') || shown(e)) && e.clientWidth && e.scrollWidth > e.clientWidth + 1);
  return {broken, sideways: wide.length, page: document.documentElement.scrollWidth - window.innerWidth,
          row: getComputedStyle(table.querySelector('tbody tr')).display};
}"""


@pytest.mark.parametrize(
    ("width", "height", "query", "rows"),
    [(390, 844, "", "block"), (1280, 800, "", "table-row"), (1920, 1080, "?present=1", "table-row")],
)
def test_home_method_table_keeps_words_whole_on_a_phone_a_laptop_and_a_projector(
    server, browser, width, height, query, rows
):
    """The home page's table of methods: on a 390 px phone a row reads as a block (its cells
    under their column names), no word is broken across lines and nothing scrolls sideways;
    a laptop and a projector keep its six columns (once, on a phone, six columns of ~50 px
    broke most words mid-word)."""
    page, outside = open_in_browser(browser, f"{server}/{query}", width=width, height=height)
    try:
        wait_idle(page)
        wait_shown(page.locator('[data-testid="stMain"] [data-testid="stTable"] td').first)
        wait_until(
            page,
            "() => getComputedStyle(document.documentElement).getPropertyValue('--posenc-css').trim() === '1'",
            what="the shell's CSS",
        )
        found = page.evaluate(TABLE_WORDS_JS)
        print(f"home table at {width} px: {found}")
        assert found["row"] == rows
        assert not found["broken"], f"words broken mid-word: {found['broken'][:10]}"
        assert found["sideways"] == 0 and found["page"] <= 0, found
        assert not outside
    finally:
        page.close()


def test_the_models_catalogue_keeps_words_whole_on_a_phone(server, browser):
    """Real models' catalogue table on a 390 px phone: each model a block of named cells,
    no word broken across lines ("learne d absol ute"), nothing scrolling sideways."""
    page, outside = open_in_browser(browser, f"{server}/models", width=390, height=844)
    try:
        wait_ready(page)
        wait_shown(page.locator('[data-testid="stMain"] [data-testid="stTable"] td').first)
        found = page.evaluate(TABLE_WORDS_JS)
        assert found["row"] == "block", found
        assert not found["broken"], f"words broken mid-word: {found['broken'][:10]}"
        # a model without a RoPE base shows "-", not an empty bullet (cells are Markdown)
        assert page.locator('[data-testid="stMain"] [data-testid="stTable"] li').count() == 0
        assert found["sideways"] == 0 and found["page"] <= 0, found
        assert not outside
    finally:
        page.close()


#: the previous / next links at a lesson's foot: each label's text and whether it shows
#: whole, how it is cut when it does not fit, and whether the link stays inside the page
NEIGHBOURS_JS = """() => {
  const width = document.querySelector('[data-testid="stMainBlockContainer"]').getBoundingClientRect().right;
  return Array.from(document.querySelectorAll('.st-key-neighbours [data-testid="stPageLink"]')).map(link => {
    const p = link.querySelector('p');
    return {text: p.textContent, whole: p.scrollWidth <= p.clientWidth + 1,
            cut: getComputedStyle(p).textOverflow, inside: link.getBoundingClientRect().right <= width + 1};
  });
}"""


@pytest.mark.parametrize(("width", "height", "query"), [(1280, 800, ""), (390, 844, ""), (1920, 1080, "?present=1")])
def test_previous_and_next_labels_show_whole_or_end_in_an_ellipsis(server, browser, width, height, query):
    """The longest neighbour's label (lesson 9's "Next: Design your own encoding") shows whole
    on a laptop, a phone and a projector, inside the page (once its last letters were cut off
    in a column of 2/7 of the page); a label too long for any screen ends in an ellipsis."""
    page, outside = open_in_browser(browser, f"{server}/choices{query}", width=width, height=height)
    try:
        # the shell's CSS (the ellipsis) arrives a little after the page's first elements
        wait_ready(page)
        wait_shown(page.locator(".st-key-neighbours [data-testid='stPageLink'] p").first)
        links = page.evaluate(NEIGHBOURS_JS)
        print(f"previous / next at {width} px: {links}")
        assert [link["text"] for link in links] == ["Previous: Compare them all", "Next: Design your own encoding"]
        assert all(link["whole"] and link["inside"] for link in links), links
        # a title far longer than the screen: cut, with an ellipsis, and still inside the page
        page.evaluate(
            "() => document.querySelectorAll('.st-key-neighbours [data-testid=\"stPageLink\"] p')[1]"
            ".textContent = 'Next: ' + 'a very long lesson title '.repeat(12)"
        )
        long = page.evaluate(NEIGHBOURS_JS)[1]
        assert not long["whole"] and long["cut"] == "ellipsis" and long["inside"], long
        assert not outside
    finally:
        page.close()


#: where the rotation chart and the page's scroll stand (CSS px of the viewport)
CHART_BOX_JS = """() => {
  const main = document.querySelector('[data-testid="stMain"]');
  const box = document.querySelector('[data-testid="stMain"] .js-plotly-plot').getBoundingClientRect();
  return {top: box.top, bottom: box.bottom, scroll: main.scrollTop};
}"""


def test_rope_rotation_plays_with_its_planes_and_its_play_button_on_a_laptop_screen(server, browser):
    """At 1280 x 800 the whole animation and its Play button fit one screen: the student
    scrolls until the last plane shows, and Play is still in view above the planes; pressing
    it moves nothing (once, Play sat under an 800 px chart: reaching it scrolled the top
    planes away)."""
    page, outside = open_in_browser(browser, f"{server}/rope?view=rotation", width=1280, height=800)
    try:
        wait_idle(page)
        wait_shown(page.locator(".js-plotly-plot .main-svg").first)
        page.evaluate(
            "() => document.querySelector('[data-testid=\"stMain\"] .js-plotly-plot').scrollIntoView({block: 'end'})"
        )
        wait_still(page, CHART_BOX_JS)
        chart = page.evaluate(CHART_BOX_JS)
        play = page.get_by_role("button", name="Play", exact=True)
        button = play.bounding_box()
        top, bottom = button["y"], button["y"] + button["height"]
        print(f"rope rotation at 1280 x 800: chart {chart}, Play at {top:.0f}-{bottom:.0f}")
        assert chart["top"] >= 0 and chart["bottom"] <= 800 + 1, f"the planes do not fit the screen: {chart}"
        assert 0 <= top and bottom <= chart["top"], f"Play is not in view above the planes: {button}, chart {chart}"
        # playing: two frames drawn after the one it started from, each of which could move the page
        shown = page.evaluate(FRAME_STATE_JS)["frame"]
        play.click()
        for _ in range(2):
            wait_until(page, f"() => ({FRAME_STATE_JS})().frame !== {json.dumps(shown)}", timeout_ms=budget_ms(5_000))
            shown = page.evaluate(FRAME_STATE_JS)["frame"]
        after = page.evaluate(CHART_BOX_JS)
        assert after == chart, f"playing moved the planes: {chart} -> {after}"
        assert not outside
    finally:
        page.close()


@pytest.mark.parametrize("name", ["sinusoidal-heatmap", "rope-rotation", "experiments-extrapolation"])
def test_presenter_mode_at_projector_resolution(measured, name):
    """On the classroom measurement's presenter-mode load (1920 px wide, its first 1080 px kept
    as ``present_light_{name}.png``): the lesson's lead is folded away into the speaker notes,
    and the type is larger."""
    result = measured(name, dict(CLASSROOM_PAGES)[name], "present")
    assert result["speaker_notes"] == 1
    assert result["root_px"] >= 20
    assert not result["outside"], f"requests left localhost: {result['outside'][:5]}"


def test_sinusoid_heatmap_fits_a_projector_with_its_x_axis(measured):
    """Presenter mode at 1920 x 1080: the heatmap ends, x axis and its title included, on
    the first screen (once, 1.3 x 520 px from 531 px down ended at 1207 px)."""
    result = measured("sinusoidal-heatmap", dict(CLASSROOM_PAGES)["sinusoidal-heatmap"], "present")
    figure = result["first_screen"]["figure"]
    print(f"sinusoid heatmap in presenter mode: {figure}")
    assert figure["bottom"] <= FIRST_SCREEN["present"], figure


def test_compare_in_presenter_mode_is_shorter(server, browser):
    """Presenter mode at 1920 x 1080: the compare page's table of text is one click away and
    its long caption in the speaker notes (the page was 4,966 px tall; 4,027 now, its panels
    three rows of three: in rows of five the panel under the colour bar was squashed)."""
    page, outside = open_in_browser(browser, f"{server}/compare?present=1", width=1920, height=1080)
    try:
        wait_idle(page)
        wait_shown(page.locator(".js-plotly-plot .main-svg").first)
        height = page.evaluate("() => document.querySelector('[data-testid=\"stMain\"]').scrollHeight")
        print(f"compare in presenter mode: {height} px")
        assert height <= 4_300, f"{height} px tall"
        assert page.locator('[data-testid="stException"]').count() == 0
        assert not outside
    finally:
        page.close()


#: the sidebar: how far its right edge reaches into the page (0 or less: folded away)
SIDEBAR_JS = "() => document.querySelector('[data-testid=\"stSidebar\"]').getBoundingClientRect().right"
#: SIDEBAR_JS once the sidebar is at rest (no transition of its own or inside it running), else null
SIDEBAR_AT_REST_JS = f"""() => document.querySelector('[data-testid="stSidebar"]')
  .getAnimations({{subtree: true}}).length ? null : ({SIDEBAR_JS})()"""


def test_the_presenter_switch_folds_the_sidebar_away_even_after_it_was_opened_by_hand(server, browser):
    """Turning presenter mode on with the sidebar's switch folds the sidebar, as a link with
    ?present=1 opens it; also after the teacher opened the sidebar by hand (Streamlit then
    keeps the person's choice over the page's setting), and turning it off leaves it open."""
    page, outside = open_in_browser(browser, f"{server}/sinusoidal", width=1920, height=1080)

    def sidebar(where: str = "true") -> float:
        """The sidebar's right edge once it is at rest where ``where`` (a test of its edge
        ``r``) says: a fold comes from the app's own script once the run is drawn, then slides."""
        wait_until(
            page,
            f"() => {{ const r = ({SIDEBAR_AT_REST_JS})(); return r !== null && ({where}); }}",
            what=f"the sidebar at rest, {where}",
        )
        return page.evaluate(SIDEBAR_JS)

    def switch(on: bool) -> None:
        page.get_by_text("Presenter mode").click()
        test = "" if on else "!"
        wait_until(page, f"() => {test}location.search.includes('present=1')", timeout_ms=budget_ms(15_000))
        wait_idle(page)

    try:
        wait_idle(page)
        assert page.evaluate(SIDEBAR_JS) > 200, "a wide screen starts with the sidebar open"
        switch(True)
        assert sidebar("r <= 0") <= 0, "presenter mode folds the sidebar"
        page.locator('[data-testid="stExpandSidebarButton"]').click()  # opened by hand, to reach the switch
        sidebar("r > 200")
        switch(False)
        assert sidebar() > 200, "turned off from the open sidebar, it stays open"
        switch(True)
        assert sidebar("r <= 0") <= 0, "folded again, though it was opened by hand"
        assert page.locator('[data-testid="stException"]').count() == 0
        assert not outside
    finally:
        page.close()


@pytest.mark.parametrize("scheme", ["light", "dark"])
def test_both_themes_render(server, browser, scheme):
    context = browser.new_context(viewport={"width": 1440, "height": 1100}, color_scheme=scheme)
    page = context.new_page()
    try:
        page.goto(f"{server}/sinusoidal?view=similarity", wait_until="domcontentloaded")
        wait_idle(page)
        wait_shown(page.locator(".js-plotly-plot .main-svg").first)
        background = page.evaluate(
            "() => getComputedStyle(document.querySelector('[data-testid=\"stApp\"]')).backgroundColor"
        )
        channels = [int(c) for c in background[background.index("(") + 1 : background.index(")")].split(",")[:3]]
        assert (sum(channels) / 3 > 128) == (scheme == "light"), background
        SHOTS.mkdir(parents=True, exist_ok=True)
        page.screenshot(path=str(SHOTS / f"theme_{scheme}.png"))
    finally:
        context.close()


@pytest.mark.parametrize(
    ("button", "suffix", "start"), [("Save SVG", ".svg", b"<svg"), ("Save PNG", ".png", b"\x89PNG")]
)
def test_a_chart_saves_as_svg_and_png_named_for_its_lesson(server, browser, button, suffix, start):
    page, outside = open_in_browser(browser, f"{server}/sinusoidal?view=wavelengths")
    try:
        wait_idle(page)
        wait_shown(page.locator(".js-plotly-plot .main-svg").first)
        with page.expect_download(timeout=budget_ms(30_000)) as info:
            page.get_by_role("button", name=button, exact=True).first.click()
        download = info.value
        assert download.suggested_filename == f"posenc-lab_sinusoidal_wavelengths{suffix}"
        with open(download.path(), "rb") as f:
            assert f.read(len(start)) == start
        assert not outside
    finally:
        page.close()


def test_the_server_refuses_an_upload_past_its_limit(server, browser, tmp_path):
    """The config.json uploader's 1 MB limit was kept by the browser alone: a script sent
    four 100 MB files, and the process kept them (issue 49, 2.3). Here the browser uploads a
    small file and the request on its way is given a 3 MB body instead: the server answers
    413 (server.maxUploadSize = 1) and the page reads no config from it."""
    page, _ = open_in_browser(browser, f"{server}/models?view=config", width=1366, height=900)
    statuses: list[int] = []
    try:
        wait_ready(page)

        def enlarge(route):
            # the file's part of the form, 3 MB long (Playwright shows the form without the
            # file's bytes: they are put in after the part's headers)
            body = route.request.post_data_buffer or b""
            head = b"Content-Type: application/json\r\n\r\n"
            assert head in body, body[:300]
            route.continue_(post_data=body.replace(head, head + b'{"a": "' + b"x" * 3_000_000 + b'"}', 1))

        page.route("**/_stcore/upload_file/**", enlarge)
        page.on(
            "response",
            lambda r: (
                statuses.append(r.status) if "/_stcore/upload_file/" in r.url and r.request.method == "PUT" else None
            ),
        )
        small = tmp_path / "config.json"
        small.write_text('{"a": 1}')
        with page.expect_response(lambda r: "/_stcore/upload_file/" in r.url and r.request.method == "PUT"):
            page.locator('[data-testid="stFileUploaderDropzoneInput"]').set_input_files(str(small))
        assert statuses == [413], statuses
    finally:
        page.close()
