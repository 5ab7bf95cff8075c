"""The real pyACL binding, as facts: every function's name, arguments and return shape.

``pyacl_binding.json`` beside this file is read from the binding's sources (repository
hicann/runtime, ``python/pyACL/``, at the commit it names; ``tools/pyacl_facts.py`` regenerates
it): one row a function, its ``PyArg_ParseTuple`` format, the ``Py_BuildValue`` formats it
returns and where in them the error code sits.  The facade is held to it
(``tests/facade/test_pyacl_conformance.py``), and the functions the sandbox does not model are made
from it (``_unmodelled.py``), so they take the binding's arguments and fail in its shape.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from importlib import resources

_TABLE = json.loads(resources.files(__package__).joinpath("pyacl_binding.json").read_text(encoding="utf-8"))
COMMIT: str = _TABLE["commit"]
SUBMODULES = ("rt", "mdl", "media", "op", "blas", "util", "prof", "himpi", "fv")  # py_init_acl.cpp adds them


def _values(fmt: str) -> list[str]:
    """The top-level values of a Py_BuildValue format, one letter each ('(' a nested tuple,
    '[' a list, '{' a dict)."""
    out, depth = [], 0
    for c in fmt:
        if c in "([{":
            if depth == 0:
                out.append(c)
            depth += 1
        elif c in ")]}":
            depth -= 1
        elif c.isalpha() and depth == 0:
            out.append(c)
    return out


_EMPTY = {
    "s": "",
    "z": None,
    "y": b"",
    "O": None,
    "N": None,
    "S": None,
    "f": 0.0,
    "d": 0.0,
    "(": (),
    "[": None,
    "{": None,
}


@dataclass(frozen=True)
class Fact:
    """One function of the binding (the table's row)."""

    module: str
    name: str
    c: tuple
    parse: str | None
    args: tuple  # (required, total) positional arguments
    returns: tuple
    code: int | None
    guard: str | None
    wrapper: str | None
    table: str
    note: str = ""

    @property
    def key(self) -> str:
        """``rt.malloc``, or ``app_log`` for the top level."""
        return f"{self.module}.{self.name}" if self.module else self.name

    @property
    def c_name(self) -> str:
        """The CANN call it wraps (its first), or its Python name when it wraps none."""
        return self.c[0] if self.c else f"acl.{self.key}"

    @property
    def shape(self) -> int | None:
        """What it returns: None (Py_None), 1 (one bare value) or the length of its tuple."""
        fmt = self.returns[-1] if self.returns else "None"
        return None if fmt == "None" else len(_values(fmt))

    def failure(self, code: int):
        """The value it returns when its call fails with ``code``, in its shape: the code where
        the wrapper puts it, zeros, empty strings and None for the rest (the binding returns
        the untouched outputs)."""
        fmt = self.returns[-1] if self.returns else "None"
        if fmt == "None":
            return None
        values = [code if i == self.code else _EMPTY.get(v, 0) for i, v in enumerate(_values(fmt))]
        return values[0] if len(values) == 1 else tuple(values)


FACTS: dict[str, Fact] = {}
for _row in _TABLE["functions"]:
    _fact = Fact(**{k: tuple(v) if isinstance(v, list) else v for k, v in _row.items()})  # type: ignore[arg-type]  # the table's rows are Fact's fields
    FACTS[_fact.key] = _fact
del _row, _fact


def of_module(module: str) -> list[Fact]:
    """The binding's functions of one module ('' for the top level), in table order."""
    return [f for f in FACTS.values() if f.module == module]


def wrapping(c_name: str) -> Fact | None:
    """The binding's function that wraps the C call ``c_name`` first, if it has one."""
    return next((f for f in FACTS.values() if f.c and f.c[0] == c_name), None)


def check_arguments(fact: Fact, args: tuple, kwargs: dict) -> None:
    """Refuse a call as the binding's argument parsing does: METH_VARARGS takes no keywords, and
    PyArg_ParseTuple raises TypeError for a count outside the format's (a wrapper that parses
    nothing ignores its arguments)."""
    where = f"acl.{fact.key}"
    if kwargs:
        raise TypeError(f"{where}() takes no keyword arguments (pyACL passes every argument by position)")
    if fact.parse is None:
        return
    low, high = fact.args
    if not low <= len(args) <= high:
        wanted = str(low) if low == high else f"{low} to {high}"
        raise TypeError(f"{where}() takes {wanted} positional arguments ({len(args)} given)")
