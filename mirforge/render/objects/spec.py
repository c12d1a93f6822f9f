"""What a catalogue entry declares: kinds, styles, finishes, named colours and material tags.

A kind's builder turns (rng, style, height in metres) into named parts; a finish gives each part role a colour and
a material. Builders register themselves with :func:`kind`; :mod:`mirforge.render.objects.catalogue` serves them.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

import numpy as np

if TYPE_CHECKING:
    import trimesh

RGB = tuple[int, int, int]
Parts = list[tuple[str, "trimesh.Trimesh"]]
Builder = Callable[[np.random.Generator, str, float], Parts]

PROCEDURAL_SOURCE = "procedural (mirforge)"
PROCEDURAL_LICENCE = "Apache-2.0"


@dataclass(frozen=True)
class Material:
    """A material tag with physically based hints a renderer can use (metallic 0..1, roughness 0..1)."""

    name: str
    metallic: float
    roughness: float
    translucent: bool = False
    emissive: bool = False


MATERIALS: dict[str, Material] = {
    m.name: m
    for m in (
        Material("plastic", 0.0, 0.45),
        Material("rubber", 0.0, 0.9),
        Material("metal", 1.0, 0.3),
        Material("glass", 0.0, 0.05, translucent=True),
        Material("wood", 0.0, 0.7),
        Material("ceramic", 0.0, 0.25),
        Material("paper", 0.0, 0.95),
        Material("fabric", 0.0, 1.0),
        Material("wax", 0.0, 0.6, translucent=True),
        Material("liquid", 0.0, 0.05, translucent=True),
        Material("flame", 0.0, 1.0, emissive=True),
    )
}

COLORS: dict[str, RGB] = {
    "white": (235, 235, 230),
    "cream": (236, 226, 198),
    "ivory": (240, 234, 214),
    "light grey": (200, 200, 198),
    "grey": (128, 128, 128),
    "charcoal": (60, 62, 66),
    "black": (28, 28, 30),
    "silver": (192, 194, 198),
    "steel": (150, 156, 162),
    "gold": (212, 175, 55),
    "brass": (181, 150, 80),
    "copper": (184, 115, 51),
    "red": (200, 35, 35),
    "dark red": (125, 20, 30),
    "orange": (240, 120, 20),
    "safety orange": (255, 100, 0),
    "terracotta": (190, 95, 60),
    "yellow": (240, 200, 30),
    "mustard": (205, 160, 40),
    "lime": (150, 200, 50),
    "green": (45, 150, 60),
    "leaf green": (70, 135, 45),
    "dark green": (25, 80, 40),
    "olive": (110, 115, 45),
    "teal": (20, 130, 130),
    "sky blue": (120, 180, 230),
    "blue": (35, 80, 200),
    "navy": (25, 35, 90),
    "purple": (120, 55, 160),
    "lavender": (180, 160, 215),
    "pink": (235, 130, 170),
    "brown": (125, 80, 45),
    "dark brown": (70, 45, 28),
    "tan": (205, 170, 120),
    "kraft": (190, 150, 100),
    "oak": (190, 145, 90),
    "walnut": (105, 70, 45),
    "pine": (220, 185, 130),
    "clear": (205, 222, 228),
    "bottle green": (35, 95, 50),
    "amber": (170, 95, 25),
    "cobalt": (30, 60, 160),
    "flame yellow": (255, 210, 80),
    "soil": (75, 55, 40),
}


@dataclass(frozen=True)
class Finish:
    """Colour and material of each part role; the first role is the primary one (what "a red mug" colours)."""

    roles: tuple[tuple[str, str, str], ...]  # (role, colour name, material)

    @property
    def primary(self) -> str:
        return self.roles[0][0]

    @property
    def material(self) -> str:
        return self.roles[0][2]

    @property
    def color_name(self) -> str:
        return self.roles[0][1]

    def label(self) -> str:
        return ", ".join(f"{role}: {color} {material}" for role, color, material in self.roles)


def paint(spec: str) -> tuple[str, str]:
    """ "dark green glass" -> ("dark green", "glass"): a colour name, then a material tag as the last word."""
    color, _, material = spec.rpartition(" ")
    if color not in COLORS or material not in MATERIALS:
        raise ValueError(f"finish {spec!r}: expected '<colour> <material>' from COLORS and MATERIALS")
    return color, material


def finish(spec: str | Mapping[str, str]) -> Finish:
    """A finish from "colour material" (the role ``body``) or {role: "colour material", ...}."""
    items = {"body": spec} if isinstance(spec, str) else dict(spec)
    return Finish(tuple((role, *paint(value)) for role, value in items.items()))


@dataclass(frozen=True)
class Style:
    """A shape design of a kind, with its own real height range (metres) and its finishes."""

    name: str
    height: tuple[float, float]
    finishes: tuple[Finish, ...]


@dataclass(frozen=True)
class Kind:
    name: str
    build: Builder
    styles: tuple[Style, ...]
    fixed: Mapping[str, tuple[str, str]]  # roles that look the same in every finish: role -> (colour, material)
    source: str = PROCEDURAL_SOURCE
    licence: str = PROCEDURAL_LICENCE
    named_by_style: bool = False  # its styles are what people call it ("beach ball"): the kind's word fits others too
    # what people call an object of a style ("*": of every other style) where the kind's word names only part of it
    # ("potted plant", not "flower pot": the pot alone is 40% of its height)
    nouns: Mapping[str, str] = field(default_factory=dict)
    # what people call an object of a style ("*": of every other style) painted a colour the kind never comes in,
    # where its name says what the paint hides: a pink "cardboard box" is a box (see ObjectModel.painted_noun)
    painted: Mapping[str, str] = field(default_factory=dict)

    @property
    def height(self) -> tuple[float, float]:
        return min(s.height[0] for s in self.styles), max(s.height[1] for s in self.styles)

    @property
    def combos(self) -> tuple[tuple[Style, Finish], ...]:
        """Every (style, finish) pair, interleaved so that the first ``len(styles)`` variants show every style."""
        longest = max(len(s.finishes) for s in self.styles)
        return tuple((s, s.finishes[i]) for i in range(longest) for s in self.styles if i < len(s.finishes))

    @property
    def materials(self) -> tuple[str, ...]:
        return tuple(sorted({f.material for _, f in self.combos}))


REGISTRY: dict[str, Kind] = {}


def kind(
    name: str,
    styles: Mapping[str, tuple[tuple[float, float], list[str | Mapping[str, str]]]],
    fixed: Mapping[str, str] | None = None,
    named_by_style: bool = False,
    nouns: Mapping[str, str] | None = None,
    painted: Mapping[str, str] | None = None,
) -> Callable[[Builder], Builder]:
    """Register a builder: ``styles`` maps a style name to (height range in metres, finishes); ``named_by_style``
    when an object of the kind is called by its style's name, not the kind's; ``nouns`` what an object of a style
    (``"*"``: any other) is called where the kind's word names only part of it; ``painted`` what it is called
    painted a colour of none of its finishes, where its name says a colour or material the paint hides."""

    def register(build: Builder) -> Builder:
        if name in REGISTRY:
            raise ValueError(f"object kind {name!r} is registered twice")
        for field_name, names in (("nouns", nouns), ("painted", painted)):
            unknown = set(names or {}) - {*styles, "*"}
            if unknown:
                raise ValueError(f"object kind {name!r}: {field_name} names no style {sorted(unknown)}")
        REGISTRY[name] = Kind(
            name=name,
            build=build,
            styles=tuple(Style(s, tuple(h), tuple(finish(f) for f in fins)) for s, (h, fins) in styles.items()),
            fixed={role: paint(value) for role, value in (fixed or {}).items()},
            named_by_style=named_by_style,
            nouns=dict(nouns or {}),
            painted=dict(painted or {}),
        )
        return build

    return register
