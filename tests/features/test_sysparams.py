"""System parameter options (core/features/sysparams.py): per process and per context."""

from __future__ import annotations

from sandbox import acl

DETERMINISTIC, DEBUG_KERNEL, STRONG_CONSISTENCY, EARLY_START = 0, 1, 2, 3


def test_a_process_option_reads_0_until_set_then_what_was_set(device0):
    assert acl.rt.get_sys_param_opt(EARLY_START) == (0, 0)
    assert acl.rt.set_sys_param_opt(EARLY_START, 1) == 0
    assert acl.rt.get_sys_param_opt(EARLY_START) == (1, 0)


def test_a_context_option_never_set_is_107021_and_options_are_per_context(device0):
    assert acl.rt.ctx_get_sys_param_opt(DETERMINISTIC) == (0, acl.ACL_ERROR_RT_SYSPARAMOPT_NOT_SET)
    assert acl.rt.ctx_set_sys_param_opt(DETERMINISTIC, 3) == 0
    assert acl.rt.ctx_get_sys_param_opt(DETERMINISTIC) == (3, 0)
    acl.rt.create_context(0)  # now current
    assert acl.rt.ctx_get_sys_param_opt(DETERMINISTIC)[1] == acl.ACL_ERROR_RT_SYSPARAMOPT_NOT_SET


def test_an_unknown_option_is_the_acl_layers_100000_and_a_value_out_of_range_the_runtimes_107000(device0):
    assert acl.rt.ctx_set_sys_param_opt(EARLY_START, 1) == acl.ACL_ERROR_INVALID_PARAM  # not a context option
    assert acl.rt.set_sys_param_opt(4, 0) == acl.ACL_ERROR_INVALID_PARAM
    assert acl.rt.set_sys_param_opt(DETERMINISTIC, 4) == acl.ACL_ERROR_RT_PARAM_INVALID  # levels 0..3
    assert acl.rt.set_sys_param_opt(DEBUG_KERNEL, 2) == acl.ACL_ERROR_RT_PARAM_INVALID  # 0 or 1
    assert acl.rt.get_sys_param_opt(DEBUG_KERNEL) == (0, 0)  # the refused call set nothing
