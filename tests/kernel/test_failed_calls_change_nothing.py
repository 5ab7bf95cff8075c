"""A call that fails changes nothing: the release calls (aclrtResetDevice[Force], aclFinalize,
aclrtDestroyContext, aclrtDestroyStream) make every check, and every wait that can fail, before
they release anything.

The failing wait used throughout: a BLOCK callback on a stream whose subscribed thread (the
main thread) is the one waiting, so it can never run (aclrtProcessReport is never called while
the release waits).  The release answers 507046 at once instead of hanging; it must leave the
process exactly as it was, and succeed once the callback has been processed.
"""

from __future__ import annotations

import threading

import pytest

import sandbox
from sandbox import acl
from sandbox.core import trace as T
from sandbox.core.machine import current


@sandbox.kernel(ns=50_000, writes=())
def slow(x: "uint8*"):
    pass


def noop(data):
    pass


def state():
    """What the runtime holds: a failed release must leave all of it as it was."""
    m = current()
    proc = m.main_process
    return {
        "initialized": proc.initialized,
        "refs": dict(proc.device_refs),
        "default_contexts": {d: c.handle for d, c in proc.default_contexts.items()},
        "contexts": sorted(h for h, c in m.contexts.items() if c.alive),
        "streams": sorted(h for h, s in m.streams.items() if s.alive),
        "events": sorted(h for h, e in m.events.items() if e.alive),
        "live_streams": [d.live_streams for d in m.devices],
        "live_events": [d.live_events for d in m.devices],
        "current": m.current_thread().context.handle if m.current_thread().context else None,
        "released": sum(
            isinstance(r, (T.ContextDestroyed, T.StreamDestroyed, T.EventDestroyed, T.LeakReport)) for r in m.log
        ),
    }


def stuck_stream():
    """A stream held by a BLOCK callback the main thread has not processed yet."""
    stream, ret = acl.rt.create_stream()
    assert ret == 0
    assert acl.rt.subscribe_report(threading.get_ident(), stream) == 0
    assert acl.rt.launch_callback(noop, None, acl.ACL_CALLBACK_BLOCK, stream) == 0
    return stream


def unstick():
    assert acl.rt.process_report(1000) == 0


@pytest.fixture
def on_device0(machine):
    assert acl.rt.set_device(0) == 0
    return machine


def test_failed_reset_device_keeps_the_default_context(on_device0):
    stuck_stream()
    before = state()
    assert acl.rt.reset_device(0) == acl.ACL_ERROR_RT_STREAM_SYNC_TIMEOUT
    assert "can never finish" in acl.get_recent_err_msg()
    assert state() == before
    # the device is still set: a second reset is the same refusal, not 507007
    assert acl.rt.reset_device(0) == acl.ACL_ERROR_RT_STREAM_SYNC_TIMEOUT
    assert state() == before
    # set_device re-uses the one default context instead of making a second one
    ctx = acl.rt.get_context()
    assert acl.rt.set_device(0) == 0
    assert acl.rt.get_context() == ctx
    assert len([c for c in current().contexts.values() if c.is_default]) == 1
    unstick()
    assert acl.rt.reset_device(0) == 0
    assert acl.rt.reset_device(0) == 0  # the two set_device references
    assert acl.rt.reset_device(0) == acl.ACL_ERROR_RT_CONTEXT_RELEASE_ERROR


def test_failed_reset_device_force_keeps_the_default_context(on_device0):
    stuck_stream()
    acl.rt.set_device(0)  # two references: force would drop both
    before = state()
    assert acl.rt.reset_device_force(0) == acl.ACL_ERROR_RT_STREAM_SYNC_TIMEOUT
    assert state() == before
    assert before["refs"] == {0: 2}
    unstick()
    assert acl.rt.reset_device_force(0) == 0
    assert current().main_process.device_refs == {}


def test_failed_finalize_keeps_the_process_initialised(on_device0):
    stuck_stream()
    acl.rt.create_event()
    before = state()
    with _no_warning():
        assert acl.finalize() == acl.ACL_ERROR_RT_STREAM_SYNC_TIMEOUT
    assert state() == before  # nothing released, no leak report yet
    assert acl.init() == acl.ACL_ERROR_REPEAT_INITIALIZE
    unstick()
    with pytest.warns(sandbox.LeakWarning):
        assert acl.finalize() == 0
    reports = [r for r in current().log if isinstance(r, T.LeakReport)]
    assert len(reports) == 1  # the failed finalize reported nothing
    assert acl.finalize() == acl.ACL_ERROR_REPEAT_FINALIZE


def test_failed_destroy_context_keeps_the_context(on_device0):
    ctx, ret = acl.rt.create_context(0)
    assert ret == 0
    stuck_stream()
    before = state()
    assert acl.rt.destroy_context(ctx) == acl.ACL_ERROR_RT_STREAM_SYNC_TIMEOUT
    assert state() == before
    assert acl.rt.set_context(ctx) == 0  # still a live context
    assert acl.rt.create_stream()[1] == 0
    unstick()
    assert acl.rt.destroy_context(ctx) == 0
    assert acl.rt.destroy_context(ctx) == acl.ACL_ERROR_INVALID_PARAM


def test_failed_destroy_stream_keeps_the_stream(on_device0):
    stream = stuck_stream()
    before = state()
    assert acl.rt.destroy_stream(stream) == acl.ACL_ERROR_RT_STREAM_SYNC_TIMEOUT
    assert state() == before
    unstick()
    assert acl.rt.destroy_stream(stream) == 0
    assert acl.rt.destroy_stream(stream) == acl.ACL_ERROR_INVALID_PARAM


def test_refused_releases_change_nothing(on_device0):
    """The plain refusals: wrong handles, the default context and stream, a device never set."""
    before = state()
    assert acl.rt.reset_device(1) == acl.ACL_ERROR_RT_CONTEXT_RELEASE_ERROR
    assert acl.rt.reset_device_force(9) == acl.ACL_ERROR_RT_INVALID_DEVICEID
    assert acl.rt.destroy_context(acl.rt.get_context()[0]) == acl.ACL_ERROR_INVALID_PARAM
    assert acl.rt.destroy_context(12345) == acl.ACL_ERROR_INVALID_PARAM
    assert acl.rt.destroy_stream(0) == acl.ACL_ERROR_INVALID_PARAM
    assert acl.rt.destroy_stream(12345) == acl.ACL_ERROR_INVALID_PARAM
    assert acl.rt.destroy_stream_force(0) == acl.ACL_ERROR_INVALID_PARAM
    assert acl.rt.destroy_stream_force(12345) == acl.ACL_ERROR_INVALID_PARAM
    assert acl.rt.destroy_event(12345) == acl.ACL_ERROR_INVALID_PARAM
    assert state() == before


def test_a_release_checks_again_after_its_wait(on_device0):
    """Two threads destroy one busy stream: both wait for it, the first to wake releases it,
    the second finds it gone (100000) instead of releasing it a second time."""
    stream, _ = acl.rt.create_stream()
    buf, _ = acl.rt.malloc(64, 0)
    slow[1, stream](buf)
    codes = {}

    def other():
        acl.rt.set_device(0)
        codes["other"] = acl.rt.destroy_stream(stream)

    t = threading.Thread(target=other)
    t.start()
    codes["main"] = acl.rt.destroy_stream(stream)
    t.join()
    assert sorted(codes.values()) == [0, acl.ACL_ERROR_INVALID_PARAM]
    destroyed = [r for r in current().log if isinstance(r, T.StreamDestroyed) and r.stream == stream]
    assert len(destroyed) == 1
    assert current().devices[0].live_streams == 1  # the default stream only


class _no_warning:
    """A failed finalize must not warn about leaks: it has not released (or judged) anything."""

    def __enter__(self):
        import warnings

        self._cm = warnings.catch_warnings(record=True)
        self.caught = self._cm.__enter__()
        warnings.simplefilter("always")
        return self

    def __exit__(self, *exc):
        self._cm.__exit__(*exc)
        leaks = [w for w in self.caught if issubclass(w.category, sandbox.LeakWarning)]
        assert not leaks, leaks[0].message
        return False


def test_a_host_function_refused_during_a_capture_leaves_its_stream_free_for_callbacks():
    import threading

    sandbox.configure()
    acl.init()
    acl.rt.set_device(0)
    s, _ = acl.rt.create_stream()
    acl.mdl.ri_capture_begin(s, 0)
    assert acl.rt.launch_host_func(s, lambda d: None, None) == acl.ACL_ERROR_RT_STREAM_CAPTURED
    acl.mdl.ri_capture_end(s)
    assert acl.rt.subscribe_report(threading.get_ident(), s) == 0


def test_a_refused_destroy_notify_keeps_every_notify(on_device0):
    notify, _ = acl.rt.create_notify(0)
    assert acl.rt.destroy_notify(0) == acl.ACL_ERROR_INVALID_PARAM
    assert acl.rt.destroy_notify(notify + 0x40) == acl.ACL_ERROR_INVALID_PARAM
    assert acl.rt.record_notify(notify, 0) == 0
    assert acl.rt.wait_and_reset_notify(notify, 0, 1) == 0
    assert acl.rt.synchronize_stream(0) == 0
    assert acl.rt.destroy_notify(notify) == 0


def complete_allocator_desc() -> int:
    """An allocator descriptor with its object and the three functions registration needs."""
    desc = acl.rt.allocator_create_desc()
    for setter, value in (
        (acl.rt.allocator_set_obj_to_desc, {}),
        (acl.rt.allocator_set_alloc_func_to_desc, bytearray),
        (acl.rt.allocator_set_free_func_to_desc, max),
        (acl.rt.allocator_set_get_addr_from_block_func_to_desc, len),
    ):
        assert setter(desc, value) == 0
    return desc


def test_failed_destroy_stream_keeps_its_custom_allocator_registration(on_device0):
    stream = stuck_stream()
    desc = complete_allocator_desc()
    assert acl.rt.allocator_register(stream, desc) == 0
    assert acl.rt.destroy_stream(stream) == acl.ACL_ERROR_RT_STREAM_SYNC_TIMEOUT
    assert acl.rt.allocator_get_by_stream(stream)[0] == desc
    unstick()
    assert acl.rt.destroy_stream(stream) == 0
    assert acl.rt.allocator_get_by_stream(stream)[-1] == acl.ACL_ERROR_INVALID_PARAM


def test_failed_allocator_unregister_and_destroy_desc_keep_what_they_would_release(on_device0):
    stream, _ = acl.rt.create_stream()
    desc = complete_allocator_desc()
    assert acl.rt.allocator_register(stream, desc) == 0
    assert acl.rt.allocator_unregister(0) == acl.ACL_ERROR_INVALID_PARAM
    assert acl.rt.allocator_unregister("x") == acl.ACL_ERROR_INVALID_PARAM
    assert acl.rt.allocator_destroy_desc(desc + 1) == acl.ACL_ERROR_INVALID_PARAM
    assert acl.rt.allocator_get_by_stream(stream)[0] == desc
    assert acl.rt.allocator_set_obj_to_desc(desc, {}) == 0  # still live


def test_refused_vmm_releases_change_nothing(on_device0):
    """aclrtUnmapMem, aclrtReleaseMemAddress and aclrtFreePhysical refused leave every table and
    the device memory as they were (core/features/vmm.py)."""
    from sandbox.core.features.vmm import VmmState

    prop = {"handleType": 0, "allocationType": 0, "memAttr": acl.ACL_HBM_MEM_HUGE, "location": {"id": 0, "type": 1}}
    handle, _ = acl.rt.malloc_physical(2 << 20, prop, 0)
    va, _ = acl.rt.reserve_mem_address(2 << 20, 0, 0, 0)
    assert acl.rt.map_mem(va, 2 << 20, 0, handle, 0) == 0
    st = current().feature(VmmState)

    def tables():
        return (sorted(st.handles), sorted(st.ranges), sorted(st.mappings), acl.rt.get_mem_info(acl.ACL_HBM_MEM))

    before = tables()
    assert acl.rt.release_mem_address(va) == 107000  # still mapped
    assert acl.rt.unmap_mem(va + 4096) == 107000
    assert acl.rt.free_physical(handle + 1) == 107017
    assert tables() == before


def test_refused_profiling_releases_change_nothing(on_device0, tmp_path):
    from sandbox.core.features.profiling import Profiling

    out = tmp_path / "out"
    assert acl.prof.init(str(out)) == 0
    config = acl.prof.create_config([0], 0, 0, acl.ACL_PROF_TASK_TIME | acl.ACL_PROF_MSPROFTX)
    assert acl.prof.start(config) == 0
    stamp, step = acl.prof.create_stamp(), acl.prof.create_step_info()
    held = current().feature(Profiling).processes[1]

    def profiling_state():
        return (held.path, held.started, held.tx, dict(held.configs), dict(held.stamps), dict(held.steps))

    before = profiling_state()
    assert acl.prof.destroy_config(0) == acl.ACL_ERROR_INVALID_PARAM
    assert acl.prof.destroy_stamp(config) is None  # a config is no stamp
    assert acl.prof.destroy_step_info(stamp) is None
    out.rmdir()
    out.write_text("the result path is a file now: the collection cannot be written")
    assert acl.prof.finalize() == acl.ACL_ERROR_PROFILING_FAILURE  # writes the running collection first
    assert profiling_state() == before
    assert not list(sandbox.trace().of(T.ProfilingStopped))
    out.unlink()
    assert acl.prof.finalize() == 0
    assert acl.prof.destroy_config(config) == 0 and acl.prof.destroy_step_info(step) is None
