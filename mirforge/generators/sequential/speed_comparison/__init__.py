"""The speed_comparison task: its module and its step templates side by side."""

from mirforge.generators.sequential.speed_comparison.task import SpeedComparison

__all__ = ["SpeedComparison"]
