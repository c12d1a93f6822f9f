"""mirforge: verified interleaved multi-image reasoning benchmarks in the style of MIR."""

__version__ = "0.1.0"

LETTERS = "ABCDEFGH"
CATEGORIES = ("spatial", "sequential", "analytical")
