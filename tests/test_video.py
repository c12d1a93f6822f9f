"""The video engine: a written mp4 reads back with all its frames, measured offsets match the true ones, and
bad files raise clear errors."""

from __future__ import annotations

import math

import numpy as np
import pytest

from mirforge.errors import InputError
from mirforge.render import canvas2d
from mirforge.render.video import (
    CENTROID_TOLERANCE_PX,
    ColorRange,
    direction_of,
    extract_frames,
    film,
    measure_video,
    video_info,
    write_clip,
)

from conftest import generate, make_task

FPS = 12
SIZE = 224


def _true_positions(k: int) -> dict[str, tuple[float, float]]:
    """Red moves right at 60 px/s, blue moves up-left at (-30, -30) px/s; frame k is at k / FPS s."""
    t = k / FPS
    return {"red": (40 + 60 * t, 60.0), "blue": (170 - 30 * t, 170 - 30 * t)}


def _frames(n: int) -> list[np.ndarray]:
    out = []
    for k in range(n):
        img = canvas2d.floor(SIZE, grid=28)
        for color, (x, y) in _true_positions(k).items():
            canvas2d.draw_shape(img, "circle", (x, y), 14, color)
        out.append(img)
    return out


OBJECTS = [ColorRange.around(c, canvas2d.PALETTE[c], 40) for c in ("red", "blue")]


@pytest.mark.parametrize("lossless", [False, True])
def test_written_clip_reads_back_with_true_offsets(tmp_path, lossless):
    frames = _frames(25)
    clip = write_clip(frames, tmp_path / "c.mp4", FPS, lossless=lossless)
    info = video_info(clip.path)
    assert (info.n_frames, info.width, info.height, info.fps) == (25, SIZE, SIZE, FPS)  # no frame dropped
    times = [0.0, 0.5, 1.25, 2.0]
    track = measure_video(clip.path, OBJECTS, times)
    for k, t in enumerate(times):
        truth = _true_positions(round(t * FPS))
        for name in ("red", "blue"):
            x, y = track.position(name, k)
            assert math.dist((x, y), truth[name]) <= CENTROID_TOLERANCE_PX, (lossless, name, t, (x, y), truth[name])
    dx, dy = track.offset("red", 0, 3)
    assert abs(dx - 120) <= 2 * CENTROID_TOLERANCE_PX and abs(dy) <= 2 * CENTROID_TOLERANCE_PX
    assert abs(track.speed("red") - 60) < 1.5
    assert abs(track.speed("blue") - 30 * math.sqrt(2)) < 1.5
    assert track.direction("red") == "right" and track.direction("blue") == "up-left"
    if lossless:
        assert np.array_equal(extract_frames(clip.path, indices=[24])[0], frames[24])


def test_missing_empty_and_corrupt_files_name_the_file(tmp_path):
    with pytest.raises(InputError, match="nothere.mp4 does not exist"):
        extract_frames(tmp_path / "nothere.mp4", times=[0.0])
    empty = tmp_path / "empty.mp4"
    empty.write_bytes(b"")
    with pytest.raises(InputError, match="empty.mp4"):
        video_info(empty)
    junk = tmp_path / "junk.mp4"
    junk.write_bytes(np.random.default_rng(0).integers(0, 256, 5000, dtype=np.uint8).tobytes())
    with pytest.raises(InputError, match="junk.mp4"):
        measure_video(junk, OBJECTS, [0.0])


def test_truncated_file_or_time_past_the_end_is_a_clear_error(tmp_path):
    clip = write_clip(_frames(12), tmp_path / "c.mp4", FPS)
    with pytest.raises(InputError, match=r"c\.mp4: could not decode frame"):
        extract_frames(clip.path, times=[5.0])
    cut = tmp_path / "cut.mp4"
    cut.write_bytes(clip.data[: len(clip.data) // 3])
    with pytest.raises(InputError, match="cut.mp4"):
        extract_frames(cut, indices=[11])


def test_directions():
    assert direction_of(10, 0) == "right" and direction_of(0, -10) == "up" and direction_of(-5, 5) == "down-left"
    assert direction_of(10, -3, sectors=4) == "right" and direction_of(-2, 9, sectors=4) == "down"


def test_keep_video_gives_playable_mp4s(tmp_path):
    from moviepy import VideoFileClip

    task = make_task("motion_detection", keep_video=True)
    g = generate(task, 0, seed=2)
    videos = task.videos()
    assert len(videos) == 1 and len(g.images) >= 2  # one clip, however many frames the question shows
    path = tmp_path / "kept.mp4"
    path.write_bytes(videos[0])
    info = video_info(path)
    size = task.image_size
    assert info.n_frames >= len(g.images) and (info.width, info.height) == (size, size)
    with VideoFileClip(str(path)) as clip:
        assert clip.get_frame(0).shape == (size, size, 3)
    assert make_task("motion_detection").videos() == []


def test_a_filmed_frame_decodes_the_same_with_or_without_the_others():
    """film() draws only the frames asked for unless the clip is kept; the images must not depend on that."""
    drawn: list[int] = []

    def draw(f: int) -> np.ndarray:
        drawn.append(f)
        return _frames(f + 1)[f]

    alone, none = film(draw, 12, FPS, [9, 2, 9])
    assert none is None and sorted(set(drawn)) == [2, 9]
    drawn.clear()
    whole, data = film(draw, 12, FPS, [9, 2, 9], keep=True)
    assert drawn == list(range(12)) and data is not None
    for a, b in zip(alone, whole, strict=True):
        assert np.array_equal(a, b)
    assert not np.array_equal(alone[0], _frames(10)[9])  # lossy: the frames did go through the codec
    assert np.abs(alone[0].astype(int) - _frames(10)[9]).mean() < 3


@pytest.mark.parametrize("task_name", ["speed_comparison", "motion_detection", "process_order"])
def test_keeping_the_video_never_changes_an_image(task_name):
    kept = generate(make_task(task_name, keep_video=True), 4, seed=3)
    plain = generate(make_task(task_name), 4, seed=3)
    assert kept.images == plain.images


def test_a_container_without_a_frame_count_still_reads(tmp_path):
    """Matroska stores no frame count; the count is estimated from the duration and every frame still decodes."""
    import av

    frames = _frames(12)
    path = tmp_path / "clip.mkv"
    with av.open(str(path), "w", format="matroska") as out:
        stream = out.add_stream("libx264", rate=FPS)
        stream.width, stream.height, stream.pix_fmt = frames[0].shape[1], frames[0].shape[0], "yuv420p"
        for frame in frames:
            out.mux(stream.encode(av.VideoFrame.from_ndarray(frame, format="rgb24")))
        out.mux(stream.encode())
    with av.open(str(path)) as probe:
        assert probe.streams.video[0].frames == 0  # what the estimate is for
    info = video_info(path)
    assert abs(info.n_frames - 12) <= 1 and info.fps == FPS
    last = extract_frames(path, indices=[11])[0]
    assert np.abs(last.astype(int) - frames[11]).mean() < 3


def test_timecodes_are_drawn_with_the_package_s_own_font(monkeypatch):
    """A stamped frame's bytes must not depend on a library's text rendering (OpenCV 5.1 changed cv2.putText's
    antialiasing): the label is drawn from GLYPHS, in one colour, in the bottom-left corner, and a character
    without a glyph is a clear error."""
    import cv2

    def refuse(*args, **kwargs):
        raise AssertionError("cv2.putText was called")

    monkeypatch.setattr(cv2, "putText", refuse)
    img = np.full((320, 320, 3), 235, np.uint8)
    for c in (1, 2, 3):  # every label the sequential tasks stamp has its glyphs
        for t in (0.0, 0.4, 1.2, 2.8, 9.6):
            canvas2d.timecode(img.copy(), f"clip {c}  t = {t:.2f} s")
    canvas2d.timecode(img, "t = 0.80 s")
    ys, xs = np.nonzero((img != 235).any(axis=2))
    assert set(map(tuple, img[ys, xs])) == {canvas2d.TEXT}
    assert ys.min() >= 320 - 16 - 14 and ys.max() < 320 - 16 and xs.min() >= 8 and xs.max() < 8 + 10 * 12
    assert len(ys) == sum(int(canvas2d._GLYPH_MASKS[ch].sum()) for ch in "t = 0.80 s")
    with pytest.raises(ValueError, match=r"no glyph for 'x'"):
        canvas2d.timecode(img, "t = 0.80 x")
