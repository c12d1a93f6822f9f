"""The weight_comparison task: its module and its step templates side by side."""

from mirforge.generators.analytical.weight_comparison.task import WeightComparison

__all__ = ["WeightComparison"]
