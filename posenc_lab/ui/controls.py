"""Controls that several lessons share, so a value set on one page is there on the next."""

from __future__ import annotations

from posenc_lab.ui import state

#: initial standard deviations offered for a learned table
STDS = (0.005, 0.01, 0.02, 0.05, 0.1, 0.2, 0.5, 1.0)
BASES = (10, 20, 50, 100, 200, 500, 1_000, 2_000, 5_000, 10_000, 20_000, 50_000, 100_000, 200_000, 500_000, 1_000_000)


def d_model(default: int = 128, container=None) -> int:
    return state.int_slider(
        "d_model",
        "d_model (model width)",
        2,
        1024,
        default,
        step=2,
        help="Even: sines and cosines come in pairs.",
        container=container,
    )


def n_positions(default: int = 256, container=None) -> int:
    return state.int_slider(
        "n", "Number of positions", 2, 4096, default, help="Positions 0 to n - 1.", container=container
    )


#: the slowest pair of d turning dimensions has w = base^(-(d-2)/d); 0.87 of 2 pi x base at d = 128, base 10,000
BASE_HELP = (
    "Sets the longest wavelength: 2π·base^((d−2)/d) for d dimensions that turn, below 2π × base by the factor "
    f"base^(−2/d) ({10_000 ** (-2 / 128):.2f} at d = 128 and base 10,000). The paper uses 10,000."
)


def base(default: float = 10_000) -> float:
    return float(
        state.choice_slider(
            "base",
            "Base",
            BASES,
            default,
            fmt=lambda v: f"{v:,.0f}",
            help=BASE_HELP,
        )
    )
