"""Half-precision conversions and package versions (see sandbox/acl/_sysinfo.py)."""

from __future__ import annotations

import math
import warnings

import numpy as np
from hypothesis import given
from hypothesis import strategies as st

import sandbox
from sandbox import acl

FINITE_HALF_RANGE = st.floats(min_value=-65504.0, max_value=65504.0, width=32)


def test_float_to_float16_of_the_sample_value_is_0x3e80_and_comes_back_exact(machine):
    assert acl.float_to_float16(1.625) == 0x3E80
    assert acl.float16_to_float(0x3E80) == 1.625


@given(FINITE_HALF_RANGE)
def test_float_to_float16_rounds_as_ieee_binary16_within_its_range(value):
    expected = int(np.array(value, np.float32).astype(np.float16).view(np.uint16))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        assert acl.float_to_float16(value) == expected


def test_float_to_float16_breaks_ties_to_even(machine):
    assert acl.float_to_float16(1 + 2.0**-11) == 0x3C00  # halfway between 0x3C00 and 0x3C01
    assert acl.float_to_float16(1 + 3 * 2.0**-11) == 0x3C02  # halfway between 0x3C01 and 0x3C02
    assert acl.float_to_float16(1 + 2.0**-11 + 2.0**-20) == 0x3C01  # past halfway


@given(st.integers(0, 0xFFFF).filter(lambda bits: (bits >> 10) & 0x1F != 31))
def test_float16_to_float_is_exact_for_every_finite_half(bits):
    value = acl.float16_to_float(bits)
    assert type(value) is float
    assert value == float(np.array(bits, np.uint16).view(np.float16))
    assert math.copysign(1.0, value) == (-1.0 if bits & 0x8000 else 1.0)


def test_float_to_float16_saturates_overflow_infinity_and_nan_to_65504_of_their_sign(machine):
    for value in (65520.0, 1e6, 1e300, math.inf, math.nan):
        assert acl.float_to_float16(value) == 0x7BFF
        assert acl.float_to_float16(-value) == 0xFBFF
    assert acl.float16_to_float(0x7BFF) == 65504.0
    assert acl.float_to_float16(10**400) == 0x7BFF and acl.float_to_float16(-(10**400)) == 0xFBFF


def test_float16_to_float_reads_the_inf_and_nan_patterns_as_numbers(machine):
    assert acl.float16_to_float(0x7C00) == 65536.0
    assert acl.float16_to_float(0xFC00) == -65536.0
    assert acl.float16_to_float(0x7E00) == 98304.0


def test_tiny_floats_become_subnormal_halves_or_a_signed_zero(machine):
    assert acl.float_to_float16(2.0**-24) == 0x0001
    assert acl.float_to_float16(2.0**-25) == 0x0000  # a tie: to even
    assert acl.float_to_float16(-1e-30) == 0x8000
    assert acl.float_to_float16(2.0**-14 - 2.0**-25) == 0x0400  # the largest subnormal rounds up to a normal


def test_a_conversion_of_the_wrong_kind_returns_zero_and_says_why(machine):
    assert acl.float_to_float16("1.5") == 0
    assert "real number" in acl.get_recent_err_msg()
    for bad in (-1, 0x10000, 1.5, True):
        assert acl.float16_to_float(bad) == 0.0
        assert "aclFloat16" in acl.get_recent_err_msg()


def test_the_conversions_and_versions_work_before_acl_init():
    sandbox.configure("ascend910b")
    assert acl.float_to_float16(-2.0) == 0xC000
    assert acl.float16_to_float(0xC000) == -2.0
    assert acl.get_version_str("runtime") == ("9.1.0", 0)


def test_the_runtime_package_version_is_that_of_the_runtime_sources_the_sandbox_follows(machine):
    assert acl.get_version_str("runtime") == (acl.RUNTIME_SOURCES_VERSION, acl.ACL_SUCCESS) == ("9.1.0", 0)
    assert acl.get_version_num("runtime") == (90_100_000, acl.ACL_SUCCESS)


def test_a_package_the_sandbox_does_not_install_is_invalid_file_and_says_why(machine):
    for call in (acl.get_version_str, acl.get_version_num):
        value, ret = call("driver")
        assert ret == acl.ACL_ERROR_INVALID_FILE == 100003
        assert value in ("", 0)
        assert "not an installed CANN package" in acl.get_recent_err_msg()


def test_a_null_or_non_string_package_name_is_invalid_param(machine):
    for bad in (None, 3, b"runtime"):
        assert acl.get_version_str(bad) == ("", acl.ACL_ERROR_INVALID_PARAM)
        assert acl.get_version_num(bad) == (0, acl.ACL_ERROR_INVALID_PARAM)


ANYTHING = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(),
    st.floats(),
    st.text(max_size=8),
    st.binary(max_size=4),
    st.lists(st.integers(), max_size=2),
)


@given(ANYTHING)
def test_the_information_calls_refuse_any_argument_cleanly_and_never_raise(value):
    sandbox.configure("ascend910b")
    bits = acl.float_to_float16(value)
    assert type(bits) is int and 0 <= bits <= 0xFFFF
    assert type(acl.float16_to_float(value)) is float
    text, ret = acl.get_version_str(value)
    assert (text, ret) in (("9.1.0", 0), ("", acl.ACL_ERROR_INVALID_PARAM), ("", acl.ACL_ERROR_INVALID_FILE))
    number, ret = acl.get_version_num(value)
    assert ret in (0, acl.ACL_ERROR_INVALID_PARAM, acl.ACL_ERROR_INVALID_FILE) and (number == 90_100_000) == (ret == 0)
