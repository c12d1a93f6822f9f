"""``mirforge preview``: the static site's structure, and the pages in real headless Chromium.

The browser test needs Debian's ``chromium`` (``/usr/bin/chromium``) and Playwright's Python package; it skips
when either is missing. Screenshots go to ``$MIRFORGE_GALLERY_SHOTS`` when set (``docs/`` refreshes the
committed ``docs/gallery-<task>.png``), else to the test's temporary folder. ``$MIRFORGE_GALLERY_DATASET`` points
the test at an existing dataset (e.g. all twelve tasks) instead of generating a small one.
"""

from __future__ import annotations

import io
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from mirforge.dataset import Dataset
from mirforge.errors import InputError
from mirforge.gallery import build_gallery, question_parts
from mirforge.runner import generate
from mirforge.runner.config import RunConfig

CHROMIUM = os.environ.get("MIRFORGE_CHROMIUM", "/usr/bin/chromium")
CHROMIUM_ARGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--no-first-run",
]
SHOT_LIMIT = 300_000


@pytest.fixture(scope="module")
def dataset(tmp_path_factory) -> Path:
    given = os.environ.get("MIRFORGE_GALLERY_DATASET")
    if given:
        return Path(given)
    out = tmp_path_factory.mktemp("gallery") / "data"
    generate(RunConfig(tasks=("yes_but", "image_puzzle"), n=5, seed=3), out, progress=False)
    return out


@pytest.fixture(scope="module")
def site(dataset, tmp_path_factory) -> Path:
    out = tmp_path_factory.mktemp("site") / "gallery"
    build_gallery(dataset, out, per_page=3)
    return out


def test_question_parts_put_images_at_the_slots():
    parts = question_parts("In <image> and <image>, which?", 2)
    assert [p["kind"] for p in parts] == ["text", "image", "text", "image", "text"]
    assert [p.get("index") for p in parts if p["kind"] == "image"] == [0, 1]
    with pytest.raises(InputError, match="slots"):
        question_parts("<image>", 2)


def test_pages_are_paginated_and_reference_images_relatively(dataset, site):
    data = Dataset(dataset)
    for task in data.tasks:
        n = len(data.records(task))
        pages = sorted((site / task).glob("page-*.html"))
        assert len(pages) == -(-n // 3)
        html = "".join(p.read_text() for p in pages)
        assert html.count('class="instance"') == n
        assert html.count("<img ") == sum(len(r["images"]) for r in data.records(task))
        for src in re.findall(r'<img src="([^"]+)"', html):
            assert not src.startswith(("/", "data:", "http")), src
            assert (site / task / src).resolve().is_file()
    assert (site / "index.html").is_file() and (site / "static" / "gallery.js").is_file()


def test_self_contained_copies_the_images(dataset, tmp_path):
    out = tmp_path / "alone"
    build_gallery(dataset, out, per_page=50, self_contained=True, tasks=["yes_but"])
    moved = tmp_path / "moved"
    shutil.move(out, moved)
    html = (moved / "yes_but" / "page-001.html").read_text()
    for src in re.findall(r'<img src="([^"]+)"', html):
        assert (moved / "yes_but" / src).resolve().is_file()
        assert str(dataset) not in str((moved / "yes_but" / src).resolve())


def test_cli_writes_the_site_and_rejects_bad_input(dataset, tmp_path):
    cmd = [sys.executable, "-m", "mirforge", "preview", str(dataset)]
    proc = subprocess.run([*cmd, "--out", str(tmp_path / "g"), "--per-page", "2"], capture_output=True, text=True)
    assert proc.returncode == 0, proc.stderr
    assert (tmp_path / "g" / "index.html").is_file()
    proc = subprocess.run([*cmd, "--out", str(tmp_path / "h"), "--per-page", "0"], capture_output=True, text=True)
    assert proc.returncode == 2 and "--per-page" in proc.stderr


# -- in a real browser -----------------------------------------------------------------------------------------
@pytest.fixture(scope="module")
def browser():
    if not Path(CHROMIUM).is_file():
        pytest.skip(f"no Chromium at {CHROMIUM}: apt-get install -y chromium chromium-driver")
    sync_api = pytest.importorskip("playwright.sync_api", reason="pip install playwright (no browser download)")
    with sync_api.sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        yield browser
        browser.close()


def test_pages_work_in_chromium(browser, dataset, site, tmp_path):
    data = Dataset(dataset)
    shots = Path(os.environ.get("MIRFORGE_GALLERY_SHOTS") or tmp_path)
    shots.mkdir(parents=True, exist_ok=True)
    for task in data.tasks:
        page = browser.new_page(viewport={"width": 1000, "height": 860})
        problems: list[str] = []
        page.on("console", lambda msg, problems=problems: problems.append(msg.text) if msg.type == "error" else None)
        page.on("pageerror", lambda exc, problems=problems: problems.append(str(exc)))
        page.on("requestfailed", lambda req, problems=problems: problems.append(f"failed: {req.url}"))
        page.goto((site / task / "page-001.html").as_uri())
        page.wait_for_load_state("load")
        records = {r["id"]: r for r in data.records(task)}
        instances = page.locator("article.instance")
        assert instances.count() == min(3, len(records))
        for k in range(instances.count()):
            article = instances.nth(k)
            record = records[article.get_attribute("id")]
            assert article.locator(".question img").count() == len(record["images"])
            widths = article.locator(".question img").evaluate_all(
                "imgs => imgs.map(i => i.complete && i.naturalWidth)"
            )
            assert all(w and w > 0 for w in widths), f"{record['id']}: an image did not load"
            assert not article.locator(".answer").is_visible()
            wrong = next(letter for letter in record["options"] if letter != record["answer"])
            article.locator(f'button.option[data-letter="{wrong}"]').click()
            assert article.locator(".answer").is_visible()
            assert article.locator(".answer b").inner_text() == record["answer"]
            assert article.locator(f'button.option[data-letter="{record["answer"]}"]').get_attribute(
                "class"
            ).split() == [
                "option",
                "correct",
            ]
            assert "wrong" in article.locator(f'button.option[data-letter="{wrong}"]').get_attribute("class")
        first = instances.nth(0)
        with_boxes = first.locator("figure.shot:has(.box)")
        if with_boxes.count():
            box = with_boxes.first.locator(".box").first
            assert not box.is_visible()
            with_boxes.first.hover()
            assert box.is_visible()
        first.locator("details.steps summary").click()
        assert first.locator("details.steps dd").first.is_visible()
        assert problems == [], problems
        _screenshot(page, first, shots / f"gallery-{task}.png")
        page.close()


def _screenshot(page, article, path: Path) -> None:
    """A small PNG of the first instance: answer revealed, steps open, a region hovered; palette-quantised."""
    from PIL import Image

    first_box = article.locator("figure.shot:has(.box)")
    if first_box.count():
        first_box.first.hover()
    raw = page.screenshot(clip=_clip(article), full_page=True, type="png")
    image = Image.open(io.BytesIO(raw)).convert("RGB")
    image = image.quantize(colors=128, method=Image.Quantize.MEDIANCUT)
    image.save(path, optimize=True)
    assert path.stat().st_size < SHOT_LIMIT, f"{path} is {path.stat().st_size} bytes"


def _clip(article) -> dict[str, float]:
    box = article.bounding_box()
    return {"x": 0, "y": 0, "width": 1000, "height": min(box["y"] + box["height"] + 8, 1400)}
