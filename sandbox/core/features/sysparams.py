"""System parameter options: aclrtSetSysParamOpt / aclrtGetSysParamOpt and their context forms.

The options (aclSysParamOpt): ACL_OPT_DETERMINISTIC 0, ACL_OPT_ENABLE_DEBUG_KERNEL 1,
ACL_OPT_STRONG_CONSISTENCY 2, ACL_OPT_ENABLE_KERNEL_EARLY_START 3.  The process-wide table holds
all four, each 0 until set (src/runtime/api/api_c.cc:94, 3490-3519); a context holds the first
three, and reading one never set is 107021 ACL_ERROR_RT_SYSPARAMOPT_NOT_SET (context.cc:3396-3412).
The acl layer refuses another option with 100000 (src/acl/aclrt_impl/context.cpp:85-145); the
runtime refuses a value outside [0, 4) for DETERMINISTIC, [0, 2) for the others, with 107000
(api_c.cc:3496-3500, api_error.cc:6159-6172).  The sandbox records them: its kernels are
deterministic and in order whatever they say.
"""
from __future__ import annotations

from typing import TYPE_CHECKING

from ..errors import ACL_ERROR_INVALID_PARAM, ACL_ERROR_RT_PARAM_INVALID, ACL_ERROR_RT_SYSPARAMOPT_NOT_SET, fail

if TYPE_CHECKING:
    from ..machine import Machine
    from ..objects import HostThread

NAMES = ("ACL_OPT_DETERMINISTIC", "ACL_OPT_ENABLE_DEBUG_KERNEL", "ACL_OPT_STRONG_CONSISTENCY",
         "ACL_OPT_ENABLE_KERNEL_EARLY_START")


def _check(opt: int, context: bool) -> None:
    options = 3 if context else 4
    if not 0 <= opt < options:
        fail(ACL_ERROR_INVALID_PARAM, f"opt must be one of {', '.join(f'{n} ({i})' for i, n in enumerate(NAMES[:options]))}"
             f", got {opt}")


def set_opt(m: Machine, th: HostThread, opt: int, value: int, context: bool) -> None:
    _check(opt, context)
    limit = 4 if opt == 0 else 2
    if not 0 <= value < limit:
        fail(ACL_ERROR_RT_PARAM_INVALID, f"{NAMES[opt]} takes a value in [0, {limit}), got {value}")
    table = m.current_context(th).sys_params if context else th.process.sys_params
    table[opt] = value


def get_opt(m: Machine, th: HostThread, opt: int, context: bool) -> int:
    _check(opt, context)
    if not context:
        return th.process.sys_params.get(opt, 0)
    table = m.current_context(th).sys_params
    if opt not in table:
        fail(ACL_ERROR_RT_SYSPARAMOPT_NOT_SET, f"{NAMES[opt]} was never set in the current context "
             "(aclrtCtxSetSysParamOpt)")
    return table[opt]
