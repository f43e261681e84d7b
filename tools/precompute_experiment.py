"""Run the experiment at its default settings and store the results for the app.

The experiments page opens with these numbers (and offers to re-run them live); a test
checks that a fresh run reproduces them. Regenerate after changing posenc/experiment.py:

    .venv/bin/python tools/precompute_experiment.py

The context-extension lab (posenc.extension) is stored too, run on the stored RoPE model;
``--extension-only`` remakes just its files from the six-method files already there.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from posenc import experiment as ex  # noqa: E402
from posenc import extension as xt  # noqa: E402
from posenc_lab.lessons.experiments import compute as ce  # noqa: E402


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--extension-only", action="store_true", help="keep experiment_<task>.npz, remake the lab's files"
    )
    args = parser.parse_args()
    ce.DATA.mkdir(parents=True, exist_ok=True)
    for task in ex.EXPERIMENT_TASKS:
        cfg = ex.ExperimentConfig(task=task)
        if args.extension_only:
            summary = ce.load(ce.precomputed_path(task), cfg)
            if summary is None:
                raise SystemExit(f"{ce.precomputed_path(task)} is missing or stale: run without --extension-only")
        else:
            summary = ce.run_now(cfg)
            ce.save(summary, ce.precomputed_path(task))
            print(f"{task}: {summary['seconds']:.1f} s for {len(summary['accuracy'])} methods x {summary['lengths']}")
            for method, accuracy in summary["accuracy"].items():
                cells = ["  -  " if a is None else f"{a:5.3f}" for a in accuracy]
                print(f"  {method:<11} {' '.join(cells)}")
        rope = ex.TrainResult(params=summary["params"]["rope"], losses=summary["losses"]["rope"])
        lab = ce.extension_now(cfg, ce.EXTENSION_STEPS, trained=rope)
        ce.save_extension(lab, ce.extension_path(task))
        print(
            f"{task} extension: {lab['seconds']:.1f} s, {ce.EXTENSION_STEPS} fine-tune steps, lengths {lab['lengths']}"
        )
        for way in xt.EXTENSION_WAYS:
            print(f"  {way:<15} {' '.join(f'{a:5.3f}' for a in lab['accuracy'][way])}")


if __name__ == "__main__":
    main()
