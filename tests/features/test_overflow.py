"""Floating-point overflow: the saturation mode, the stream's overflow switch, the overflow status
(sandbox/core/features/overflow.py; the codes cited in sandbox/acl/rt.py)."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import sandbox
from sandbox import acl
from sandbox.core import current_machine
from sandbox.core import trace as T

SATURATION, INFNAN = acl.ACL_RT_OVERFLOW_MODE_SATURATION, acl.ACL_RT_OVERFLOW_MODE_INFNAN


@sandbox.kernel(writes=("y",))
def scale(x: "float16*", y: "float16*", factor):
    y[:4] = x[:4] * np.float16(factor)


@sandbox.kernel(writes=("y",), ns=10_000_000)
def slow_scale(x: "float32*", y: "float32*", factor):
    y[:4] = x[:4] * np.float32(factor)


def _device(values, dtype=np.float16):
    host = np.asarray(values, dtype)
    ptr, _ = acl.rt.malloc(max(host.nbytes, 64), 0)
    acl.rt.memcpy(ptr, host.nbytes, acl.util.numpy_to_ptr(host), host.nbytes, acl.ACL_MEMCPY_HOST_TO_DEVICE)
    return ptr


def _read(ptr, n, dtype=np.float16):
    host = np.zeros(n, dtype)
    acl.rt.memcpy(acl.util.numpy_to_ptr(host), host.nbytes, ptr, host.nbytes, acl.ACL_MEMCPY_DEVICE_TO_HOST)
    return host


def _status(stream):
    out, _ = acl.rt.malloc(64, 0)
    assert acl.rt.get_overflow_status(out, 64, stream) == 0, acl.get_recent_err_msg()
    assert acl.rt.synchronize_stream(stream) == 0
    return _read(out, 16, np.uint32).tolist()


def _stream(mode=None, switch=None):
    if mode is not None:
        assert acl.rt.set_device_sat_mode(mode) == 0
    stream, _ = acl.rt.create_stream()
    if switch is not None:
        assert acl.rt.set_stream_overflow_switch(stream, switch) == 0
    return stream


def test_the_910b_starts_in_inf_nan_mode_and_the_310p_and_310b_in_saturation():
    for profile, mode in (("ascend910b", INFNAN), ("ascend310p", SATURATION), ("ascend310b", SATURATION)):
        sandbox.configure(profile)
        acl.init()
        assert acl.rt.get_device_sat_mode() == (mode, 0)


@pytest.mark.filterwarnings("ignore:overflow encountered:RuntimeWarning")
def test_a_stream_keeps_the_mode_it_was_created_under(machine):
    acl.rt.set_device(0)
    before = _stream()  # Inf/NaN, the 910B's default
    after = _stream(SATURATION)
    x = _device([60000, 1, 2, 3])
    y1, y2 = _device([0] * 4), _device([0] * 4)
    scale[1, before](x, y1, 2)
    scale[1, after](x, y2, 2)
    acl.rt.synchronize_device()
    assert np.isinf(_read(y1, 4)[0])
    assert _read(y2, 4).tolist() == [65504.0, 2.0, 4.0, 6.0]


@settings(max_examples=30, deadline=None)
@given(
    values=st.lists(st.floats(-60000, 60000, width=16), min_size=4, max_size=4),
    factor=st.sampled_from([2.0, -3.0, 1000.0, 0.5]),
)
def test_in_saturation_mode_an_overflowing_kernel_writes_the_largest_finite_value_of_each_sign(values, factor):
    sandbox.configure("ascend910b")
    acl.init()
    acl.rt.set_device(0)
    stream = _stream(SATURATION)
    x, y = _device(values), _device([0] * 4)
    scale[1, stream](x, y, factor)
    acl.rt.synchronize_stream(stream)
    with np.errstate(over="ignore"):
        exact = np.asarray(values, np.float16) * np.float16(factor)
    expected = np.where(np.isfinite(exact), exact, np.sign(exact) * np.float16(65504))
    assert _read(y, 4).tolist() == expected.tolist()


def test_a_kernel_that_overflows_on_a_switched_on_stream_sets_the_status_at_its_completion(machine):
    acl.rt.set_device(0)
    stream = _stream(INFNAN, 1)
    x, y = _device([3e38, 1, 2, 3], np.float32), _device([0] * 4, np.float32)
    slow_scale[1, stream](x, y, 10)
    status, _ = acl.rt.malloc(64, 0)
    acl.rt.get_overflow_status(status, 64, 0)  # the default stream: not ordered after the kernel
    acl.rt.synchronize_device()
    assert _read(status, 1, np.uint32).tolist() == [0]  # copied before the kernel completed
    assert _status(stream) == [1] + [0] * 15
    assert np.isinf(_read(y, 1, np.float32)[0])  # Inf/NaN mode: the result is inf


def test_the_switch_off_or_finite_arithmetic_leaves_the_status_at_zero(machine):
    acl.rt.set_device(0)
    off, on = _stream(SATURATION, 0), _stream(SATURATION, 1)
    x, y = _device([60000, 1, 2, 3]), _device([0] * 4)
    scale[1, off](x, y, 2)  # overflows, but nobody watches
    acl.rt.synchronize_stream(off)
    scale[1, on](x, y, 0.5)  # watched, does not overflow
    acl.rt.synchronize_device()
    assert _status(on)[0] == 0
    assert _read(y, 4).tolist() == [30000.0, 0.5, 1.0, 1.5]


def test_inf_already_in_the_inputs_is_no_overflow(machine):
    acl.rt.set_device(0)
    stream = _stream(INFNAN, 1)
    x, y = _device([np.inf, 1, 2, 3]), _device([0] * 4)
    scale[1, stream](x, y, 2)
    acl.rt.synchronize_stream(stream)
    assert _status(stream)[0] == 0


def test_a_reset_clears_the_status_when_the_stream_reaches_it(machine):
    acl.rt.set_device(0)
    stream = _stream(INFNAN, 1)
    x, y = _device([60000, 1, 2, 3]), _device([0] * 4)
    scale[1, stream](x, y, 2)
    assert acl.rt.reset_overflow_status(stream) == 0
    assert _status(stream)[0] == 0
    scale[1, stream](x, y, 2)
    assert _status(stream)[0] == 1
    (reset,) = [r for r in sandbox.trace().of(T.TaskSubmitted) if r.name == "aclrtResetOverflowStatus"]
    assert reset.kind == "memset"


def test_the_status_is_the_processs_on_each_device(machine):
    acl.rt.set_device(0)
    stream = _stream(INFNAN, 1)
    x, y = _device([60000, 1, 2, 3]), _device([0] * 4)
    scale[1, stream](x, y, 2)
    acl.rt.synchronize_device()
    assert _status(_stream())[0] == 1  # another stream of the same device sees it
    acl.rt.set_device(1)
    assert _status(0)[0] == 0


def test_set_device_sat_mode_refuses_a_missing_mode_with_207000_then_a_bad_one_with_107000():
    sandbox.configure("ascend310p")
    acl.init()
    assert acl.rt.set_device_sat_mode(INFNAN) == acl.ACL_ERROR_RT_FEATURE_NOT_SUPPORT
    assert acl.rt.set_device_sat_mode(SATURATION) == 0
    assert acl.rt.set_device_sat_mode(acl.ACL_RT_OVERFLOW_MODE_UNDEF) == acl.ACL_ERROR_RT_PARAM_INVALID
    assert acl.rt.set_device_sat_mode(-1) == 107000
    assert acl.rt.get_device_sat_mode() == (SATURATION, 0)


def test_the_switch_flag_must_be_0_or_1_at_the_acl_layer(machine):
    acl.rt.set_device(0)
    stream = _stream()
    assert acl.rt.set_stream_overflow_switch(stream, 2) == acl.ACL_ERROR_INVALID_PARAM
    assert acl.rt.get_stream_overflow_switch(stream) == (0, 0)
    assert acl.rt.set_stream_overflow_switch(stream, 1) == 0
    assert acl.rt.get_stream_overflow_switch(stream) == (1, 0)


@pytest.mark.parametrize("profile, reads", [("ascend310p", 1), ("ascend310b", 0)])
def test_a_chip_without_the_stream_switch_accepts_it_and_keeps_nothing(profile, reads):
    sandbox.configure(profile)
    acl.init()
    acl.rt.set_device(0)
    stream = _stream()
    assert acl.rt.set_stream_overflow_switch(stream, 1) == 0
    assert acl.rt.set_stream_overflow_switch(12345, 1) == 0  # not even the handle is looked at
    assert acl.rt.get_stream_overflow_switch(stream) == (reads, 0)
    x, y = _device([60000, 1, 2, 3]), _device([0] * 4)
    scale[1, stream](x, y, 2)
    assert _status(stream)[0] == 0
    assert _read(y, 1).tolist() == [65504.0]  # saturation, the chip's only mode


def test_get_overflow_status_checks_its_address_size_and_memory(machine):
    acl.rt.set_device(0)
    out, _ = acl.rt.malloc(64, 0)
    assert acl.rt.get_overflow_status(0, 64, 0) == acl.ACL_ERROR_INVALID_PARAM
    assert acl.rt.get_overflow_status(out, 32, 0) == acl.ACL_ERROR_RT_PARAM_INVALID
    assert acl.rt.get_overflow_status(out + 32, 64, 0) == 107000  # past the allocation
    host, _ = acl.rt.malloc_host(64)
    assert acl.rt.get_overflow_status(host, 64, 0) == 107000


def test_overflow_calls_on_a_capturing_stream_are_107027(machine):
    acl.rt.set_device(0)
    stream = _stream()
    out, _ = acl.rt.malloc(64, 0)
    assert acl.mdl.ri_capture_begin(stream, 0) == 0
    assert acl.rt.set_stream_overflow_switch(stream, 1) == acl.ACL_ERROR_RT_STREAM_CAPTURED
    assert acl.rt.get_overflow_status(out, 64, stream) == 107027
    assert acl.rt.reset_overflow_status(stream) == 107027
    acl.mdl.ri_capture_end(stream)
    assert acl.rt.get_stream_overflow_switch(stream) == (0, 0)


def test_overflow_calls_with_a_stream_of_another_device_are_107003(machine):
    acl.rt.set_device(1)
    other = _stream()
    acl.rt.set_device(0)
    out, _ = acl.rt.malloc(64, 0)
    for ret in (
        acl.rt.set_stream_overflow_switch(other, 1),
        acl.rt.get_stream_overflow_switch(other)[1],
        acl.rt.get_overflow_status(out, 64, other),
        acl.rt.reset_overflow_status(other),
    ):
        assert ret == acl.ACL_ERROR_RT_STREAM_CONTEXT


def test_the_status_copy_is_a_write_of_its_buffer_for_the_hazard_checks(machine):
    acl.rt.set_device(0)
    stream = _stream()
    out, _ = acl.rt.malloc(64, 0)
    acl.rt.get_overflow_status(out, 64, stream)
    host = np.zeros(64, np.uint8)
    with pytest.warns(sandbox.HazardWarning):
        acl.rt.memcpy(acl.util.numpy_to_ptr(host), 64, out, 64, acl.ACL_MEMCPY_DEVICE_TO_HOST)


def test_kernels_nobody_watches_run_without_numpys_flags(machine):
    acl.rt.set_device(0)
    stream = _stream()  # Inf/NaN mode, switch off: the plain path
    m = current_machine.current()
    assert sandbox.core.features.overflow.watch(m, m.streams[stream], scale) is None
    x, y = _device([60000, 1, 2, 3]), _device([0] * 4)
    with pytest.warns(RuntimeWarning, match="overflow"):  # numpy's own warning, as before
        scale[1, stream](x, y, 2)
        acl.rt.synchronize_stream(stream)
