"""Buttons under a chart, in the page itself: save it as SVG or PNG, and play, pause and
step an animation from the keyboard.

Plotly's own toolbar and its animation buttons are drawn in SVG: a keyboard cannot reach
them, and on a phone the toolbar covers the chart's top. These are real HTML buttons
(Tab to reach, Enter or Space to press; the arrow keys step an animation while a button
has focus), mounted with ``st.components.v2`` into the app's own page, where they call the
plotly.js that Streamlit has already loaded. Nothing is fetched from anywhere.
"""

from __future__ import annotations

import streamlit as st

_HTML = '<div class="tools" role="group"></div>'

_CSS = """
.tools { display: flex; flex-wrap: wrap; gap: 0.5rem; align-items: center; margin: 0.25rem 0 0.5rem; }
button {
  font: inherit; font-size: 0.9rem; color: inherit; background: transparent; cursor: pointer;
  border: 1px solid currentColor; border-radius: 0.5rem; padding: 0.3rem 0.8rem; min-height: 2.25rem;
}
button:focus-visible { outline: 3px solid #0072B2; outline-offset: 2px; }
.frame { font-size: 0.9rem; min-width: 8rem; }
"""

# data: {charts: [CSS class of each chart's element], filename, animated, frame_ms, first_frame, save}
_JS = """
export default function ({ parentElement, data }) {
  const box = parentElement.querySelector('.tools');
  const charts = () => data.charts
    .map(c => document.querySelector('.' + c + ' .js-plotly-plot'))
    .filter(gd => gd && window.Plotly);
  const button = (label, title, act) => {
    const b = document.createElement('button');
    b.type = 'button';
    b.textContent = label;
    // the visible label is the accessible name (WCAG 2.5.3); the title explains it
    b.title = title;
    b.addEventListener('click', act);
    box.appendChild(b);
    return b;
  };
  box.replaceChildren();
  const save = format => () => charts().forEach((gd, i) => window.Plotly.downloadImage(gd, {
    format: format,
    filename: data.filename + (i ? '_' + (i + 1) : ''),
    width: gd._fullLayout.width,
    height: gd._fullLayout.height,
    scale: format === 'png' ? 2 : 1,
  }));
  if (data.animated) {
    const status = document.createElement('span');
    status.className = 'frame';
    status.setAttribute('role', 'status');
    const names = gd => ((gd._transitionData || {})._frames || []).map(f => f.name);
    const current = gd => {
      const all = names(gd);
      const at = all.indexOf(gd._fullLayout._currentFrame);
      return at < 0 ? 0 : at;
    };
    // the frame's name says what it draws (RoPE: the query's and the key's positions)
    const show = gd => {
      const all = names(gd);
      const name = all[current(gd)];
      status.textContent = 'frame ' + (current(gd) + 1) + ' of ' + all.length + (name ? ': ' + name : '');
    };
    const still = { mode: 'immediate', frame: { duration: 0, redraw: false }, transition: { duration: 0 } };
    const go = delta => () => charts().forEach(gd => {
      const all = names(gd);
      if (!all.length) return;
      const next = (current(gd) + delta + all.length) % all.length;
      window.Plotly.animate(gd, [all[next]], still).then(() => show(gd));
    });
    const play = button('Play', 'Play the animation', () => charts().forEach(gd => {
      gd.removeAllListeners && gd.removeAllListeners('plotly_animatingframe');
      gd.on('plotly_animatingframe', () => show(gd));
      window.Plotly.animate(gd, null, {
        mode: 'immediate', fromcurrent: true,
        frame: { duration: data.frame_ms, redraw: false }, transition: { duration: 0 },
      });
    }));
    button('Pause', 'Pause the animation', () => charts().forEach(gd => {
      window.Plotly.animate(gd, [null], still);
      show(gd);
    }));
    button('Step back', 'Show the previous frame', go(-1));
    button('Step forward', 'Show the next frame', go(1));
    box.appendChild(status);
    box.addEventListener('keydown', e => {
      if (e.key === 'ArrowRight') { go(1)(); e.preventDefault(); }
      if (e.key === 'ArrowLeft') { go(-1)(); e.preventDefault(); }
    });
    // the buttons are mounted above the chart, which may not be drawn yet, or still hold
    // the animation a slider has just replaced: the counter shows the first frame once the
    // chart holds this animation's frames (its first frame's name, which says what it draws)
    let tries = 0;
    const first = () => {
      const gd = charts()[0];
      const all = gd ? names(gd) : [];
      if (all.length && (!data.first_frame || all[0] === data.first_frame)) show(gd);
      else if (tries++ < 300 && box.isConnected) setTimeout(first, 100);
    };
    first();
    play.dataset.ready = '1';
  }
  if (data.save) {
    button('Save SVG', 'Save the chart as SVG (vector, for papers)', save('svg'));
    button('Save PNG', 'Save the chart as PNG (for slides)', save('png'));
  }
}
"""

_TOOLS = st.components.v2.component("posenc_chart_tools", html=_HTML, css=_CSS, js=_JS)


def tools(
    key: str,
    chart_keys: list[str],
    filename: str,
    *,
    animated: bool = False,
    frame_ms: int = 120,
    first_frame: str = "",
    save: bool = True,
) -> None:
    """The buttons for the charts drawn under ``chart_keys`` (Streamlit tags each keyed
    element with the CSS class ``st-key-<key>``): with ``animated``, Play, Pause and Step;
    with ``save``, Save SVG and Save PNG. ``first_frame``, the animation's first frame's
    name, is part of ``data``: a new animation in the same chart (RoPE's rotation at another
    r) mounts the buttons anew, and their frame counter names the new frames, not the old.

    Mounted without a key of its own: its identity comes from ``data``, which names its
    charts. A keyed component's state is read back through a presenter every time any
    slider or radio button is drawn (Streamlit's ``filtered_state``): with a dozen charts on
    a page, about a tenth of the server's CPU with 200 students exploring (py-spy). These
    buttons keep no state, so they need no key.
    """
    _TOOLS(
        data=dict(
            charts=[f"st-key-{k}" for k in chart_keys],
            filename=f"posenc-lab_{filename}",
            animated=animated,
            frame_ms=frame_ms,
            first_frame=first_frame,
            save=save,
        ),
    )
