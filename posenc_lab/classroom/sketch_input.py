"""Drawing a prediction: a small ``st.components.v2`` component in the app's own page (nothing
is fetched from elsewhere) where a student sketches a curve with a finger, a mouse or the
keyboard, and the app reads it as a vote (``classroom.sketch``: POINTS heights in hundredths).

- Finger or mouse: press and move across the area; every point the stroke passes takes its
  height (points between two samples of the stroke are filled in, so a fast stroke leaves no gap).
- Keyboard: Tab reaches the area; Left / Right pick a point, Up / Down move it one hundredth
  (with Shift, ten), Home / End the first and last point. A line under the area says the
  picked point's x and height, and is read out by screen readers.

The area starts empty; the sketch reaches the app when a stroke or a key press ends, and
stays on screen through reruns (the app hands it back as ``value``).
"""

from __future__ import annotations

import streamlit as st

from posenc_lab.classroom import sketch

_HTML = """
<div class="posenc-sketch">
  <svg role="application" tabindex="0" aria-roledescription="drawing area"></svg>
  <p class="posenc-sketch-status" aria-live="polite"></p>
</div>
"""

# data: {points, levels, value: the vote or null, x_range, y_range, x_title, y_title, label}
_JS = """
export default function ({ parentElement, data, setStateValue }) {
  const root = parentElement.querySelector('.posenc-sketch');
  const svg = root.querySelector('svg');
  const status = root.querySelector('.posenc-sketch-status');
  const N = data.points, L = data.levels;
  const W = 640, H = 380, left = 84, right = 18, top = 18, bottom = 74;
  const pw = W - left - right, ph = H - top - bottom;
  const ns = 'http://www.w3.org/2000/svg';
  svg.setAttribute('viewBox', `0 0 ${W} ${H}`);
  svg.setAttribute('aria-label', data.label);
  const fmt = v => Number.isInteger(v) ? String(v) : v.toPrecision(3).replace(/\\.?0+$/, '');
  const xAt = i => data.x_range[0] + (data.x_range[1] - data.x_range[0]) * i / (N - 1);
  const yAt = level => data.y_range[0] + (data.y_range[1] - data.y_range[0]) * level / (L - 1);
  const px = i => left + pw * i / (N - 1);
  const py = level => top + ph * (1 - level / (L - 1));
  let levels = null;  // null: nothing drawn yet
  if (typeof data.value === 'string' && data.value.length === 2 * N && /^[0-9]+$/.test(data.value)) {
    levels = Array.from({ length: N }, (_, i) => Number(data.value.slice(2 * i, 2 * i + 2)));
  }
  let picked = 0;
  // Streamlit calls this function again on the same element at every rerun of the page (its
  // one-second class check, or the value this drawing just sent coming back). The drawing in
  // progress and the point the keyboard picked stay then: started afresh from the value the
  // rerun carries, a keyboard user pressing Up, Right, Up was taken back to point 1 and lost
  // the presses made since that value was sent. A value this drawing did not send (another
  // round) starts it afresh.
  const kept = parentElement.__posencSketch;
  if (kept && (data.value === kept.value || kept.sent.has(data.value))) {
    levels = kept.levels;
    picked = kept.picked;
  }
  const memo = { value: data.value, sent: kept ? kept.sent : new Set(), levels, picked };
  parentElement.__posencSketch = memo;
  const el = (name, attrs, text) => {
    const e = document.createElementNS(ns, name);
    for (const [k, v] of Object.entries(attrs)) e.setAttribute(k, v);
    if (text !== undefined) e.textContent = text;
    return e;
  };
  function draw() {
    memo.levels = levels;
    memo.picked = picked;
    svg.replaceChildren();
    svg.append(el('rect', { x: left, y: top, width: pw, height: ph, class: 'area' }));
    for (let k = 0; k <= 4; k++) {
      const y = top + ph * k / 4;
      svg.append(el('line', { x1: left, x2: left + pw, y1: y, y2: y, class: 'grid' }));
      svg.append(el('text', { x: left - 8, y: y + 8, 'text-anchor': 'end', class: 'tick' },
        fmt(data.y_range[1] - (data.y_range[1] - data.y_range[0]) * k / 4)));
    }
    for (let k = 0; k <= 4; k++) {
      const x = left + pw * k / 4;
      svg.append(el('line', { x1: x, x2: x, y1: top, y2: top + ph, class: 'grid' }));
      svg.append(el('text', { x, y: top + ph + 28, 'text-anchor': 'middle', class: 'tick' },
        fmt(data.x_range[0] + (data.x_range[1] - data.x_range[0]) * k / 4)));
    }
    svg.append(el('text', { x: left + pw / 2, y: H - 10, 'text-anchor': 'middle', class: 'title' }, data.x_title));
    svg.append(el('text', { x: 22, y: top + ph / 2, 'text-anchor': 'middle', class: 'title',
      transform: `rotate(-90 22 ${top + ph / 2})` }, data.y_title));
    if (levels) {
      svg.append(el('polyline', { points: levels.map((v, i) => `${px(i)},${py(v)}`).join(' '), class: 'curve' }));
      levels.forEach((v, i) => svg.append(el('circle', { cx: px(i), cy: py(v), r: i === picked ? 9 : 5,
        class: i === picked && document.activeElement === svg ? 'dot picked' : 'dot' })));
    } else {
      svg.append(el('text', { x: left + pw / 2, y: top + ph / 2, 'text-anchor': 'middle', class: 'hint' },
        'Draw your curve here'));
    }
  }
  function say() {
    status.textContent = levels
      ? `Point ${picked + 1} of ${N}: at ${fmt(xAt(picked))} your curve is at ${fmt(yAt(levels[picked]))}.`
      : 'Nothing drawn yet: drag across the area, or use the arrow keys.';
  }
  const send = () => {
    if (!levels) return;
    const value = levels.map(v => String(v).padStart(2, '0')).join('');
    memo.sent.add(value);
    setStateValue('sketch', value);
  };
  function at(event) {
    const box = svg.getBoundingClientRect();
    const x = (event.clientX - box.left) / box.width * W, y = (event.clientY - box.top) / box.height * H;
    const i = Math.max(0, Math.min(N - 1, Math.round((x - left) / pw * (N - 1))));
    const level = Math.max(0, Math.min(L - 1, Math.round((1 - (y - top) / ph) * (L - 1))));
    return [i, level];
  }
  let last = null;
  function stroke(event) {
    const [i, level] = at(event);
    if (!levels) levels = Array(N).fill(level);
    if (last && last[0] !== i) {  // fill the points a fast stroke skipped
      const step = i > last[0] ? 1 : -1;
      for (let j = last[0] + step; j !== i; j += step) {
        levels[j] = Math.round(last[1] + (level - last[1]) * (j - last[0]) / (i - last[0]));
      }
    }
    levels[i] = level;
    picked = i;
    last = [i, level];
    draw();
    say();
  }
  svg.onpointerdown = event => {
    svg.setPointerCapture(event.pointerId);
    last = null;
    stroke(event);
    event.preventDefault();
  };
  svg.onpointermove = event => { if (svg.hasPointerCapture(event.pointerId)) stroke(event); };
  svg.onpointerup = event => { last = null; send(); };
  svg.onkeydown = event => {
    const moves = { ArrowUp: 1, ArrowDown: -1 };
    if (event.key === 'ArrowLeft') picked = Math.max(0, picked - 1);
    else if (event.key === 'ArrowRight') picked = Math.min(N - 1, picked + 1);
    else if (event.key === 'Home') picked = 0;
    else if (event.key === 'End') picked = N - 1;
    else if (event.key in moves) {
      if (!levels) levels = Array(N).fill(Math.floor(L / 2));
      levels[picked] = Math.max(0, Math.min(L - 1, levels[picked] + moves[event.key] * (event.shiftKey ? 10 : 1)));
    } else return;
    event.preventDefault();
    draw();
    say();
  };
  svg.onkeyup = event => { if (event.key === 'ArrowUp' || event.key === 'ArrowDown') send(); };
  svg.onfocus = () => { draw(); say(); };
  svg.onblur = draw;
  draw();
  say();
}
"""

_CSS = """
.posenc-sketch svg { width: 100%; max-width: 40rem; height: auto; display: block; touch-action: none;
  cursor: crosshair; color: inherit; font-family: inherit; }
.posenc-sketch svg:focus { outline: 3px solid #1c83e1; outline-offset: 2px; }
.posenc-sketch .area { fill: rgba(128, 128, 128, 0.06); stroke: currentColor; stroke-opacity: 0.5; }
.posenc-sketch .grid { stroke: currentColor; stroke-opacity: 0.15; }
.posenc-sketch .tick { fill: currentColor; font-size: 22px; }
.posenc-sketch .title { fill: currentColor; font-size: 24px; }
.posenc-sketch .hint { fill: currentColor; fill-opacity: 0.8; font-size: 26px; }
.posenc-sketch .curve { fill: none; stroke: #1c83e1; stroke-width: 3.5; stroke-linejoin: round; }
.posenc-sketch .dot { fill: #1c83e1; }
.posenc-sketch .dot.picked { fill: #ff8c00; }
.posenc-sketch-status { margin: 0.25rem 0 0; font-size: 0.95rem; }
"""

_SKETCH = st.components.v2.component("posenc_sketch_input", html=_HTML, js=_JS, css=_CSS)


def sketch_input(
    key: str,
    *,
    x_range: tuple[float, float],
    y_range: tuple[float, float],
    x_title: str,
    y_title: str,
    label: str,
) -> str | None:
    """Draw the area (``key`` names it: one per question round) and return the student's
    sketch as a vote (``classroom.sketch``), or None before anything is drawn."""
    # the last sketch this session read, handed back so that a rerun redraws it
    held = st.session_state.get(key + ":held")
    result = _SKETCH(
        key=key,
        data={
            "points": sketch.POINTS,
            "levels": sketch.LEVELS,
            "value": held,
            "x_range": [float(x_range[0]), float(x_range[1])],
            "y_range": [float(y_range[0]), float(y_range[1])],
            "x_title": x_title,
            "y_title": y_title,
            "label": label,
        },
        default={"sketch": None},
        on_sketch_change=lambda: None,
    )
    vote = result.get("sketch")
    vote = vote if isinstance(vote, str) and sketch.is_sketch(vote) else None
    if vote is not None:
        st.session_state[key + ":held"] = vote
    return vote
