"""The PNG encoder: lossless for every layout it accepts (decoded by two independent readers), clear errors."""

from __future__ import annotations

import io

import cv2
import numpy as np
import pytest
from PIL import Image

from mirforge.render.png import encode_png


@pytest.mark.parametrize("shape", [(448, 448, 3), (37, 53, 3), (1, 1, 3), (64, 80, 4), (30, 41)])
def test_round_trips_through_pil_and_cv2(shape):
    rng = np.random.default_rng(sum(shape))
    image = rng.integers(0, 256, shape, dtype=np.uint8)
    image[: shape[0] // 2] = 200  # flat regions and wrap-around differences (0 - 200 mod 256) both occur
    data = encode_png(image)
    assert np.array_equal(np.asarray(Image.open(io.BytesIO(data))), image)
    back = cv2.imdecode(np.frombuffer(data, np.uint8), cv2.IMREAD_UNCHANGED)
    if image.ndim == 3:
        back = back[..., [2, 1, 0, 3][: shape[2]]]  # cv2 decodes to BGR(A)
    assert np.array_equal(back, image)


def test_same_pixels_same_bytes():
    image = np.zeros((20, 30, 3), np.uint8)
    image[5:9, 3:20] = (255, 10, 7)
    assert encode_png(image) == encode_png(image.copy())
    image[0, 0, 0] = 1
    assert encode_png(image) != encode_png(np.zeros((20, 30, 3), np.uint8))


def test_the_bytes_are_a_function_of_the_pixels_alone():
    """Recorded bytes, so that a compressor whose output depends on the machine or the process fails here. ISA-L's
    did: the flat 8 x 8 tile below came out as two different streams from two worker processes of one run."""
    import hashlib

    rng = np.random.default_rng(7)
    image = rng.integers(0, 60, (448, 448, 3), dtype=np.uint8)
    image[:200] = (90, 140, 200)
    tile = np.full((8, 8, 3), 60, np.uint8)
    digest = hashlib.sha256(encode_png(image) + encode_png(tile)).hexdigest()
    assert digest == "45f985fbd77db0c95cdee78e5619bc7f991247575b407bb2b73f8e9f5bb294a2"


@pytest.mark.parametrize(
    ("image", "message"),
    [
        (np.zeros((4, 4, 3), np.float32), "uint8"),
        (np.zeros((4, 4, 2), np.uint8), "1, 3 or 4 channels"),
        (np.zeros((0, 4, 3), np.uint8), "at least one pixel"),
    ],
)
def test_bad_images_are_named(image, message):
    with pytest.raises(ValueError, match=message):
        encode_png(image)
