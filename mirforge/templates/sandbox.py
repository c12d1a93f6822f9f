"""The sandbox step templates run in, with limits on what one template may cost.

Jinja's sandbox keeps a template away from Python internals (an immutable one: no ``list.append`` that doubles a
list in a loop); the limits keep it from exhausting memory or time with ordinary means:

- every string or sequence a template builds, by an operator (``*``, ``**``, ``+``, ``%``, ``~``), a call or a
  filter, holds at most :data:`VALUE_CHARS` items; an operator's result is checked before it is computed where its
  size is known from its operands (``'x' * 10**9``, ``10 ** 10**10``), so nothing huge is ever built;
- format strings (``%``, ``|format``, ``str.format``), string methods (``center``, ``ljust``, ...) and filters
  that take a width (:data:`WIDTH_FILTERS`) take no size above :data:`VALUE_CHARS`;
- ``range()`` calls of one step template together yield at most :data:`RANGE_ITEMS` items, so nested loops stop
  early instead of multiplying (the inner range is counted each time the outer loop makes it);
- ``lipsum`` writes at most :data:`LIPSUM_PARAGRAPHS` paragraphs;
- one step's output is at most :data:`STEP_CHARS` characters, counted while it is written.

A template that breaks a limit raises ``SecurityError``; the caller reports it as a one-line template error.
"""

from __future__ import annotations

import re
import string
from collections.abc import Callable, Sized
from functools import update_wrapper
from types import BuiltinMethodType
from typing import Any

from jinja2 import nodes
from jinja2.compiler import CodeGenerator, Frame
from jinja2.exceptions import SecurityError
from jinja2.sandbox import ImmutableSandboxedEnvironment, safe_range
from jinja2.utils import generate_lorem_ipsum

STEP_CHARS = 64 * 1024
VALUE_CHARS = STEP_CHARS
RANGE_ITEMS = 100_000
LIPSUM_PARAGRAPHS = 10
WIDTH_FILTERS = frozenset({"center", "indent", "wordwrap", "truncate", "batch", "slice"})  # sizes from an argument
_PERCENT_SPEC = re.compile(r"%(?:\([^)]*\))?[#0 +-]*(\*|\d+)?(?:\.(\*|\d+))?")


def sized(value: Any, what: str = "a value") -> Any:
    """``value``, if it is not a string or sequence longer than :data:`VALUE_CHARS`."""
    if isinstance(value, (str, bytes, list, tuple, dict, set, frozenset)) and len(value) > VALUE_CHARS:
        raise SecurityError(f"{what} of {len(value)} items is over the template limit of {VALUE_CHARS}")
    return value


def check_sizes(args: tuple[Any, ...], kwargs: dict[str, Any], what: str) -> None:
    """Refuse a width or count argument over the limit (``'x'.center(10**9)``) before the call builds it."""
    for value in (*args, *kwargs.values()):
        if isinstance(value, int) and value > VALUE_CHARS:
            raise SecurityError(f"{what}: an argument of {value} is over the template limit of {VALUE_CHARS}")


def check_binop(operator: str, left: Any, right: Any) -> None:
    """Refuse an operation whose result would be over the limit, before it is computed."""
    ints = isinstance(left, int) and isinstance(right, int)
    if operator == "**" and ints and right > 0 and abs(left) > 1:
        if abs(left).bit_length() * right > VALUE_CHARS * 8:
            raise SecurityError(f"{left} ** {right} is over the template limit of {VALUE_CHARS * 8} bits")
    elif operator == "*" and ints:
        if left.bit_length() + right.bit_length() > VALUE_CHARS * 8:
            raise SecurityError(f"a product of over {VALUE_CHARS * 8} bits is over the template limit")
    elif operator == "*":
        seq, times = (left, right) if isinstance(right, int) else (right, left)
        if isinstance(seq, Sized) and isinstance(times, int) and len(seq) * times > VALUE_CHARS:
            raise SecurityError(f"repeating {len(seq)} items {times} times is over the template limit of {VALUE_CHARS}")
    elif operator == "+" and isinstance(left, Sized) and isinstance(right, Sized):
        if len(left) + len(right) > VALUE_CHARS:
            raise SecurityError(f"joining {len(left)} and {len(right)} items is over the template limit")
    elif operator == "%" and isinstance(left, str):
        check_percent_format(left)


def check_percent_format(text: str) -> None:
    for match in _PERCENT_SPEC.finditer(text):
        for number in match.groups():
            if number == "*":
                raise SecurityError("a '*' width or precision is not allowed in a template's format string")
            if number is not None and int(number) > VALUE_CHARS:
                raise SecurityError(f"a width or precision of {number} is over the template limit of {VALUE_CHARS}")


def check_brace_format(text: str) -> None:
    for _, field, spec, _ in string.Formatter().parse(text):
        if field is None or not spec:
            continue
        if "{" in spec:
            raise SecurityError("a nested replacement field in a format spec is not allowed in a template")
        for number in re.findall(r"\d+", spec):
            if int(number) > VALUE_CHARS:
                raise SecurityError(f"a width or precision of {number} is over the template limit of {VALUE_CHARS}")


class RangeBudget:
    """``range`` for one step template: all the ranges it makes share :data:`RANGE_ITEMS` items."""

    def __init__(self, items: int = RANGE_ITEMS):
        self.left = items

    def __call__(self, *args: int) -> range:
        made = safe_range(*args)
        self.left -= len(made)
        if self.left < 0:
            raise SecurityError(f"the template's range() loops go over the limit of {RANGE_ITEMS} items")
        return made


def lipsum(n: int = 5, html: bool = True, min: int = 20, max: int = 100) -> str:  # noqa: A002 - Jinja's names
    if not 0 <= n <= LIPSUM_PARAGRAPHS or not 0 < min <= max <= 100:
        raise SecurityError(f"lipsum: over the template limit of {LIPSUM_PARAGRAPHS} paragraphs of 100 words")
    return generate_lorem_ipsum(n=n, html=html, min=min, max=max)


def checked_filter(name: str, func: Callable[..., Any]) -> Callable[..., Any]:
    def run(*args: Any, **kwargs: Any) -> Any:
        if name == "format" and args and isinstance(args[0], str):
            check_percent_format(args[0])
        elif name in WIDTH_FILTERS:
            check_sizes(args[1:], kwargs, f"|{name}")
        return sized(func(*args, **kwargs), f"the result of |{name}")

    return update_wrapper(run, func)  # keeps Jinja's pass_context/pass_environment marks


class _CheckedConcat(CodeGenerator):
    """Compiles ``a ~ b`` to a checked join (Jinja has no hook for the concatenation operator)."""

    def visit_Concat(self, node: nodes.Concat, frame: Frame) -> None:
        self.write("environment.sized(")
        super().visit_Concat(node, frame)
        self.write(")")


class LimitedSandbox(ImmutableSandboxedEnvironment):
    """Jinja's immutable sandbox with the limits of this module. A step template is rendered with
    :meth:`render_limited`, which applies the range and output limits."""

    intercepted_binops = frozenset({"*", "**", "+", "%"})
    code_generator_class = _CheckedConcat

    def __init__(self, **kwargs: Any):
        super().__init__(**kwargs)
        self.globals["lipsum"] = lipsum
        self.filters = {name: checked_filter(name, func) for name, func in self.filters.items()}

    def add_filters(self, **filters: Callable[..., Any]) -> None:
        self.filters.update({name: checked_filter(name, func) for name, func in filters.items()})

    def sized(self, value: Any) -> Any:
        return sized(value, "a joined string")

    def call_binop(self, context: Any, operator: str, left: Any, right: Any) -> Any:
        check_binop(operator, left, right)
        return sized(super().call_binop(context, operator, left, right), f"the result of {operator!r}")

    def call(__self, __context: Any, __obj: Any, *args: Any, **kwargs: Any) -> Any:  # noqa: N805 - Jinja's form
        if isinstance(__obj, BuiltinMethodType) and isinstance(getattr(__obj, "__self__", None), (str, bytes)):
            check_sizes(args, kwargs, f"{type(__obj.__self__).__name__}.{__obj.__name__}")
        return sized(super().call(__context, __obj, *args, **kwargs), "the result of a call")

    def wrap_str_format(self, value: Any) -> Callable[..., str] | None:
        wrapped = super().wrap_str_format(value)
        if wrapped is not None:
            check_brace_format(value.__self__)
        return wrapped

    def render_limited(self, name: str, context: dict[str, Any]) -> str:
        """The template ``name`` rendered with ``context``, its ranges budgeted and its output counted as it is
        written."""
        parts: list[str] = []
        written = 0
        for part in self.get_template(name).generate({**context, "range": RangeBudget()}):
            written += len(part)
            if written > STEP_CHARS:
                raise SecurityError(f"the step's text is over the template limit of {STEP_CHARS} characters")
            parts.append(part)
        return "".join(parts)
