"""One instance, start to finish: sample, ask, render, verify, write the steps, assemble the record."""

from __future__ import annotations

import time
from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from mirforge import __version__
from mirforge.errors import MirforgeError, Reject
from mirforge.instance import IMAGE_SLOT, Instance, instance_id
from mirforge.necessity import Necessity, necessity, require
from mirforge.registry import target
from mirforge.render import gl
from mirforge.render.png import encode_png
from mirforge.seeding import attempt_rng, balanced_slot, balanced_variant, instance_seed, seed_value
from mirforge.task import Question, Rendered, Steps, Task, takes_variant
from mirforge.templates import render_steps
from mirforge.timelimit import Budget, TimeLimit


@dataclass
class Generated:
    instance: Instance
    images: list[bytes]  # PNG bytes, in the order of instance.images
    videos: list[bytes] = field(default_factory=list)  # encoded clips, when the task keeps them
    timings: dict[str, float] = field(default_factory=dict)
    rejections: Counter = field(default_factory=Counter)


@dataclass(frozen=True)
class RunSpec:
    """What, besides the task and the index, decides an instance's bytes."""

    run_seed: int
    split: str = "test"
    renderer: str = gl.DEFAULT_BACKEND  # the 3D backend of tasks that draw through mirforge.render.gl
    templates: Path | None = None
    rewriter: dict | None = None  # see mirforge.templates.rewriter; None keeps the templated steps
    llm_cache: Path | None = None  # where rewriter responses are cached (it decides the bytes on a rerun)
    realism: dict | None = None  # see mirforge.realism; None keeps the procedural images


def level_of(task: Task, index: int) -> int:
    return task.levels[index % len(task.levels)]


@dataclass(frozen=True)
class Attempt:
    """One try at an index: its own RNG stream, and what the index fixes for every try."""

    number: int  # 0 first; provenance records number + 1 as "attempts"
    rng: np.random.Generator
    seq: np.random.SeedSequence  # the instance's seed
    level: int
    slot: int  # where the correct option goes
    variant: int | None  # the balanced question variant (None: the task has one)


def attempts(task: Task, run_seed: int, split: str, index: int) -> Iterator[Attempt]:
    """The attempts of one instance, in order, at most ``task.config.max_tries``: the one attempt loop of the
    pipeline, the dry run and the tests. Each attempt draws from a fresh stream; the caller skips a rejected one."""
    seq = instance_seed(run_seed, split, task.name, index)
    lanes = len(task.levels)  # each level balanced on its own: level_of deals the indices to them in turn
    slot = balanced_slot(run_seed, split, task.name, index, task.config.n_options, lanes)
    variant = balanced_variant(run_seed, split, task.name, index, task.variants, lanes)
    level = level_of(task, index)
    for number in range(task.config.max_tries):
        yield Attempt(number, attempt_rng(seq, number), seq, level, slot, variant)


def ask(task: Task, scene: Any, rng: np.random.Generator, slot: int, variant: int | None) -> Question:
    """``task.ask``, with the index's balanced variant when it takes one."""
    if variant is None or not takes_variant(task.ask):
        return task.ask(scene, rng, slot)
    return task.ask(scene, rng, slot, variant=variant)


def pose(task: Task, attempt: Attempt) -> tuple[Any, Question]:
    """The scene and the checked question of one attempt (``Reject`` when the task refuses it)."""
    if attempt.variant is not None and takes_variant(task.sample):
        scene = task.sample(attempt.rng, attempt.level, variant=attempt.variant)  # e.g. a scene family, balanced
    else:
        scene = task.sample(attempt.rng, attempt.level)
    question = ask(task, scene, attempt.rng, attempt.slot, attempt.variant)
    check_question(task, question, attempt.slot)
    return scene, question


def check_question(task: Task, question: Question, slot: int) -> None:
    if question.answer != slot:
        raise MirforgeError(f"task {task.name}: ask() put the answer at {question.answer}, not at slot {slot}")
    if len(question.options) != task.config.n_options:
        raise MirforgeError(
            f"task {task.name}: ask() gave {len(question.options)} options, config.n_options is {task.config.n_options}"
        )


def check_rendered(task: Task, rendered: Rendered) -> None:
    """What validate will demand of the files: every image at the task's size, every region inside its image."""
    size = task.image_size
    for k, image in enumerate(rendered.images):
        if image.shape[:2] != (size, size):
            raise MirforgeError(
                f"task {task.name}: render() drew image {k + 1} at {image.shape[1]}x{image.shape[0]} pixels; "
                f"its image_size is {size}"
            )
    for region in rendered.regions:
        x0, y0, x1, y1 = region.box
        if not (0 <= region.image < len(rendered.images) and 0 <= x0 < x1 <= size and 0 <= y0 < y1 <= size):
            raise MirforgeError(
                f"task {task.name}: region {region.name!r} {list(region.box)} is not inside image {region.image + 1}"
            )


def generate_one(task: Task, spec: RunSpec, index: int) -> Generated:
    with gl.using(spec.renderer):
        return _generate(task, spec, index)


def _generate(task: Task, spec: RunSpec, index: int) -> Generated:
    timings: Counter = Counter()
    rejections: Counter = Counter()
    for attempt in attempts(task, spec.run_seed, spec.split, index):
        budget = Budget(task.config.instance_timeout)  # the plugin's steps and the templates share it
        t0 = time.perf_counter()
        try:
            with budget.running():
                scene, question = pose(task, attempt)
                t1 = time.perf_counter()
                rendered = task.render(scene, question)
                check_rendered(task, rendered)
                t2 = time.perf_counter()
                derived = task.verify(question, rendered)
                t3 = time.perf_counter()
                if derived != question.answer:
                    raise Reject("verifier disagrees")
                found = necessity(task, question, rendered)
                require(task, attempt.level, found)
            if spec.realism is not None and any(rendered.layers):
                from mirforge.realism import apply_realism

                rendered = apply_realism(
                    task, question, rendered, spec.realism, seed_value(attempt.seq) + attempt.number
                )
                timings["realism"] += time.perf_counter() - t3
            t4 = time.perf_counter()
            with budget.running():
                steps = template_steps(task, spec, attempt, scene, question, rendered)
            timings["sample"] += t1 - t0
            timings["render"] += t2 - t1
            timings["verify"] += t3 - t2
        except (Reject, TimeLimit) as why:
            rejections[str(why)] += 1
            timings["rejected"] += time.perf_counter() - t0  # the whole attempt, whatever stage refused it
            continue
        instance = assemble(task, spec, index, attempt, scene, question, rendered, steps, found)
        t5 = time.perf_counter()
        images = [encode_png(img) for img in rendered.images]
        timings["steps"] += t5 - t4
        timings["encode"] += time.perf_counter() - t5
        return Generated(instance, images, rendered.videos, dict(timings), rejections)
    common = ", ".join(f"{why} ({n})" for why, n in rejections.most_common(3))
    raise MirforgeError(
        f"task {task.name}, index {index}: no acceptable scene in {task.config.max_tries} tries "
        f"(rejected: {common}); loosen the task's config or raise max_tries (or instance_timeout)"
    )


def template_steps(
    task: Task, spec: RunSpec, attempt: Attempt, scene: object, question: Question, rendered: Rendered
) -> Steps:
    """The five steps from the task's templates (or the run's overrides), before any rewrite."""
    n_images = len(rendered.images)
    if question.text.count(IMAGE_SLOT) != n_images:
        raise MirforgeError(
            f"task {task.name}: question has {question.text.count(IMAGE_SLOT)} image slots "
            f"but render() drew {n_images} images"
        )
    facts = task.step_facts(scene, question, rendered)
    facts.setdefault("answer", question.letter)
    facts.setdefault("options", question.lettered())
    return render_steps(task, facts, n_images, attempt.rng, spec.templates)


def assemble(
    task: Task,
    spec: RunSpec,
    index: int,
    attempt: Attempt,
    scene: object,
    question: Question,
    rendered: Rendered,
    steps: Steps,
    found: Necessity | None = None,
) -> Instance:
    """The record of an accepted attempt, its steps rewritten when the run has a rewriter."""
    seq, level = attempt.seq, attempt.level
    n_images = len(rendered.images)
    rewritten = None
    if spec.rewriter is not None:
        from mirforge.templates.rewriter import rewriter_for

        steps, rewritten = rewriter_for(spec.rewriter, spec.llm_cache).rewrite(
            steps,
            question=question.text,
            options=question.lettered(),
            answer=question.letter,
            seed=seed_value(seq),
            entities=sorted({r.name for r in rendered.regions}),
        )
    stem = f"images/{task.name}/{spec.split}/{index:06d}"
    return Instance(
        id=instance_id(task.name, spec.split, index),
        task=task.name,
        category=task.category,
        split=spec.split,
        question=question.text,
        images=[f"{stem}-{k}.png" for k in range(n_images)],
        options=question.lettered(),
        answer=question.letter,
        summary=steps.summary,
        caption=steps.caption,
        text2img=steps.text2img,
        img2img=steps.img2img,
        conclusion=steps.conclusion,
        regions=[r.to_json() for r in rendered.regions],
        difficulty={"level": level, "knobs": {**task.knobs(level), **task.scene_knobs(scene)}},
        provenance={
            "generator": target(task.name),
            "mirforge": __version__,
            "run_seed": spec.run_seed,
            "index": index,
            "seed": seed_value(seq),
            "attempts": attempt.number + 1,
            "renderer": gl.renderer_name(spec.renderer) if task.needs.renderer == "gl" else None,
            "rewriter": rewritten,
            "realism": rendered.measured.get("realism"),
            "roles": found.roles if found else None,
            "needed": found.needed if found else None,
        },
    )
