"""Helpers shared by the sequential tasks: the video knobs of their configs, filming frames, naming things."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

import numpy as np

from mirforge.generators.common import distinct_colors
from mirforge.render import canvas2d
from mirforge.render.scene3d import PALETTE
from mirforge.render.video import film
from mirforge.task import TaskConfig, ensure


@dataclass
class ClipConfig(TaskConfig):
    """Video knobs: frames per second of the clips, lossless encoding, and keeping the mp4 bytes."""

    fps: int = 12
    lossless: bool = False
    keep_video: bool = False

    def validate(self) -> None:
        super().validate()
        ensure(4 <= self.fps <= 60, "fps", "must be between 4 and 60")


class Filming:
    """Mixin for tasks that film their scenes: ``shoot`` encodes a clip, and ``videos()`` hands back the mp4
    bytes of the last ``render()`` when ``config.keep_video`` is set (for the runner's ``--keep-video``)."""

    config: ClipConfig
    _videos: list[bytes]

    def videos(self) -> list[bytes]:
        """The mp4 files (bytes) encoded by the last call to ``render()``; empty unless ``keep_video``."""
        return list(getattr(self, "_videos", []))

    def _start_filming(self) -> None:
        self._videos = []

    def shoot(self, draw: Callable[[int], np.ndarray], n_frames: int, indices: Sequence[int]) -> list[np.ndarray]:
        """Film frames ``0 .. n_frames - 1`` (``draw(f)`` gives frame ``f``) and return the decoded frames at
        ``indices``. Only those frames are drawn unless the clip is kept: they decode the same either way
        (:func:`mirforge.render.video.film`), so ``keep_video`` never changes an image."""
        decoded, data = film(
            draw, n_frames, self.config.fps, indices, lossless=self.config.lossless, keep=self.config.keep_video
        )
        if data is not None:
            self._videos.append(data)
        return decoded


def room_for_hidden(values: Sequence[float | None], gap: float) -> bool:
    """Whether the hidden items of an order fit where it puts them: ``values`` rise along the order (None: hidden),
    and each run of h hidden items between two shown ones needs those two (h + 1) * ``gap`` apart, the verifier
    asking ``gap`` between neighbours. Before the first shown item or after the last there is always room."""
    last, run = None, 0
    for v in values:
        if v is None:
            run += 1
            continue
        if last is not None and run and v - last < (run + 1) * gap:
            return False
        last, run = v, 0
    return True


def seconds(t: float) -> str:
    return f"{t:.2f}"


def image_list(numbers: Sequence[int]) -> str:
    return ", ".join(f"Image {n}" for n in numbers)


def track_colors(rng: np.random.Generator, n: int) -> list[str]:
    """Up to ``n`` distinct palette colours that the video tracker can follow (``canvas2d.TRACK_COLORS``), in
    random order."""
    pool = [c for c in distinct_colors(rng, len(PALETTE)) if c in canvas2d.TRACK_COLORS]
    return pool[:n]


ACROSS = ("on the left", "left of centre", "in the centre", "right of centre", "on the right")


def where_in_frame(px: Sequence[float], size: int, flat: bool = False) -> str:
    """Where in a frame a point is, as a phrase: "at the back left", "at the front, right of centre", "at the back
    in the middle", "left of centre". Five bands across and three in depth ("top" and "bottom" for a flat top-down
    view): with three across, the objects in the middle of a frame all read "in the centre"."""
    across = ACROSS[min(4, max(0, int(5 * px[0] / size)))]
    y = px[1] / size
    depth = "" if 1 / 3 <= y <= 2 / 3 else ("top" if flat else "back") if y < 1 / 3 else ("bottom" if flat else "front")
    if not depth:
        return across
    if across.startswith("on the "):
        return f"at the {depth} {across[7:]}"
    return f"at the {depth} in the middle" if across == "in the centre" else f"at the {depth}, {across}"
