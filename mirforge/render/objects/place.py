"""Put a catalogue object into a scene: an :class:`Object3D` at its real proportions.

Kept apart from the catalogue so that the scene graph (which checks kinds by name) and the catalogue never
import each other.
"""

from __future__ import annotations

from mirforge.render.objects.catalogue import model
from mirforge.render.scene3d import Object3D


def place(
    kind: str,
    variant: int,
    name: str,
    position: tuple[float, float],
    height: float | None = None,
    *,
    yaw: float = 0.0,
    base: float = 0.0,
    color: tuple[int, int, int] | None = None,
) -> Object3D:
    """``kind`` in ``variant`` at ``position``, ``height`` tall (default: its real height in metres), its front
    facing -y; ``color`` repaints its primary parts (default: the variant's own colour)."""
    m = model(kind, variant)
    size = m.size_for_height(m.height if height is None else height)
    return Object3D(name, kind, size, color or m.color, position, base, yaw, variant=m.variant)
