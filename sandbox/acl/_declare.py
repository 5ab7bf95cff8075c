"""How the facade declares a call: its Python signature, its parameters' kinds, one core call.

    @api("aclrtStreamQuery", cost="query", defaults=(0,))
    def stream_query(m, th, stream: handle):
        return streams.query(m, th, stream)

makes ``acl.rt.stream_query(stream)``.  The public function has the parameters after
``(m, th)``, with their names and defaults (learners pass keywords).  Inside the call, each
argument is converted by its annotation, as ``@sandbox.kernel`` reads its parameters'
(core/features/kernels.py), so a wrong type returns 100000 with a message naming the parameter instead
of raising; the body then gets ``(machine, thread, converted...)`` and runs through the API gate
(``gate.call``) as the C call ``c_name``, charged ``cost`` (ns, or a HostCosts field name).

* ``defaults``: the values returned beside the code when the call fails; their number
  decides the return shape (none: a bare int; ``(0,)``: ``(value, ret)``).
* ``bare=True`` (with one default): the value alone, no code, as pyACL returns some handles and
  sizes (``acl.create_data_buffer``); on failure, the default.
* ``trace``: the parameters the call's trace record shows, in that order (default: all, in
  signature order), each as passed, or as its kind's ``show`` makes it (a callback's name).
* ``convert``: the order the arguments are converted in, when a call checks them in
  another order than its signature's (the first mistake found is the one reported).
* ``before(m, th, c_name)``: a check made before any argument is converted.
* ``needs_init=True``: the call refuses with 100001 before aclInit.  In the runtime's sources
  only the dump and profiling calls check (src/acl/aclrt_impl/toolchain/dump.cpp:111, 147, 200;
  msprofiler_acl_api.cpp:523, 836, 846): every other call, aclrtSetDevice and aclrtGetRunMode
  included, works before aclInit.

``helper`` declares an ``acl.util`` function the same way: no host time, no call row; a
failure returns ``defaults`` in pyACL's shape for it (``code=False``: the one value alone).

The kinds (annotations): ``int``; ``ptr`` and ``handle`` (an int, 0 the null pointer or the
default stream; None raises TypeError before the call, as pyACL's argument parsing refuses it
for its "k" format: python/pyACL/rt/*.cpp, ``PyArg_ParseTuple``); ``size``
(an int >= 0); ``positive_size`` (> 0); ``timeout`` (ms: -1 = forever, else > 0; 0 or below -1: 107000);
unannotated parameters pass as they are.  A module declares its own with ``Kind``.

The wrapper is generated once, at import: per call it costs what a hand-written wrapper
does, an int passes its check inline and no converter function is called for it.
"""

from __future__ import annotations

import inspect
import os
from typing import TYPE_CHECKING, Any, Callable

from ..core.errors import ACL_ERROR_RT_PARAM_INVALID, fail
from ..core.gate import as_int, as_ptr, as_size, call, local
from ..core.machine import current


class Kind:
    """How a parameter is converted and shown.

    ``convert(value, what)`` returns the value the body gets, or fails with the runtime's code
    (``what`` is the parameter's name); with ``resolve=True`` it is ``convert(m, th, value,
    what, c_name)``, for a handle looked up under the lock.  ``fast`` is a condition on ``{v}``
    under which the value is passed as it is, without calling ``convert``.  ``show(value)``
    is what the trace shows instead of the value.
    """

    __slots__ = ("convert", "fast", "show", "resolve", "no_none")

    def __init__(self, convert=None, fast=None, *, show=None, resolve=False, no_none=False):
        self.convert, self.fast, self.show, self.resolve = convert, fast, show, resolve
        self.no_none = no_none  # None raises TypeError before the call, as pyACL's "k" parsing does


def _positive_size(value, what: str) -> int:
    return as_size(value, what, positive=True)


def _timeout(value, what: str) -> int:
    """A synchronize's timeout: -1 (forever) or > 0 ms; 0 and below -1 are refused with 107000
    (stream, event and device: src/runtime/api/impl/api_error.cc:1443, 1773, 3480)."""
    ms = as_int(value, what)
    if ms < -1 or ms == 0:
        fail(ACL_ERROR_RT_PARAM_INVALID, f"{what} must be -1 (forever) or > 0 ms, got {ms}")
    return ms


_INT = "type({v}) is int"
integer = Kind(as_int, _INT)  # what an ``int`` annotation means
if TYPE_CHECKING:  # to a type checker, a kind is the type the body gets: each of these converts to an int
    ptr = int
    handle = int
    size = int
    positive_size = int
    timeout = int
else:
    ptr = Kind(as_ptr, _INT, no_none=True)
    handle = Kind(as_ptr, _INT, no_none=True)  # stream, event, context, pool: 0 = the default/null one
    size = Kind(as_size, _INT + " and {v} >= 0")
    positive_size = Kind(_positive_size, _INT + " and {v} > 0")
    timeout = Kind(_timeout, _INT + " and ({v} > 0 or {v} == -1)")


# A body takes (m, th, converted...) and may return anything (a status-only call's body returns
# None: the gate returns the code); the public call takes the public parameters only.
Declaration = Callable[[Callable[..., Any]], Callable[..., Any]]


def api(
    c_name: str,
    *,
    cost: int | str = "default",
    defaults: tuple = (),
    needs_init: bool = False,
    trace=None,
    convert=None,
    before=None,
    bare: bool = False,
) -> Declaration:
    """Declare a runtime call (see the module docstring)."""
    if bare and len(defaults) != 1:
        raise TypeError(f"{c_name}: bare=True returns one value, so it takes one default")
    options: dict[str, Any] = {"cost": cost}
    if defaults:
        options["defaults"] = defaults
    if needs_init:
        options["needs_init"] = True
    runner = "_call(_name, {run}, {params}{options}{args})" + ("[0]" if bare else "")
    return lambda body: _declare(body, c_name, runner, options, trace, convert, before)


def helper(name: str, *, defaults: tuple = (None,), code: bool = False, convert=None) -> Declaration:
    """Declare an acl.util helper: ``name`` in messages and records, ``defaults`` on failure."""
    options = {"defaults": defaults, "code": code}
    return lambda body: _declare(
        body, name, "_local({run}, _name, _defaults, code=_code{params})", options, None, convert, None, is_helper=True
    )


def _none_refused(c_name: str, where: str, values: dict) -> None:
    names = ", ".join(name for name, value in values.items() if value is None)
    raise TypeError(
        f"{where} ({c_name}): {names} is None, and pyACL parses pointers and handles as ints, refusing "
        "None: pass 0 (the null pointer; for a stream, the default stream)"
    )


def _kind(annotation, where: str):
    if annotation is inspect.Parameter.empty:
        return None
    if annotation is int:
        return integer
    if not isinstance(annotation, Kind):
        raise TypeError(f"{where}: {annotation!r} is no parameter kind (int, ptr, handle, size, ... or a Kind)")
    return annotation


_PLAIN = (int, str, float, bool, type(None))


def _shown(value):
    """A value a call's record shows as it is: one marshal could not give back as it was (a
    numpy scalar, a list, any object) stops the trace log packing its rows, from now on (the
    call's row comes when it returns, and other threads' calls may pack the log meanwhile)."""
    if type(value) not in _PLAIN:
        current().log.plain = False
    return value


def _declared_at(body) -> str:
    """``sandbox/acl/rt.py:123``: where ``body`` is declared, from the package's parent folder."""
    code = body.__code__
    path = os.path.relpath(code.co_filename, os.path.dirname(os.path.dirname(os.path.dirname(__file__))))
    return f"{path}:{code.co_firstlineno}"


def _declare(body, c_name: str, runner: str, options: dict, trace, convert, before, is_helper: bool = False):
    params = list(inspect.signature(body, eval_str=True).parameters.values())
    if [p.name for p in params[:2]] != ["m", "th"]:
        raise TypeError(f"{body.__name__}: a facade body starts with (m, th)")
    public = params[2:]
    names = [p.name for p in public]
    for p in public:
        if p.kind is not p.POSITIONAL_OR_KEYWORD or p.name.startswith("_") or p.name in ("m", "th"):
            raise TypeError(f"{body.__name__}: parameter {p.name!r} cannot be a facade parameter")
    ns = {
        "__name__": body.__module__,
        "_call": call,
        "_local": local,
        "_body": body,
        "_name": c_name,
        "_before": before,
        "_shown": _shown,
        "_none_refused": _none_refused,
    }
    ns.update({f"_{key}": value for key, value in options.items()})

    signature, converted, shown, no_none = [], {}, {}, []
    for p in public:
        n = p.name
        signature.append(n if p.default is p.empty else f"{n}=_d_{n}")
        ns[f"_d_{n}"] = p.default
        kind = _kind(p.annotation, f"{body.__name__}({n})")
        if kind is not None and kind.no_none:
            no_none.append(n)
        if kind is not None and kind.convert is not None:
            ns[f"_k_{n}"] = kind.convert
            if kind.resolve:
                converted[n] = f"_k_{n}(m, th, {n}, {n!r}, _name)"
            elif kind.fast:
                converted[n] = f"({n} if {kind.fast.format(v=n)} else _k_{n}({n}, {n!r}))"
            else:
                converted[n] = f"_k_{n}({n}, {n!r})"
        else:
            converted[n] = n
        if kind is not None and kind.show is not None:
            ns[f"_s_{n}"] = kind.show
            shown[n] = f"_shown(_s_{n}({n}))"
        elif kind is None or kind.fast is None or not kind.fast.startswith(_INT):
            shown[n] = f"_shown({n})"
        else:  # an int passes as it is; anything else goes through as_int, which says so to the log
            shown[n] = n
    order = names if convert is None else list(convert)
    if sorted(order) != sorted(names):
        raise TypeError(f"{body.__name__}: convert={convert!r} must name each parameter once")
    traced = names if trace is None else list(trace)
    if set(traced) - set(names):
        raise TypeError(f"{body.__name__}: trace names {sorted(set(traced) - set(names))}, not its parameters")

    keywords = "" if is_helper else ", ".join(f"{key}=_{key}" for key in options)
    args = "" if is_helper or not traced else ", args=(" + "".join(f"{n!r}, {shown[n]}, " for n in traced) + ")"
    lines = [f"def {body.__name__}({', '.join(signature)}):"]
    if no_none and not is_helper:
        module = body.__module__.rpartition(".")[2]
        where = f"acl.{body.__name__}" if module.startswith("_") or module == "acl" else f"acl.{module}.{body.__name__}"
        checks = " or ".join(f"{n} is None" for n in no_none)
        values = ", ".join(f"{n!r}: {n}" for n in no_none)
        lines.append(f"    if {checks}: _none_refused(_name, {where!r}, {{{values}}})")
    # The gate (or _local) calls run(m, th, *params): the public arguments go as a tuple, converted
    # inside the call (a bad one is the call's failure), with no closure made per call.
    run_lines: list[str] = []
    nested = before is not None or order != names  # (was a nested def; else a lambda on the return line)
    if before is None and not names:
        run, passed = "_body", ""  # nothing to convert
    else:
        run = "_run"
        values = "(" + "".join(f"{n}, " for n in names) + ")"
        passed = f", params={values}" if is_helper else f"{values}, "
        run_lines = [f"def _run(m, th{''.join(', ' + n for n in names)}):"]
        if before is not None:
            run_lines.append("    _before(m, th, _name)")
        if not nested:
            run_lines.append(f"    return _body(m, th{''.join(', ' + converted[n] for n in names)})")
        else:
            run_lines += [f"    _v_{n} = {converted[n]}" for n in order]
            run_lines.append(f"    return _body(m, th{''.join(', _v_' + n for n in names)})")
    # _run's lines are those its code had inside the public function (a nested def, or a lambda on the
    # return line), so that a warning raised inside a call names the same place as ever
    # (hazards.emit stops at the first frame outside the package: this one).
    first = len(lines) + (1 if nested else 0)
    lines.append("    return " + runner.format(run=run, params=passed, options=keywords, args=args))
    filename = f"<facade {c_name}>"
    exec(compile("\n".join(lines) + "\n", filename, "exec"), ns)  # our own text, made above
    if run_lines:
        exec(compile("\n" * (first - 1) + "\n".join(run_lines) + "\n", filename, "exec"), ns)  # (the same)
    fn = ns[body.__name__]
    # a traceback through the call names it "in malloc (declared at sandbox/acl/rt.py:425)"
    fn.__code__ = fn.__code__.replace(co_name=f"{body.__name__} (declared at {_declared_at(body)})")
    fn.__module__, fn.__qualname__, fn.__doc__ = body.__module__, body.__qualname__, body.__doc__
    fn.__annotations__ = {k: v for k, v in body.__annotations__.items() if k not in ("m", "th")}
    if not is_helper and "defaults" not in options:
        fn.__annotations__["return"] = "int"  # a status-only call returns the code, whatever its body returns
    fn.__source__ = "\n".join(lines + run_lines)  # what was generated, for reading
    return fn
