"""A contact sheet of the catalogue: every kind rendered through the 3D renderer, its name under it."""

from __future__ import annotations

import math
from pathlib import Path

import cv2
import numpy as np

from mirforge.render.look import Backdrop, Look
from mirforge.render.objects.catalogue import KINDS, get_kind, model
from mirforge.render.objects.place import place
from mirforge.render.scene3d import Scene3D, orbit_camera

LABEL_H = 22
FONT = cv2.FONT_HERSHEY_SIMPLEX
AZIMUTH, ELEVATION = 28.0, 22.0  # in front, a little to the right (handles point to +x) and above


def render_object(kind: str, variant: int, size: int) -> np.ndarray:
    """One object alone on the floor at its real size, framed to fill the image (RGB)."""
    from mirforge.render.gl import renderer

    obj = model(kind, variant)
    placed = place(kind, variant, kind, (0.0, 0.0))
    extents = np.asarray(obj.extents)
    radius = 0.5 * float(np.linalg.norm(extents))
    yfov = math.pi / 6
    target = (0.0, 0.0, 0.45 * extents[2])
    camera = orbit_camera(AZIMUTH, ELEVATION, 1.08 * radius / math.sin(yfov / 2), target, yfov)
    scene = Scene3D((placed,), look=Look(Backdrop(color=(150, 140, 125), sky=(196, 206, 220))))
    return renderer(size).views(scene, [camera], seg=False)[0].rgb


def contact_sheet(kinds: tuple[str, ...] = KINDS, variants: int = 1, cell: int = 160, columns: int = 8) -> np.ndarray:
    """One cell per kind (``variants`` == 1, ``columns`` per row) or one row per kind with ``variants`` cells."""
    cells = []
    for kind in kinds:
        get_kind(kind)
        for v in range(variants):
            rgb = render_object(kind, v, cell)
            label = np.full((LABEL_H, cell, 3), 255, np.uint8)
            text = kind if variants == 1 else f"{kind} {v}"
            scale = min(0.45, 0.45 * (cell - 6) / max(1, cv2.getTextSize(text, FONT, 0.45, 1)[0][0]))
            width = cv2.getTextSize(text, FONT, scale, 1)[0][0]
            cv2.putText(label, text, ((cell - width) // 2, 15), FONT, scale, (0, 0, 0), 1, cv2.LINE_AA)
            cells.append(np.vstack([rgb, label]))
    per_row = columns if variants == 1 else variants
    blank = np.full_like(cells[0], 255)
    cells += [blank] * (-len(cells) % per_row)
    rows = [np.hstack(cells[i : i + per_row]) for i in range(0, len(cells), per_row)]
    return np.vstack(rows)


def write_sheet(out: Path, variants: int = 1, cell: int = 160, kinds: tuple[str, ...] = KINDS) -> tuple[int, int, int]:
    """Write the sheet as PNG; (width, height, kilobytes)."""
    sheet = contact_sheet(kinds, variants, cell)
    out.parent.mkdir(parents=True, exist_ok=True)
    cv2.imwrite(str(out), cv2.cvtColor(sheet, cv2.COLOR_RGB2BGR), [cv2.IMWRITE_PNG_COMPRESSION, 9])
    return sheet.shape[1], sheet.shape[0], out.stat().st_size // 1024
