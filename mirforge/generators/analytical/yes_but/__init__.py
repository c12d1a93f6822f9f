"""The yes_but task: its module and its step templates side by side."""

from mirforge.generators.analytical.yes_but.task import YesBut

__all__ = ["YesBut"]
