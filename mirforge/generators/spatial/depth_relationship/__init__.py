"""The depth_relationship task: its module and its step templates side by side."""

from mirforge.generators.spatial.depth_relationship.task import DepthRelationship

__all__ = ["DepthRelationship"]
