"""Speed of the posenc core against floors measured in the same run.

Run: ``python benchmarks/bench_core.py`` (``--quick`` for fewer repeats).
Prints ratios, not absolute times: each target compares posenc with the cheapest
NumPy code that could produce the same numbers on this machine, right now.

Targets (issue 2):
- sinusoidal(8192, 1024) within 1.15x of np.sin + np.cos of the same angle grid;
- sinusoidal at least 30x faster than the textbook double loop at 256 x 128;
- apply_rope on (8, 2048, 128) within 2x of a bare multiply-add on the same arrays.
"""

from __future__ import annotations

import argparse
import math
import sys
import timeit
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import posenc  # noqa: E402


def best(fn, repeat: int, number: int = 1) -> float:
    """Best time of one call, in seconds (the minimum is the least noisy estimate)."""
    return min(timeit.repeat(fn, repeat=repeat, number=number)) / number


def naive_sinusoidal(n: int, d: int, sin=np.sin, cos=np.cos) -> np.ndarray:
    """The textbook double loop, one element at a time (np.sin on scalars, as lesson texts write it)."""
    pe = np.zeros((n, d))
    for pos in range(n):
        for i in range(d // 2):
            pe[pos, 2 * i] = sin(pos / 10000 ** (2 * i / d))
            pe[pos, 2 * i + 1] = cos(pos / 10000 ** (2 * i / d))
    return pe


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="fewer repeats")
    args = parser.parse_args()
    repeat = 3 if args.quick else 7
    rows = []

    # 1. sinusoidal against its floor
    n, d = 8192, 1024
    angles = np.multiply.outer(np.arange(n, dtype=np.float64), posenc.sinusoid_frequencies(d))
    floor = best(lambda: (np.sin(angles), np.cos(angles)), repeat)
    ours = best(lambda: posenc.sinusoidal(n, d), repeat)
    rows.append((f"sinusoidal({n}, {d}) / (np.sin + np.cos of the angle grid)", ours / floor, "<= 1.15"))

    # 2. the textbook double loop against sinusoidal
    n, d = 256, 128
    assert np.allclose(naive_sinusoidal(n, d), posenc.sinusoidal(n, d), atol=1e-12)
    loop = best(lambda: naive_sinusoidal(n, d), max(2, repeat // 2))
    ours = best(lambda: posenc.sinusoidal(n, d), repeat, number=20)
    rows.append((f"textbook double loop {n}x{d} / sinusoidal({n}, {d})", loop / ours, ">= 30"))
    # the same loop with math.sin, the fastest a scalar loop gets (for information)
    loop_math = best(lambda: naive_sinusoidal(n, d, math.sin, math.cos), max(2, repeat // 2))
    rows.append((f"same loop with math.sin / sinusoidal({n}, {d})", loop_math / ours, "info"))

    # 3. apply_rope against a bare multiply-add on the same arrays
    x = np.random.default_rng(0).standard_normal((8, 2048, 128))
    cos_sin = posenc.rope_cos_sin(2048, posenc.rope_inv_freq(128)[0])
    cos, sin = (np.concatenate([c, c], axis=-1) for c in cos_sin)  # (T, Dh) each
    floor = best(lambda: x * cos + x * sin, repeat)
    for layout in posenc.ROPE_LAYOUTS:
        ours = best(lambda layout=layout: posenc.apply_rope(x, layout=layout), repeat)
        rows.append((f"apply_rope((8, 2048, 128), layout={layout!r}) / (x*cos + x*sin)", ours / floor, "<= 2"))

    width = max(len(name) for name, _, _ in rows)
    print(f"{'measure':<{width}}  ratio   target")
    failed = 0
    for name, ratio, target in rows:
        if target == "info":
            print(f"{name:<{width}}  {ratio:6.2f}  (no target)")
            continue
        op, bound = target.split()
        ok = ratio <= float(bound) if op == "<=" else ratio >= float(bound)
        failed += not ok
        print(f"{name:<{width}}  {ratio:6.2f}  {target:<7} {'ok' if ok else 'MISSED'}")
    return 1 if failed else 0


if __name__ == "__main__":
    raise SystemExit(main())
