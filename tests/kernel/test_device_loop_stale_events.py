"""A finish event made stale by an earlier end moves no clock (core/device_loop.py ``step``)."""

import warnings

import sandbox
from sandbox import acl
from sandbox.core.current_machine import current


def test_a_released_wait_leaves_no_timer_that_moves_device_time_past_the_host(device0):
    n, _ = acl.rt.create_notify(0)
    other, _ = acl.rt.create_stream()
    assert acl.rt.wait_and_reset_notify(n, device0, 1) == 0  # a 1 s timeout, released at once below
    assert acl.rt.record_notify(n, other) == 0
    assert acl.rt.synchronize_stream(device0) == 0
    dev, _ = acl.rt.malloc(4096, 0)
    acl.rt.value_write(dev, 0, 0, other)
    acl.rt.value_wait(dev, 0, acl.ACL_STREAM_WAIT_VALUE_AND, other)  # word & 0 is never non-zero
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        assert acl.rt.synchronize_device() == acl.ACL_ERROR_RT_STREAM_SYNC_TIMEOUT  # the deadlock report
    assert current().sim.now <= sandbox.now() < 10**9 + 10**8
