"""The scale_blur task: its module and its step templates side by side."""

from mirforge.generators.analytical.scale_blur.task import ScaleBlur

__all__ = ["ScaleBlur"]
