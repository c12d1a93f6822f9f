"""The forced_perspective task: its module and its step templates side by side."""

from mirforge.generators.spatial.forced_perspective.task import ForcedPerspective

__all__ = ["ForcedPerspective"]
