"""A jinja2 sandbox that bounds how much work a rubric's render may do.

A judge's rubric is a template, and a stored rubric is the text of whoever made the suite.
jinja2's sandbox keeps it away from Python's internals but not from work:
`{% for a in range(100000) %}{% for b in range(100000) %}x{% endfor %}{% endfor %}` renders
for days. A per-call timeout cannot stop that: the judge renders in a worker thread so that
the timeout fires, but a thread cannot be killed, so it would spin on. What stops it is a
budget the render itself runs out of: every loop iteration and every call spends a step,
every value a call, filter or operator makes is size-checked (before it is made where the
size is known in advance: `'x' * N`, `center(N)`), and the output is capped. Past any limit
the render raises `RenderLimit` ("rubric rendering exceeded ..."), a `SecurityError`, so the
judge reports a rubric failure: an error record, never a score.

The counting code is put into the template when it is parsed (each `for` iterates through
`environment.counted`, each `~` joins through `environment.joined`), where the template
cannot rename or shadow it.
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Iterable, Iterator, Mapping
from contextvars import ContextVar
from typing import Any

from jinja2 import Template, nodes
from jinja2.runtime import Context, str_join
from jinja2.sandbox import SandboxedEnvironment, SecurityError

MAX_STEPS = 200_000  # loop iterations and calls in one render; a real rubric makes dozens
MAX_SIZE = 1_000_000  # characters of output, items of a value, and any integer argument
MAX_INT_BITS = 4096  # an integer a rubric computes (a score needs a few bits)

_steps_left: ContextVar[list[int] | None] = ContextVar("rubric_steps_left", default=None)


class RenderLimit(SecurityError):
    """A rubric's render ran past one of this module's limits."""


def _spend(steps: int = 1) -> None:
    """Take `steps` from the current render's budget (no budget: not a bounded render)."""
    budget = _steps_left.get()
    if budget is None:
        return
    budget[0] -= steps
    if budget[0] < 0:
        raise RenderLimit(
            f"rubric rendering exceeded {MAX_STEPS} steps (loop iterations and calls)"
        )


def _sized(value: Any) -> Any:
    """`value`, once it is known not to be larger than a render may make."""
    if isinstance(value, bool):
        return value
    if isinstance(value, int) and value.bit_length() > MAX_INT_BITS:
        raise RenderLimit(f"rubric rendering exceeded {MAX_INT_BITS}-bit integers")
    sized = str | bytes | list | tuple | dict | set | frozenset | range
    if isinstance(value, sized) and len(value) > MAX_SIZE:
        raise RenderLimit(f"rubric rendering exceeded {MAX_SIZE} items in one value")
    return value


def _checked_arguments(args: Iterable[Any], kwargs: Mapping[str, Any]) -> None:
    """Refuse an integer argument above MAX_SIZE before the call: a width, a count or a
    repeat that large (`center(10**10)`, `range(10**9)`) would allocate before any check."""
    for value in (*args, *kwargs.values()):
        if isinstance(value, int) and not isinstance(value, bool) and abs(value) > MAX_SIZE:
            raise RenderLimit(f"rubric rendering exceeded {MAX_SIZE} in an argument ({value})")


def _product_size(left: Any, right: Any) -> int:
    """The length `left * right` would have (0 where it makes no sequence)."""
    for sequence, times in ((left, right), (right, left)):
        if isinstance(sequence, str | bytes | list | tuple) and isinstance(times, int):
            return len(sequence) * max(times, 0)
    return 0


def _integer_bits(operator: str, left: Any, right: Any) -> int:
    """The bits the integer `left <operator> right` would need, known before it is made."""
    if not (isinstance(left, int) and isinstance(right, int)):
        return 0
    if operator == "**":
        return left.bit_length() * max(right, 0)
    if operator == "*":
        return left.bit_length() + right.bit_length()
    return max(left.bit_length(), right.bit_length()) + 1


def _counted(iterable: Iterable[Any]) -> Iterator[Any]:
    """Every item a `for` loop takes costs a step."""
    for item in iterable:
        _spend()
        yield item


def _joined(parts: tuple[Any, ...]) -> str:
    """`a ~ b`: bounded, so that doubling a string in a loop stops at MAX_SIZE."""
    return _sized(str_join(parts))


def _bounded_filter(function: Callable[..., Any]) -> Callable[..., Any]:
    """A filter whose integer arguments and result are bounded (its `pass_context`-style
    markers are kept by `functools.wraps`, which copies the function's attributes)."""

    @functools.wraps(function)
    def bounded(*args: Any, **kwargs: Any) -> Any:
        _spend()
        _checked_arguments(args, kwargs)
        return _sized(function(*args, **kwargs))

    return bounded


class BoundedSandbox(SandboxedEnvironment):
    """jinja2's sandbox with a work budget per render (see the module's docstring); render
    with `render_bounded`, which gives each render its budget and caps its output."""

    intercepted_binops = frozenset({"+", "*", "**"})

    def __init__(self, **options: Any) -> None:
        super().__init__(**options)
        self.globals.pop("lipsum", None)  # generates text of any length; no rubric needs it
        self.filters = {name: _bounded_filter(f) for name, f in self.filters.items()}
        self.counted = _counted
        self.joined = _joined

    def _parse(self, source: str, name: str | None, filename: str | None) -> nodes.Template:
        tree = super()._parse(source, name, filename)
        for loop in tree.find_all(nodes.For):
            loop.iter = self._through("counted", loop.iter, loop.lineno)
        for concat in list(tree.find_all(nodes.Concat)):
            joined = self._through("joined", nodes.Tuple(concat.nodes, "load"), concat.lineno)
            concat.nodes = [joined]  # a Concat of one: the value of `joined`, as a string
        return tree

    @staticmethod
    def _through(attribute: str, node: nodes.Expr, lineno: int) -> nodes.Call:
        """`environment.<attribute>(node)` as template code the template cannot shadow."""
        helper = nodes.EnvironmentAttribute(attribute, lineno=lineno)
        return nodes.Call(helper, [node], [], None, None, lineno=lineno)

    def call(self, context: Context, obj: Any, /, *args: Any, **kwargs: Any) -> Any:
        _spend()
        _checked_arguments(args, kwargs)
        return _sized(super().call(context, obj, *args, **kwargs))

    def call_binop(self, context: Context, operator: str, left: Any, right: Any) -> Any:
        _spend()
        if _product_size(left, right) > MAX_SIZE:
            raise RenderLimit(f"rubric rendering exceeded {MAX_SIZE} items in one value")
        if _integer_bits(operator, left, right) > MAX_INT_BITS:
            raise RenderLimit(f"rubric rendering exceeded {MAX_INT_BITS}-bit integers")
        return _sized(super().call_binop(context, operator, left, right))


def render_bounded(template: Template, variables: Mapping[str, Any]) -> str:
    """Render `template` (compiled by a BoundedSandbox) with a fresh budget of MAX_STEPS and
    at most MAX_SIZE characters of output; past either it raises RenderLimit."""
    token = _steps_left.set([MAX_STEPS])
    try:
        chunks: list[str] = []
        size = 0
        for chunk in template.generate(**variables):
            size += len(chunk)
            if size > MAX_SIZE:
                raise RenderLimit(f"rubric rendering exceeded {MAX_SIZE} characters of output")
            chunks.append(chunk)
        return "".join(chunks)
    except RecursionError as exc:  # a macro that calls itself without end
        raise RenderLimit("rubric rendering exceeded Python's recursion depth") from exc
    finally:
        _steps_left.reset(token)
