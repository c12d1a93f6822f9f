"""The process_order task: its module and its step templates side by side."""

from mirforge.generators.sequential.process_order.task import ProcessOrder

__all__ = ["ProcessOrder"]
