"""The names the sandbox offers that the real pyACL binding does not have, and a check for them.

pyACL (``import acl`` on a board) wraps most of the runtime, but not every C call: the official
samples are C programs, and some of their calls (host functions, memory pools, ACL Graph
capture, event flags, IPC events, ...) have no Python binding.  The sandbox offers them under
pyACL's naming rule (``aclrtLaunchHostFunc`` -> ``acl.rt.launch_host_func``) so the C samples
port line by line; ``BEYOND_PYACL`` lists each with its C call, and each one's docstring says
it is not in pyACL.  A program that uses one runs here and not on a board: ``check`` finds them.

pyACL defines no constants either (``py_init_acl.cpp`` adds none: programs for a board define
their own, as the official samples' ``constants.py`` does); the facade's ``acl.ACL_*`` names are
the sandbox's convenience, and ``check`` lists them too.
"""

from __future__ import annotations

import ast
import inspect
import re
import sys
import textwrap
from typing import NamedTuple

from . import _binding, _unmodelled

# the calls modelled beyond the binding, by what they are for: {name: C call}
MODELLED: dict[str, str] = {
    # host functions and stream-state callbacks
    "rt.launch_host_func": "aclrtLaunchHostFunc",
    "rt.subscribe_host_func": "aclrtSubscribeHostFunc",
    "rt.process_host_func": "aclrtProcessHostFunc",
    "rt.unsubscribe_host_func": "aclrtUnSubscribeHostFunc",
    "rt.reg_stream_state_callback": "aclrtRegStreamStateCallback",
    # streams and events
    "rt.create_stream_config_handle": "aclrtCreateStreamConfigHandle",
    "rt.destroy_stream_config_handle": "aclrtDestroyStreamConfigHandle",
    "rt.set_stream_config_opt": "aclrtSetStreamConfigOpt",
    "rt.create_stream_v2": "aclrtCreateStreamV2",
    "rt.stream_get_priority": "aclrtStreamGetPriority",
    "rt.stream_get_flags": "aclrtStreamGetFlags",
    "rt.stream_stop": "aclrtStreamStop",
    "rt.record_event_with_flag": "aclrtRecordEventWithFlag",
    "rt.stream_wait_event_with_flag": "aclrtStreamWaitEventWithFlag",
    "rt.ipc_get_event_handle": "aclrtIpcGetEventHandle",
    "rt.ipc_open_event_handle": "aclrtIpcOpenEventHandle",
    # memory
    "rt.free_with_dev_sync": "aclrtFreeWithDevSync",
    "rt.mem_pool_create": "aclrtMemPoolCreate",
    "rt.mem_pool_destroy": "aclrtMemPoolDestroy",
    "rt.mem_pool_malloc_async": "aclrtMemPoolMallocAsync",
    "rt.mem_pool_free_async": "aclrtMemPoolFreeAsync",
    "rt.mem_pool_get_attr": "aclrtMemPoolGetAttr",
    "rt.mem_pool_set_attr": "aclrtMemPoolSetAttr",
    "rt.mem_pool_trim_to": "aclrtMemPoolTrimTo",
    "rt.mem_set_access": "aclrtMemSetAccess",
    "rt.allocator_get_by_stream": "aclrtAllocatorGetByStream",
    # built-in tasks, errors, compatibility
    "rt.random_num_async": "aclrtRandomNumAsync",
    "rt.get_error_verbose": "aclrtGetErrorVerbose",
    "rt.check_arch_compatibility": "aclrtCheckArchCompatibility",
    "get_version_num": "aclsysGetVersionNum",
    # ACL Graph: stream capture into a model run instance
    "mdl.ri_capture_begin": "aclmdlRICaptureBegin",
    "mdl.ri_capture_end": "aclmdlRICaptureEnd",
    "mdl.ri_capture_get_info": "aclmdlRICaptureGetInfo",
    "mdl.ri_capture_thread_exchange_mode": "aclmdlRICaptureThreadExchangeMode",
    "mdl.ri_execute_async": "aclmdlRIExecuteAsync",
    "mdl.ri_execute": "aclmdlRIExecute",
    "mdl.ri_destroy": "aclmdlRIDestroy",
    "mdl.ri_debug_json_print": "aclmdlRIDebugJsonPrint",
    # mstx (CANN's mstx/ms_tools_ext.h): marks and ranges in domains, while msproftx collects
    "mstx.mark_a": "mstxMarkA",
    "mstx.range_start_a": "mstxRangeStartA",
    "mstx.range_end": "mstxRangeEnd",
    "mstx.domain_create_a": "mstxDomainCreateA",
    "mstx.domain_destroy": "mstxDomainDestroy",
    "mstx.domain_mark_a": "mstxDomainMarkA",
    "mstx.domain_range_start_a": "mstxDomainRangeStartA",
    "mstx.domain_range_end": "mstxDomainRangeEnd",
}

# the facade's submodules pyACL lacks: a C library beside acl, its prefix the submodule's name as pyACL
# names its own (aclprof -> acl.prof): mstx -> acl.mstx
SUBMODULES = ("mstx",)


def _refused_sample_calls() -> dict[str, str]:
    """The official C samples' calls the sandbox refuses and pyACL lacks (``_unmodelled.NOT_MODELLED``)."""
    out = {}
    for names in _unmodelled.NOT_MODELLED.values():
        for c_name in names:
            if _binding.wrapping(c_name) is None:
                module, name = _unmodelled.py_name(c_name)
                out[f"{module}.{name}" if module else name] = c_name
    return out


BEYOND_PYACL: dict[str, str] = {**MODELLED, **_refused_sample_calls()}


def declare(modules: dict) -> None:
    """Say so in each modelled one's docstring (``modules``: "" / "rt" / ... -> the facade's module)."""
    for key, c_name in MODELLED.items():
        module, _, name = key.rpartition(".")
        fn = getattr(modules[module], name)
        doc = (fn.__doc__ or f"{c_name}.").rstrip()
        if "not in pyACL" not in doc:
            fn.__doc__ = (
                f"{doc}\n\nBeyond pyACL: the real binding has no ``acl.{key}`` (it does not wrap {c_name}); the "
                "sandbox offers it to port the official C samples. A program that calls it does not run on a board "
                "with ``import acl``: this call is not in pyACL."
            )


class Finding(NamedTuple):
    """A name a program uses that ``import acl`` on a board would not have."""

    where: str  # "line 3", or in Jupyter "In [4] line 2"
    name: str  # as the program writes it: "acl.rt.launch_host_func"
    what: str  # why, and what to do


def _why(key: str, value) -> str | None:
    if key in _binding.FACTS or key in _binding.SUBMODULES:
        return None
    if key in BEYOND_PYACL:
        return f"not in pyACL: the sandbox's {BEYOND_PYACL[key]}, offered to port the C samples"
    if key in SUBMODULES:
        return f"not in pyACL: the sandbox's {key}* C calls, offered to port the C samples"
    name = key.rpartition(".")[2]
    if re.fullmatch(r"ACL_[A-Z0-9_]+", name) and isinstance(value, int):
        return f"not in pyACL, which defines no constants: write {name} = {value} in the program"
    return "not in pyACL" if value is not None else "neither in pyACL nor in the sandbox"


def _arguments(node: ast.Call):
    """(line, name, why) of the arguments of a call the binding would refuse: ptr_to_numpy takes
    its shape as a tuple and its type as numpy's type number (python/pyACL/util/numpy_convert.cpp);
    the sandbox also takes a list or an int shape and a numpy type."""
    func = node.func
    if not (isinstance(func, ast.Attribute) and func.attr == "ptr_to_numpy" and len(node.args) == 3):
        return
    shape, dtype = node.args[1], node.args[2]
    if isinstance(shape, (ast.List, ast.Constant)):
        yield node.lineno, "acl.util.ptr_to_numpy", "pyACL takes the shape as a tuple: (n,)"
    if isinstance(dtype, ast.Attribute) and isinstance(dtype.value, ast.Name) and dtype.value.id in ("np", "numpy"):
        number = getattr(__import__("numpy"), dtype.attr, None)
        hint = f" ({__import__('numpy').dtype(number).num})" if isinstance(number, type) else ""
        yield (
            node.lineno,
            "acl.util.ptr_to_numpy",
            (f"pyACL takes numpy's type number, not {ast.unparse(dtype)}: np.dtype({ast.unparse(dtype)}).num{hint}"),
        )


def _names(source: str):
    """(line, key) of each ``acl.x`` / ``acl.<submodule>.x`` the source reads, and (line, name,
    why) of each argument pyACL would refuse."""
    named: set[int] = set()  # the submodule nodes of acl.<submodule>.x, named with x
    for node in ast.walk(ast.parse(textwrap.dedent(source))):
        if isinstance(node, ast.Call):
            yield from _arguments(node)
        if not isinstance(node, ast.Attribute) or id(node) in named:
            continue
        chain: list[str] = []
        inner: ast.expr = node
        while isinstance(inner, ast.Attribute):
            chain.append(inner.attr)
            inner = inner.value
        chain.reverse()
        if not (isinstance(inner, ast.Name) and inner.id == "acl"):
            continue
        if len(chain) == 2 and chain[0] in SUBMODULES:
            named.add(id(node.value))  # acl.mstx.mark_a is one finding, not two
        if len(chain) == 1 or (len(chain) == 2 and chain[0] in (*_binding.SUBMODULES, *SUBMODULES)):
            yield node.lineno, ".".join(chain)  # (line, key)


def check(program=None) -> list[Finding]:
    """The names of ``acl`` a program uses that pyACL on a board does not have, in order.

    ``program``: source text, a function or module (its source), or nothing: in Jupyter, the
    cells run so far in this kernel; in a script, the script.  It reads ``acl.x`` and ``acl.rt.x`` (the submodules too) as
    the program writes them, whatever ``acl`` is bound to: ``from sandbox import acl`` and
    ``import acl`` read alike.
    """
    facade = sys.modules[__package__]
    if program is None:
        sources = _cells_so_far()
    else:
        sources = [("", program if isinstance(program, str) else inspect.getsource(program))]
    found: dict[tuple[str, str], Finding] = {}
    for label, source in sources:
        for line, key, *argument in sorted(_names(source)):
            where = f"{label} line {line}".strip()
            if argument:
                found.setdefault((where, argument[0]), Finding(where, key, argument[0]))
                continue
            target: object = facade
            for part in key.split("."):
                target = getattr(target, part, None)
            why = _why(key, target)
            if why is not None:
                found.setdefault((where, key), Finding(where, f"acl.{key}", why))
    return list(found.values())


_CELLS: list[str] = []  # the notebook cells run since the sandbox was imported (watch_cells)


def _record_cell(info) -> None:
    _CELLS.append(info.raw_cell)


def watch_cells() -> None:
    """Keep the source of each notebook cell run from now on: a kernel that keeps no history
    (nbval's, for one) still lets ``check()`` read the cells run so far."""
    ipython = sys.modules.get("IPython")
    shell = ipython.get_ipython() if ipython is not None else None
    if shell is not None and not getattr(shell, "_sandbox_cells_watched", False):
        shell.events.register("pre_run_cell", _record_cell)
        shell._sandbox_cells_watched = True


def _cells_so_far() -> list[tuple[str, str]]:
    """In Jupyter, the cells run so far (IPython's history, else those kept since the import); in a
    script, the script; else nothing."""
    ipython = sys.modules.get("IPython")
    shell = ipython.get_ipython() if ipython is not None else None
    if shell is None:
        main = getattr(sys.modules.get("__main__"), "__file__", None)
        return [("", open(main, encoding="utf-8").read())] if main and main.endswith(".py") else []
    history = shell.user_ns.get("In", [])
    cells = [(f"In [{n}]", cell) for n, cell in enumerate(history) if n]
    if not any(cell for _, cell in cells):
        cells = [(f"cell {n + 1}", cell) for n, cell in enumerate(_CELLS)]
    out = []
    for label, cell in cells:
        if not cell or "not_in_pyacl" in cell:
            continue
        try:
            ast.parse(cell)
        except SyntaxError:
            continue  # a cell with IPython magics
        out.append((label, cell))
    return out
