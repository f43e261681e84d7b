"""Run the experiment at its default settings and store the results for the app.

The experiments page opens with these numbers (and offers to re-run them live); a test
checks that a fresh run reproduces them. Regenerate after changing posenc/experiment.py:

    .venv/bin/python tools/precompute_experiment.py
"""

from __future__ import annotations

import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from posenc import experiment as ex  # noqa: E402
from ui import compute_experiment as ce  # noqa: E402


def main() -> None:
    ce.DATA.mkdir(parents=True, exist_ok=True)
    for task in ex.EXPERIMENT_TASKS:
        cfg = ex.ExperimentConfig(task=task)
        summary = ce.run_now(cfg)
        ce.save(summary, ce.precomputed_path(task))
        print(f"{task}: {summary['seconds']:.1f} s for {len(summary['accuracy'])} methods x {summary['lengths']}")
        for method, accuracy in summary["accuracy"].items():
            cells = ["  -  " if a is None else f"{a:5.3f}" for a in accuracy]
            print(f"  {method:<11} {' '.join(cells)}")


if __name__ == "__main__":
    main()
