"""Everyday objects that look like their names: a catalogue of procedural meshes (see :mod:`.catalogue`)."""

from mirforge.render.objects.catalogue import (
    KINDS,
    ObjectModel,
    Part,
    catalogue,
    describe,
    get_kind,
    model,
    table,
    variants,
)
from mirforge.render.objects.spec import COLORS, MATERIALS, Material

__all__ = [
    "COLORS",
    "KINDS",
    "MATERIALS",
    "Material",
    "ObjectModel",
    "Part",
    "catalogue",
    "describe",
    "get_kind",
    "model",
    "table",
    "variants",
]
