"""The task-plugin contract.

A task turns an RNG into a scene, a scene into a question whose answer is computed from the scene, the scene
into images, and the measured images back into an answer (the verifier). The pipeline
(:mod:`mirforge.pipeline`) drives these steps; a plugin never picks the answer letter, never touches global
state and never writes files.
"""

from __future__ import annotations

import dataclasses
import inspect
import typing
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, ClassVar

import numpy as np

from mirforge import CATEGORIES, LETTERS
from mirforge.errors import InputError

PER_LEVEL = "mirforge.per_level"  # dataclass field metadata key: the field holds one value per difficulty level


def per_level(*values: Any) -> Any:
    """A config field with one value per difficulty level, in the order of the task's ``levels``: its length is
    checked against them (see :meth:`TaskConfig.check`), so ``validate`` need not."""
    return field(default=tuple(values), metadata={PER_LEVEL: True})


@dataclass
class TaskConfig:
    """Knobs shared by every task. Subclass it (as a dataclass) and extend :meth:`validate`; declare the fields
    that hold one value per difficulty level with :func:`per_level`."""

    n_options: int = 4
    max_tries: int = 30
    # Seconds one attempt may take: sample, ask, render, verify and the step templates (not the realism pass or the
    # LLM rewrite, which have their own limits). An attempt that runs out is rejected like an ambiguous scene.
    instance_timeout: float = 120.0
    # One bool per level: reject an instance whose evidence images are not all needed (see Task.consistent).
    # Empty: on at every level but the first, for a task that implements consistent(); off for one that does not.
    require_needed: tuple[bool, ...] = ()

    def validate(self) -> None:
        ensure(2 <= self.n_options <= len(LETTERS), "n_options", f"must be between 2 and {len(LETTERS)}")
        ensure(self.max_tries >= 1, "max_tries", "must be at least 1")
        ensure(0 < self.instance_timeout <= 86400, "instance_timeout", "must be seconds in (0, 86400]")

    def check(self, levels: tuple[int, ...], *, owner: str) -> None:
        """Validate for a task with these ``levels``: every :func:`per_level` field first (so ``validate`` may
        index and zip them), then :meth:`validate`. Errors are one line naming ``owner.field``."""
        try:
            for f in dataclasses.fields(self):
                if f.metadata.get(PER_LEVEL):
                    n = len(getattr(self, f.name))
                    ensure(n == len(levels), f.name, f"needs one value per level ({len(levels)} values), got {n}")
            n = len(self.require_needed)
            ensure(n in (0, len(levels)), "require_needed", f"needs one value per level ({len(levels)}), got {n}")
            self.validate()
        except ValueError as exc:
            raise InputError(f"{owner}.{exc}") from None


def takes_variant(method: Any) -> bool:
    """Whether a task's ``sample`` or ``ask`` takes the balanced ``variant`` keyword (see ``Task.variants``)."""
    return "variant" in inspect.signature(method).parameters


def check_families(families: tuple[str, ...], family: str, known: Sequence[str]) -> None:
    """The checks of a config with scene families: ``families`` (drawn from) and ``family`` (one only; "" for all)."""
    names = ", ".join(known)
    ensure(len(families) > 0, "families", f"name at least one family: {names}")
    for name in families:
        ensure(name in known, "families", f"unknown family {name!r}; families: {names}")
    ensure(family in ("", *known), "family", f"unknown family {family!r}; families: {names}")


def ensure(condition: bool, field_name: str, message: str) -> None:
    """Raise the ``ValueError`` that :meth:`TaskConfig.check` reports as ``task.field: message``."""
    if not condition:
        raise ValueError(f"{field_name}: {message}")


def _coerce(raw: Any, hint: Any, where: str) -> Any:
    origin = typing.get_origin(hint)
    if origin in (tuple, list):
        items = raw.split(",") if isinstance(raw, str) else raw
        if not isinstance(items, (list, tuple)):
            raise InputError(f"{where}: expected a list, got {raw!r}")
        args = typing.get_args(hint)
        item_type = args[0] if args else str
        return origin(_coerce(item, item_type, where) for item in items)
    if hint is bool:
        if isinstance(raw, bool):
            return raw
        if isinstance(raw, str) and raw.lower() in ("true", "false", "1", "0", "yes", "no"):
            return raw.lower() in ("true", "1", "yes")
        raise InputError(f"{where}: expected true or false, got {raw!r}")
    if hint in (int, float, str):
        if isinstance(raw, bool) or (hint is str and not isinstance(raw, str)):
            raise InputError(f"{where}: expected {hint.__name__}, got {raw!r}")
        try:
            value = hint(raw)
        except (TypeError, ValueError, OverflowError):  # OverflowError: int(float("inf"))
            raise InputError(f"{where}: expected {hint.__name__}, got {raw!r}") from None
        if hint is int and isinstance(raw, float) and raw != value:
            raise InputError(f"{where}: expected int, got {raw!r}")
        return value
    return raw


@dataclass(frozen=True)
class Needs:
    """What a task needs from the machine that runs it, so an executor can place it."""

    gpu: bool = False
    # "gl": draws 3D views through mirforge.render.gl (the run's --renderer picks moderngl or pyrender);
    # None: no GL context needed
    renderer: str | None = "gl"
    cost: float = 1.0  # relative seconds per instance: the planner starts the costliest shards first
    realism: bool = False  # fills Rendered.layers, so a realism pass (a GPU, with --realism) may touch its images
    cpus: float = 1.0  # CPUs one shard keeps busy (the Ray resource request); below 1 packs shards onto a CPU

    def __post_init__(self) -> None:
        if self.renderer not in ("gl", None):
            raise ValueError(
                f'Needs.renderer must be "gl" (the task draws through mirforge.render.gl; the run\'s --renderer '
                f"picks the backend) or None, got {self.renderer!r}"
            )
        if not self.cost > 0:
            raise ValueError(f"Needs.cost must be positive, got {self.cost}")
        if not 0 < self.cpus <= 64:
            raise ValueError(f"Needs.cpus must be in (0, 64], got {self.cpus}")


@dataclass
class Question:
    """A multiple-choice question. ``text`` holds one ``<image>`` slot per image, in order."""

    text: str
    options: list[str]
    answer: int  # index into options
    facts: dict[str, Any] = field(default_factory=dict)  # what templates and the verifier need

    @property
    def letter(self) -> str:
        return LETTERS[self.answer]

    def lettered(self) -> dict[str, str]:
        return {LETTERS[i]: text for i, text in enumerate(self.options)}


@dataclass
class Region:
    image: int
    name: str
    box: list[int]  # [x0, y0, x1, y1] pixels, x1/y1 exclusive

    def to_json(self) -> dict[str, Any]:
        return {"image": self.image, "name": self.name, "box": [int(v) for v in self.box]}


@dataclass
class Layer:
    """What a post-pass (the diffusion realism pass) needs to know about one image to keep its geometry."""

    ids: np.ndarray  # H x W ints: 0 background, i + 1 for object i
    names: list[str]  # name of object i, as the text calls it
    depth: np.ndarray | None = None  # H x W distance from the camera, 0 where nothing was hit


@dataclass
class Rendered:
    """What a task drew: images, the facts measured from them, and the regions the text refers to."""

    images: list[np.ndarray]
    measured: dict[str, Any]
    regions: list[Region]
    videos: list[bytes] = field(default_factory=list)  # encoded clips, kept only with --keep-video
    layers: list[Layer | None] = field(default_factory=list)  # per image; None: no post-pass may touch it


@dataclass
class Steps:
    """The five MIR reasoning steps."""

    summary: str
    caption: list[str]
    text2img: str
    img2img: str
    conclusion: str


def place(correct: Any, distractors: list[Any], slot: int) -> list[Any]:
    """Options with the correct one at ``slot`` and the distractors, in their given order, around it."""
    if len(distractors) < 1 or not 0 <= slot <= len(distractors):
        raise ValueError(f"slot {slot} does not fit {len(distractors) + 1} options")
    return [*distractors[:slot], correct, *distractors[slot:]]


class Task:
    """Base class of task plugins. Subclasses set the class attributes and implement the five methods."""

    name: ClassVar[str]
    category: ClassVar[str]
    description: ClassVar[str]
    Config: ClassVar[type[TaskConfig]] = TaskConfig
    levels: ClassVar[tuple[int, ...]] = (1, 2, 3)
    needs: ClassVar[Needs] = Needs()
    image_size: ClassVar[int] = 448
    # Variants balanced exactly across each level's indices, like the answer slot: with more than one, sample() and
    # ask() get a ``variant`` keyword, each that takes one (at least one must). A choice a text-only model could read
    # (whether the answer repeats a premise, a scene family, a direction) drawn from the attempt's RNG is only balanced
    # on average: a rejected attempt redraws it, which favours the choices that are easy to draw, and a split's share
    # drifts.
    variants: ClassVar[int] = 1

    def __init__(self, config: TaskConfig | None = None):
        self.config = config if config is not None else self.Config()
        self.config.check(self.levels, owner=self.name)

    @classmethod
    def configure(cls, values: dict[str, Any]) -> TaskConfig:
        """This task's config from ``--set``-style values, strings coerced to the field types and the result
        checked against the task's levels; errors are one line naming ``task.field``."""
        hints = typing.get_type_hints(cls.Config)
        known = {f.name for f in dataclasses.fields(cls.Config)}
        kwargs = {}
        for key, raw in values.items():
            if key not in known:
                name = key if str(key).isidentifier() else repr(key)  # a stray newline would break the one line
                raise InputError(f"{cls.name}.{name}: unknown config field; known fields: {', '.join(sorted(known))}")
            kwargs[key] = _coerce(raw, hints[key], f"{cls.name}.{key}")
        config = cls.Config(**kwargs)
        config.check(cls.levels, owner=cls.name)
        if any(config.require_needed) and not cls.proves_necessity():
            raise InputError(
                f"{cls.name}.require_needed: this task does not implement consistent(), so it cannot prove that "
                "each image is needed; leave require_needed unset"
            )
        return config

    @classmethod
    def check_contract(cls) -> None:
        """Raise ``TypeError`` naming what a plugin class lacks."""
        for attr in ("name", "category", "description"):
            if not isinstance(getattr(cls, attr, None), str):
                raise TypeError(f"{cls.__module__}.{cls.__qualname__} must set the class attribute {attr!r} (str)")
        if cls.category not in CATEGORIES:
            raise TypeError(f"{cls.__qualname__}.category is {cls.category!r}; expected one of {CATEGORIES}")
        if not (dataclasses.is_dataclass(cls.Config) and issubclass(cls.Config, TaskConfig)):
            raise TypeError(f"{cls.__qualname__}.Config must be a dataclass subclassing TaskConfig")
        for method in ("sample", "ask", "render", "verify", "step_facts"):
            if getattr(cls, method) is getattr(Task, method):
                raise TypeError(f"{cls.__qualname__} must implement {method}()")
        if cls.variants > 1 and not (takes_variant(cls.sample) or takes_variant(cls.ask)):
            raise TypeError(
                f"{cls.__qualname__}.variants is {cls.variants}: sample() or ask() must take a variant keyword"
            )

    # -- the contract ---------------------------------------------------------------------------------------
    def knobs(self, level: int) -> dict[str, Any]:
        """The named difficulty knobs of ``level``, recorded in each instance."""
        return {}

    def scene_knobs(self, scene: Any) -> dict[str, Any]:
        """Knobs drawn per instance, such as the scene ``family``: recorded in each instance beside the level's."""
        return {}

    def sample(self, rng: np.random.Generator, level: int) -> Any:
        """A scene: typed facts from which everything else is computed. Raise ``Reject`` if ambiguous."""
        raise NotImplementedError

    def ask(self, scene: Any, rng: np.random.Generator, slot: int) -> Question:
        """The question, with the correct option at index ``slot`` (see :func:`place`). With ``variants`` above 1 it
        may take ``variant`` (an int below ``variants``, or None: draw it from ``rng``), as ``sample`` may."""
        raise NotImplementedError

    def render(self, scene: Any, question: Question) -> Rendered:
        """The images, with facts measured from the pixels and the regions the text refers to."""
        raise NotImplementedError

    def verify(self, question: Question, rendered: Rendered) -> int:
        """Re-derive the answer index from ``rendered.measured`` alone (never from the scene)."""
        raise NotImplementedError

    def step_facts(self, scene: Any, question: Question, rendered: Rendered) -> dict[str, Any]:
        """The structured facts the step templates render from."""
        raise NotImplementedError

    # -- necessity: every evidence image is needed ----------------------------------------------------------
    def roles(self, question: Question, rendered: Rendered) -> list[str]:
        """One role per image: ``"evidence"`` (what the question is about) or ``"option"`` (an image that only
        shows one option's content, like a candidate top view). Evidence images must each be needed; option
        images alone must not determine the answer."""
        return ["evidence"] * len(rendered.images)

    def consistent(self, question: Question, rendered: Rendered, hidden: frozenset[int]) -> set[int] | None:
        """The options that may still be the answer given what the images NOT in ``hidden`` show, from
        ``rendered.measured`` alone: a measurement of a hidden image is unknown, so an option survives when some
        value of it would make that option the question's one answer. A reader knows there is one answer, so a
        value under which no option, or several, would be right is no value at all: it must not let an option
        through (a premise image whose other reading makes two options right is not needed). With nothing hidden
        this is ``{verify(...)}``. Return None where a task cannot say (then necessity is not recorded and cannot be
        required)."""
        return None

    @classmethod
    def proves_necessity(cls) -> bool:
        return cls.consistent is not Task.consistent

    def requires_needed(self, level: int) -> bool:
        if not self.proves_necessity():
            return False
        if not self.config.require_needed:
            return level != self.levels[0]
        return self.config.require_needed[self.levels.index(level)]

    def template_dir(self) -> Path:
        """Folder of the Jinja templates ``summary.j2``, ``caption.j2`` (one line per image), ``text2img.j2``,
        ``img2img.j2`` and ``conclusion.j2``: ``templates/`` beside the module that defines the task class."""
        return Path(inspect.getfile(type(self))).parent / "templates"
