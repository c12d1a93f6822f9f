"""Which images an instance needs: the verifier re-run with one evidence image hidden at a time.

An evidence image is needed when hiding it leaves more than one option consistent with the other images. Option
images (each shows one option's content) are not needed one by one; instead, the option images alone must not
determine the answer: with every evidence image hidden, more than one option must stay consistent.
"""

from __future__ import annotations

from dataclasses import dataclass

from mirforge.errors import MirforgeError, Reject
from mirforge.task import Question, Rendered, Task

ROLES = ("evidence", "option")


@dataclass(frozen=True)
class Necessity:
    roles: list[str]
    needed: list[bool | None]  # per image; None for an option image
    options_decide: bool  # the option images alone leave exactly one option

    @property
    def all_needed(self) -> bool:
        return all(n is not False for n in self.needed) and not self.options_decide


def necessity(task: Task, question: Question, rendered: Rendered) -> Necessity | None:
    """None when the task does not implement :meth:`Task.consistent`."""
    if not task.proves_necessity():
        return None
    roles = task.roles(question, rendered)
    if len(roles) != len(rendered.images) or any(r not in ROLES for r in roles):
        raise MirforgeError(f"task {task.name}: roles() must give one of {ROLES} per image, got {roles}")
    full = task.consistent(question, rendered, frozenset())
    if full != {question.answer}:
        raise Reject(f"consistent() with every image shown gives {sorted(full or [])}, not the answer")
    needed: list[bool | None] = []
    for k, role in enumerate(roles):
        if role == "option":
            needed.append(None)
            continue
        needed.append(len(task.consistent(question, rendered, frozenset({k})) or ()) > 1)
    evidence = frozenset(k for k, role in enumerate(roles) if role == "evidence")
    options_decide = "option" in roles and len(task.consistent(question, rendered, evidence) or ()) == 1
    return Necessity(roles, needed, options_decide)


def require(task: Task, level: int, found: Necessity | None) -> None:
    """Reject an attempt whose evidence is not all needed, where the task's config requires it at ``level``."""
    if found is None or not task.requires_needed(level):
        return
    idle = [k + 1 for k, n in enumerate(found.needed) if n is False]
    if idle:
        raise Reject(f"image {idle[0]} is not needed")
    if found.options_decide:
        raise Reject("the option images alone decide the answer")
