"""weight_comparison: which of four objects is the heaviest (or the lightest), from several balance pictures.

Each image shows a balance scale: a beam on a post with a pan hanging from each end, everyday objects from the
catalogue on the pans. The pan holding the heavier load sinks; equal loads keep the beam level. The question asks
which of the four objects named in the options is the heaviest (or the lightest); the pictures also weigh other
objects, links of the chains that connect the options.

The comparisons form a tree rooted at the answer whose every branch ends in a wrong option: each picture is one
edge (a heavier object against a lighter one, or two lighter ones together at level 3, or a level beam between
two objects of the same weight). So no picture is spare: hiding one cuts a branch, and the wrong option below the
cut could then outweigh the answer (``consistent``). The lightest question weighs the tree upside down, and one
more picture proves an object lighter than one other object only (an object rising against a pan is lighter than
the load, not than each object on it); so below every edge of its tree one wrong option leads to every other wrong
option there, which one picture could then prove the lightest. No two pictures weigh the same objects, and each
picture has its own camera; the scale's look, the backdrop and the object family are drawn per instance, and no
two kinds that look alike (``LOOKALIKES``) are weighed in one instance, where their names would not tell them apart.
At levels 2 and 3 two beams are level, the answer against a link and a wrong option against another link: the answer
is then not the one option that never rises (the heaviest never loses, but here neither does that wrong option).

The verifier reads each picture: which pan is lower (pan heights in the segmentation mask), which objects stand
on which side of the post (their pixels), then runs the transitive closure of the relations it read.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, replace
from typing import Any

import numpy as np

from mirforge.errors import Reject
from mirforge.render.look import Backdrop, Look
from mirforge.render.objects.catalogue import get_kind, model, variants
from mirforge.render.objects.place import place as place_object
from mirforge.render.scene3d import Camera, Object3D, Scene3D, orbit_camera
from mirforge.task import Question, Region, Rendered, Task, TaskConfig, check_families, ensure, per_level, place

QTYPES = ("heaviest", "lightest")
BEAM_HALF = 1.2
PIVOT_Z = 1.7
HANG = 0.8
PAN_RADIUS = 0.45
LOOK_AT = (0.0, 0.0, 1.1)  # the cameras' target, about the middle of the balance
FRAME_MARGIN = 0.04  # of the half-frame (9 px at 448): the balance and its load keep this clear of every edge
LEVEL_PX = 8.0  # pan height difference below this: balanced (a turned camera puts one pan a few pixels lower)
TILT_PX = 24.0  # above this: tilted (a 9 degree tilt drops a pan ~40 px); in between the picture is ambiguous
VARIANT_POOL = 3  # variants drawn per kind (each new variant costs a mesh build)
# styles a kind is drawn in, where some of its styles do not read as their name on a pan: an empty clear tumbler
# renders as an opaque white cup, a glass of juice as juice in a glass
SHOWN_STYLES = {"glass": ("glass of juice",)}
# an object's largest dimension on the scale: real sizes pressed together (a power below 1), so an apple stays
# smaller than a kettle and a wine bottle taller than a mug, yet the smallest stays large enough to see and the
# largest fits its pan. Weights are drawn apart from the kinds, so sizes still say nothing about weights.
SIZE_AT_30CM = 0.45
SIZE_POWER = 0.6
FAMILIES: dict[str, tuple[str, ...]] = {
    "kitchen": ("mug", "kettle", "teapot", "jar", "glass", "can", "bottle", "thermos", "wine bottle", "apple"),
    "toys": ("ball", "basketball", "soccer ball", "rubber duck", "teddy bear", "toy car", "toy truck", "globe"),
    "household": ("alarm clock", "candle", "vase", "laptop", "shoe box", "flower pot", "table lamp", "bucket"),
}
# kinds that look alike on a pan (a clear water bottle and a clear wine bottle): never two of one group in an instance
# a glass of juice and a can are both a coloured cylinder with a pale rim, a slim black can and a thermos one dark tube
LOOKALIKES: tuple[frozenset[str], ...] = (
    frozenset({"bottle", "wine bottle"}),
    frozenset({"glass", "can"}),
    frozenset({"can", "thermos"}),
)
# scale looks: (beam and post, pans, backdrop)
STYLES = (
    ((120, 110, 100), (200, 170, 90), (235, 238, 242)),  # pewter and brass
    ((92, 64, 40), (182, 140, 86), (244, 236, 222)),  # walnut and bronze
    ((70, 80, 92), (176, 184, 192), (226, 234, 240)),  # steel
    ((150, 40, 40), (214, 196, 150), (238, 240, 232)),  # red lacquer
)

Pan = tuple[int, ...]  # object indices on a pan
Comparison = tuple[Pan, Pan]  # (left pan, right pan)


@dataclass
class WeightComparisonConfig(TaskConfig):
    objects_per_level: tuple[int, ...] = per_level(5, 6, 8)  # objects weighed: pictures = objects - 1 (- merges)
    min_visible_px: int = 60
    families: tuple[str, ...] = tuple(FAMILIES)
    family: str = ""  # one family only (empty: every family in ``families``)

    def validate(self) -> None:
        super().validate()
        ensure(self.n_options == 4, "n_options", "must be 4 (the answer and three wrong options end the branches)")
        ensure(
            all(self.n_options <= n <= 8 for n in self.objects_per_level),
            "objects_per_level",
            f"each count must be between {self.n_options} and 8",
        )
        ensure(self.min_visible_px > 0, "min_visible_px", "must be positive")
        check_families(self.families, self.family, FAMILIES)

    def chosen(self) -> tuple[str, ...]:
        return (self.family,) if self.family else self.families


@dataclass(frozen=True)
class Scene:
    family: str
    names: tuple[str, ...]
    kinds: tuple[str, ...]
    variants: tuple[int, ...]
    sizes: tuple[float, ...]  # largest dimension on the scale (``_size``)
    weights: tuple[float, ...]
    comparisons: tuple[Comparison, ...]
    options: tuple[int, ...]  # the answer first, then the wrong options
    qtype: str
    style: int
    tilt_deg: float
    cameras: tuple[tuple[float, float, float], ...]  # per picture: azimuth, elevation, distance


class WeightComparison(Task):
    name = "weight_comparison"
    category = "analytical"
    description = "Chain balance-scale pictures to find which of four objects is the heaviest or the lightest"
    Config = WeightComparisonConfig
    # the question (heaviest or lightest) of an index: balanced over every block, as lightest trees are redrawn
    # more often (_least_below_every_edge) and a drawn question would lean to the heaviest
    variants = len(QTYPES)

    def knobs(self, level: int) -> dict[str, Any]:
        return {
            "n_objects": self.config.objects_per_level[level - 1],
            "questions": list(QTYPES),
        }

    def scene_knobs(self, scene: Scene) -> dict[str, Any]:
        # what was drawn: level 3 may put two objects on a pan (heaviest questions whose tree has two siblings),
        # levels 2 and 3 balance one picture
        return {
            "family": scene.family,
            "two_object_pans": any(len(pan) > 1 for comp in scene.comparisons for pan in comp),
            "equal_pair": any(_tilt_of(scene, comp) == 0 for comp in scene.comparisons),
        }

    # -- scene and question ---------------------------------------------------------------------------------
    def sample(self, rng: np.random.Generator, level: int, variant: int | None = None) -> Scene:
        k = self.knobs(level)
        n, n_wrong = k["n_objects"], self.config.n_options - 1
        qtype = QTYPES[int(rng.integers(len(QTYPES))) if variant is None else variant]
        chosen = self.config.chosen()
        family = chosen[int(rng.integers(len(chosen)))]
        pool = FAMILIES[family]
        kinds = _distinct_kinds(rng, pool, n)
        pools = [_variant_pool(kd) for kd in kinds]
        vars_ = [pool[int(rng.integers(len(pool)))] for pool in pools]
        sizes = [_size(kd, v, float(rng.uniform(0.9, 1.1))) for kd, v in zip(kinds, vars_, strict=True)]
        # the tree: object 0 is the answer, 1..n_wrong the wrong options, the rest links between them
        parent = _tree(rng, n, n_wrong, least_below=qtype == "lightest")
        children: dict[int, list[int]] = {}
        for c in range(1, n):
            children.setdefault(parent[c], []).append(c)
        equal_edges: set[int] = set()
        if level >= 2:
            # two pictures balance: the answer against a link, and a wrong option against another link. Then two
            # options never rise and both weigh on a level beam, so "the option that never loses" is not the
            # answer: the chains through the level beams are
            links = range(n_wrong + 1, n)
            tied = [c for c in links if parent[c] == 0]
            if not tied:
                raise Reject("no link under the answer for a level beam")
            top = tied[int(rng.integers(len(tied)))]
            cands = [c for c in range(1, n_wrong + 1) if parent[c] in links and parent[c] != top]
            if not cands:
                raise Reject("no wrong option under another link for a level beam")
            equal_edges = {top, cands[int(rng.integers(len(cands)))]}
        merged: tuple[int, int] | None = None
        if level == 3 and qtype == "heaviest":
            pairs = [(p, cs) for p, cs in children.items() if len([c for c in cs if c not in equal_edges]) >= 2]
            if pairs:
                p, cs = pairs[int(rng.integers(len(pairs)))]
                cs = [c for c in cs if c not in equal_edges]
                a, b = (int(v) for v in rng.choice(cs, size=2, replace=False))
                merged = (a, b)
        # weights top-down: a child lighter than its parent (half of it or less when it shares a pan)
        w = [0.0] * n
        w[0] = float(rng.uniform(60, 100))
        for c in _top_down(parent, n):
            if c in equal_edges:
                w[c] = w[parent[c]]
            elif merged and c in merged:
                w[c] = w[parent[c]] * float(rng.uniform(0.15, 0.4))
            else:
                w[c] = w[parent[c]] * float(rng.uniform(0.45, 0.85))
        if qtype == "lightest":  # the same tree upside down: every relation flips, a level beam stays level
            w = [1000.0 / v for v in w]
        pictures: list[tuple[Pan, Pan]] = []
        for c in range(1, n):
            if merged and c == merged[1]:
                continue
            load = (c, merged[1]) if merged and c == merged[0] else (c,)
            pictures.append(((parent[c],), load))
        pictures = [pictures[int(i)] for i in rng.permutation(len(pictures))]
        comparisons = tuple((a, b) if rng.random() < 0.5 else (b, a) for a, b in pictures)
        # names: the object ids shuffled, so the answer is not always object 0 in any listing
        order = [int(i) for i in rng.permutation(n)]  # order[new] = old
        new_of = {old: new for new, old in enumerate(order)}
        comparisons = tuple(
            (tuple(sorted(new_of[i] for i in left)), tuple(sorted(new_of[i] for i in right)))
            for left, right in comparisons
        )
        scene = Scene(
            family=family,
            names=tuple(model(kinds[old], vars_[old]).noun for old in order),
            kinds=tuple(kinds[old] for old in order),
            variants=tuple(vars_[old] for old in order),
            sizes=tuple(sizes[old] for old in order),
            weights=tuple(w[old] for old in order),
            comparisons=comparisons,
            options=tuple(new_of[i] for i in range(self.config.n_options)),
            qtype=qtype,
            style=int(rng.integers(len(STYLES))),
            tilt_deg=round(float(rng.uniform(9.0, 14.0)), 2),
            cameras=tuple(
                (float(rng.uniform(-10, 10)), float(rng.uniform(2, 10)), float(rng.uniform(4.1, 4.8)))
                for _ in comparisons
            ),
        )
        relations = [_relation(c, _tilt_of(scene, c)) for c in scene.comparisons]
        if solve(qtype, n, relations, list(scene.options)) != scene.options[0]:
            raise Reject("comparisons do not decide the answer")
        return replace(scene, cameras=_framed(scene))

    def ask(self, scene: Scene, rng: np.random.Generator, slot: int) -> Question:
        wrong = [scene.names[i] for i in scene.options[1:]]
        wrong = [wrong[int(i)] for i in rng.permutation(len(wrong))]
        options = place(scene.names[scene.options[0]], wrong, slot)
        k = len(scene.comparisons)
        slots = ", ".join(["<image>"] * k)
        lead = [
            f"Which of these objects is the {scene.qtype}?",
            f"Of the objects in the options, which one is the {scene.qtype}?",
        ][int(rng.integers(2))]
        intro = [
            f"The {k} pictures {slots} show a balance scale loaded with different objects. ",
            f"Here are {k} weighings on a balance scale: {slots}. ",
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
        structure, pan_color, backdrop = STYLES[scene.style]
        images, regions, pictures = [], [], []
        min_px = self.config.min_visible_px
        for k, comp in enumerate(scene.comparisons):
            tilt = _tilt_of(scene, comp)
            objs, roles = _scale_objects(scene, comp, tilt, structure, pan_color)
            az, el, dist = scene.cameras[k]
            cam = orbit_camera(az, el, dist, target=LOOK_AT)
            (view,) = r.views(Scene3D(tuple(objs), look=Look(Backdrop(sky=backdrop))), [cam])
            images.append(view.rgb)
            pans = {}
            for side in ("left", "right"):
                box = view.box(roles[f"{side}_pan"])
                if box is None:
                    raise Reject("pan not visible")
                pans[side] = box
                regions.append(Region(k, f"{side} pan", box))
            pivot_box = view.box(roles["pivot"])
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
        opts = [names.index(o) for o in question.options]
        answer = solve(m["qtype"], len(names), relations, opts)
        if answer is None:
            raise Reject("the pictures as read do not decide the answer")
        return opts.index(answer)

    def consistent(self, question: Question, rendered: Rendered, hidden: frozenset[int]) -> set[int]:
        """Options that some outcome of the hidden weighings could make the answer: an option stays unless a
        shown picture (or a chain of them) makes another option at least as heavy (lightest: as light). Any
        option not so bounded could be made the heaviest by one more picture: it alone outweighing a pan of
        everything not shown to outweigh it. Not so the lightest: an object alone rising against a pan is lighter
        than the pan's load, not than each object on it, so with one picture hidden an option stays only where
        that one picture could prove it lighter than every other option (``_one_picture_makes_lightest``); else two
        options cut off below the hidden picture, each unbounded, were counted, though neither could be the one
        answer (14 of 32 lightest questions at levels 2 and 3 had such a picture, seed 90101)."""
        m = rendered.measured
        names = m["names"]
        relations = [read_picture(p, names) for k, p in enumerate(m["pictures"]) if k not in hidden]
        gt, roots = _closure(len(names), relations)
        opts = [names.index(o) for o in question.options]
        if m["qtype"] == "lightest" and len(hidden) == 1:
            return {i for i, x in enumerate(opts) if _one_picture_makes_lightest(gt, roots, opts, x)}
        alive = set()
        for i, x in enumerate(opts):
            beaten = False
            for y in opts:
                if y == x:
                    continue
                above = (
                    gt[y, x] or roots[y] == roots[x] if m["qtype"] == "heaviest" else gt[x, y] or roots[y] == roots[x]
                )
                beaten = beaten or bool(above)
            if not beaten:
                alive.add(i)
        return alive

    # -- reasoning steps ------------------------------------------------------------------------------------
    def step_facts(self, scene: Scene, question: Question, rendered: Rendered) -> dict[str, Any]:
        m = rendered.measured
        names = m["names"]
        boxes = {(r.image, r.name): r.box for r in rendered.regions}
        pictures = []
        relations = []
        for k, p in enumerate(m["pictures"]):
            heavy, light, kind = read_picture(p, names)
            relations.append((heavy, light, kind))
            left = [f"the {o['name']}" for o in p["objects"] if o["x"] < p["pivot_x"]]
            right = [f"the {o['name']}" for o in p["objects"] if o["x"] >= p["pivot_x"]]
            lower = "left" if p["left_pan_y"] > p["right_pan_y"] + LEVEL_PX else "right"
            pictures.append(
                {
                    "image": k + 1,
                    "left": left,
                    "right": right,
                    "level": kind == "equal",
                    "lower": lower,
                    "drop": round(abs(p["left_pan_y"] - p["right_pan_y"])),
                    "heavy": [f"the {names[i]}" for i in heavy],
                    "light": [f"the {names[i]}" for i in light],
                    "objects": [{"name": o["name"], "box": o["box"]} for o in p["objects"]],
                    "pans": {"left": boxes[(k, "left pan")], "right": boxes[(k, "right pan")]},
                }
            )
        opts = [names.index(o) for o in question.options]
        answer = solve(scene.qtype, len(names), relations, opts)
        return {
            "qtype": scene.qtype,
            "names": list(names),
            "options": list(question.options),
            "pictures": pictures,
            "answer_text": names[answer],
            "chains": _chains(scene.qtype, relations, answer, [o for o in opts if o != answer], names),
            "equal_pairs": [[f"the {names[i]}" for i in hv + lt] for hv, lt, kind in relations if kind == "equal"],
        }


def _distinct_kinds(rng: np.random.Generator, pool: tuple[str, ...], n: int) -> list[str]:
    """``n`` kinds of ``pool`` in random order, no two from one group of LOOKALIKES."""
    kinds: list[str] = []
    for i in rng.permutation(len(pool)):
        kind = pool[int(i)]
        if not any(kind in group and group.intersection(kinds) for group in LOOKALIKES):
            kinds.append(kind)
    if len(kinds) < n:
        raise Reject("too few kinds that do not look alike")
    return kinds[:n]


def _variant_pool(kind: str) -> list[int]:
    """The variants ``kind`` is drawn in: its first ``VARIANT_POOL`` in the styles it may show."""
    styles = SHOWN_STYLES.get(kind)
    combos = get_kind(kind).combos
    return [v for v in variants(kind) if styles is None or combos[v][0].name in styles][:VARIANT_POOL]


def _size(kind: str, variant: int, jitter: float) -> float:
    """The object's largest dimension on the scale, from its real one (``SIZE_AT_30CM``, ``SIZE_POWER``)."""
    real = float(max(model(kind, variant).extents))
    return round(SIZE_AT_30CM * (real / 0.3) ** SIZE_POWER * jitter, 3)


def _tree(rng: np.random.Generator, n: int, n_wrong: int, least_below: bool = False) -> list[int]:
    """parent[c] for c in 1..n-1 (parent[0] = -1): a tree rooted at the answer 0 in which every leaf is a wrong
    option (1..n_wrong; the links n_wrong+1.. and some wrong options lead on), so every edge has a wrong option
    below it. The answer weighs in no more pictures than the busiest wrong option: counting appearances does not
    find it. With ``least_below`` (the lightest, whose tree is weighed upside down), below every edge one wrong
    option leads to every other wrong option there (``_least_below_every_edge``)."""
    for _ in range(200):
        order = [0, *(int(v) + 1 for v in rng.permutation(n - 1))]
        parent = [-1] * n
        for j in range(1, n):
            parent[order[j]] = order[int(rng.integers(j))]
        has_child = set(parent[1:])
        if any(x not in has_child for x in range(n_wrong + 1, n)):
            continue
        degree = [sum(1 for c in range(1, n) if parent[c] == x) + (x != 0) for x in range(n)]
        if degree[0] > max(degree[1 : n_wrong + 1]):
            continue
        if least_below and not _least_below_every_edge(parent, n_wrong):
            continue
        return parent
    raise Reject("no tree with wrong options at every branch end")


def _least_below_every_edge(parent: list[int], n_wrong: int) -> bool:
    """Whether below every edge one wrong option has every other wrong option below it in turn. Hiding the edge's
    picture cuts those options off from the answer; in the lightest question one more picture can prove only one
    object lighter than the others (an object alone rising says nothing of each object on the other pan), so a cut
    with two unordered options below it leaves neither as a possible answer, and the picture is not needed."""

    def above(a: int, b: int) -> bool:  # a is b or one of its ancestors
        while b != -1:
            if b == a:
                return True
            b = parent[b]
        return False

    for c in range(1, len(parent)):
        below = [o for o in range(1, n_wrong + 1) if above(c, o)]
        if not any(all(above(w, o) for o in below) for w in below):
            return False
    return True


def _one_picture_makes_lightest(gt: np.ndarray, roots: list[int], options: list[int], x: int) -> bool:
    """Whether one more picture could prove option ``x`` lighter than every other option (``gt`` and ``roots`` from
    the pictures shown): an object h sinking against ``x`` proves it lighter than every option at least as heavy
    as h, and a level beam between ``x`` and an object a lighter than every option does the same. None other
    proves more, and neither may contradict what is shown."""
    rest = [y for y in options if y != x and not gt[y, x]]
    if not rest:
        return True
    for h in range(len(roots)):
        if h != x and not gt[x, h] and roots[h] != roots[x]:
            if all(y == h or gt[y, h] or roots[y] == roots[h] for y in rest):
                return True
    for a in range(len(roots)):
        if roots[a] != roots[x] and not gt[a, x] and not gt[x, a]:
            if all(gt[y, a] for y in rest):
                return True
    return False


def _top_down(parent: list[int], n: int) -> list[int]:
    done, out = {0}, []
    while len(out) < n - 1:
        for c in range(1, n):
            if c not in done and parent[c] in done:
                done.add(c)
                out.append(c)
    return out


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


def solve(qtype: str, n: int, relations: list, options: list[int]) -> int | None:
    """The option (object index) the relations prove heavier (lightest: lighter) than every other option, or
    None if they leave it open."""
    gt, _roots = _closure(n, relations)
    for x in options:
        rest = [y for y in options if y != x]
        if all(gt[x, y] if qtype == "heaviest" else gt[y, x] for y in rest):
            return x
    return None


def _chains(qtype: str, relations: list, answer: int, wrong: list[int], names: list[str]) -> list[str]:
    """The pictures that link the answer to every wrong option, written heaviest first with the image that shows
    each step ("thermos > apple (Image 3) > mug (Image 1)"). The paths form a tree through the answer, so each step
    is written once: the longest path in full, then each branch from where it leaves what is written."""
    links: dict[int, list[tuple[int, str, int]]] = {}  # heavier (or equal) object -> (lighter, sign, image)
    for k, (heavy, light, kind) in enumerate(relations):
        if len(heavy) == 1:
            for b in light:
                links.setdefault(heavy[0], []).append((b, "=" if kind == "equal" else ">", k + 1))
                if kind == "equal":
                    links.setdefault(b, []).append((heavy[0], "=", k + 1))
    paths = []  # per wrong option: the objects heaviest first, and the steps (sign, image) between them
    for target in wrong:
        start, goal = (answer, target) if qtype == "heaviest" else (target, answer)
        found: dict[int, tuple[list[int], list[tuple[str, int]]]] = {start: ([start], [])}
        frontier = [start]
        while frontier and goal not in found:
            nxt = []
            for a in frontier:
                for b, sign, image in links.get(a, []):
                    if b not in found:
                        found[b] = ([*found[a][0], b], [*found[a][1], (sign, image)])
                        nxt.append(b)
            frontier = nxt
        if goal in found:
            paths.append(found[goal])
    out: list[str] = []
    written: set[tuple[int, int]] = set()
    for objs, steps in sorted(paths, key=lambda p: -len(p[1])):
        run = ""
        for a, b, (sign, image) in zip(objs, objs[1:], steps, strict=False):
            if (a, b) in written:  # a longer path wrote this step: a run of new steps ends here
                out += [run] if run else []
                run = ""
            else:
                written.add((a, b))
                run = (run or names[a]) + f" {sign} {names[b]} (Image {image})"
        out += [run] if run else []
    return out


# -- geometry -------------------------------------------------------------------------------------------------
def _framed(scene: Scene) -> tuple[tuple[float, float, float], ...]:
    """The drawn cameras, each moved back along its line of sight until its balance, both pans and their loads, lies
    inside the frame: at the nearest distances a camera turned a few degrees cut the pan nearer it off at the side."""
    cameras = []
    for comp, (az, el, dist) in zip(scene.comparisons, scene.cameras, strict=True):
        objs, _ = _scale_objects(scene, comp, _tilt_of(scene, comp), (0, 0, 0), (0, 0, 0))
        corners = np.concatenate([o.corners() for o in objs])
        while not _in_frame(corners, orbit_camera(az, el, dist, target=LOOK_AT)):
            dist += 0.05
        cameras.append((az, el, round(dist, 3)))
    return tuple(cameras)


def _in_frame(points: np.ndarray, cam: Camera) -> bool:
    """Whether every point projects in front of ``cam`` and ``FRAME_MARGIN`` inside its frame."""
    px, depth = cam.project(points, 2)  # a frame 2 wide: px - 1 is the normalised position, -1 to 1
    return bool(np.all(depth > 0) and np.all(np.abs(px - 1) <= 1 - FRAME_MARGIN))


def _height(scene: Scene, i: int) -> float:
    """Object ``i``'s height on the scale, the same in every picture: from its size, below the yoke over the pan,
    and, if it ever shares a pan, with its footprint within its half of the pan (a teapot drawn at half its height
    beside an apple read as another teapot)."""
    ext = model(scene.kinds[i], scene.variants[i]).extents
    scale = min(scene.sizes[i] / max(ext), 0.6 / ext[2])
    if any(i in pan and len(pan) == 2 for comp in scene.comparisons for pan in comp):
        scale = min(scale, 0.3 / max(ext[0], ext[1]))
    return scale * ext[2]


def _scale_objects(
    scene: Scene, comp: Comparison, tilt: int, structure: tuple[int, int, int], pan_color: tuple[int, int, int]
) -> tuple[list[Object3D], dict[str, Any]]:
    """The balance and its load; ``roles`` maps parts to their object indices."""
    theta = math.radians(scene.tilt_deg) * tilt  # > 0: right end down
    objs = [
        Object3D("base", "box", (1.3, 0.6, 0.1), structure, (0.0, 0.0)),
        Object3D("post", "cylinder", (0.1, 0.1, PIVOT_Z - 0.1), structure, (0.0, 0.0), base=0.1),
        Object3D("pivot", "sphere", (0.16, 0.16, 0.16), pan_color, (0.0, -0.02), base=PIVOT_Z - 0.08),
    ]
    roles: dict[str, Any] = {"pivot": 2, "objects": []}
    beam = (2 * BEAM_HALF + 0.1, 0.07, 0.07)  # a little past the strings at its ends; tilted about the pivot
    objs.append(Object3D("beam", "box", beam, structure, (0.0, 0.0), PIVOT_Z - 0.035, pitch=theta))
    for side, sign, load in (("left", -1, comp[0]), ("right", 1, comp[1])):
        xe = sign * BEAM_HALF * math.cos(theta)
        ze = PIVOT_Z - sign * BEAM_HALF * math.sin(theta)
        pan_z = ze - HANG
        yoke_z = pan_z + 0.62
        objs.append(Object3D("string", "cylinder", (0.025, 0.025, ze - yoke_z), structure, (xe, 0.0), yoke_z))
        objs.append(Object3D("yoke", "box", (1.7 * PAN_RADIUS, 0.04, 0.04), structure, (xe, 0.0), yoke_z - 0.02))
        for dx in (-PAN_RADIUS * 0.85, PAN_RADIUS * 0.85):
            objs.append(Object3D("string", "cylinder", (0.02, 0.02, yoke_z - pan_z), structure, (xe + dx, 0.0), pan_z))
        roles[f"{side}_pan"] = len(objs)
        objs.append(
            Object3D(f"{side} pan", "cylinder", (2 * PAN_RADIUS, 2 * PAN_RADIUS, 0.05), pan_color, (xe, 0.0), pan_z)
        )
        offsets = [0.0] if len(load) == 1 else [-0.19, 0.19]
        for i, dx in zip(load, offsets, strict=True):
            height = _height(scene, i)
            roles["objects"].append((scene.names[i], len(objs)))
            objs.append(
                place_object(
                    scene.kinds[i], scene.variants[i], scene.names[i], (xe + dx, -0.04), height, base=pan_z + 0.05
                )
            )
    return objs, roles
