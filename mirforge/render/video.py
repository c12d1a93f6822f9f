"""Video clips: write frames to an H.264 mp4, read frames back at chosen times, measure how objects moved.

The sequential tasks film their scenes: frames are encoded to a real mp4 (libx264 through PyAV's FFmpeg, in
memory: an encoder process per clip cost three times as much), frames are decoded back out of the mp4 exactly as
one would from any video, and the objects' positions are measured in those decoded frames. Their clips code every
frame on its own (:func:`film`), so only the frames a question shows need drawing unless the clip is kept.
Offsets, speeds and directions computed from the measurements are what the verifiers check answers against.

The same code serves real footage. Describe each object by a colour range (RGB, inclusive bounds) and ask for
the times you want::

    from mirforge.render.video import ColorRange, measure_video

    objects = [
        ColorRange("red ball", lo=(150, 0, 0), hi=(255, 90, 90)),
        ColorRange.around("blue car", (40, 80, 220), tol=40),   # a colour and a per-channel tolerance
    ]
    motion = measure_video("clip.mp4", objects, times=[0.0, 0.5, 1.0])
    motion.position("red ball", 0)        # (x, y) centroid in pixels in the first extracted frame, or None
    motion.speed("red ball")              # pixels per second, least-squares over the extracted frames
    motion.direction("blue car")          # "right", "up-left", ... from the first to the last frame
    motion.frames                         # the decoded RGB frames (H x W x 3 uint8)

Each object is the largest connected blob of pixels inside its range (``min_pixels`` decides when it counts as
absent). If you have masks instead of colours (from a segmenter, or carried beside a rendering), use
:func:`blob_from_mask` per frame and :func:`Track` directly. A missing, unreadable or too short file raises
:class:`mirforge.errors.InputError` naming the file.

Writing: :func:`write_clip` encodes H.264 (``yuv420p``, as players expect) or, with ``lossless=True``,
``libx264rgb -crf 0``, whose decoded frames equal the input bytes. It returns the path and the mp4 bytes, so a
caller can keep the clip (``--keep-video``). H.264 chroma subsampling blurs colour edges by a pixel or two;
blob centroids move by well under a pixel (see ``CENTROID_TOLERANCE_PX``).
"""

from __future__ import annotations

import io
import math
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from fractions import Fraction
from pathlib import Path
from typing import Any

import cv2
import numpy as np

from mirforge.errors import InputError

INTRA_QP = 14  # the fixed quantiser of filmed clips: about the quantiser CRF 18 gives its keyframes
CENTROID_TOLERANCE_PX = 1.5  # measured vs true centroid of a blob of radius >= 10 px after lossy H.264
DIRECTIONS = ("right", "up-right", "up", "up-left", "left", "down-left", "down", "down-right")


# -- writing -------------------------------------------------------------------------------------------------
@dataclass(frozen=True)
class Clip:
    """An encoded clip: where it is, its bytes, and its frame layout."""

    path: Path
    data: bytes
    fps: float
    n_frames: int
    size: tuple[int, int]  # (width, height)
    lossless: bool


def encode_clip(
    frames: Sequence[np.ndarray],
    fps: float,
    *,
    lossless: bool = False,
    crf: int = 18,
    intra_qp: int | None = None,
) -> bytes:
    """The bytes of an H.264 mp4 of RGB frames (all H x W x 3 uint8, even H and W), one frame per 1 / ``fps`` s.

    ``intra_qp`` codes every frame on its own (keyframes only) at that fixed quantiser instead of ``crf``: a frame
    then decodes to the same pixels whichever frames share its clip (rate control and motion prediction both look
    across frames). Chroma is subsampled by area averaging (swscale's default, bicubic, left 13% more error).
    """
    import av

    if len(frames) < 1:
        raise ValueError("a clip needs at least one frame")
    h, w = frames[0].shape[:2]
    if h % 2 or w % 2:
        raise ValueError(f"H.264 needs even frame sizes, got {w} x {h}")
    if any(f.shape != frames[0].shape or f.dtype != np.uint8 or f.ndim != 3 for f in frames):
        raise ValueError("all frames must be H x W x 3 uint8 arrays of one shape")
    if lossless:
        codec, pix_fmt, options = "libx264rgb", "rgb24", {"crf": "0"}
    elif intra_qp is not None:
        codec, pix_fmt, options = "libx264", "yuv420p", {"qp": str(int(intra_qp))}
    else:
        codec, pix_fmt, options = "libx264", "yuv420p", {"crf": str(int(crf))}
    buffer = io.BytesIO()
    with av.open(buffer, "w", format="mp4", container_options={"fflags": "+bitexact"}) as out:
        stream = out.add_stream(codec, rate=Fraction(fps).limit_denominator(1001))
        stream.width, stream.height, stream.pix_fmt = w, h, pix_fmt
        stream.codec_context.thread_count = 1
        if intra_qp is not None and not lossless:
            stream.codec_context.gop_size = 1  # keyframes only
        stream.options = {**options, "preset": "ultrafast", "flags": "+bitexact"}
        for frame in frames:
            picture = av.VideoFrame.from_ndarray(np.ascontiguousarray(frame), format="rgb24")
            if pix_fmt != "rgb24":
                picture = picture.reformat(format=pix_fmt, interpolation="AREA")
            out.mux(stream.encode(picture))
        out.mux(stream.encode())
    return buffer.getvalue()


def write_clip(
    frames: Sequence[np.ndarray],
    path: str | Path,
    fps: float,
    *,
    lossless: bool = False,
    crf: int = 18,
    intra_qp: int | None = None,
) -> Clip:
    """Encode RGB frames to an H.264 mp4 at ``path`` (see :func:`encode_clip`)."""
    data = encode_clip(frames, fps, lossless=lossless, crf=crf, intra_qp=intra_qp)
    path = Path(path)
    path.write_bytes(data)
    h, w = frames[0].shape[:2]
    return Clip(path, data, float(fps), len(frames), (w, h), lossless)


# -- reading -------------------------------------------------------------------------------------------------
@dataclass(frozen=True)
class VideoInfo:
    fps: float
    n_frames: int
    width: int
    height: int

    @property
    def duration(self) -> float:
        return self.n_frames / self.fps


Source = str | Path | bytes  # a video file, or an mp4's bytes


def _name(source: Source) -> str:
    return "(bytes)" if isinstance(source, bytes) else str(source)


@contextmanager
def _open(source: Source) -> Iterator[tuple[Any, Any]]:
    """The container and its first video stream; every failure an InputError naming the file."""
    import av

    if not isinstance(source, bytes):
        p = Path(source)
        if not p.is_file():
            raise InputError(f"video file {p} does not exist")
        if p.stat().st_size == 0:
            raise InputError(f"video file {p} is empty")
    try:
        container = av.open(io.BytesIO(source) if isinstance(source, bytes) else str(source))
    except av.FFmpegError as exc:
        raise InputError(
            f"video file {_name(source)} could not be opened as a video (corrupt or not a video: {exc})"
        ) from None
    try:
        if not container.streams.video:
            raise InputError(f"video file {_name(source)} has no video stream")
        stream = container.streams.video[0]
        stream.thread_count = 1
        yield container, stream
    finally:
        container.close()


def _info(source: Source, container: Any, stream: Any) -> VideoInfo:
    fps = float(stream.average_rate or stream.guessed_rate or 0)
    n, w, h = int(stream.frames), int(stream.codec_context.width), int(stream.codec_context.height)
    if n <= 0:  # containers such as Matroska do not store a frame count: estimate it from the duration
        if stream.duration is not None and stream.time_base is not None:
            seconds = float(stream.duration * stream.time_base)
        else:
            seconds = (container.duration or 0) / 1_000_000  # AV_TIME_BASE
        n = round(seconds * fps)
    if fps <= 0 or n <= 0 or w <= 0 or h <= 0:
        raise InputError(f"video file {_name(source)} has no readable video stream (fps {fps}, {n} frames, {w} x {h})")
    return VideoInfo(fps, n, w, h)


def video_info(path: Source) -> VideoInfo:
    with _open(path) as (container, stream):
        return _info(path, container, stream)


def frame_index(time_s: float, fps: float) -> int:
    """The frame shown at ``time_s`` seconds (frame k covers [k / fps, (k + 1) / fps))."""
    return int(math.floor(time_s * fps + 1e-6))


def extract_frames(
    path: Source, *, times: Sequence[float] | None = None, indices: Sequence[int] | None = None
) -> list[np.ndarray]:
    """Decoded RGB frames of a video file (or an mp4's bytes) at ``times`` (seconds) or frame ``indices``, in the
    order asked. The file is decoded sequentially from the start (exact for every codec, and cheap for short clips).
    """
    import av

    if (times is None) == (indices is None):
        raise ValueError("give exactly one of times= or indices=")
    name = _name(path)
    got: dict[int, np.ndarray] = {}
    k = -1
    with _open(path) as (container, stream):  # one open: the info and the frames
        info = _info(path, container, stream)
        wanted = [frame_index(t, info.fps) for t in times] if times is not None else [int(i) for i in indices]
        if not wanted:
            return []
        bad = [i for i in wanted if i < 0]
        if bad:
            raise InputError(f"video file {name}: negative frame index or time ({bad[0]})")
        last = max(wanted)
        try:
            for k, frame in enumerate(container.decode(stream)):
                if k in wanted:
                    got[k] = frame.to_ndarray(format="rgb24")
                if k == last:
                    break
        except av.FFmpegError as exc:
            raise InputError(f"video file {name}: could not decode frame {k + 1} ({exc}); is it truncated?") from None
    if last not in got:
        raise InputError(
            f"video file {name}: could not decode frame {k + 1} (needed frame {last}; "
            f"the file reports {info.n_frames} frames at {info.fps:g} fps); is it truncated?"
        )
    return [got[i] for i in wanted]


# -- measuring -----------------------------------------------------------------------------------------------
@dataclass(frozen=True)
class ColorRange:
    """An object described by an inclusive RGB range."""

    name: str
    lo: tuple[int, int, int]
    hi: tuple[int, int, int]

    @classmethod
    def around(cls, name: str, rgb: Sequence[int], tol: int = 40) -> ColorRange:
        lo = tuple(max(0, int(c) - tol) for c in rgb)
        hi = tuple(min(255, int(c) + tol) for c in rgb)
        return cls(name, lo, hi)  # type: ignore[arg-type]

    def mask(self, rgb: np.ndarray) -> np.ndarray:
        return cv2.inRange(rgb, np.array(self.lo, np.uint8), np.array(self.hi, np.uint8)) > 0


@dataclass(frozen=True)
class Blob:
    """One object's pixels in one frame."""

    centroid: tuple[float, float]  # (x, y), pixels
    box: list[int]  # [x0, y0, x1, y1], x1/y1 exclusive
    pixels: int

    def to_json(self) -> dict:
        return {
            "centroid": [round(self.centroid[0], 2), round(self.centroid[1], 2)],
            "box": self.box,
            "px": self.pixels,
        }


def blob_from_mask(mask: np.ndarray, min_pixels: int = 20) -> Blob | None:
    """The largest 8-connected blob of a boolean mask, or None if it has fewer than ``min_pixels``."""
    m = np.ascontiguousarray(mask, dtype=np.uint8)
    n, labels, stats, cents = cv2.connectedComponentsWithStats(m, connectivity=8)
    if n <= 1:
        return None
    k = 1 + int(np.argmax(stats[1:, cv2.CC_STAT_AREA]))
    area = int(stats[k, cv2.CC_STAT_AREA])
    if area < min_pixels:
        return None
    x, y, w, h = (int(stats[k, c]) for c in (cv2.CC_STAT_LEFT, cv2.CC_STAT_TOP, cv2.CC_STAT_WIDTH, cv2.CC_STAT_HEIGHT))
    return Blob((float(cents[k][0]), float(cents[k][1])), [x, y, x + w, y + h], area)


def measure_frame(rgb: np.ndarray, objects: Sequence[ColorRange], min_pixels: int = 20) -> dict[str, Blob | None]:
    """Each object's blob in one RGB frame (None where it is absent)."""
    return {o.name: blob_from_mask(o.mask(rgb), min_pixels) for o in objects}


def direction_of(dx: float, dy: float, sectors: int = 8) -> str:
    """Compass word of an image displacement (y grows downwards): 4 or 8 sectors."""
    angle = math.degrees(math.atan2(-dy, dx)) % 360
    if sectors == 4:
        return DIRECTIONS[2 * (int((angle + 45) // 90) % 4)]
    return DIRECTIONS[int((angle + 22.5) // 45) % 8]


def angle_of(dx: float, dy: float) -> float:
    """Counter-clockwise angle in degrees of an image displacement, 0 = right, 90 = up."""
    return math.degrees(math.atan2(-dy, dx)) % 360


@dataclass
class Track:
    """Blobs of named objects in frames taken at known times."""

    times: list[float]
    blobs: dict[str, list[Blob | None]] = field(default_factory=dict)
    frames: list[np.ndarray] = field(default_factory=list)

    def position(self, name: str, k: int) -> tuple[float, float] | None:
        b = self.blobs[name][k]
        return None if b is None else b.centroid

    def seen(self, name: str) -> bool:
        return all(b is not None for b in self.blobs[name])

    def offset(self, name: str, a: int, b: int) -> tuple[float, float]:
        """Displacement (dx, dy) in pixels from frame ``a`` to frame ``b``."""
        pa, pb = self.position(name, a), self.position(name, b)
        if pa is None or pb is None:
            raise ValueError(f"{name} is not visible in frames {a} and {b}")
        return (pb[0] - pa[0], pb[1] - pa[1])

    def distance(self, name: str, a: int = 0, b: int = -1) -> float:
        return math.hypot(*self.offset(name, a, b % len(self.times)))

    def velocity(self, name: str) -> tuple[float, float]:
        """Least-squares (vx, vy) in pixels per second over all frames."""
        t = np.array(self.times, float)
        pts = [self.position(name, k) for k in range(len(t))]
        if any(p is None for p in pts) or len(t) < 2:
            raise ValueError(f"{name} is not visible in every frame")
        xy = np.array(pts, float)
        tc = t - t.mean()
        denom = float((tc**2).sum())
        return (float((tc * xy[:, 0]).sum() / denom), float((tc * xy[:, 1]).sum() / denom))

    def speed(self, name: str) -> float:
        return math.hypot(*self.velocity(name))

    def direction(self, name: str, sectors: int = 8) -> str:
        return direction_of(*self.offset(name, 0, len(self.times) - 1), sectors=sectors)


def track_frames(
    frames: Sequence[np.ndarray], times: Sequence[float], objects: Sequence[ColorRange], min_pixels: int = 20
) -> Track:
    per_frame = [measure_frame(f, objects, min_pixels) for f in frames]
    blobs = {o.name: [m[o.name] for m in per_frame] for o in objects}
    return Track(list(times), blobs, list(frames))


def measure_video(
    path: str | Path, objects: Sequence[ColorRange], times: Sequence[float], min_pixels: int = 20
) -> Track:
    """Extract frames at ``times`` (seconds) from a video file and measure each object in them."""
    frames = extract_frames(path, times=times)
    return track_frames(frames, times, objects, min_pixels)


def film(
    draw: Callable[[int], np.ndarray],
    n_frames: int,
    fps: float,
    indices: Sequence[int],
    *,
    lossless: bool = False,
    keep: bool = False,
) -> tuple[list[np.ndarray], bytes | None]:
    """Film a clip of ``n_frames`` frames, ``draw(f)`` giving frame ``f``, and return its decoded frames at
    ``indices`` (and the mp4 bytes with ``keep``). The mp4 is encoded in memory and decoded back.

    Every frame is coded on its own (``encode_clip``'s ``intra_qp``), so a frame decodes the same whether or not
    the others are in the clip: without ``keep`` only the frames at ``indices`` are drawn and encoded.
    """
    wanted = range(n_frames) if keep else sorted(set(indices))
    data = encode_clip([draw(f) for f in wanted], fps, lossless=lossless, intra_qp=INTRA_QP)
    decoded = extract_frames(data, indices=[wanted.index(i) for i in indices])
    return decoded, (data if keep else None)
