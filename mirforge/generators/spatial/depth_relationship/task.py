"""depth_relationship: which object is nearest to (or farthest from) a camera, and how depth order changes.

One table of 4-8 coloured primitives photographed by 2-4 perspective cameras around it. Two question kinds:

- ``extreme``: "Which object is nearest to / farthest from the camera that took Image k?" The options are
  objects clearly visible in Image k; the apparently largest object is a preferred distractor (big things look
  near), and so is the answer of the same question for another image.
- ``change``: "Which object is nearer to the camera than the A in Image j, but farther from the camera than the A
  in Image k?" Exactly one option satisfies both; every distractor clearly fails at least one, and distractors
  that satisfy one of the two conditions are preferred.

Depth is the distance of an object's centre along the view axis; every comparison the answer uses clears
``margin`` world units. The verifier re-derives the answer from the rendered depth buffer: the median depth of
each object's visible pixels (its segmentation mask), rejecting scenes whose measured gaps fall under half a
margin or whose answer object is not visible.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from mirforge import LETTERS
from mirforge.errors import Reject
from mirforge.generators.spatial.multiview import (
    all_in_frame,
    camera_ring,
    centres,
    covered_fractions,
    measure_view,
    near_to_far,
    projected_box,
    scatter_objects,
    sign,
    table_radius,
)
from mirforge.render.look import BACKDROPS, Look, draw_look
from mirforge.render.scene3d import Camera, Object3D, Scene3D
from mirforge.task import Question, Region, Rendered, Task, TaskConfig, ensure, place

MAX_VIEWS = 4
MAX_COVERED = 0.3


@dataclass
class DepthRelationshipConfig(TaskConfig):
    objects_per_level: tuple[int, ...] = (4, 6, 8)
    views_per_level: tuple[int, ...] = (2, 3, 4)
    depth_margin: tuple[float, ...] = (0.7, 0.5, 0.35)  # per level, world units (the table is about 4 across)
    min_visible_px: int = 150
    backdrops: tuple[str, ...] = BACKDROPS  # the floors (and skies) a scene is drawn on

    def validate(self) -> None:
        super().validate()
        for field_name in ("objects_per_level", "views_per_level", "depth_margin"):
            ensure(len(getattr(self, field_name)) == 3, field_name, "needs one value per level (3 values)")
        ensure(
            all(self.n_options <= n <= 8 for n in self.objects_per_level),
            "objects_per_level",
            f"each count must be between n_options ({self.n_options}) and 8",
        )
        ensure(
            all(1 <= n <= MAX_VIEWS for n in self.views_per_level),
            "views_per_level",
            f"each count must be 1 to {MAX_VIEWS}",
        )
        ensure(all(m > 0 for m in self.depth_margin), "depth_margin", "margins must be positive")
        ensure(all(m < 2.0 for m in self.depth_margin), "depth_margin", "margins must be under 2.0 (the table size)")
        ensure(self.min_visible_px > 0, "min_visible_px", "must be positive")
        ensure(
            bool(self.backdrops) and set(self.backdrops) <= set(BACKDROPS),
            "backdrops",
            f"each must be one of {', '.join(BACKDROPS)}",
        )


@dataclass(frozen=True)
class Scene:
    objects: tuple[Object3D, ...]
    cameras: tuple[Camera, ...]
    kind: str  # "extreme" or "change"
    margin: float
    look: Look = Look()


class DepthRelationship(Task):
    name = "depth_relationship"
    category = "spatial"
    description = "Which object is nearest or farthest from a camera, and how depth order changes between views"
    Config = DepthRelationshipConfig

    def knobs(self, level: int) -> dict[str, Any]:
        c = self.config
        return {
            "n_objects": c.objects_per_level[level - 1],
            "n_views": c.views_per_level[level - 1],
            "depth_margin": c.depth_margin[level - 1],
        }

    # -- scene and question ---------------------------------------------------------------------------------
    def sample(self, rng: np.random.Generator, level: int) -> Scene:
        k = self.knobs(level)
        radius = table_radius(k["n_objects"]) + 0.2  # sizes vary more than in location_relationship
        objects = scatter_objects(rng, k["n_objects"], radius=radius, width=(0.35, 0.85), height=(0.3, 1.3))
        cameras, _ = camera_ring(rng, k["n_views"], radius=radius)
        if not all_in_frame(objects, cameras, self.image_size):
            raise Reject("an object leaves the frame")
        can_change = k["n_views"] >= 2 and k["n_objects"] > self.config.n_options
        kind = "change" if can_change and rng.uniform() < 0.5 else "extreme"
        look = draw_look(rng, self.config.backdrops)
        return Scene(objects, cameras, kind, float(k["depth_margin"]), look)

    def ask(self, scene: Scene, rng: np.random.Generator, slot: int) -> Question:
        size, n_opt = self.image_size, self.config.n_options
        names = [o.name for o in scene.objects]
        n_views = len(scene.cameras)
        depth = np.array([centres(scene.objects, cam, size)[1] for cam in scene.cameras])
        clear = np.array(
            [[c <= MAX_COVERED for c in covered_fractions(scene.objects, cam, size)] for cam in scene.cameras]
        )
        slots = ", ".join(["<image>"] * (n_views - 1)) + (" and <image>" if n_views > 1 else "<image>")
        lead = (
            f"{slots} show the same objects on a table, each photographed from a different position. "
            if n_views > 1
            else "<image> shows some objects on a table. "
        )
        base = {"kind": scene.kind, "names": names, "margin": scene.margin, "min_px": self.config.min_visible_px}
        if scene.kind == "extreme":
            for v in rng.permutation(n_views):
                v = int(v)
                for which in ("nearest", "farthest") if rng.uniform() < 0.5 else ("farthest", "nearest"):
                    order = np.argsort(depth[v]) if which == "nearest" else np.argsort(-depth[v])
                    best, runner = int(order[0]), int(order[1])
                    if abs(depth[v, best] - depth[v, runner]) < scene.margin or not clear[v, best]:
                        continue
                    pool = [i for i in range(len(names)) if i != best and clear[v, i]]
                    if len(pool) < n_opt - 1:
                        continue
                    distractors = _extreme_distractors(scene, v, which, pool, depth, rng, size)[: n_opt - 1]
                    distractors = [distractors[i] for i in rng.permutation(len(distractors))]
                    chosen = place(best, distractors, slot)
                    word = "nearest to" if which == "nearest" else "farthest from"
                    text = lead + f"Which object is {word} the camera that took Image {v + 1}?"
                    facts = {**base, "view": v, "which": which, "options": [names[i] for i in chosen]}
                    return Question(text=text, options=[f"The {names[i]}" for i in chosen], answer=slot, facts=facts)
            raise Reject("no view with a clear nearest or farthest object")
        pairs = [(j, k) for j in range(n_views) for k in range(n_views) if j != k]
        for p in rng.permutation(len(pairs)):
            j, k = pairs[p]
            for a in rng.permutation(len(names)):
                a = int(a)
                if not (clear[j, a] and clear[k, a]):
                    continue
                both = [i for i in range(len(names)) if i != a and clear[j, i] and clear[k, i]]
                nj = {i: sign(depth[j, a] - depth[j, i], scene.margin) for i in both}  # +1: i nearer than a in j
                fk = {i: sign(depth[k, i] - depth[k, a], scene.margin) for i in both}  # +1: i farther than a in k
                good = [i for i in both if nj[i] == 1 and fk[i] == 1]
                bad = [i for i in both if nj[i] == -1 or fk[i] == -1]
                if len(good) != 1 or len(bad) < n_opt - 1:
                    continue
                half = [i for i in bad if nj[i] == 1 or fk[i] == 1]  # plausible: one condition holds
                rest = [i for i in bad if i not in half]
                ranked = [half[i] for i in rng.permutation(len(half))] + [rest[i] for i in rng.permutation(len(rest))]
                picked = ranked[: n_opt - 1]
                chosen = place(good[0], [picked[i] for i in rng.permutation(len(picked))], slot)
                A = names[a]
                text = lead + (
                    f"Which object is nearer to the camera than the {A} in Image {j + 1}, "
                    f"but farther from the camera than the {A} in Image {k + 1}?"
                )
                facts = {**base, "a": A, "first": int(j), "second": int(k), "options": [names[i] for i in chosen]}
                return Question(text=text, options=[f"The {names[i]}" for i in chosen], answer=slot, facts=facts)
        raise Reject("no object whose depth order changes clearly between two views")

    # -- rendering and verification ----------------------------------------------------------------------------
    def render(self, scene: Scene, question: Question) -> Rendered:
        from mirforge.render.gl import renderer

        views = renderer(self.image_size).views(Scene3D(scene.objects, look=scene.look), list(scene.cameras))
        names = [o.name for o in scene.objects]
        per_view = [measure_view(v, names, self.config.min_visible_px) for v in views]
        regions = [
            Region(image, name, facts["box"]) for image, seen in enumerate(per_view) for name, facts in seen.items()
        ]
        return Rendered(images=[v.rgb for v in views], measured={"views": per_view}, regions=regions)

    def verify(self, question: Question, rendered: Rendered) -> int:
        f, seen = question.facts, rendered.measured["views"]
        half = f["margin"] / 2
        if f["kind"] == "extreme":
            m = seen[f["view"]]
            if any(n not in m for n in f["options"]):
                raise Reject("an option object is hidden in the asked view")
            order = near_to_far(m)
            if f["which"] == "farthest":
                order = order[::-1]
            if len(order) < 2 or abs(m[order[0]]["depth"] - m[order[1]]["depth"]) < half:
                raise Reject("the nearest/farthest object is a near-tie")
            if order[0] not in f["options"]:
                raise Reject("the measured extreme object is not an option")
            return f["options"].index(order[0])
        mj, mk, A = seen[f["first"]], seen[f["second"]], f["a"]
        matches = []
        for idx, name in enumerate(f["options"]):
            if name not in mj or name not in mk or A not in mj or A not in mk:
                raise Reject("an option object is hidden in a compared view")
            nearer = sign(mj[A]["depth"] - mj[name]["depth"], half)
            farther = sign(mk[name]["depth"] - mk[A]["depth"], half)
            if nearer == 1 and farther == 1:
                matches.append(idx)
            elif nearer != -1 and farther != -1:
                raise Reject("an option is too close to a tie to rule out")
        if len(matches) != 1:
            raise Reject(f"{len(matches)} options change depth order as described")
        return matches[0]

    # -- reasoning steps ------------------------------------------------------------------------------------
    def step_facts(self, scene: Scene, question: Question, rendered: Rendered) -> dict[str, Any]:
        f, seen = question.facts, rendered.measured["views"]
        images = []
        for v, m in enumerate(seen):
            order = near_to_far(m)
            biggest = max(m, key=lambda n: (m[n]["px"], n)) if m else None
            images.append(
                {
                    "image": v + 1,
                    "order": [{"name": n, "depth": f"{m[n]['depth']:.2f}", "box": m[n]["box"]} for n in order],
                    "hidden": [n for n in f["names"] if n not in m],
                    "biggest": biggest,
                }
            )
        out: dict[str, Any] = {"kind": f["kind"], "n_views": len(seen), "images": images}
        if f["kind"] == "extreme":
            m = seen[f["view"]]
            opts = [
                {"letter": LETTERS[i], "name": n, "depth": f"{m[n]['depth']:.2f}", "box": m[n]["box"]}
                for i, n in enumerate(f["options"])
            ]
            answer_name = f["options"][question.answer]
            out.update(
                view=f["view"] + 1,
                which=f["which"],
                word="nearest to" if f["which"] == "nearest" else "farthest from",
                options_seen=opts,
                correct=opts[question.answer],
                biggest_trap=images[f["view"]]["biggest"] != answer_name and f["which"] == "nearest",
                biggest=images[f["view"]]["biggest"],
            )
            return out
        mj, mk, A = seen[f["first"]], seen[f["second"]], f["a"]
        opts = []
        words = {1: "nearer than", -1: "farther than", 0: "about as far as"}
        for i, n in enumerate(f["options"]):
            nearer = words[sign(mj[A]["depth"] - mj[n]["depth"], f["margin"] / 2)]
            farther = words[sign(mk[A]["depth"] - mk[n]["depth"], f["margin"] / 2)]
            opts.append(
                {
                    "letter": LETTERS[i],
                    "name": n,
                    "depth_first": f"{mj[n]['depth']:.2f}",
                    "depth_second": f"{mk[n]['depth']:.2f}",
                    "box_first": mj[n]["box"],
                    "box_second": mk[n]["box"],
                    "nearer_first": nearer,
                    "farther_second": farther,
                }
            )
        out.update(
            a=A,
            first=f["first"] + 1,
            second=f["second"] + 1,
            a_first={"depth": f"{mj[A]['depth']:.2f}", "box": mj[A]["box"]},
            a_second={"depth": f"{mk[A]['depth']:.2f}", "box": mk[A]["box"]},
            options_seen=opts,
            correct=opts[question.answer],
        )
        return out


def _extreme_distractors(
    scene: Scene,
    v: int,
    which: str,
    pool: list[int],
    depth: np.ndarray,
    rng: np.random.Generator,
    size: int,
) -> list[int]:
    """Distractors for the nearest/farthest question, best first: the apparently largest object and the answers
    for the other images (both tempting), then the rest in random order. The caller shuffles the ones it keeps."""
    cam = scene.cameras[v]
    area = {}
    for i in pool:
        x0, y0, x1, y1 = projected_box(scene.objects[i], cam, size)
        area[i] = (x1 - x0) * (y1 - y0)
    tempting = []
    biggest = max(pool, key=lambda i: (area[i], i))
    tempting.append(biggest)
    for w in range(len(scene.cameras)):
        other = int(np.argmin(depth[w]) if which == "nearest" else np.argmax(depth[w]))
        if w != v and other in pool and other not in tempting:
            tempting.append(other)
    rest = [i for i in pool if i not in tempting]
    return tempting + [rest[i] for i in rng.permutation(len(rest))]
