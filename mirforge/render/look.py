"""How a 3D scene looks, as plain data: surface materials, the light rig and the backdrop.

Pure data, no GL: both renderers and the Blender export read these. Every random choice takes the caller's
``numpy.random.Generator`` (the scene's own), never a global one, so a seed gives the same look on any worker.
Unknown names are bad input: one-line :class:`~mirforge.errors.InputError` listing the valid names.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from mirforge.errors import InputError


# -- materials ------------------------------------------------------------------------------------------------------
@dataclass(frozen=True)
class Material:
    """A Principled-BSDF-like surface: the base colour comes from the object, these say how it reflects."""

    metallic: float  # 0 dielectric (diffuse + 4 % specular), 1 metal (tinted specular only)
    roughness: float  # GGX roughness (perceptual, squared in the shaders)


MATERIALS: dict[str, Material] = {
    "rubber": Material(metallic=0.0, roughness=0.8),  # CLEVR's matte rubber
    "plastic": Material(metallic=0.0, roughness=0.35),
    "metal": Material(metallic=1.0, roughness=0.3),  # CLEVR's shiny metal
}


def material(name: str) -> Material:
    if name not in MATERIALS:
        raise InputError(f"material: {name!r} is not one of {', '.join(MATERIALS)}")
    return MATERIALS[name]


# The object catalogue's part material tags (mirforge.render.objects.MATERIALS) as surfaces. Nothing here is
# translucent or emissive: glass, liquid and wax draw as smooth dielectrics, a flame as a matte one.
PART_MATERIALS: dict[str, Material] = {
    "plastic": MATERIALS["plastic"],
    "rubber": MATERIALS["rubber"],
    "metal": MATERIALS["metal"],
    "glass": Material(metallic=0.0, roughness=0.15),
    "liquid": Material(metallic=0.0, roughness=0.15),
    "ceramic": Material(metallic=0.0, roughness=0.3),
    "wax": Material(metallic=0.0, roughness=0.55),
    "wood": Material(metallic=0.0, roughness=0.7),
    "paper": Material(metallic=0.0, roughness=0.9),
    "fabric": Material(metallic=0.0, roughness=0.95),
    "flame": Material(metallic=0.0, roughness=1.0),
}


def part_material(tag: str) -> Material:
    """The surface of a catalogue part with material ``tag``."""
    if tag not in PART_MATERIALS:
        raise InputError(f"part material: {tag!r} is not one of {', '.join(PART_MATERIALS)}")
    return PART_MATERIALS[tag]


# -- light --------------------------------------------------------------------------------------------------------
@dataclass(frozen=True)
class Light:
    """A sun (directional, slightly soft) plus a uniform sky, in linear RGB radiometric units.

    A white matte surface facing the sun has radiance ``sun / pi`` from it; one lit only by the open sky has
    radiance ``sky``. These are Blender's units too (sun strength in W/m^2, world strength), so the Cycles
    reference uses the numbers as they are."""

    direction: tuple[float, float, float]  # the way the light travels (points down)
    sun: tuple[float, float, float]  # irradiance per channel, linear RGB
    sky: tuple[float, float, float]  # sky radiance per channel, linear RGB
    angle: float = math.radians(2.0)  # the sun's angular diameter: the width of shadow penumbrae

    def unit_direction(self) -> np.ndarray:
        d = np.asarray(self.direction, dtype=float)
        return d / np.linalg.norm(d)


@dataclass(frozen=True)
class LightKnobs:
    """The ranges a task lets the light rig draw from (degrees, kelvin, multipliers of the default strengths)."""

    elevation: tuple[float, float] = (35.0, 65.0)
    azimuth: tuple[float, float] = (0.0, 360.0)
    kelvin: tuple[float, float] = (4300.0, 7000.0)
    intensity: tuple[float, float] = (0.85, 1.15)
    ambient: tuple[float, float] = (0.85, 1.15)

    def validate(self) -> None:
        for name in ("elevation", "azimuth", "kelvin", "intensity", "ambient"):
            lo, hi = getattr(self, name)
            if not lo <= hi:
                raise InputError(f"light.{name}: the range ({lo}, {hi}) must be (low, high)")
        if not (5.0 <= self.elevation[0] and self.elevation[1] <= 90.0):
            raise InputError(f"light.elevation: {self.elevation} must lie within 5 to 90 degrees")
        if not (1500.0 <= self.kelvin[0] and self.kelvin[1] <= 15000.0):
            raise InputError(f"light.kelvin: {self.kelvin} must lie within 1500 to 15000 K")
        if min(self.intensity[0], self.ambient[0]) <= 0:
            raise InputError("light.intensity/ambient: multipliers must be positive")


SUN_IRRADIANCE = 3.4  # white sun at the default intensity
SKY_RADIANCE = 0.42  # sky at the default ambient
SKY_KELVIN_OFFSET = 2500.0  # the open sky is bluer than the sun


def kelvin_rgb(kelvin: float) -> np.ndarray:
    """Linear sRGB colour of a black body at ``kelvin`` (CIE 1931 locus, Kim et al.'s fit), luminance 1."""
    t = float(np.clip(kelvin, 1667.0, 25000.0))
    if t <= 4000:
        x = -0.2661239e9 / t**3 - 0.2343589e6 / t**2 + 0.8776956e3 / t + 0.179910
    else:
        x = -3.0258469e9 / t**3 + 2.1070379e6 / t**2 + 0.2226347e3 / t + 0.240390
    if t <= 2222:
        y = -1.1063814 * x**3 - 1.34811020 * x**2 + 2.18555832 * x - 0.20219683
    elif t <= 4000:
        y = -0.9549476 * x**3 - 1.37418593 * x**2 + 2.09137015 * x - 0.16748867
    else:
        y = 3.0817580 * x**3 - 5.87338670 * x**2 + 3.75112997 * x - 0.37001483
    xyz = np.array([x / y, 1.0, (1 - x - y) / y])
    to_rgb = np.array([[3.2406, -1.5372, -0.4986], [-0.9689, 1.8758, 0.0415], [0.0557, -0.2040, 1.0570]])
    rgb = np.clip(to_rgb @ xyz, 0.0, None)
    return rgb / (0.2126 * rgb[0] + 0.7152 * rgb[1] + 0.0722 * rgb[2])


def light_from(
    elevation: float, azimuth: float, kelvin: float = 5800.0, intensity: float = 1.0, ambient: float = 1.0
) -> Light:
    """The light of a sun ``elevation`` degrees above the horizon, shining from ``azimuth`` (0 = from -y)."""
    el, az = math.radians(elevation), math.radians(azimuth)
    toward_sun = np.array([math.cos(el) * math.sin(az), -math.cos(el) * math.cos(az), math.sin(el)])
    sun = kelvin_rgb(kelvin) * SUN_IRRADIANCE * intensity
    sky = kelvin_rgb(kelvin + SKY_KELVIN_OFFSET) * SKY_RADIANCE * ambient
    return Light(direction=_rounded(-toward_sun), sun=_rounded(sun), sky=_rounded(sky))


def light_rig(rng: np.random.Generator, knobs: LightKnobs | None = None) -> Light:
    """A random light within ``knobs`` (the defaults when None), drawn from the scene's ``rng``."""
    k = knobs or LightKnobs()
    k.validate()
    return light_from(
        elevation=float(rng.uniform(*k.elevation)),
        azimuth=float(rng.uniform(*k.azimuth)),
        kelvin=float(rng.uniform(*k.kelvin)),
        intensity=float(rng.uniform(*k.intensity)),
        ambient=float(rng.uniform(*k.ambient)),
    )


def _rounded(v: np.ndarray) -> tuple[float, float, float]:
    return tuple(round(float(c), 6) for c in v)  # plain floats: a Light is hashable and prints short


# The light every scene had before lights were drawn: from the front right, above; white.
DEFAULT_LIGHT = Light(
    direction=(-0.45, 0.55, -1.0),
    sun=(SUN_IRRADIANCE,) * 3,
    sky=_rounded(kelvin_rgb(5800.0 + SKY_KELVIN_OFFSET) * SKY_RADIANCE),
)


# -- backdrops ----------------------------------------------------------------------------------------------------
FLOORS = ("studio", "wood", "tiles", "carpet", "concrete")
BACKDROPS = FLOORS
TEXTURE_VARIANTS = 6  # procedural textures per textured floor (pattern and palette), cached per process
TILE_SIZE = {"studio": 4.0, "wood": 2.4, "tiles": 2.4, "carpet": 1.6, "concrete": 4.0}  # world units per repeat

SKIES: tuple[tuple[int, int, int], ...] = (
    (236, 240, 246),  # hazy white
    (206, 222, 240),  # pale blue
    (226, 228, 224),  # overcast grey
    (240, 232, 220),  # warm haze
)


@dataclass(frozen=True)
class Backdrop:
    """The floor under the objects (reaching the horizon, or a table of ``extent``) and the sky above it."""

    floor: str = "studio"
    variant: int = 0  # which procedural texture of the kind
    color: tuple[int, int, int] = (165, 152, 132)  # sRGB albedo of a plain (studio) floor
    sky: tuple[int, int, int] = (250, 250, 250)  # sRGB of what the camera sees where nothing is drawn
    tile: float = 4.0  # world units per texture repeat
    rotation: float = 0.0  # of the texture, radians
    offset: tuple[float, float] = (0.0, 0.0)  # of the texture, world units
    extent: float = 20.0  # half-width of the floor; a horizon backdrop reaches 1500

    def __post_init__(self) -> None:
        if self.floor not in FLOORS:
            raise InputError(f"backdrop: {self.floor!r} is not one of {', '.join(FLOORS)}")
        if not 0 <= self.variant < TEXTURE_VARIANTS:
            raise InputError(f"backdrop.variant: {self.variant} must be 0 to {TEXTURE_VARIANTS - 1}")

    @property
    def textured(self) -> bool:
        return self.floor != "studio"

    def uv_matrix(self) -> np.ndarray:
        """2 x 3 affine map from world (x, y, 1) on the floor to texture coordinates (1 = one repeat)."""
        c, s = math.cos(self.rotation), math.sin(self.rotation)
        rot = np.array([[c, -s], [s, c]]) / self.tile
        return np.c_[rot, rot @ np.asarray(self.offset, dtype=float)]


STUDIO = Backdrop()  # a plain table on a white background: the look before backdrops existed
HORIZON = 1500.0  # half-width of a floor that reaches the horizon (well inside the cameras' far plane)
FLOOR_Z = -0.001  # the floor's height: just below the objects' bases, so a base never fights it for a pixel


def backdrop(name: str, rng: np.random.Generator) -> Backdrop:
    """A random backdrop of kind ``name`` (one of :data:`BACKDROPS`), drawn from the scene's ``rng``.

    Every kind reaches the horizon, so the floor's perspective and the horizon line are depth cues; the textured
    ones also show how the floor's pattern shrinks with distance."""
    if name not in BACKDROPS:
        raise InputError(f"backdrop: {name!r} is not one of {', '.join(BACKDROPS)}")
    sky = SKIES[int(rng.integers(len(SKIES)))]
    variant = int(rng.integers(TEXTURE_VARIANTS)) if name != "studio" else 0
    tile = TILE_SIZE[name] * float(rng.uniform(0.85, 1.2))
    rotation = float(rng.uniform(0, math.pi)) if name != "studio" else 0.0
    offset = (round(float(rng.uniform(0, tile)), 4), round(float(rng.uniform(0, tile)), 4))
    color = STUDIO.color if name != "studio" else _studio_color(rng)
    return Backdrop(name, variant, color, sky, round(tile, 4), round(rotation, 4), offset, HORIZON)


def _studio_color(rng: np.random.Generator) -> tuple[int, int, int]:
    grey = float(rng.uniform(150, 190))
    warm = float(rng.uniform(-6, 14))
    return (int(round(grey + warm)), int(round(grey + warm / 3)), int(round(grey - warm)))


# -- a scene's look -------------------------------------------------------------------------------------------------
@dataclass(frozen=True)
class Look:
    """How one scene looks: its backdrop and its light (the defaults: a plain table on white, the fixed light)."""

    backdrop: Backdrop = STUDIO
    light: Light = DEFAULT_LIGHT


def draw_look(
    rng: np.random.Generator, backdrops: tuple[str, ...] = BACKDROPS, light: LightKnobs | None = None
) -> Look:
    """A backdrop of one of the kinds ``backdrops`` and a light within ``light`` (the default knobs when None).

    The draws come from a child of ``rng`` (``rng.spawn``), so the scene's own draws are the same with or without
    a look: adding one to a task changes how its images look, not which scenes and questions it makes."""
    for name in backdrops:
        if name not in BACKDROPS:
            raise InputError(f"backdrop: {name!r} is not one of {', '.join(BACKDROPS)}")
    child = rng.spawn(1)[0]
    name = backdrops[int(child.integers(len(backdrops)))]
    return Look(backdrop(name, child), light_rig(child, light))
