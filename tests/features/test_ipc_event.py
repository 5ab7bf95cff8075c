"""IPC events: one event shared between processes (core/features/events.py, aclrtIpcGetEventHandle and
aclrtIpcOpenEventHandle; runtime api_impl_event.cc, ipc_event.cc, api_error.cc)."""

from __future__ import annotations

import warnings

import pytest

import sandbox
from sandbox import acl
from sandbox.core import trace as T
from sandbox.core.current_machine import current

from conftest import dev_alloc, tasks_by_id

pytestmark = pytest.mark.filterwarnings("ignore::sandbox.LeakWarning")  # the processes here end as they are

LONG_NS = 3_000_000_000  # longer than a new process's first aclrtSetDevice (1 s): its record is still pending


@sandbox.kernel(ns=LONG_NS, writes=())
def long_work(x: "uint8*"):
    pass


@sandbox.kernel(ns=10_000)
def fill(x: "uint8*"):
    pass


def ipc_event():
    ev, ret = acl.rt.create_event_ex_with_flag(acl.ACL_EVENT_IPC)
    assert ret == 0, acl.get_recent_err_msg()
    return ev


def handle_of(ev):
    handle, ret = acl.rt.ipc_get_event_handle(ev)
    assert ret == 0, acl.get_recent_err_msg()
    return handle


def in_process(body, *args, device=0, finalize=True):
    """Run ``body(stream, *args)`` in a new simulated process (acl.init, aclrtSetDevice(device),
    one stream) and return what it returned; ``finalize``: end with aclFinalize."""
    out = {}

    def main():
        acl.init()
        acl.rt.set_device(device)
        stream, _ = acl.rt.create_stream()
        out["value"] = body(stream, *args)
        if finalize:
            acl.rt.destroy_stream(stream)
            acl.finalize()

    sandbox.spawn_process(main, name="B").join()
    return out.get("value")


def opened(handle):
    ev, ret = acl.rt.ipc_open_event_handle(handle)
    assert ret == 0, acl.get_recent_err_msg()
    return ev


def record_end(stream):
    """End of the last EVENT_RECORD task on ``stream``."""
    return [t for t in tasks_by_id().values() if t["stream"] == stream and t["name"] == "EVENT_RECORD"][-1]["end"]


# -- which events, which handles ----------------------------------------------------------------------
def test_the_ipc_flag_with_any_other_flag_is_107000(device0):
    assert acl.rt.create_event_ex_with_flag(acl.ACL_EVENT_IPC | acl.ACL_EVENT_SYNC) == (0, 107000)


@pytest.mark.parametrize(
    "make",
    [
        lambda: acl.rt.create_event(),
        lambda: acl.rt.create_event_with_flag(acl.ACL_EVENT_SYNC),
        lambda: acl.rt.create_event_with_flag(acl.ACL_EVENT_IPC),
        lambda: acl.rt.create_event_ex_with_flag(acl.ACL_EVENT_SYNC),
    ],
    ids=["plain", "with_flag_sync", "with_flag_ipc", "ex_sync"],
)
def test_only_an_ex_event_with_the_ipc_flag_has_a_handle_others_are_107000(device0, make):
    ev, _ = make()
    assert acl.rt.ipc_get_event_handle(ev) == (None, acl.ACL_ERROR_RT_PARAM_INVALID)
    assert "aclrtCreateEventExWithFlag(ACL_EVENT_IPC)" in acl.get_recent_err_msg()


def test_the_handle_is_64_bytes_with_a_key_that_is_the_same_on_every_call_and_every_run(device0):
    first, second = ipc_event(), ipc_event()
    h2 = handle_of(second)  # keys go by first export, not by creation
    h1 = handle_of(first)
    assert type(h1) is bytes and len(h1) == acl.ACL_IPC_EVENT_HANDLE_SIZE == 64
    assert h2 == (1).to_bytes(8, "little") + bytes(56) and h1 == (2).to_bytes(8, "little") + bytes(56)
    assert handle_of(first) == h1
    sandbox.configure("ascend910b")
    acl.init()
    acl.rt.set_device(0)
    assert handle_of(ipc_event()) == h2  # a fresh machine: the same bytes


def test_chips_without_ipc_events_refuse_them_with_207000():
    sandbox.configure("ascend310p")
    acl.init()
    acl.rt.set_device(0)
    assert acl.rt.create_event_ex_with_flag(acl.ACL_EVENT_IPC) == (0, acl.ACL_ERROR_RT_FEATURE_NOT_SUPPORT)
    sync_ev, _ = acl.rt.create_event_ex_with_flag(acl.ACL_EVENT_SYNC)
    assert acl.rt.ipc_get_event_handle(sync_ev) == (None, acl.ACL_ERROR_RT_FEATURE_NOT_SUPPORT)
    assert acl.rt.ipc_open_event_handle(bytes(64)) == (0, acl.ACL_ERROR_RT_FEATURE_NOT_SUPPORT)


def test_a_handle_that_is_not_64_bytes_is_100000(device0):
    for bad in (b"\x01", None, 1, "x" * 64, bytes(65)):
        assert acl.rt.ipc_open_event_handle(bad) == (0, acl.ACL_ERROR_INVALID_PARAM)


def test_a_handle_no_event_was_exported_under_is_107000_and_opens_nothing(device0):
    live = len(current().events)
    assert acl.rt.ipc_open_event_handle((7).to_bytes(8, "little") + bytes(56)) == (0, 107000)
    assert "no live IPC event" in acl.get_recent_err_msg()
    assert len(current().events) == live


def test_opening_needs_a_current_context_107002(machine):
    acl.rt.set_device(0)
    handle = handle_of(ipc_event())

    def body():
        acl.init()
        return acl.rt.ipc_open_event_handle(handle), acl.rt.ipc_open_event_handle(bytes(64))

    out = []
    sandbox.spawn_process(lambda: out.append(body())).join()
    assert out == [((0, acl.ACL_ERROR_RT_CONTEXT_NULL),) * 2]  # the context before the handle (api_impl_event.cc:37)


# -- one event in every process --------------------------------------------------------------------------
def test_a_record_in_one_process_holds_a_stream_wait_in_another_until_it_completes(device0):
    ev = ipc_event()
    handle = handle_of(ev)
    long_work[1, device0](dev_alloc(64))
    acl.rt.record_event(ev, device0)

    def consumer(stream):
        acl.rt.stream_wait_event(stream, opened(handle))
        fill[1, stream](dev_alloc(64))
        acl.rt.synchronize_stream(stream)
        return stream, current().current_thread().clock

    stream, clock = in_process(consumer)
    fill_task = [t for t in tasks_by_id().values() if t["stream"] == stream and t["kind"] == "kernel"][0]
    assert fill_task["start"] >= record_end(device0) >= LONG_NS
    assert clock >= fill_task["end"]


def test_a_record_in_one_process_completes_an_event_synchronize_in_another(device0):
    ev = ipc_event()
    handle = handle_of(ev)
    long_work[1, device0](dev_alloc(64))
    acl.rt.record_event(ev, device0)

    def consumer(stream):
        ev_b = opened(handle)
        before = acl.rt.query_event_status(ev_b)
        assert acl.rt.synchronize_event(ev_b) == 0
        return before, acl.rt.query_event_status(ev_b), current().current_thread().clock

    before, after, clock = in_process(consumer)
    assert before == (acl.ACL_EVENT_RECORDED_STATUS_NOT_READY, 0)
    assert after == (acl.ACL_EVENT_RECORDED_STATUS_COMPLETE, 0)
    assert clock >= record_end(device0)


def test_a_record_in_the_opening_process_completes_a_synchronize_in_the_exporting_one(device0):
    ev = ipc_event()
    handle = handle_of(ev)

    def producer(stream):
        long_work[1, stream](dev_alloc(64))
        acl.rt.record_event(opened(handle), stream)
        return stream

    stream = in_process(producer, finalize=False)  # ends with its record pending
    assert acl.rt.query_event_status(ev) == (acl.ACL_EVENT_RECORDED_STATUS_NOT_READY, 0)
    assert acl.rt.synchronize_event(ev) == 0
    assert current().current_thread().clock >= record_end(stream)
    assert acl.rt.query_event_status(ev) == (acl.ACL_EVENT_RECORDED_STATUS_COMPLETE, 0)


def test_an_ipc_event_never_recorded_is_complete_to_query_and_synchronize(device0):
    ev = ipc_event()
    assert acl.rt.query_event_status(ev) == (acl.ACL_EVENT_RECORDED_STATUS_COMPLETE, 0)
    other = opened(handle_of(ev))
    assert acl.rt.query_event_status(other) == (acl.ACL_EVENT_RECORDED_STATUS_COMPLETE, 0)
    assert acl.rt.synchronize_event(other) == 0


def test_opening_in_the_exporting_process_gives_a_second_handle_to_the_same_event(device0):
    ev = ipc_event()
    again = opened(handle_of(ev))
    assert again != ev
    long_work[1, device0](dev_alloc(64))
    acl.rt.record_event(again, device0)
    assert acl.rt.query_event_status(ev) == (acl.ACL_EVENT_RECORDED_STATUS_NOT_READY, 0)
    acl.rt.synchronize_event(ev)
    assert acl.rt.query_event_status(again) == (acl.ACL_EVENT_RECORDED_STATUS_COMPLETE, 0)
    assert handle_of(again) == handle_of(ev)  # an opened event carries the handle it was opened from


def test_opening_twice_gives_two_events_each_destroyed_on_its_own(device0):
    handle = handle_of(ipc_event())
    first, second = opened(handle), opened(handle)
    assert first != second
    assert acl.rt.destroy_event(first) == 0
    assert acl.rt.query_event_status(second) == (acl.ACL_EVENT_RECORDED_STATUS_COMPLETE, 0)
    assert acl.rt.destroy_event(second) == 0
    assert acl.rt.destroy_event(first) == acl.ACL_ERROR_INVALID_PARAM


def test_destroying_the_exported_event_leaves_opened_ones_working_and_its_handle_opens_nothing(device0):
    ev = ipc_event()
    handle = handle_of(ev)
    other = opened(handle)
    assert acl.rt.destroy_event(ev) == 0
    long_work[1, device0](dev_alloc(64))
    assert acl.rt.record_event(other, device0) == 0
    assert acl.rt.query_event_status(other) == (acl.ACL_EVENT_RECORDED_STATUS_NOT_READY, 0)
    assert acl.rt.synchronize_event(other) == 0
    assert acl.rt.ipc_open_event_handle(handle) == (0, acl.ACL_ERROR_RT_PARAM_INVALID)


def poll(done, step_ns=1_000_000, polls=10_000):
    """Spend virtual time until ``done()`` (another process's turn comes meanwhile)."""
    while not done() and polls:
        polls -= 1
        sandbox.host_work(step_ns, "poll")
    assert done()


def test_an_event_opened_in_one_process_outlives_its_exporting_process(device0):
    shared = {}

    def exporter():
        acl.init()
        acl.rt.set_device(0)
        ev = ipc_event()
        shared["handle"] = handle_of(ev)
        poll(lambda: "opened" in shared)
        shared["destroyed"] = acl.rt.destroy_event(ev)  # then the process ends, its context with it

    process = sandbox.spawn_process(exporter, name="A")
    poll(lambda: "handle" in shared)
    mine = opened(shared["handle"])
    shared["opened"] = True
    process.join()
    assert shared["destroyed"] == 0
    long_work[1, device0](dev_alloc(64))
    assert acl.rt.record_event(mine, device0) == 0
    assert acl.rt.query_event_status(mine) == (acl.ACL_EVENT_RECORDED_STATUS_NOT_READY, 0)
    assert acl.rt.synchronize_event(mine) == 0
    assert acl.rt.query_event_status(mine) == (acl.ACL_EVENT_RECORDED_STATUS_COMPLETE, 0)
    assert acl.rt.ipc_open_event_handle(shared["handle"]) == (0, acl.ACL_ERROR_RT_PARAM_INVALID)


def test_an_opened_event_belongs_to_the_openers_current_device(machine):
    acl.rt.set_device(0)
    stream0, _ = acl.rt.create_stream()
    ev = ipc_event()
    handle = handle_of(ev)
    long_work[1, stream0](dev_alloc(64))
    acl.rt.record_event(ev, stream0)

    def consumer(stream):
        ev_b = opened(handle)
        waited = acl.rt.stream_wait_event(stream, ev_b)  # device 1 waits for device 0's record
        fill[1, stream](dev_alloc(64))
        acl.rt.set_device(0)
        other, _ = acl.rt.create_stream()
        wrong = acl.rt.record_event(ev_b, other)  # the event is device 1's
        acl.rt.set_device(1)
        acl.rt.synchronize_stream(stream)
        return waited, wrong, stream

    waited, wrong, stream = in_process(consumer, device=1)
    assert (waited, wrong) == (0, acl.ACL_ERROR_RT_STREAM_CONTEXT)
    created = [r for r in sandbox.trace().of(T.EventCreated)]
    assert [r.device for r in created] == [0, 1]
    fill_task = [t for t in tasks_by_id().values() if t["stream"] == stream and t["kind"] == "kernel"][0]
    assert fill_task["device"] == 1 and fill_task["start"] >= record_end(stream0)


# -- what an IPC event refuses --------------------------------------------------------------------------
def test_reset_elapsed_time_and_timestamp_of_an_ipc_event_are_207000(device0):
    ev = ipc_event()
    timed, _ = acl.rt.create_event_with_flag(acl.ACL_EVENT_TIME_LINE)
    acl.rt.record_event(timed, device0)
    acl.rt.record_event(ev, device0)
    acl.rt.synchronize_stream(device0)
    assert acl.rt.reset_event(ev, device0) == acl.ACL_ERROR_RT_FEATURE_NOT_SUPPORT
    assert acl.rt.event_elapsed_time(timed, ev) == (0.0, acl.ACL_ERROR_RT_FEATURE_NOT_SUPPORT)
    assert acl.rt.event_elapsed_time(ev, timed) == (0.0, acl.ACL_ERROR_RT_FEATURE_NOT_SUPPORT)
    assert acl.rt.event_get_timestamp(ev) == (0, acl.ACL_ERROR_RT_FEATURE_NOT_SUPPORT)


def test_record_or_wait_of_an_ipc_event_on_a_capturing_stream_is_207000_and_the_capture_goes_on(device0):
    ev = ipc_event()
    acl.mdl.ri_capture_begin(device0, acl.ACL_MODEL_RI_CAPTURE_MODE_GLOBAL)
    assert acl.rt.record_event(ev, device0) == acl.ACL_ERROR_RT_FEATURE_NOT_SUPPORT
    assert acl.rt.stream_wait_event(device0, ev) == acl.ACL_ERROR_RT_FEATURE_NOT_SUPPORT
    status, _, ret = acl.mdl.ri_capture_get_info(device0)
    assert (status, ret) == (acl.ACL_MODEL_RI_CAPTURE_STATUS_ACTIVE, 0)
    _, ret = acl.mdl.ri_capture_end(device0)
    assert ret == 0


# -- lifetime and hazards -----------------------------------------------------------------------------------
def test_opened_events_are_released_when_the_opening_process_ends_and_reported_as_leaks(device0):
    handle = handle_of(ipc_event())

    def leaky(stream):
        return opened(handle)

    with pytest.warns(sandbox.LeakWarning, match="aclrtIpcOpenEventHandle"):
        ev_b = in_process(leaky, finalize=False)
    assert ev_b not in current().events
    assert any(r.event == ev_b for r in sandbox.trace().of(T.EventDestroyed))


def test_a_wait_on_an_opened_event_orders_the_other_processes_work_for_the_hazard_checks(device0):
    buf = dev_alloc(4096)
    ev = ipc_event()
    handle = handle_of(ev)
    fill[1, device0](buf)
    acl.rt.record_event(ev, device0)

    def reader(stream, wait):
        if wait:
            acl.rt.stream_wait_event(stream, opened(handle))
        fill[1, stream](buf)
        acl.rt.synchronize_stream(stream)

    with warnings.catch_warnings():
        warnings.simplefilter("error", sandbox.HazardWarning)
        in_process(reader, True)
    assert sandbox.hazards() == []
    fill[1, device0](buf)
    acl.rt.record_event(ev, device0)
    with pytest.warns(sandbox.HazardWarning, match="no event or synchronize orders the two"):
        in_process(reader, False)
    assert [h.kind for h in sandbox.hazards()] == ["stream_race"]
