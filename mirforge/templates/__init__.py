"""The five reasoning steps, rendered from a task's structured facts with Jinja templates.

Templates run in Jinja's sandbox with ``StrictUndefined``: a missing fact is an error, never an empty string,
and a user's template folder (``--templates DIR``, one sub-folder per task) cannot reach Python internals nor spend
unbounded memory or time (see :mod:`mirforge.templates.sandbox` for the limits).
``pick(a, b, ...)`` chooses a phrasing with the instance's RNG, so the text varies but stays reproducible.
"""

from __future__ import annotations

from functools import cache
from pathlib import Path
from typing import Any

import jinja2
import numpy as np

from mirforge.errors import InputError, MirforgeError
from mirforge.task import Steps, Task
from mirforge.templates.sandbox import LimitedSandbox

STEP_FILES = ("summary", "caption", "text2img", "img2img", "conclusion")


def fmt_box(box: list[int]) -> str:
    return "[" + ", ".join(str(int(v)) for v in box) + "]"


def join_and(items: list[Any], word: str = "and") -> str:
    items = [str(i) for i in items]
    if len(items) <= 1:
        return "".join(items)
    return ", ".join(items[:-1]) + f" {word} " + items[-1]


@cache
def _environment(dirs: tuple[str, ...]) -> LimitedSandbox:
    env = LimitedSandbox(
        loader=jinja2.FileSystemLoader(list(dirs)),
        undefined=jinja2.StrictUndefined,
        trim_blocks=True,
        lstrip_blocks=True,
        keep_trailing_newline=False,
        autoescape=False,
        auto_reload=False,  # templates do not change during a run; checking each file's time per step is slow
    )
    env.add_filters(box=fmt_box, join_and=join_and, ordinal=ordinal)
    return env


def ordinal(n: int) -> str:
    words = ["zeroth", "first", "second", "third", "fourth", "fifth", "sixth", "seventh", "eighth", "ninth"]
    return words[n] if 0 <= n < len(words) else f"{n}th"


def template_error(task: str, step: str, exc: Exception, override_dir: Path | None) -> MirforgeError:
    """One line naming the task, the step template, and the file and line at fault; a user's template (from
    ``--templates``) is bad input (exit code 2), a broken built-in one a failure."""
    where = ""
    if isinstance(exc, jinja2.TemplateSyntaxError) and exc.filename:
        where = f"{exc.filename}, line {exc.lineno}"
    else:
        tb = exc.__traceback__
        while tb is not None:
            if tb.tb_frame.f_code.co_filename.endswith(".j2"):
                where = f"{tb.tb_frame.f_code.co_filename}, line {tb.tb_lineno}"
            tb = tb.tb_next
    detail = " ".join(str(getattr(exc, "message", None) or exc).split())[:300]
    message = f"task {task}: template {step}.j2{f' ({where})' if where else ''}: {type(exc).__name__}: {detail}"
    user = override_dir is not None and (not where or where.startswith(str(Path(override_dir))))
    return InputError(message) if user else MirforgeError(message)


def render_steps(
    task: Task, facts: dict[str, Any], n_images: int, rng: np.random.Generator, override_dir: Path | None = None
) -> Steps:
    own = task.template_dir()
    dirs = [str(own)] if override_dir is None else [str(Path(override_dir) / task.name), str(own)]
    env = _environment(tuple(dirs))

    def pick(*choices: Any) -> Any:
        return choices[int(rng.integers(len(choices)))]

    def render(name: str, **extra: Any) -> str:
        try:
            text = env.render_limited(f"{name}.j2", {**facts, "pick": pick, **extra})
        except jinja2.TemplateNotFound as exc:
            if exc.name == f"{name}.j2":
                raise MirforgeError(f"task {task.name}: template {name}.j2 not found in {own}") from None
            raise template_error(task.name, name, exc, override_dir) from None
        except Exception as exc:  # undefined names, syntax, sandbox (SecurityError), Python errors of a template's code
            raise template_error(task.name, name, exc, override_dir) from None
        return " ".join(text.split())

    return Steps(
        summary=render("summary"),
        caption=[render("caption", i=i) for i in range(n_images)],
        text2img=render("text2img"),
        img2img=render("img2img"),
        conclusion=render("conclusion"),
    )


def check_overrides(override_dir: Path, tasks: list[str]) -> None:
    """Compile every user template a run would use, so a broken one stops the run before anything is written."""
    for name in tasks:
        folder = Path(override_dir) / name
        for path in sorted(folder.glob("*.j2")) if folder.is_dir() else []:
            env = _environment((str(folder),))
            try:
                env.get_template(path.name)
            except Exception as exc:  # syntax errors, bad UTF-8
                raise template_error(name, path.stem, exc, override_dir) from None
