"""`typing.NamedTuple` class syntax without importing `typing` when the program runs.

Why: clients run the pre-tool hook before every tool call of every agent, and its quick path
must cost little beyond the interpreter's own start (`bench/hook_bench.py`). Importing `typing`
and building classes through its NamedTuple machinery took a noticeable share of what the hook
adds. Type checkers see `typing.NamedTuple` itself; when the program runs, a class written as
`class Entry(NamedTuple): name: str = ""` becomes a `collections.namedtuple` of the annotated
fields (defaults as written), with the class body's methods and docstring kept.
"""

from __future__ import annotations

import collections

TYPE_CHECKING = False  # not typing.TYPE_CHECKING: type checkers read this name alike

if TYPE_CHECKING:
    from typing import NamedTuple
else:

    class _Builder(type):
        """Turns a NamedTuple subclass body into a namedtuple subclass."""

        def __new__(mcls, name, bases, namespace):
            if not bases:
                return super().__new__(mcls, name, bases, namespace)
            fields = list(namespace.get("__annotations__", {}))
            defaults = [namespace[field] for field in fields if field in namespace]
            base = collections.namedtuple(
                name, fields, defaults=defaults, module=namespace["__module__"]
            )
            body = {
                key: value
                for key, value in namespace.items()
                if key not in fields and key != "__annotations__"
            }
            body["__slots__"] = ()
            return type(name, (base,), body)

    class NamedTuple(metaclass=_Builder):
        """Base of light named tuples; see the module docstring."""


__all__ = ["NamedTuple"]
