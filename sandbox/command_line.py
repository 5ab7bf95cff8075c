"""``sandbox.msprof``: what running a program under msprof's command line does, for the code in a ``with``.

    msprof --output=./prof --msproftx=on --mstx-domain-include="default" bash run.sh

is, for a port,

    with sandbox.msprof("./prof", msproftx="on", mstx_domain_include="default"):
        main()

The sandbox has no command line and no second program around it: the ``with`` block is the program run
under msprof.  It checks the options as msprof does (dvvp/msprofbin/src/input_parser_commercial.cpp:34-52:
the domain filters need ``msproftx="on"`` and exclude each other; hicann/runtime at 681ef761), starts a
collection of the calling process on every device (ACL_API, TASK_TIME and AICORE_METRICS, msprof's default
switches, with MSPROFTX for ``msproftx="on"``), and at the end of the block writes it as an acl.prof stop
does, ``PROF_000001_<time>_<pid><letters>/mindstudio_profiler_output/`` under ``output``
(sandbox/export/msprof.py).  With ``msproftx="on"`` the mstx calls (``acl.mstx``) and aclprof's msproftx
calls are on for the block, and the filters keep or drop mstx domains by name ("default": the default
domain; several: comma-separated), as core/features/mstx.py says.

Not modelled: on a board the program's own aclprofInit/Start/Stop/Finalize fail under msprof's command
line with 100042 ACL_ERROR_PROF_ALREADY_RUN (engine/src/prof_acl_mgr.cpp:525-578); here they keep their
own rules beside msprof's collection.  Processes the program spawns are not collected.
"""

from __future__ import annotations

import contextlib
import os

from .core.features import mstx
from .core.gate import local


@contextlib.contextmanager
def msprof(output: str = ".", *, msproftx: str = "off", mstx_domain_include: str = "", mstx_domain_exclude: str = ""):
    """Run the ``with`` block as a program under ``msprof --output=output --msproftx=... [--mstx-domain-*]``."""
    if msproftx not in ("on", "off"):
        raise ValueError(f"Argument --msproftx: invalid value {msproftx!r}, expected 'on' or 'off'")
    if msproftx != "on" and (mstx_domain_include or mstx_domain_exclude):
        raise ValueError("Argument --mstx-domain-include/--mstx-domain-exclude must be used with --msproftx=on.")
    if mstx_domain_include and mstx_domain_exclude:
        raise ValueError("Argument --mstx-domain-include and --mstx-domain-exclude cannot be used at the same time.")
    path = os.path.abspath(output)
    os.makedirs(path, exist_ok=True)
    on = msproftx == "on"
    local(lambda m, th: mstx.command_line_start(m, th, path, on, mstx_domain_include, mstx_domain_exclude))
    try:
        yield
    finally:
        local(lambda m, th: mstx.command_line_stop(m, th, _write))


def _write(log, started, t: int) -> None:
    from .export.msprof import write_collection

    write_collection(log, started, t)
