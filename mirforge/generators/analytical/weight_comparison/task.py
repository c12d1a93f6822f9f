"""weight_comparison: order objects by weight from several balance-scale pictures (transitivity).

Each image shows a balance scale in 3D: a beam on a post with a pan hanging from each end. The pan holding
the heavier load sinks; equal loads keep the beam level. Objects keep their look (colour, shape, size) across
images, and their size says nothing about their weight. No single image answers the question: the heaviest,
the lightest or the full order follows only by chaining the comparisons (a > b and b > c give a > c). At the
hardest level a lighter pan may hold two objects (the single heavier object then outweighs each of them) and
two objects may balance each other exactly.

The answer is computed from the hidden weights and the comparisons chosen so that it is unique. The verifier
reads each picture: which pan is lower (pan heights in the segmentation mask), which objects stand on which
side of the post (their pixels), then runs the transitive closure of the relations it read and answers from
that alone.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

import numpy as np

from mirforge.errors import Reject
from mirforge.generators.common import object_name, permutation_distractors
from mirforge.render.look import Backdrop, Look
from mirforge.render.scene3d import PALETTE, SHAPES, Object3D, Scene3D, orbit_camera
from mirforge.task import Question, Region, Rendered, Task, TaskConfig, ensure, place

QTYPES = ("heaviest", "lightest", "order")
LOOK = Look(Backdrop(sky=(235, 238, 242)))
BEAM_HALF = 1.2
PIVOT_Z = 1.7
HANG = 0.8
PAN_RADIUS = 0.45
TILT_DEG = 11.0
LEVEL_PX = 3.0  # pan height difference below this: balanced
TILT_PX = 12.0  # above this: tilted; in between the picture is ambiguous
OBJECT_COLORS = tuple(c for c in PALETTE if c not in ("gray", "brown"))
OBJECT_SHAPES = tuple(s for s in SHAPES if s != "capsule")
STRUCTURE = (120, 110, 100)
PAN_COLOR = (200, 170, 90)

Pan = tuple[int, ...]  # object indices on a pan
Comparison = tuple[Pan, Pan]  # (left pan, right pan)


@dataclass
class WeightComparisonConfig(TaskConfig):
    objects_per_level: tuple[int, ...] = (4, 5, 6)
    min_visible_px: int = 60

    def validate(self) -> None:
        super().validate()
        ensure(len(self.objects_per_level) == 3, "objects_per_level", "needs one count per level (3 values)")
        ensure(
            all(4 <= n <= 7 for n in self.objects_per_level),
            "objects_per_level",
            "each count must be between 4 and 7 (3 to 6 pictures)",
        )
        ensure(self.n_options <= 4, "n_options", "at most 4")
        ensure(self.min_visible_px > 0, "min_visible_px", "must be positive")


@dataclass(frozen=True)
class Scene:
    names: tuple[str, ...]
    shapes: tuple[str, ...]
    colors: tuple[str, ...]
    sizes: tuple[float, ...]
    weights: tuple[int, ...]
    comparisons: tuple[Comparison, ...]
    qtype: str


class WeightComparison(Task):
    name = "weight_comparison"
    category = "analytical"
    description = "Chain balance-scale pictures to find the heaviest, the lightest or the order by weight"
    Config = WeightComparisonConfig

    def knobs(self, level: int) -> dict[str, Any]:
        return {
            "n_objects": self.config.objects_per_level[level - 1],
            "questions": [("heaviest", "lightest"), QTYPES, QTYPES][level - 1],
            "two_object_pans": level == 3,
            "equal_pair": level == 3,
            "extra_comparison": level >= 2,
        }

    # -- scene and question ---------------------------------------------------------------------------------
    def sample(self, rng: np.random.Generator, level: int) -> Scene:
        k = self.knobs(level)
        n = k["n_objects"]
        qtype = k["questions"][int(rng.integers(len(k["questions"])))]
        colors = [OBJECT_COLORS[int(i)] for i in rng.permutation(len(OBJECT_COLORS))[:n]]
        shapes = [OBJECT_SHAPES[int(i)] for i in rng.integers(len(OBJECT_SHAPES), size=n)]
        names = [object_name(c, s) for c, s in zip(colors, shapes, strict=True)]
        sizes = [round(float(rng.uniform(0.22, 0.4)), 3) for _ in range(n)]
        # distinct weights; with an equal pair, two objects (not at the asked end) share one
        weights = sorted((int(w) for w in rng.choice(np.arange(2, 40), size=n, replace=False)), reverse=True)
        equal = k["equal_pair"] and qtype != "order" and n >= 4
        if equal:
            j = int(rng.integers(1, n - 2))  # ranks j and j+1 share a weight; never the heaviest or the lightest
            weights[j + 1] = weights[j]
        ranks = list(range(n))  # rank r is the r-th heaviest; object index = perm[r]
        perm = [int(i) for i in rng.permutation(n)]
        w_of = [0] * n
        for r in ranks:
            w_of[perm[r]] = weights[r]
        comps: list[tuple[Pan, Pan]] = []  # (heavier pan, lighter pan), objects as indices
        eq_rank = j if equal else -1

        def add(heavy: int, light: int) -> None:
            comps.append(((perm[heavy],), (perm[light],)))

        if qtype == "order":
            for r in range(n - 1):
                add(r, r + 1)
        else:
            reps = [r for r in ranks if r != eq_rank + 1] if equal else ranks  # the equal twin joins by balance
            if qtype == "heaviest":  # everyone has a heavier parent: the top is unique
                for idx in range(1, len(reps)):
                    add(reps[int(rng.integers(idx))], reps[idx])
            else:  # everyone has a lighter child: the bottom is unique
                for idx in range(len(reps) - 1):
                    add(reps[idx], reps[int(rng.integers(idx + 1, len(reps)))])
            if equal:
                comps.append(((perm[eq_rank],), (perm[eq_rank + 1],)))
        if k["two_object_pans"]:
            comps = [_add_second(rng, c, w_of, n) for c in comps]
        if k["extra_comparison"] and len(comps) < 6:
            a, b = sorted(int(v) for v in rng.choice(n, size=2, replace=False))
            if weights[a] != weights[b]:
                add(a, b)
        comps = [comps[int(i)] for i in rng.permutation(len(comps))]
        comparisons = []
        for heavy, light in comps:  # which side the heavier load stands on
            comparisons.append((heavy, light) if rng.random() < 0.5 else (light, heavy))
        if not 3 <= len(comparisons) <= 6:
            raise Reject("picture count out of range")
        scene = Scene(
            names=tuple(names),
            shapes=tuple(shapes),
            colors=tuple(colors),
            sizes=tuple(sizes),
            weights=tuple(w_of),
            comparisons=tuple(comparisons),
            qtype=qtype,
        )
        relations = [_relation(c, _tilt_of(scene, c)) for c in scene.comparisons]
        answer = solve(qtype, n, relations)
        if answer is None:
            raise Reject("comparisons do not decide the answer")
        if qtype != "order":  # the answer must need a chain: it never meets every other object directly
            met = {k for c in comparisons if answer in c[0] + c[1] for k in c[0] + c[1]}
            if len(met) == n:
                raise Reject("one object meets all others directly")
        return scene

    def ask(self, scene: Scene, rng: np.random.Generator, slot: int) -> Question:
        n = len(scene.names)
        relations = [_relation(c, _tilt_of(scene, c)) for c in scene.comparisons]
        answer = solve(scene.qtype, n, relations)
        w = scene.weights
        if scene.qtype == "order":
            # near misses (adjacent swaps) around a pivot that is the answer only 1 time in k, so the answer is
            # not the order closest to all the others
            picks = permutation_distractors(rng, tuple(answer), self.config.n_options - 1, near=True)
            opts = place(tuple(answer), picks, slot)
            options = [" > ".join(scene.names[i] for i in o) for o in opts]
        else:
            target = answer
            others = [i for i in range(n) if i != target]
            # the tempting misses: the runner-up end, then objects that "win" or "lose" a single picture
            key = (lambda i: -w[i]) if scene.qtype == "heaviest" else (lambda i: w[i])
            others.sort(key=key)
            near = others[:1] + [others[1 + int(i)] for i in rng.permutation(len(others) - 1)]
            options = place(scene.names[target], [scene.names[i] for i in near[: self.config.n_options - 1]], slot)
        k = len(scene.comparisons)
        slots = ", ".join(["<image>"] * k)
        lead = {
            "heaviest": "Which object is the heaviest?",
            "lightest": "Which object is the lightest?",
            "order": "Which list orders the objects from heaviest to lightest?",
        }[scene.qtype]
        intro = [
            f"The {k} pictures {slots} show balance scales loaded with the same set of objects. ",
            f"Here are {k} balance scales weighing the same objects in different pairings: {slots}. ",
        ][int(rng.integers(2))]
        rule = [
            "A pan that sinks holds the heavier load; a level beam means both loads weigh the same. "
            "An object's size says nothing about its weight. ",
            "The lower pan carries more weight, and a level beam means equal weights; "
            "the sizes of the objects are no guide to their weights. ",
        ][int(rng.integers(2))]
        return Question(text=intro + rule + lead, options=options, answer=slot, facts={"qtype": scene.qtype})

    # -- rendering and verification ----------------------------------------------------------------------------
    def render(self, scene: Scene, question: Question) -> Rendered:
        from mirforge.render.gl import renderer

        r = renderer(self.image_size)
        cam = orbit_camera(0.0, 8.0, 4.7, target=(0.0, 0.0, 1.1))
        images, regions, pictures = [], [], []
        min_px = self.config.min_visible_px
        for k, comp in enumerate(scene.comparisons):
            tilt = _tilt_of(scene, comp)
            objs, roles = _scale_objects(scene, comp, tilt)
            (view,) = r.views(Scene3D(tuple(objs), look=LOOK), [cam])
            images.append(view.rgb)
            left_pan, right_pan, pivot = roles["left_pan"], roles["right_pan"], roles["pivot"]
            pans = {}
            for side, idx in (("left", left_pan), ("right", right_pan)):
                box = view.box(idx)
                if box is None:
                    raise Reject("pan not visible")
                pans[side] = box
                regions.append(Region(k, f"{side} pan", box))
            pivot_box = view.box(pivot)
            pivot_x = (pivot_box[0] + pivot_box[2]) / 2
            seen = []
            for name, idx in roles["objects"]:
                if view.pixels(idx) < min_px:
                    raise Reject(f"{name} hidden")
                box = view.box(idx)
                regions.append(Region(k, name, box))
                seen.append({"name": name, "x": (box[0] + box[2]) / 2, "bottom": box[3], "box": box})
            pictures.append(
                {
                    "pivot_x": pivot_x,
                    "left_pan_y": (pans["left"][1] + pans["left"][3]) / 2,
                    "right_pan_y": (pans["right"][1] + pans["right"][3]) / 2,
                    "objects": seen,
                }
            )
        measured = {"pictures": pictures, "names": list(scene.names), "qtype": scene.qtype}
        return Rendered(images=images, measured=measured, regions=regions)

    def verify(self, question: Question, rendered: Rendered) -> int:
        m = rendered.measured
        names = m["names"]
        relations = [read_picture(p, names) for p in m["pictures"]]
        answer = solve(m["qtype"], len(names), [r for r in relations])
        if answer is None:
            raise Reject("the pictures as read do not decide the answer")
        if m["qtype"] == "order":
            text = " > ".join(names[i] for i in answer)
        else:
            text = names[answer]
        if question.options.count(text) != 1:
            raise Reject("derived answer not among the options")
        return question.options.index(text)

    # -- reasoning steps ------------------------------------------------------------------------------------
    def step_facts(self, scene: Scene, question: Question, rendered: Rendered) -> dict[str, Any]:
        m = rendered.measured
        names = m["names"]
        boxes = {(r.image, r.name): r.box for r in rendered.regions}
        pictures = []
        for k, p in enumerate(m["pictures"]):
            heavy, light, kind = read_picture(p, names)
            left = [o["name"] for o in p["objects"] if o["x"] < p["pivot_x"]]
            right = [o["name"] for o in p["objects"] if o["x"] >= p["pivot_x"]]
            lower = "left" if p["left_pan_y"] > p["right_pan_y"] + LEVEL_PX else "right"
            pictures.append(
                {
                    "image": k + 1,
                    "left": left,
                    "right": right,
                    "level": kind == "equal",
                    "lower": lower,
                    "drop": round(abs(p["left_pan_y"] - p["right_pan_y"])),
                    "heavy": [names[i] for i in heavy],
                    "light": [names[i] for i in light],
                    "objects": [{"name": o["name"], "box": o["box"]} for o in p["objects"]],
                    "pans": {"left": boxes[(k, "left pan")], "right": boxes[(k, "right pan")]},
                }
            )
        relations = [read_picture(p, names) for p in m["pictures"]]
        answer = solve(scene.qtype, len(names), relations)
        chains = _chains(scene.qtype, len(names), relations, answer)
        return {
            "qtype": scene.qtype,
            "names": list(names),
            "pictures": pictures,
            "answer_text": " > ".join(names[i] for i in answer) if scene.qtype == "order" else names[answer],
            "chains": [[names[i] for i in ch] for ch in chains],
            "equal_pairs": [[names[i] for i in hv + lt] for hv, lt, kind in relations if kind == "equal"],
        }


# -- reading and reasoning ----------------------------------------------------------------------------------
def read_picture(p: dict[str, Any], names: list[str]) -> tuple[tuple[int, ...], tuple[int, ...], str]:
    """(heavier side, lighter side, "greater" | "equal") from one measured picture."""
    left = tuple(sorted(names.index(o["name"]) for o in p["objects"] if o["x"] < p["pivot_x"]))
    right = tuple(sorted(names.index(o["name"]) for o in p["objects"] if o["x"] >= p["pivot_x"]))
    if not left or not right:
        raise Reject("a pan looks empty")
    drop = p["left_pan_y"] - p["right_pan_y"]  # > 0: left pan lower in the image
    if abs(drop) <= LEVEL_PX:
        return left, right, "equal"
    if abs(drop) < TILT_PX:
        raise Reject("beam tilt is ambiguous")
    return (left, right, "greater") if drop > 0 else (right, left, "greater")


def _relation(comp: Comparison, tilt: int) -> tuple[tuple[int, ...], tuple[int, ...], str]:
    left, right = comp
    if tilt == 0:
        return left, right, "equal"
    return (left, right, "greater") if tilt < 0 else (right, left, "greater")


def _tilt_of(scene: Scene, comp: Comparison) -> int:
    """-1: left pan sinks, +1: right pan sinks, 0: level."""
    left = sum(scene.weights[i] for i in comp[0])
    right = sum(scene.weights[i] for i in comp[1])
    return 0 if left == right else (-1 if left > right else 1)


def _closure(n: int, relations: list) -> tuple[np.ndarray, list[int]]:
    """Strict order matrix gt[a, b] (a surely heavier than b) and equality classes, from what the pictures say."""
    cls = list(range(n))

    def find(a: int) -> int:
        while cls[a] != a:
            a = cls[a]
        return a

    for heavy, light, kind in relations:
        if kind == "equal" and len(heavy) == 1 and len(light) == 1:
            ra, rb = find(heavy[0]), find(light[0])
            cls[max(ra, rb)] = min(ra, rb)
    roots = [find(i) for i in range(n)]
    gt = np.zeros((n, n), dtype=bool)
    for heavy, light, kind in relations:
        if kind == "greater" and len(heavy) == 1:  # one object outweighs the whole other pan: and each of it
            for b in light:
                gt[heavy[0], b] = True
    same = np.array([[roots[a] == roots[b] for b in range(n)] for a in range(n)])
    for _ in range(n + 1):  # propagate through equalities and transitivity
        gt = gt | (same.astype(int) @ gt.astype(int) @ same.astype(int) > 0)
        gt = gt | (gt.astype(int) @ gt.astype(int) > 0)
    if np.any(gt & gt.T) or np.any(np.diag(gt)):
        raise Reject("contradictory pictures")
    return gt, roots


def solve(qtype: str, n: int, relations: list) -> Any:
    """The answer the relations force (object index, or order tuple), or None if they leave it open."""
    gt, _roots = _closure(n, relations)
    if qtype == "heaviest":
        tops = [a for a in range(n) if all(gt[a, b] for b in range(n) if b != a)]
        return tops[0] if len(tops) == 1 else None
    if qtype == "lightest":
        bottoms = [a for a in range(n) if all(gt[b, a] for b in range(n) if b != a)]
        return bottoms[0] if len(bottoms) == 1 else None
    order = sorted(range(n), key=lambda a: -int(gt[a].sum()))
    if all(gt[order[i], order[i + 1]] for i in range(n - 1)):
        return tuple(order)
    return None


def _chains(qtype: str, n: int, relations: list, answer: Any) -> list[list[int]]:
    """Direct 'heavier than' steps as chains, for the reasoning text."""
    direct = {}
    for heavy, light, kind in relations:
        if kind == "greater" and len(heavy) == 1:
            for b in light:
                direct.setdefault(heavy[0], []).append(b)
    if qtype == "order":
        return [list(answer)]
    chains = []
    if qtype == "heaviest":

        def walk(a: int, path: list[int]) -> None:
            nxt = sorted(direct.get(a, []))
            if not nxt:
                chains.append(path)
            for b in nxt:
                if b not in path:
                    walk(b, [*path, b])

        walk(answer, [answer])
    else:
        up: dict[int, list[int]] = {}
        for a, bs in direct.items():
            for b in bs:
                up.setdefault(b, []).append(a)

        def climb(a: int, path: list[int]) -> None:
            nxt = sorted(up.get(a, []))
            if not nxt:
                chains.append(list(reversed(path)))
            for b in nxt:
                if b not in path:
                    climb(b, [*path, b])

        climb(answer, [answer])
    unique = []
    for ch in chains:
        if ch not in unique:
            unique.append(ch)
    return unique[:6]


def _add_second(rng: np.random.Generator, comp: tuple[Pan, Pan], w: list[int], n: int) -> tuple[Pan, Pan]:
    """Maybe put a second object on the lighter pan, keeping that pan lighter."""
    heavy, light = comp
    if len(heavy) != 1 or rng.random() < 0.5:
        return comp
    cands = [i for i in range(n) if i not in heavy + light and w[heavy[0]] > w[light[0]] + w[i]]
    if not cands:
        return comp
    return heavy, (*light, cands[int(rng.integers(len(cands)))])


# -- geometry -------------------------------------------------------------------------------------------------
def _scale_objects(scene: Scene, comp: Comparison, tilt: int) -> tuple[list[Object3D], dict[str, Any]]:
    """The balance and its load; ``roles`` maps parts to their object indices."""
    theta = math.radians(TILT_DEG) * tilt  # > 0: right end down
    objs = [
        Object3D("base", "box", (1.3, 0.6, 0.1), STRUCTURE, (0.0, 0.0)),
        Object3D("post", "cylinder", (0.1, 0.1, PIVOT_Z - 0.1), STRUCTURE, (0.0, 0.0), base=0.1),
        Object3D("pivot", "sphere", (0.16, 0.16, 0.16), PAN_COLOR, (0.0, -0.02), base=PIVOT_Z - 0.08),
    ]
    roles: dict[str, Any] = {"pivot": 2}
    n_seg = 28
    for t in np.linspace(-BEAM_HALF, BEAM_HALF, n_seg):
        x, z = t * math.cos(theta), PIVOT_Z - t * math.sin(theta)
        objs.append(Object3D("beam", "box", (2 * BEAM_HALF / n_seg + 0.02, 0.07, 0.07), STRUCTURE, (x, 0.0), z - 0.035))
    for side, sign, load in (("left", -1, comp[0]), ("right", 1, comp[1])):
        xe = sign * BEAM_HALF * math.cos(theta)
        ze = PIVOT_Z - sign * BEAM_HALF * math.sin(theta)
        pan_z = ze - HANG
        yoke_z = pan_z + 0.62
        objs.append(Object3D("string", "cylinder", (0.025, 0.025, ze - yoke_z), STRUCTURE, (xe, 0.0), yoke_z))
        objs.append(Object3D("yoke", "box", (1.7 * PAN_RADIUS, 0.04, 0.04), STRUCTURE, (xe, 0.0), yoke_z - 0.02))
        for dx in (-PAN_RADIUS * 0.85, PAN_RADIUS * 0.85):
            objs.append(Object3D("string", "cylinder", (0.02, 0.02, yoke_z - pan_z), STRUCTURE, (xe + dx, 0.0), pan_z))
        roles[f"{side}_pan"] = len(objs)
        objs.append(
            Object3D(f"{side} pan", "cylinder", (2 * PAN_RADIUS, 2 * PAN_RADIUS, 0.05), PAN_COLOR, (xe, 0.0), pan_z)
        )
        offsets = [0.0] if len(load) == 1 else [-0.17, 0.17]
        for i, dx in zip(load, offsets, strict=True):
            size = scene.sizes[i] if len(load) == 1 else min(scene.sizes[i], 0.3)
            roles.setdefault("objects", []).append((scene.names[i], len(objs)))
            objs.append(
                Object3D(
                    scene.names[i],
                    scene.shapes[i],
                    (size, size, size * (1.3 if scene.shapes[i] in ("cylinder", "cone") else 1.0)),
                    PALETTE[scene.colors[i]],
                    (xe + dx, -0.05),
                    base=pan_z + 0.05,
                )
            )
    return objs, roles
