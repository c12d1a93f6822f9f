"""The necessity contract: an evidence image is needed when hiding it leaves more than one option consistent."""

from __future__ import annotations

import json

import numpy as np
import pytest

from mirforge.errors import InputError, Reject
from mirforge.necessity import necessity, require
from mirforge.pipeline import RunSpec, generate_one
from mirforge.task import Needs, Question, Rendered, Task, place


class Sum(Task):
    """Which option is a + b, with a drawn in image 1 and b in image 2 (both needed); ``lazy`` makes image 2 show
    b = 0 always, so the answer is readable from image 1 alone."""

    name = "digit_sum"
    category = "analytical"
    description = "a test task"
    needs = Needs(renderer=None)
    image_size = 4
    lazy = False

    def sample(self, rng, level):
        return int(rng.integers(1, 5)), 0 if self.lazy else int(rng.integers(1, 5))

    def ask(self, scene, rng, slot):
        total = sum(scene)
        others = [v for v in range(1, 12) if v != total][:3]
        return Question("<image> plus <image>?", [str(v) for v in place(total, others, slot)], slot)

    def render(self, scene, question):
        images = [np.full((4, 4, 3), 20 * v, np.uint8) for v in scene]
        return Rendered(images, {"values": list(scene), "fixed": self.lazy}, [])

    def verify(self, question, rendered):
        return question.options.index(str(sum(rendered.measured["values"])))

    def consistent(self, question, rendered, hidden):
        values, fixed = rendered.measured["values"], rendered.measured["fixed"]
        choices = [[v] if k not in hidden or (fixed and k == 1) else range(0, 5) for k, v in enumerate(values)]
        sums = {a + b for a in choices[0] for b in choices[1]}
        return {i for i, text in enumerate(question.options) if int(text) in sums}

    def step_facts(self, scene, question, rendered):
        return {}


class Unproven(Sum):
    name = "digit_sum_unproven"
    consistent = Task.consistent


def rendered_for(task: Task, seed: int = 1) -> tuple[Question, Rendered]:
    rng = np.random.default_rng(seed)
    scene = task.sample(rng, 2)
    question = task.ask(scene, rng, 1)
    return question, task.render(scene, question)


def test_both_images_needed() -> None:
    task = Sum()
    found = necessity(task, *rendered_for(task))
    assert found is not None and found.needed == [True, True] and found.all_needed
    require(task, 2, found)


def test_an_image_that_decides_nothing_is_not_needed_and_rejected_above_level_1() -> None:
    task = Sum()
    task.lazy = True
    found = necessity(task, *rendered_for(task))
    assert found is not None and found.needed == [True, False]
    require(task, 1, found)  # the first level does not require it by default
    with pytest.raises(Reject, match="image 2 is not needed"):
        require(task, 2, found)


def test_explicit_require_needed_per_level() -> None:
    task = Sum(Sum.configure({"require_needed": "true,false,false"}))
    task.lazy = True
    found = necessity(task, *rendered_for(task))
    with pytest.raises(Reject):
        require(task, 1, found)
    require(task, 3, found)


def test_unproven_task_records_null_and_cannot_require_it() -> None:
    task = Unproven()
    assert necessity(task, *rendered_for(task)) is None
    with pytest.raises(InputError, match=r"digit_sum_unproven\.require_needed: .*consistent\(\)"):
        Unproven.configure({"require_needed": "false,true,true"})
    with pytest.raises(InputError, match="require_needed: needs one value per level"):
        Sum.configure({"require_needed": "true"})


def test_pipeline_records_roles_and_needed(tmp_path, monkeypatch) -> None:
    monkeypatch.setattr("mirforge.pipeline.target", lambda name: "tests.test_necessity:Sum")
    for step in ("summary", "caption", "text2img", "img2img", "conclusion"):
        (tmp_path / f"{step}.j2").write_text("Step." if step != "caption" else "One.\nTwo.")

    class Recorded(Sum):
        def template_dir(self):
            return tmp_path

    record = json.loads(generate_one(Recorded(), RunSpec(run_seed=3), 1).instance.to_json())
    assert record["provenance"]["roles"] == ["evidence", "evidence"]
    assert record["provenance"]["needed"] == [True, True]


def test_a_wrong_size_image_or_a_region_outside_fails_at_generation(tmp_path, monkeypatch) -> None:
    from mirforge.errors import MirforgeError
    from mirforge.task import Region

    monkeypatch.setattr("mirforge.pipeline.target", lambda name: "tests.test_necessity:Sum")

    class Small(Sum):
        def render(self, scene, question):
            rendered = super().render(scene, question)
            rendered.images[1] = rendered.images[1][:, :3]
            return rendered

    with pytest.raises(MirforgeError, match=r"digit_sum: render\(\) drew image 2 at 3x4 pixels; its image_size is 4"):
        generate_one(Small(), RunSpec(run_seed=3), 1)

    class Outside(Sum):
        def render(self, scene, question):
            rendered = super().render(scene, question)
            rendered.regions.append(Region(0, "digit", [1, 1, 5, 3]))
            return rendered

    with pytest.raises(MirforgeError, match=r"region 'digit' \[1, 1, 5, 3\] is not inside image 1"):
        generate_one(Outside(), RunSpec(run_seed=3), 1)
