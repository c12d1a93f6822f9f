"""The view_3d task: its module and its step templates side by side."""

from mirforge.generators.spatial.view_3d.task import View3D

__all__ = ["View3D"]
