"""The location_relationship task: its module and its step templates side by side."""

from mirforge.generators.spatial.location_relationship.task import LocationRelationship

__all__ = ["LocationRelationship"]
