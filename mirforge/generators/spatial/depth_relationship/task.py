"""depth_relationship: depth orders read in several photos of one scene and combined.

Everyday objects (``families``: a kitchen table, a room, toys on a play mat, a yard, or plain shapes) stand on a
surface photographed by 2-4 perspective cameras around it. Two question forms, each built so that every photo is
needed:

- ``named`` (level 1): "Which of the following objects is nearer to the camera than the mug in Image 1 and farther
  from the camera than the lamp in Image 2?" One condition per photo; the options are objects, exactly one of them
  meets every condition (another object may too: the options decide), and for each photo one distractor fails that
  photo's condition alone (in that photo the reference stands between it and every other option), so without that
  photo two options stay possible.
- ``premise`` (levels 2 and 3): "In Image 1, one object stands nearest to the camera. Which of the following objects
  is farther from the camera than that object in Image 2 and nearer to the camera than it in Image 3?" The reference
  is not named but defined by a premise photo, and both conditions use it. Each condition photo rules out a
  distractor as above, and the premise photo is needed because another object in the reference's place would make a
  different option the one answer (the plans pose that; ``consistent`` checks it on the rendered photos). Used by
  one condition alone (the other named, or one of two premises each used once, as level 3 was), a premise photo can
  be skipped by a reader who assumes one answer: whatever the reference is, that answer must be the option nearest
  (farthest), in that condition's photo, of those the other condition leaves. Read so from the records alone, 924 of
  924 such questions were answered without the premise photo (seed 73311), while ``needed`` read 100%: it counted
  every option some reference let through, not the one answer it would make. With two premise photos and four
  photos, every condition photo compares with both references ("in Image 3, nearer to the camera than both X and
  Y"); plans are found for under one scene in 300, so the default asks one premise, level 3 comparing closer depths
  (``depth_margin``) than level 2. Posing the premise costs draws: about 2% of scenes give a plan (10 and 14 of 600
  at levels 2 and 3, before the size thinning below keeps 80% of them), each drawn and refused in about 10 ms.

A distractor that alone fails a photo's condition stands at that photo's end of the options' depth order, against
the asked direction. Two readers who never find the references follow from that, and the plans answer both:

- a detector that finds every option's object but never reads the question, and counts how often each stands
  nearest or farthest of the options (its foot lowest or highest in the picture): the plans keep the options'
  counts of ends within one of each other, the answer's the highest in half the questions and the lowest in the
  other half (``_ends_even``), so the ends say nothing (25% by either end). Unbalanced, the answer was the option
  least often at an end in 90% of questions. What the ends leave, a scorer of every placement feature still
  finds (``mirforge.placement``: the ranks of the options' feet and areas, who is lowest, highest, largest,
  smallest, never at an end): a conditional logit per question shape found the answer in 34.9 / 32.6 / 31.4% of
  unthinned questions by level (5,200 each, 5 folds; seeds 1, 3 and 73031). So the verifier thins the questions
  (``_thinned``): each is kept with the chance that brings the scorer's odds of its answer down to those of the
  option the scorer likes least (``keep_chance``, weights in ``PLACEMENT_WEIGHTS``, fitted on those questions by
  ``scripts/fit_depth_placement.py``), and among the kept questions the answer is no likelier to be the scorer's
  favourite. On 800 fresh unthinned questions a shape (seed 73071), thinned by draws (the script's ``--thin``, 20
  seeds), a logit refitted on the kept ones reads 24.0 / 24.8 / 27.5%, and the audit's placement baseline (such a
  scorer per level) 25.8 / 24.8 / 29.2% and 25.5 / 25.0 / 30.1% on two fresh splits of 1,200 (seeds 73061, 73062).
  The weights had been fitted on 1,200 questions a shape (seed 1), too few: they underrated level 2 (28% held out),
  and on the same fresh questions the kept ones still leaned, a refitted logit at 23.6 / 28.2 / 30.4% (the answer's
  mean features up to 3.4 standard errors from even, now 2.6). These thin a little more: 4.6% more rejected draws
  per question, a change in questions per second below the benchmark's noise. A second stage (a logit fitted on the
  questions the first keeps, its keep chance multiplied in) was tried on 1,600 kept questions a shape and dropped:
  it fitted their noise as much as their lean, and fresh splits read no better. Both shapes were refitted once the
  plans were thinned by the answer's size (below), on 3,000 unthinned questions of the default config (seed 73611):
  the scorer read 30.3% (named) and 29.9% (premise) held out, and 21-24% on the questions the weights keep
  (``--thin`` 1 to 3); the audit's placement baseline reads 25.9% and 26.6% on fresh splits of 600 and 1,200 (seeds
  73621, 73631; 20.0 to 30.5 a level).
- a reader of the directions who knows how the plans are made: each reference cuts its photo's options in two, so
  only an option that cuts short of it can leave as the lone survivor may be the answer (``_reader_choices``). With
  two conditions that leaves two options at most, whatever the photos show (every order of four options in two
  photos enumerated: 96 of 576 leave two, the rest one or none), so 50% is the form's floor. The plans used to
  leave the answer alone in 68 / 49 / 79% of questions by level, and that reader was right in 84 / 75 / 90% (300
  questions each, seed 37002); adding up each option's place toward the directions did nearly as well (79 / 64 /
  83). The plans now keep exactly two, the answer's summed place and its count of ends higher than the other kept
  option's as often as lower (``_pair_balanced``): every such reader reads 50% at most, at five times the draws per
  question (8 ms each, no rendering). In the premise form that reader may keep three, and so may one who tries
  every object but the options in the reference's place; the plans keep the answer's count of ends and summed place
  above (below) those of every other option either keeps, as often as not (``_alike``).

The names are a third reader's clue: they say which objects are bigger, and a big answer meets the conditions more
easily (clear of other objects, clearly apart in depth and in the feet's rows). Unthinned, the largest option was
the answer in 31% of premise questions and the smallest in 20%, and the audit's text-only classifier read 30.3% from
the kinds (600 questions, seed 73521). So the plans are thinned by the answer's size rank among the options
(``SIZE_KEEP``), each rank kept in proportion to the least common one's share: every rank is the answer as often,
and 80% of plans are kept. The classifier then reads 26.2% on a fresh 1,200 (seed 73631), 25.2% on 1,800 (with seed
73621's 600). Shape is left: flat wide kinds (a shoe box, a table) are still the answer a little more often than tall
thin ones (a vase, a candle). An option's size is also its area in the pictures, so the thinning moved the placement
features: with the weights fitted before it, the audit's placement baseline read 35.5% (600 questions, seed 73601),
and the weights were refitted (above).

Three conditions (one per photo, each wrong option failing one) let the reader of directions drop all three, 100%
right, and are refused by the config; so is one condition (a premise form with two photos, once half of level 1):
every wrong option fails it, so the answer was the option nearest (farthest) in that photo in 334 of 335 questions.

Depth is the median distance along the view axis of an object's visible pixels (the depth buffer); a comparison
counts only when it clears ``depth_margin`` (half of it when measured) and the nearer object's lowest visible row
is lower in the picture (what a person sees), which is also what the steps cite. Where a nearer object hides part of
the farther one's foot, the foot may reach lower than its lowest visible row, so the gap must then clear
``HIDDEN_FOOT_PX`` too (or the cover's own extent, when that is less): with 5 rows between a ball and a cube whose
foot hid behind another cube, the steps said the cube "does not" stand nearer. This refuses about 10% of the
questions that used to pass (14 of 134 accepted renders, seed 777), for 10% more renders per instance.

The verifier finds the answer as the one option that no photo rules out, which leaves two ways for the pictures and
the steps to part (``_unclear``, each refused): the answer too close to a reference to tell in one photo (the steps
said so, and then that it met every condition: 10 of 200 questions, seed 73101), and an option too close in depth
to tell whose foot stands clearly above or below the reference's (over ``TIE_FOOT_PX`` rows: up to 35 rows apart
were called "too close to tell", where a person reads one as nearer). Rejected draws per 100 questions rise 8%
(3,003 to 3,251; `benchmarks/throughput.py`, 60 questions at seeds 0 to 2).

A third form was tried and dropped: "in which of Images 2 to 5 is the camera nearest to that object?" Every photo
was needed, but the photos alone gave the answer away: an object singled out by its distance from the cameras
stands at the rim, so the photos taken along its direction show the objects bunched together (the narrowest
spread won 34-46%), and with cameras at different distances the photo where everything looks largest won 39%.
"""

from __future__ import annotations

import functools
import itertools
import math
from dataclasses import dataclass
from typing import Any

import numpy as np

from mirforge.errors import Reject
from mirforge.generators.spatial.multiview import (
    BASE_AGREE_PX,
    CAMERA_DISTANCE,
    FAMILIES,
    PLACES,
    CatalogueConfig,
    all_in_frame,
    arrange,
    camera_ring,
    centres,
    covered_fractions,
    depth_sign,
    everyday_objects,
    everyday_radius,
    family_look,
    feet_level,
    left_to_right,
    measure_view,
    view_boxes,
)
from mirforge.placement import keep_chance, option_boxes, placement_features
from mirforge.render.look import Look
from mirforge.render.scene3d import Camera, Object3D, Scene3D
from mirforge.task import Question, Region, Rendered, Task, check_families, ensure, per_level, place

HIDDEN_FOOT_PX = 15  # rows a foot partly hidden by a nearer object may reach below its lowest visible row
MAX_COVERED = 0.45  # objects the text relies on: at most this share of their projected box behind nearer objects
FORMS = ("named", "premise")
TAGS = ("X", "Y", "Z")  # what the question calls the references of two or more premise photos
PLAN_TRIES = 40  # draws of photo roles per scene
DISTRACTOR_SETS = 40  # distractor sets tried per answer
MAX_CONDITIONS = 2  # condition photos per question (see validate)
PAIR_SHARE = 0.3  # scenes with two objects of one kind in two colours ("the red mug", "the blue mug")
Condition = tuple[int, int, str, int | None]  # a plan's condition: photo, reference, direction, premise (or None)
# Per question shape (form, photos, premise photos), conditional-logit weights on the options' placement features
# (mirforge.placement) that _thinned evens out; fitted on unthinned questions of the default config by
# scripts/fit_depth_placement.py
PLACEMENT_WEIGHTS: dict[tuple[str, int, int], tuple[float, ...]] = {
    ("named", 2, 0): (0.0, -0.405, 0.054, -1.011, -1.599, -0.159, -0.093, 1.104),
    ("premise", 3, 1): (0.116, 0.557, 0.07, -1.002, -0.211, -0.012, -0.142, 0.624),
}

# The chance a plan is kept by its answer's size rank among the options (0: the smallest, _size_rank): the least
# common rank's share over each rank's, so that every rank is the answer as often. Counted on unthinned plans of the
# default config, 722 / 810 / 964 / 1,129 (3,625 plans; the named form's and the premise form's agree within noise)
SIZE_KEEP = (1.0, 0.891, 0.749, 0.640)


@dataclass
class DepthRelationshipConfig(CatalogueConfig):
    families: tuple[str, ...] = FAMILIES  # the scene families drawn from, equally often
    family: str = ""  # one family only (empty: every family in ``families``)
    objects_per_level: tuple[int, ...] = per_level(7, 9, 9)
    views_per_level: tuple[int, ...] = per_level(2, 3, 3)
    forms_per_level: tuple[str, ...] = per_level("named", "premise", "premise")
    # premise form: photos that each define a reference (two, with four photos, find plans for under 1 scene in 300)
    premises_per_level: tuple[int, ...] = per_level(1, 1, 1)
    depth_margin: tuple[float, ...] = per_level(0.45, 0.25, 0.2)  # world units (the surface is about 5 across)
    min_visible_px: int = 150
    max_tries: int = 3000  # a rejected draw costs geometry only (no rendering): about 10 ms
    # thin the questions so that where the options' objects stand says nothing (_thinned); a question shape that
    # PLACEMENT_WEIGHTS does not hold (a custom config's) goes unthinned
    even_placement: bool = True

    def validate(self) -> None:
        super().validate()
        check_families(self.families, self.family, FAMILIES)
        ensure(self.n_options == 4, "n_options", "must be 4 (one distractor per photo's condition, and a spare)")
        ensure(all(2 <= n <= 4 for n in self.views_per_level), "views_per_level", "each 2 to 4")
        levels = zip(
            self.forms_per_level, self.views_per_level, self.objects_per_level, self.premises_per_level, strict=True
        )
        for spec, views, n, k in levels:
            forms = spec.split("+")
            ensure(
                all(f in FORMS for f in forms) and len(set(forms)) == len(forms),
                "forms_per_level",
                f"each level is question forms joined by '+' from {', '.join(FORMS)}; got {spec!r}",
            )
            if "named" in forms:
                ensure(
                    n >= self.n_options + views,
                    "objects_per_level",
                    f"'named' with {views} photos needs {self.n_options + views} objects",
                )
            if "premise" in forms:
                ensure(1 <= k < views, "premises_per_level", f"each 1 to one less than the photos ({views})")
                ensure(k <= len(TAGS), "premises_per_level", f"{len(TAGS)} at most")
                ensure(n >= self.n_options + k, "objects_per_level", f"'premise' needs {self.n_options + k} objects")
                ensure(
                    views - k >= 2,
                    "premises_per_level",
                    f"'premise' with {views} photos and {k} premise photos asks one condition: every wrong option "
                    "fails it, so the answer is the option nearest (farthest) in that photo and neither the premise "
                    "photo nor the reference is needed (use one premise photo fewer, or one photo more)",
                )
            for form in forms:
                conditions = views if form == "named" else views - k
                ensure(
                    conditions <= MAX_CONDITIONS,
                    "forms_per_level" if form == "named" else "premises_per_level",
                    f"'{form}' with {views} photos asks {conditions} conditions, {MAX_CONDITIONS} at most: with more, "
                    "each wrong option is the only one failing a photo's condition, so it stands at that photo's end "
                    "of the options against the asked direction and the references are never needed (use fewer "
                    "photos, or more premise photos)",
                )
        ensure(all(n <= 9 for n in self.objects_per_level), "objects_per_level", "each count must be 9 at most")
        ensure(all(0 < m < 2.0 for m in self.depth_margin), "depth_margin", "margins must be in (0, 2.0)")
        ensure(self.min_visible_px > 0, "min_visible_px", "must be positive")

    def chosen(self) -> tuple[str, ...]:
        return (self.family,) if self.family else self.families

    def kinds_needed(self) -> int:
        return max(self.objects_per_level)


@dataclass(frozen=True)
class Scene:
    family: str
    form: str
    objects: tuple[Object3D, ...]
    cameras: tuple[Camera, ...]
    margin: float
    premises: int  # premise form: photos that each define a reference
    look: Look  # the floor and the light
    more_ends: bool  # whether the answer's count of ends is the options' highest, else their lowest (_ends_even)
    sum_high: bool  # whether the answer's toward sum tops that of the other option a reader keeps (_pair_balanced)


class DepthRelationship(Task):
    name = "depth_relationship"
    category = "spatial"
    description = "Depth orders read in several photos of one scene and combined: each photo settles part of it"
    Config = DepthRelationshipConfig
    # question form, scene family, and whether the answer has the most ends (_ends_even) and tops the other kept
    # option's toward sum (_pair_balanced), of an index: balanced over every block
    variants = 2 * len(FAMILIES) * 2 * 2

    def knobs(self, level: int) -> dict[str, Any]:
        c, i = self.config, self.levels.index(level)
        return {
            "families": list(c.chosen()),
            "forms": c.forms_per_level[i].split("+"),
            "n_objects": c.objects_per_level[i],
            "n_views": c.views_per_level[i],
            "premises": c.premises_per_level[i],
            "depth_margin": c.depth_margin[i],
        }

    def scene_knobs(self, scene: Scene) -> dict[str, Any]:
        return {"family": scene.family, "form": scene.form}

    # -- scene and question ---------------------------------------------------------------------------------
    def sample(self, rng: np.random.Generator, level: int, variant: int | None = None) -> Scene:
        k = self.knobs(level)
        v = int(rng.integers(self.variants)) if variant is None else variant
        forms, families = k["forms"], k["families"]
        form, family = forms[v % 2 % len(forms)], families[v // 2 % len(families)]
        radius = everyday_radius(k["n_objects"])
        pair = bool(rng.uniform() < PAIR_SHARE) and family != "shapes"
        drawn = everyday_objects(
            rng, family, k["n_objects"], pair=pair, kinds=self.config.kinds, materials=self.config.materials
        )
        objects = arrange(rng, drawn, radius=radius)
        cameras, _ = camera_ring(rng, k["n_views"], radius=radius, distance=CAMERA_DISTANCE)
        if not all_in_frame(objects, cameras, self.image_size):
            raise Reject("an object leaves the frame")
        order = [int(i) for i in rng.permutation(len(cameras))]  # image numbers say nothing of the ring
        cameras = tuple(cameras[i] for i in order)
        premises = k["premises"] if form == "premise" else 0
        return Scene(
            family,
            form,
            objects,
            cameras,
            float(k["depth_margin"]),
            premises,
            family_look(rng, family, self.config.backdrops),
            bool(v // (2 * len(FAMILIES)) % 2),
            bool(v // (4 * len(FAMILIES)) % 2),
        )

    def ask(self, scene: Scene, rng: np.random.Generator, slot: int, variant: int | None = None) -> Question:
        size = self.image_size
        names = [o.name for o in scene.objects]
        depth = np.array([centres(scene.objects, cam, size)[1] for cam in scene.cameras])
        clear = np.array(
            [[c <= MAX_COVERED for c in covered_fractions(scene.objects, cam, size)] for cam in scene.cameras]
        )
        n_views = len(scene.cameras)
        lead = (
            f"{_image_list(n_views)} show the same objects {PLACES[scene.family]}, each photographed from a "
            "different position. "
        )
        base = {"form": scene.form, "names": names, "margin": scene.margin, "min_px": self.config.min_visible_px}
        # where each object looks nearest or farthest: its foot lowest or highest in the picture (the projected
        # box's bottom row, what a detector sees), which the plans balance; the depths decide the conditions
        seen = -np.array([view_boxes(scene.objects, cam, size)[:, 3] for cam in scene.cameras])
        plan = _plan_order(scene, depth, seen, clear, rng)
        if plan is None:
            raise Reject("no conditions that need every photo")
        rank = _size_rank(scene.objects, [plan["answer"], *plan["distractors"]])
        if rng.uniform() >= SIZE_KEEP[rank]:
            raise Reject("the answer's size among the options is one the plans favour (thinned)")
        chosen = place(plan["answer"], plan["distractors"], slot)
        premises = [
            {"image": v, "extreme": e, "ref": names[x], "tag": TAGS[k] if len(plan["premises"]) > 1 else None}
            for k, (v, e, x) in enumerate(plan["premises"])
        ]
        conds = [{"image": v, "ref": names[r], "dir": d, "premise": u} for v, r, d, u in sorted(plan["conditions"])]
        text = lead
        if len(premises) == 1:
            p = premises[0]
            text += f"In Image {p['image'] + 1}, one object stands {_extreme_text(p['extreme'])} the camera. "
        elif premises:
            text += (
                "Call "
                + _join(
                    [
                        f"{p['tag']} the object {_extreme_text(p['extreme'])} the camera in Image {p['image'] + 1}"
                        for p in premises
                    ]
                )
                + ". "
            )
        by_photo = [
            (image, [(c["dir"], _ref_text(c, premises)) for c in group])
            for image, group in itertools.groupby(conds, key=lambda c: c["image"])
        ]
        ask = "Which of the following objects is " + _conditions_text(by_photo)
        facts = {**base, "conditions": conds, "premises": premises, "options": [names[i] for i in chosen]}
        # see _thinned, once the pictures are measured; drawn with thinning off too, so that switching it keeps the
        # same questions and only changes which are refused
        facts["thinning_draw"] = float(rng.uniform())
        return Question(text=text + ask + "?", options=[f"The {names[i]}" for i in chosen], answer=slot, facts=facts)

    # -- rendering and verification ----------------------------------------------------------------------------
    def render(self, scene: Scene, question: Question) -> Rendered:
        from mirforge.render.gl import renderer

        cameras = list(scene.cameras)
        world = Scene3D(scene.objects, look=scene.look)
        views = renderer(self.image_size).views(world, cameras)
        names = question.facts["names"]
        per_view = [measure_view(v, names, self.config.min_visible_px) for v in views]
        for view, m in zip(views, per_view, strict=True):
            for name, seen in m.items():
                seen["foot"] = lowest_possible_row(view.ids, view.depth, names.index(name), seen["box"])
        unseen = [
            _unseen(view, m, scene.objects, cam, names) for view, m, cam in zip(views, per_view, cameras, strict=True)
        ]
        regions = [Region(i, name, seen["box"]) for i, m in enumerate(per_view) for name, seen in m.items()]
        return Rendered(images=[v.rgb for v in views], measured={"views": per_view, "unseen": unseen}, regions=regions)

    def verify(self, question: Question, rendered: Rendered) -> int:
        f, seen = question.facts, rendered.measured["views"]
        for p in f["premises"]:
            if _measured_extreme(seen[p["image"]], p["extreme"], f["margin"]) != p["ref"]:
                raise Reject("a premise image does not show one object clearly nearest (farthest)")
        may, _ = _meeting(f, seen, [p["ref"] for p in f["premises"]])
        if sum(may) != 1:
            raise Reject(f"{sum(may)} options fit the measured photos")
        found = may.index(True)
        unclear = _unclear(f, seen, f["options"][found])
        if unclear:
            raise Reject(unclear)
        if self.config.even_placement and _thinned(question, rendered, found):
            raise Reject("where the options' objects stand points at the answer (thinned)")
        return found

    def consistent(self, question: Question, rendered: Rendered, hidden: frozenset[int]) -> set[int]:
        """Options that may be the question's one answer given the shown photos. The answer clearly meets every
        condition (the verifier refuses it otherwise), so an option is possible when, for some reference that each
        hidden premise photo could define (an object, not an option, seen in that reference's shown condition
        photos), it clearly meets every condition the shown photos state, and, when every condition photo is shown, no
        other option does. So a premise photo is needed only when another reference would make a different option the
        answer, not when it merely lets other options through: a premise whose reference one condition alone uses
        never is, since whatever it is, the one answer must be the extreme, in that condition's photo, of the options
        the other conditions leave."""
        f, seen = question.facts, rendered.measured["views"]
        shown = [None if i in hidden else m for i, m in enumerate(seen)]
        choices = []
        for k, p in enumerate(f["premises"]):
            known = _measured_extreme(shown[p["image"]], p["extreme"], f["margin"])
            photos = [shown[c["image"]] for c in f["conditions"] if c["premise"] == k]
            choices.append(
                [known]
                if known
                else [n for n in f["names"] if n not in f["options"] and all(m is None or n in m for m in photos)]
            )
        out = set()
        for refs in itertools.product(*choices):
            if len(set(refs)) < len(refs):
                continue
            _, clear = _meeting(f, shown, list(refs))
            if all(shown[c["image"]] is not None for c in f["conditions"]):  # the one that clearly meets them all
                out |= {clear.index(True)} if sum(clear) == 1 else set()
            else:
                out |= {i for i, c in enumerate(clear) if c}
        return out

    # -- reasoning steps ------------------------------------------------------------------------------------
    def step_facts(self, scene: Scene, question: Question, rendered: Rendered) -> dict[str, Any]:
        f, seen, unseen = question.facts, rendered.measured["views"], rendered.measured["unseen"]
        images = [
            {
                "image": v + 1,
                "order": [{"name": n, "box": m[n]["box"]} for n in left_to_right(m)],
                "hidden": [{"name": n, "where": _unseen_text(unseen[v][n])} for n in f["names"] if n not in m],
            }
            for v, m in enumerate(seen)
        ]
        out: dict[str, Any] = {"form": f["form"], "n_views": len(seen), "place": PLACES[scene.family], "images": images}
        premises = []
        for p in f["premises"]:
            m, ref = seen[p["image"]], p["ref"]
            lowest = p["extreme"] == "nearest"  # the nearest object's foot is the lowest in the picture
            others = sorted((n for n in m if n != ref), key=lambda n: m[n]["box"][3], reverse=lowest)
            tied = [n for n in others if m[n]["box"][3] == m[others[0]]["box"][3]]  # "the next are ... and ..."
            premises.append(
                {
                    "image": p["image"] + 1,
                    "word": _extreme_text(p["extreme"]),
                    "lowest": lowest,
                    "tag": p["tag"],
                    "ref": ref,
                    "box": m[ref]["box"],
                    "base": m[ref]["box"][3],
                    "runners": tied,
                    "runner_base": m[others[0]]["box"][3],
                }
            )
        out["premises"] = premises
        conds = []
        for c in f["conditions"]:
            m = seen[c["image"]]
            ref = c["ref"]
            want = _asked_sign(c["dir"])
            signs = {o: _depth_sign(m.get(o), m[ref], f["margin"] / 2) for o in f["options"]}
            rows = [{"name": o, "base": m[o]["box"][3], "sign": signs[o]} for o in f["options"] if o in m]
            conds.append(
                {
                    "image": c["image"] + 1,
                    "ref": ref,
                    "said": f["premises"][c["premise"]]["tag"] or "that object" if c["premise"] is not None else None,
                    "ref_box": m[ref]["box"],
                    "ref_base": m[ref]["box"][3],
                    "dir": _dir_text(c["dir"]),
                    "lower": c["dir"] == "nearer",
                    "holding": [r for r in rows if r["sign"] == want],
                    "failing": [r for r in rows if r["sign"] == -want],
                    "close": [r for r in rows if not r["sign"]],  # too close to call: never the answer's reason
                    "hidden": [
                        {"name": o, "where": _unseen_text(unseen[c["image"]][o])} for o in f["options"] if o not in m
                    ],
                }
            )
        answer = f["options"][question.answer]
        out.update(
            conditions=conds,
            options=f["options"],
            answer_name=answer,
            option_boxes=[
                {
                    "name": o,
                    "boxes": [
                        {"image": c["image"] + 1, "box": seen[c["image"]][o]["box"]}
                        for c in f["conditions"]
                        if o in seen[c["image"]]
                    ],
                }
                for o in f["options"]
            ],
        )
        return out


# -- question plans on the scene side -----------------------------------------------------------------------------
def _plan_order(
    scene: Scene, depth: np.ndarray, seen: np.ndarray, clear: np.ndarray, rng: np.random.Generator
) -> dict[str, Any] | None:
    plan = _plan_premise if scene.premises else _plan_named
    return plan(scene, depth, seen, clear, rng)


def _plan_named(
    scene: Scene, depth: np.ndarray, seen: np.ndarray, clear: np.ndarray, rng: np.random.Generator
) -> dict[str, Any] | None:
    """One condition per photo with a named reference, an answer meeting every condition, and for each photo a
    distractor that fails that photo's condition alone: in that photo the reference stands between it and every other
    option. So every photo is needed."""
    n_views, n_obj = depth.shape
    signs = _signs(depth, scene.margin)
    table = signs.tolist()
    # the search below tests sets of references at once, as bit masks over the objects (bit r: object r):
    # agree[v][a][d] holds the references r that d stands clearly on the same side of as a does in view v,
    # oppose[v][a][d] those it stands on the other side of; shown[v] the objects clear enough to refer to
    bit = 1 << np.arange(n_obj, dtype=np.int64)
    side = signs[:, :, None, :]  # (view, a, -, r): a's side of r
    clear_side = side != 0
    agree_bits = ((signs[:, None, :, :] == side) & clear_side) @ bit
    oppose_bits = ((signs[:, None, :, :] == -side) & clear_side) @ bit
    shown_bits = clear @ bit
    agree, oppose, shown = agree_bits.tolist(), oppose_bits.tolist(), shown_bits.tolist()

    for _ in range(PLAN_TRIES):
        views = [int(v) for v in rng.permutation(n_views)]
        c = len(views)
        pool = [i for i in range(n_obj) if all(clear[v, i] for v in views)]
        for a in [pool[int(k)] for k in rng.permutation(len(pool))]:
            rest = [i for i in pool if i != a]
            arranged = _arrangements(len(rest), c)[rng.permutation(math.perm(len(rest), c))[:DISTRACTOR_SETS]]
            drawn = np.array(rest, dtype=np.int64)[arranged]  # distractor sets, one a row
            # most sets fail the first photo's test below: it is done for every set at once, and the loop (with
            # its draws) runs for the others alone, in the same order
            first = shown_bits[views[0]] & ~(1 << a | (1 << drawn).sum(axis=1))
            first &= oppose_bits[views[0], a][drawn[:, 0]]
            for j in range(1, c):
                first &= agree_bits[views[0], a][drawn[:, j]]
            for ds in drawn[first != 0].tolist():
                refs = []
                taken = 1 << a
                for d in ds:
                    taken |= 1 << d
                for k, v in enumerate(views):
                    # a reference r for this photo: a clearly on one side of it, this photo's distractor on the
                    # other, every other distractor on a's side (so this photo alone rules out ds[k])
                    fits = shown[v] & ~taken
                    fits &= oppose[v][a][ds[k]]
                    for j in range(c):
                        if j != k:
                            fits &= agree[v][a][ds[j]]
                    if not fits:
                        break
                    ok = [r for r in range(n_obj) if fits >> r & 1]
                    refs.append(ok[int(rng.integers(len(ok)))])
                else:
                    want = [table[v][a][r] for v, r in zip(views, refs, strict=True)]
                    spare = [
                        i
                        for i in rest
                        if i not in ds
                        and i not in refs
                        and any(table[v][i][r] == -w for v, r, w in zip(views, refs, want, strict=True))
                    ]
                    dirs = ["nearer" if w < 0 else "farther" for w in want]
                    conds = [(v, r, d, None) for v, r, d in zip(views, refs, dirs, strict=True)]
                    shuffled = [spare[int(k)] for k in rng.permutation(len(spare))]
                    for extra in itertools.combinations(shuffled, 3 - c):
                        picked = list(ds) + list(extra)
                        options = [a, *picked]
                        if not _ends_even(seen, options, scene.more_ends):  # the cheapest test first
                            continue
                        if not _pair_balanced(depth, seen, options, conds, scene.sum_high, scene.more_ends):
                            continue
                        picked = [picked[int(k)] for k in rng.permutation(3)]
                        return {"premises": [], "conditions": conds, "answer": a, "distractors": picked}
    return None


def _plan_premise(
    scene: Scene, depth: np.ndarray, seen: np.ndarray, clear: np.ndarray, rng: np.random.Generator
) -> dict[str, Any] | None:
    """Premise photos, each making its nearest or farthest object a reference (distinct), and two condition photos,
    each comparing every option with every reference ("nearer to the camera than that object in Image 2"; with two
    references, "nearer to the camera than both X and Y in Image 3"); an answer that clearly meets every condition,
    three distractors that each clearly fail one, and:

    - each condition photo rules out an option that clearly meets the other's conditions: without the photo, two
      options stay possible;
    - each premise is posed: another object in its reference's place would make a different option the one answer
      (``_answers``). A premise that one condition alone used never was: the other conditions leave some options,
      and whatever that reference is, the one answer must be their extreme in its photo, read without it;
    - a reader who never finds the references keeps two options or more, by the options' order in each photo
      (``_reader_choices``) or by trying every object but the options in their places, and the answer's count of
      ends and summed place say nothing among them (``_alike``).

    Depths are compared as the measured photos will: clearly apart in depth and in the feet's rows."""
    n_views, n_obj, k = *depth.shape, scene.premises
    signs, loose = _signs(depth, scene.margin, seen), _signs(depth, scene.margin / 2)
    combos = [
        (views, extremes)
        for views in itertools.permutations(range(n_views), k)
        for extremes in itertools.product(("nearest", "farthest"), repeat=k)
    ]
    for j in rng.permutation(len(combos)):
        premise_views, extremes = combos[int(j)]
        premises = []
        for p, extreme in zip(premise_views, extremes, strict=True):
            ranked = np.argsort(depth[p] if extreme == "nearest" else -depth[p], kind="stable")
            if abs(depth[p, ranked[0]] - depth[p, ranked[1]]) >= scene.margin and clear[p, ranked[0]]:
                premises.append((p, extreme, int(ranked[0])))
        xs = [x for *_, x in premises]
        if len(premises) < k or len(set(xs)) < k:
            continue
        views = [int(v) for v in rng.permutation(n_views) if v not in premise_views]
        if not clear[np.ix_(views, xs)].all():
            continue
        shown = [i for i in range(n_obj) if clear[views, i].all()]  # what the conditions may refer to
        pool = [i for i in shown if i not in xs]
        for a in [pool[int(i)] for i in rng.permutation(len(pool))]:
            side = signs[views, a][:, xs]  # (condition photo, reference): the answer's side, the asked direction
            if not (side != 0).all():
                continue
            conds = [
                (v, x, "nearer" if w < 0 else "farther", u)
                for v, row in zip(views, side.tolist(), strict=True)
                for u, (x, w) in enumerate(zip(xs, row, strict=True))
            ]
            # per condition photo, the objects that clearly fail its condition against some reference
            fails = (signs[views][:, :, xs] == -side[:, None, :]).any(axis=2)
            meets = (signs[views][:, :, xs] == side[:, None, :]).all(axis=2)  # ... clearly meet it against every one
            wrong = [i for i in pool if i != a and fails[:, i].any()]
            for picked in itertools.combinations([wrong[int(i)] for i in rng.permutation(len(wrong))], 3):
                options = [a, *picked]
                if not all(np.delete(meets, v, axis=0)[:, picked].all(axis=0).any() for v in range(len(views))):
                    continue  # each photo rules out an option that clearly meets the others' conditions
                if not _ends_even(seen, options, scene.more_ends):
                    continue
                others = [r for r in shown if r not in options and r not in xs]
                if not all(
                    any(_answers(signs, loose, conds, options, [*xs[:q], r, *xs[q + 1 :]]) - {a} for r in others)
                    for q in range(k)
                ):
                    continue  # each premise is posed
                kept = set(_reader_choices(depth, options, conds))
                if len(kept) < 2:
                    continue  # the options' order alone leaves one
                for refs in itertools.permutations([r for r in shown if r not in options], k):
                    kept |= {options.index(o) for o in _answers(signs, loose, conds, options, list(refs))}
                if not _alike(depth, seen, options, conds, sorted(kept), scene.sum_high, scene.more_ends):
                    continue
                picked = [picked[int(i)] for i in rng.permutation(3)]
                return {"premises": premises, "conditions": conds, "answer": a, "distractors": picked}
    return None


def _signs(depth: np.ndarray, margin: float, seen: np.ndarray | None = None) -> np.ndarray:
    """Per photo, ``[v, a, b]``: +1 when object a stands clearly farther than b, -1 clearly nearer, 0 too close; with
    ``seen`` (per photo and object, the projected foot's row negated), only where the feet agree as the measured
    photos need them to (``BASE_AGREE_PX``)."""
    diff = depth[:, :, None] - depth[:, None, :]
    out = np.where(diff >= margin, 1, np.where(diff <= -margin, -1, 0))
    if seen is not None:
        out = np.where((seen[:, :, None] - seen[:, None, :]) * out >= BASE_AGREE_PX, out, 0)
    return out


def _answers(
    signs: np.ndarray, loose: np.ndarray, conds: list[Condition], options: list[int], refs: list[int]
) -> set[int]:
    """The option that clearly meets every condition (``signs``) when premise ``u``'s reference is ``refs[u]``, where
    no other option meets them all even by the photos' looser measure (``loose``: half the margin, as measured); else
    none. An option is never its own reference."""

    def meeting(table: np.ndarray) -> list[int]:
        return [
            o for o in options if o not in refs and all(table[v, o, refs[u]] == _asked_sign(d) for v, _, d, u in conds)
        ]

    found = meeting(loose)
    return set(found) if len(found) == 1 and found == meeting(signs) else set()


def _size_rank(objects: tuple[Object3D, ...], options: list[int]) -> int:
    """How many of the options are smaller (by volume) than the answer (first): what the names tell a reader who
    knows a laptop from a can, and what ``SIZE_KEEP`` evens out."""
    volume = [math.prod(objects[i].size) for i in options]
    return sum(v < volume[0] for v in volume[1:])


def _ends_even(seen: np.ndarray, options: list[int], more_ends: bool) -> bool:
    """Whether the options' counts of ends (``_ends``) differ by one at most, and the answer's (first) is the highest
    of them when ``more_ends`` says so, else the lowest (all equal fits either)."""
    count = _ends(seen, options)
    return count.max() - count.min() <= 1 and count[0] == (count.max() if more_ends else count.min())


def _reader_choices(depth: np.ndarray, options: list[int], conds: list[Condition]) -> list[int]:
    """The options (positions in ``options``) that a reader who knows how the plans are made, and sees where the
    options stand in every condition photo, cannot rule out without finding the references. The references cut each
    photo's options' depth order: a "nearer than" condition fails those beyond a cut on the far side, a "farther
    than" one those short of a cut on the near side. An option can be the answer when cuts that spare it fail every
    other option, each photo failing one that no other photo does."""
    directions: dict[int, set[str]] = {}
    for v, _, d, _ in conds:
        directions.setdefault(v, set()).add(d)
    orders = {v: [int(k) for k in np.argsort(depth[v, options], kind="stable")] for v in directions}  # near to far
    everyone = set(range(len(options)))
    out = []
    for x in everyone:
        cuts = []
        for v, said in directions.items():
            order = orders[v]
            at = order.index(x)
            near = range(at + 1) if "farther" in said else [0]  # how many of the nearest fail
            far = range(len(order) - at) if "nearer" in said else [0]  # how many of the farthest fail
            cuts.append([set(order[:i]) | set(order[len(order) - j :]) for i in near for j in far])
        for failing in itertools.product(*cuts):
            if set().union(*failing) == everyone - {x} and all(
                failing[k] - set().union(*(f for j, f in enumerate(failing) if j != k)) for k in range(len(failing))
            ):
                out.append(x)
                break
    return out


def _pair_balanced(
    depth: np.ndarray, seen: np.ndarray, options: list[int], conds: list[Condition], sum_high: bool, more_ends: bool
) -> bool:
    """Whether a reader who never finds the references keeps exactly two options (``_reader_choices``), alike
    (``_alike``)."""
    kept = _reader_choices(depth, options, conds)
    return len(kept) == 2 and _alike(depth, seen, options, conds, kept, sum_high, more_ends)


def _alike(
    depth: np.ndarray,
    seen: np.ndarray,
    options: list[int],
    conds: list[Condition],
    kept: list[int],
    sum_high: bool,
    more_ends: bool,
) -> bool:
    """Whether the options a reader keeps (positions in ``options``, the answer first among the options) say nothing
    by their ends and sums: every other kept option has the options' lowest count of ends when the answer has their
    highest (``more_ends``) and the highest when it has the lowest, and the answer's toward sum (``_toward_sum``) is
    higher than every other kept option's when ``sum_high`` says so, else lower (a tie fits either)."""
    ends, toward = _ends(seen, options), _toward_sum(depth, options, conds)
    return all(
        ends[o] == (ends.min() if more_ends else ends.max())
        and (toward[0] == toward[o] or (toward[0] > toward[o]) == sum_high)
        for o in kept
        if o != 0
    )


def _toward_sum(depth: np.ndarray, options: list[int], conds: list[Condition]) -> np.ndarray:
    """Each option's place toward each condition's direction among the options (0 to 3), added up over the photos."""
    return sum((_toward(depth, c, options).argsort().argsort() for c in conds), np.zeros(len(options)))


def _toward(depth: np.ndarray, cond: Condition, options: list[int]) -> np.ndarray:
    """The options' depths in the condition's photo, signed to grow toward its asked direction."""
    v, _, direction, _ = cond
    return -depth[v, options] if direction == "nearer" else depth[v, options]


def _ends(seen: np.ndarray, options: list[int]) -> np.ndarray:
    """Each option's count of ends: the photos in which it looks nearest or farthest of the options (``seen``: per
    photo and object, a value that grows away from the camera)."""
    d = seen[:, options]
    return np.bincount(d.argmin(axis=1), minlength=len(options)) + np.bincount(d.argmax(axis=1), minlength=len(options))


@functools.cache
def _arrangements(n: int, k: int) -> np.ndarray:
    """Every ordered choice of ``k`` of ``n`` positions, in ``itertools.permutations`` order (rows)."""
    return np.array(list(itertools.permutations(range(n), k)), dtype=np.int64).reshape(-1, k)


# -- measurement side ---------------------------------------------------------------------------------------------
def lowest_possible_row(ids: np.ndarray, depth: np.ndarray, k: int, box: list[int]) -> int:
    """How low in the picture object ``k``'s foot may reach (a row bound, exclusive like a box's y1): its lowest
    visible row, unless a nearer object covers the pixels just below its lowest ones in some column; there the foot
    may go on behind that cover down to where the floor shows again (not further: there it would show)."""
    x0, x1 = box[0], box[2]
    h = ids.shape[0]
    own = ids[:, x0:x1] == k + 1
    cols = np.arange(x1 - x0)
    seen = own.any(axis=0)
    last = h - 1 - np.argmax(own[::-1], axis=0)  # each column's lowest pixel of the object
    below = np.minimum(last + 1, h - 1)
    under = ids[below, x0 + cols]
    covered = seen & (last + 1 < h) & (under != 0) & (depth[below, x0 + cols] < depth[last, x0 + cols])
    floor = (ids[:, x0:x1] == 0) & (np.arange(h)[:, None] > last[None, :])
    end = np.where(floor.any(axis=0), np.argmax(floor, axis=0), h)  # the first floor row under the cover
    return int(np.where(covered, end, last + 1)[seen].max())


def _depth_sign(a: dict[str, Any] | None, b: dict[str, Any] | None, margin: float) -> int | None:
    """``depth_sign``, and the farther object's foot, wherever it may hide behind a nearer object (``foot``), at
    least ``BASE_AGREE_PX`` rows above the nearer one's lowest visible row: what a reader sees of the feet decides,
    never a foot that a cover might hide lower down."""
    s = depth_sign(a, b, margin)
    if s and a is not None and b is not None:
        far, near = (a, b) if s > 0 else (b, a)
        if near["box"][3] - min(far["foot"], far["box"][3] + HIDDEN_FOOT_PX) < BASE_AGREE_PX:
            return 0
    return s


def _unseen(
    view: Any, measured: dict[str, Any], objects: tuple[Object3D, ...], cam: Camera, names: list[str]
) -> dict[str, dict[str, Any]]:
    """Why each object left out of a photo's measurements cannot be seen there: ``outside`` when most of its
    projected box is outside the picture, else ``behind`` the nearer objects whose pixels cover its box most (one or
    two, the largest first; none when they cover little of it: too small to make out); ``px``, its visible pixels."""
    size = view.ids.shape[0]
    boxes, (_, depth) = view_boxes(objects, cam, size), centres(objects, cam, size)
    out = {}
    for k, name in enumerate(names):
        if name in measured:
            continue
        x0, y0, x1, y1 = boxes[k]
        inside = max(0.0, min(x1, size) - max(x0, 0)) * max(0.0, min(y1, size) - max(y0, 0))
        outside = inside < 0.5 * (x1 - x0) * (y1 - y0)
        behind: list[str] = []
        if not outside:
            ids = view.ids[max(0, math.floor(y0)) : math.ceil(y1), max(0, math.floor(x0)) : math.ceil(x1)]
            counts = np.bincount(ids.ravel(), minlength=len(names) + 1)[1:]
            counts[depth >= depth[k]] = 0  # the object itself and those behind it hide nothing of it
            if counts.sum() >= 0.25 * ids.size:
                behind = [names[j] for j in np.argsort(-counts, kind="stable")[:2] if counts[j] >= counts.max() / 3]
        out[name] = {"px": view.pixels(k), "outside": outside, "behind": behind}
    return out


def _measured_extreme(m: dict[str, Any] | None, extreme: str, margin: float) -> str | None:
    """The object a shown photo makes clearly nearest (farthest) to its camera; None when hidden or too close."""
    if m is None or len(m) < 2:
        return None
    want = -1 if extreme == "nearest" else 1
    for name in m:
        if all(_depth_sign(m[name], m[o], margin / 2) == want for o in m if o != name):
            return name
    return None


def _unclear(f: dict[str, Any], seen: list[dict[str, Any]], answer: str) -> str | None:
    """Why the steps could not say of every condition photo what a person sees there, or None. The verifier finds the
    answer as the one option no photo rules out, so it could stand too close to a reference to tell (the steps then
    said it was too close, and that it met every condition); and an option too close in depth to tell may still have
    its foot clearly above or below the reference's (the steps said "too close to tell" of feet 35 rows apart)."""
    for c in f["conditions"]:
        m, ref = seen[c["image"]], c["ref"]
        want = _asked_sign(c["dir"])
        for o in f["options"]:
            s = _depth_sign(m.get(o), m.get(ref), f["margin"] / 2)
            if o == answer and s != want:
                return "the answer does not clearly meet a condition"
            if s == 0 and not feet_level(m[o], m[ref]):
                return "an option's depth is too close to a reference's to tell, but its foot is not"
    return None


def _meeting(f: dict[str, Any], shown: list[dict[str, Any] | None], refs: list[str]) -> tuple[list[bool], list[bool]]:
    """Per option, given the shown photos (None: hidden) and the premises' references ``refs``: whether it may meet
    every condition (none clearly fails), and whether it clearly meets every condition a shown photo states (a hidden
    photo's could go either way). An option is never its own reference."""
    may, clear = [], []
    for o in f["options"]:
        said = [
            (shown[c["image"]], c["ref"] if c["premise"] is None else refs[c["premise"]], c["dir"])
            for c in f["conditions"]
        ]
        may.append(o not in refs and all(_may_hold(m, o, ref, d, f["margin"]) for m, ref, d in said))
        clear.append(
            o not in refs
            and all(
                m is None or _depth_sign(m.get(o), m.get(ref), f["margin"] / 2) == _asked_sign(d) for m, ref, d in said
            )
        )
    return may, clear


def _may_hold(m: dict[str, Any] | None, o: str, ref: str, direction: str, margin: float) -> bool:
    """Whether "``o`` is nearer to (farther from) the camera than ``ref``" may hold given a photo (None: hidden)."""
    if m is None:
        return True
    s = _depth_sign(m.get(o), m.get(ref), margin / 2)
    return not s or s == _asked_sign(direction)


def _thinned(question: Question, rendered: Rendered, answer: int) -> bool:
    """Whether the question's draw falls outside its keep chance (:func:`mirforge.placement.keep_chance` under its
    shape's weights) for the ``answer`` the photos give, from where the options' objects were boxed in them: among
    the kept questions the answer is no likelier to be the option a placement scorer prefers."""
    f = question.facts
    n_images = len(rendered.images)
    weights = PLACEMENT_WEIGHTS.get((f["form"], n_images, len(f["premises"])))
    if weights is None:
        return False
    boxes = option_boxes(((r.image, r.name, r.box) for r in rendered.regions), f["options"], n_images)
    return f["thinning_draw"] >= keep_chance(placement_features(boxes, n_images), weights, answer)


# -- words --------------------------------------------------------------------------------------------------------
def _image_list(n: int) -> str:
    slots = ["<image>"] * n
    return ", ".join(slots[:-1]) + " and " + slots[-1] if n > 1 else slots[0]


def _unseen_text(info: dict[str, Any]) -> str:
    """Why an object cannot be seen in a photo, as measured (``_unseen``)."""
    if info["outside"]:
        return "outside the picture"
    if info["behind"]:
        return ("hidden" if info["px"] == 0 else "mostly hidden") + " behind the " + _join(info["behind"])
    return "barely visible"


def _ref_text(cond: dict[str, Any], premises: list[dict[str, Any]]) -> str:
    """How the question calls a condition's reference: by name, by its premise's tag, or "that object"."""
    if cond["premise"] is None:
        return f"the {cond['ref']}"
    return premises[cond["premise"]]["tag"] or "that object"


def _conditions_text(by_photo: list[tuple[int, list[tuple[str, str]]]]) -> str:
    """Each condition photo's conditions (direction, reference) in words: "nearer to the camera than the lamp in Image
    1 and farther from the camera than the mug in Image 2"; the same conditions in every photo once ("nearer to the
    camera than that object in Image 1 and in Image 3"); with two references a photo, "in Image 3, nearer to the camera
    than both X and Y, and in Image 4, nearer to the camera than X and farther from it than Y"."""
    texts = [_photo_conditions(said) for _, said in by_photo]
    images = [f"Image {image + 1}" for image, _ in by_photo]
    single = all(len(said) == 1 for _, said in by_photo)
    if len(set(texts)) == 1:
        return f"{texts[0]} in {' and in '.join(images)}" if single else f"in {_join(images)}, {texts[0]}"
    if single:
        return _join([f"{t} in {i}" for t, i in zip(texts, images, strict=True)])
    return ", and ".join(f"in {i}, {t}" for t, i in zip(texts, images, strict=True))


def _photo_conditions(said: list[tuple[str, str]]) -> str:
    if len(said) == 1:
        ((direction, ref),) = said
        return f"{_dir_text(direction)} the camera than {ref}"
    if len({d for d, _ in said}) == 1:
        return f"{_dir_text(said[0][0])} the camera than both {_join([r for _, r in said])}"
    return _join([f"{_dir_text(d)} {'the camera' if k == 0 else 'it'} than {r}" for k, (d, r) in enumerate(said)])


def _asked_sign(direction: str) -> int:
    """The depth sign a condition asks of an option against its reference: -1 for "nearer", +1 for "farther"."""
    return -1 if direction == "nearer" else 1


def _extreme_text(extreme: str) -> str:
    return "nearest to" if extreme == "nearest" else "farthest from"


def _dir_text(direction: str) -> str:
    return "nearer to" if direction == "nearer" else "farther from"


def _join(parts: list[str]) -> str:
    if len(parts) == 1:
        return parts[0]
    return ", ".join(parts[:-1]) + " and " + parts[-1]
