"""The image_puzzle task: its module and its step templates side by side."""

from mirforge.generators.sequential.image_puzzle.task import ImagePuzzle

__all__ = ["ImagePuzzle"]
