"""What the optional compiled build (tools/build_compiled.py) is told about a class of a module it
compiles.  ``@mypyc_attr(native_class=False)`` keeps the class an ordinary Python class there;
``serializable=True`` makes a native class whose instances still pickle, as a kernel's must (an
isolated check carries an exercise's kernels to a fresh interpreter), while every launch reads its
fields natively.  In plain Python the mark does nothing."""
from __future__ import annotations

try:
    from mypy_extensions import mypyc_attr
except ImportError:      # no mypy installed (a learner's environment): nothing reads the mark

    def mypyc_attr(*attrs: str, **kwattrs: object):  # type: ignore[misc]  # the same mark, doing nothing
        return lambda cls: cls


__all__ = ["mypyc_attr"]
