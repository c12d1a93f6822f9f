"""The 3D clips shared by speed_comparison and motion_detection: vehicles drive nose first."""

from __future__ import annotations

import math

import numpy as np
import pytest

from mirforge.generators.sequential.clips3d import VEHICLES
from mirforge.render.objects.catalogue import model

from conftest import ask_only, make_task

FRONT_PART = {"toy car": "lights", "toy truck": "windows"}  # headlights; a truck's cab sits at its front
SCENES = 400  # scenes searched for moving vehicles


def _nose(prop) -> np.ndarray:
    """Where the vehicle's nose points on the floor, read off its model: the side its front part is on, turned by
    its yaw."""
    part = next(p for p in model(prop.kind, prop.variant).parts if p.role == FRONT_PART[prop.kind])
    x = float(np.sign(part.vertices[:, 0].mean()))
    c, s = math.cos(prop.yaw), math.sin(prop.yaw)
    return np.array([c * x, s * x])


def _moving_vehicles(task_name: str, wanted: int) -> list:
    """Vehicles that move in a straight line, from the first scenes of seed 0 that have them (one motion scene in
    about 25 moves one)."""
    task = make_task(task_name)
    found = []
    for index in range(SCENES):
        scene, _ = ask_only(task, index)
        if task_name == "speed_comparison":
            props = [r.prop for r in scene.runners if r.prop is not None]
        else:
            mover = scene.things[scene.mover]
            props = [mover.prop] if mover.prop is not None and len(scene.legs) == 1 else []
        found += [p for p in props if p.kind in VEHICLES]
        if len({p.kind for p in found}) == len(VEHICLES) and len(found) >= wanted:
            return found
    raise AssertionError(f"{task_name}: too few moving vehicles in {SCENES} scenes ({len(found)})")


@pytest.mark.parametrize("task_name", ["speed_comparison", "motion_detection"])
def test_a_toy_car_or_truck_drives_nose_first(task_name):
    """A toy car's headlights and a truck's cab lead along its path (they pointed a quarter turn off: the cars
    drove sideways)."""
    for prop in _moving_vehicles(task_name, 6):
        (_, x0, y0), (_, x1, y1) = prop.path[0], prop.path[-1]
        way = np.array([x1 - x0, y1 - y0]) / math.hypot(x1 - x0, y1 - y0)
        assert _nose(prop) @ way > 0.999, (prop.name, prop.yaw, way)
