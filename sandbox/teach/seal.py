"""What a solution may not change while it runs: the sandbox's own code.

Before the solution runs the grader notes every function and class of the ``sandbox`` package,
and the methods of its classes (with the code object of each function); after the run it puts
back whatever the solution rebound and names it, so that a judge is never one the solution
wrote, and the learner's notebook is left with the sandbox it had.
"""

from __future__ import annotations

import sys
import types


def _code(value):
    fn = getattr(value, "__func__", value)
    return fn.__code__ if isinstance(fn, types.FunctionType) else None


_CODE_KINDS = (types.FunctionType, types.BuiltinFunctionType, type, staticmethod, classmethod, property)


def _places():
    """(owner, name, value) for every function and class a sandbox module holds, and the methods
    of the classes it defines (data, such as the current machine or a cache, changes as it runs)."""
    for modname, module in list(sys.modules.items()):
        if module is None or not (modname == "sandbox" or modname.startswith("sandbox.")):
            continue
        for name, value in list(vars(module).items()):
            if not isinstance(value, _CODE_KINDS):
                continue
            yield module, name, value
            if isinstance(value, type) and value.__module__ == modname:
                for attr, member in list(vars(value).items()):
                    if isinstance(member, _CODE_KINDS):
                        yield value, attr, member


class Seal:
    """The sandbox's code as it was when the seal was made."""

    def __init__(self):
        self._was = {(id(owner), name): (owner, name, value, _code(value)) for owner, name, value in _places()}

    def broken(self) -> list[str]:
        """Put back what was rebound, deleted or had its code replaced since; their names, sorted."""
        changed = []
        for owner, name, value, code in self._was.values():
            now = vars(owner).get(name, _MISSING)
            if now is not value or (code is not None and _code(value) is not code):
                changed.append(f"{getattr(owner, '__name__', '?')}.{name}")
                if code is not None and _code(value) is not code:
                    getattr(value, "__func__", value).__code__ = code
                setattr(owner, name, value)
        return sorted(changed)


_MISSING = object()
