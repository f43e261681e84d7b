"""One check, shared by the experiment's gradient tests: hand-written gradients against
central finite differences, at a few sampled entries of every parameter."""

from __future__ import annotations

import pytest


def assert_gradients_match(params, grads, loss, rng, *, samples: int = 6, eps: float = 1e-6, label=()) -> None:
    """``loss()`` recomputes the loss from ``params`` (changed in place, then restored);
    ``grads`` are the hand-written gradients at ``params``."""
    assert set(grads) == set(params)
    for name, value in params.items():
        flat = value.reshape(-1)
        for idx in rng.choice(flat.size, min(samples, flat.size), replace=False):
            old = flat[idx]
            flat[idx] = old + eps
            up = loss()
            flat[idx] = old - eps
            down = loss()
            flat[idx] = old
            numeric = (up - down) / (2 * eps)
            assert grads[name].reshape(-1)[idx] == pytest.approx(numeric, rel=1e-4, abs=1e-7), (*label, name, idx)
