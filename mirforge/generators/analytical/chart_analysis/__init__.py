"""The chart_analysis task: its module and its step templates side by side."""

from mirforge.generators.analytical.chart_analysis.task import ChartAnalysis

__all__ = ["ChartAnalysis"]
