"""Graders for the memory, multi-device and threads/processes exercises (sandbox.teach.checks)."""

from __future__ import annotations

import threading

import sandbox
from sandbox import acl, teach

MiB = 1 << 20


@sandbox.kernel(ns=1_000_000)
def tick(x: "uint8*"):
    pass


def fresh(devices=4):
    sandbox.configure(device_count=devices)
    assert acl.init() == 0


def launch(device, block_dim=8):
    """A stream and a buffer on ``device`` with one kernel queued; returns both."""
    assert acl.rt.set_device(device) == 0
    stream, _ = acl.rt.create_stream()
    buf, _ = acl.rt.malloc(4096, acl.ACL_MEM_MALLOC_HUGE_FIRST)
    assert tick[block_dim, stream](buf) == 0
    return stream, buf


def wait(device, job):
    """Wait for the job's kernel, then release its stream and buffer."""
    stream, buf = job
    acl.rt.set_device(device)
    assert acl.rt.synchronize_stream(stream) == 0
    assert acl.rt.free(buf) == 0
    assert acl.rt.destroy_stream(stream) == 0


def open_devices(devices):
    """Open the devices first, so that later launches on them are microseconds apart."""
    for d in devices:
        assert acl.rt.set_device(d) == 0


# -- check_allocated ---------------------------------------------------------------------------------
def test_allocated_passes_when_every_size_has_a_live_buffer():
    fresh(1)
    acl.rt.set_device(0)
    for size in (3 * MiB, 1000, 100):
        acl.rt.malloc(size, acl.ACL_MEM_MALLOC_NORMAL_ONLY)
    check = teach.check_allocated(sizes=(3 * MiB, 1000, 100), device=0)
    assert check.passed and str(check) == "✔ buffers allocated: 3 of 3 buffers alive on device 0"


def test_allocated_fails_for_a_freed_buffer_and_names_its_size():
    fresh(1)
    acl.rt.set_device(0)
    acl.rt.malloc(1000, acl.ACL_MEM_MALLOC_HUGE_FIRST)
    ptr, _ = acl.rt.malloc(100, acl.ACL_MEM_MALLOC_HUGE_FIRST)
    acl.rt.free(ptr)
    check = teach.check_allocated(sizes=(1000, 100))
    assert not check.passed and "100 bytes" in check.detail and check.value == 1


def test_allocated_counts_each_buffer_once_and_only_on_the_given_device():
    fresh(2)
    acl.rt.set_device(1)
    acl.rt.malloc(100, acl.ACL_MEM_MALLOC_HUGE_FIRST)
    assert not teach.check_allocated(sizes=(100, 100), device=1)
    assert not teach.check_allocated(sizes=(100,), device=0)
    assert teach.check_allocated(sizes=(100,), device=1)


# -- check_devices_together -----------------------------------------------------------------------------
def test_devices_together_passes_when_work_is_queued_everywhere_before_waiting():
    fresh()
    open_devices(range(4))
    streams = {d: launch(d) for d in range(4)}
    for d, s in streams.items():
        wait(d, s)
    check = teach.check_devices_together(devices=(0, 1, 2, 3))
    assert check.passed and check.value > 0


def test_devices_together_fails_when_each_device_is_waited_for_before_the_next():
    fresh()
    open_devices(range(4))
    for d in range(4):
        wait(d, launch(d))
    check = teach.check_devices_together(devices=(0, 1, 2, 3))
    assert not check.passed and "never all busy at once" in check.detail and "hint" in str(check)


def test_devices_together_fails_when_a_device_ran_nothing():
    fresh()
    open_devices(range(4))
    streams = {d: launch(d) for d in range(3)}
    for d, s in streams.items():
        wait(d, s)
    check = teach.check_devices_together(devices=(0, 1, 2, 3))
    assert not check.passed and check.detail == "device 3 ran no task"


# -- check_device_order ----------------------------------------------------------------------------------
def test_device_order_passes_when_the_host_waits_for_the_first_device_event():
    fresh(2)
    job0 = launch(0)
    e0, _ = acl.rt.create_event()
    acl.rt.record_event(e0, job0[0])
    acl.rt.set_device(1)
    assert acl.rt.synchronize_event(e0) == 0
    wait(1, launch(1))
    wait(0, job0)
    check = teach.check_device_order(first=0, then=1)
    assert check.passed and check.value >= 0


def test_device_order_fails_when_the_second_device_starts_early():
    fresh(2)
    open_devices((0, 1))
    job0, job1 = launch(0), launch(1)
    wait(0, job0)
    wait(1, job1)
    check = teach.check_device_order(first=0, then=1)
    assert not check.passed and "before device 0 finished" in check.detail and check.value < 0


def test_device_order_fails_when_a_device_ran_no_kernel():
    fresh(2)
    wait(0, launch(0))
    check = teach.check_device_order(first=0, then=1)
    assert not check.passed and check.detail == "no kernel ran on device 1"


# -- check_launchers ------------------------------------------------------------------------------------------
def _thread_per_device(devices):
    def body(d):
        wait(d, launch(d))

    ts = [threading.Thread(target=body, args=(d,)) for d in devices]
    for t in ts:
        t.start()
    for t in ts:
        t.join()


def test_launchers_counts_distinct_threads_and_processes():
    fresh()
    _thread_per_device(range(4))
    check = teach.check_launchers(threads=4, processes=1)
    assert check.passed and check.value == (4, 1) and check.detail == "4 threads in 1 process"


def test_launchers_fails_when_one_thread_launches_everything():
    fresh()
    streams = {d: launch(d) for d in range(4)}
    for d, s in streams.items():
        wait(d, s)
    check = teach.check_launchers(threads=4, processes=1)
    assert not check.passed and check.detail == "1 thread in 1 process, want 4 threads in 1 process"


def test_launchers_counts_processes_of_spawned_programs():
    sandbox.configure(device_count=2)

    def program(d):
        acl.init()
        wait(d, launch(d))
        acl.rt.reset_device(d)
        acl.finalize()

    procs = [sandbox.spawn_process(program, d) for d in (0, 1)]
    for p in procs:
        p.join()
    assert teach.check_launchers(threads=2, processes=2)
    assert not teach.check_launchers(processes=1)


# -- check_shared_device --------------------------------------------------------------------------------------
def _two_processes_on_device_0(block_dim):
    sandbox.configure(device_count=1)

    def program():
        acl.init()
        wait(0, launch(0, block_dim))
        acl.rt.reset_device(0)
        acl.finalize()

    procs = [sandbox.spawn_process(program) for _ in range(2)]
    for p in procs:
        p.join()


def test_shared_device_passes_when_kernels_of_two_processes_run_at_once():
    _two_processes_on_device_0(block_dim=12)
    check = teach.check_shared_device(device=0, processes=2)
    assert check.passed and check.value == 2


def test_shared_device_fails_when_each_kernel_takes_every_core():
    _two_processes_on_device_0(block_dim=24)
    check = teach.check_shared_device(device=0, processes=2)
    assert not check.passed and check.value == 1 and "block_dim" in check.hint


def test_shared_device_fails_when_one_process_runs_alone():
    fresh(1)
    wait(0, launch(0, 4))
    wait(0, launch(0, 4))
    assert teach.check_shared_device(device=0, processes=2).value == 1


# -- callbacks and ACL Graph (notebooks 07 and 08) -------------------------------------------------------
@sandbox.kernel(ns=2_000)
def small(x: "uint8*"):
    pass


def _served_stream():
    """Device 0, a stream served by this thread (it runs the callbacks in process_report)."""
    fresh(1)
    assert acl.rt.set_device(0) == 0
    stream, _ = acl.rt.create_stream()
    assert acl.rt.subscribe_report(threading.get_ident(), stream) == 0
    return stream


def test_callbacks_counts_the_callbacks_that_ran():
    stream = _served_stream()
    for i in range(3):
        acl.rt.launch_callback(lambda d: None, [i], acl.ACL_CALLBACK_NO_BLOCK, stream)
    assert acl.rt.synchronize_stream(stream) == 0
    assert [acl.rt.process_report(10) for _ in range(2)] == [0, 0]  # the third never runs
    check = teach.check_callbacks(ran=3)
    assert not check and check.value == 2 and "want 3" in str(check)
    assert acl.rt.process_report(10) == 0
    assert teach.check_callbacks(ran=3)


def test_callbacks_fails_when_a_callback_raised():
    stream = _served_stream()

    def broken(data):
        raise ValueError("bad batch")

    acl.rt.launch_callback(broken, None, acl.ACL_CALLBACK_BLOCK, stream)
    assert acl.rt.process_report(10) == 0
    check = teach.check_callbacks(ran=1)
    assert not check and "ValueError: bad batch" in str(check)


def test_callbacks_counts_host_functions_apart():
    fresh(1)
    acl.rt.set_device(0)
    stream, _ = acl.rt.create_stream()
    acl.rt.launch_host_func(stream, lambda a: None, None)
    assert acl.rt.synchronize_stream(stream) == 0
    assert teach.check_callbacks(ran=1, kind="host_func")
    assert teach.check_callbacks(ran=0)


def test_host_calls_counts_only_calls_between_the_marks():
    fresh(1)
    acl.rt.set_device(0)
    stream, _ = acl.rt.create_stream()
    buf, _ = acl.rt.malloc(4096, 0)
    teach.mark("start")
    for _ in range(5):
        small[1, stream](buf)
    acl.rt.synchronize_stream(stream)
    teach.mark("end")
    acl.rt.free(buf)
    check = teach.check_host_calls(at_most=2, start="start", end="end")
    assert not check and check.value == 6 and "aclrtLaunchKernel x5" in str(check)
    assert teach.check_host_calls(at_most=6, start="start", end="end")


def test_host_calls_sees_one_call_for_a_replayed_graph():
    fresh(1)
    acl.rt.set_device(0)
    stream, _ = acl.rt.create_stream()
    buf, _ = acl.rt.malloc(4096, 0)
    acl.mdl.ri_capture_begin(stream, acl.ACL_MODEL_RI_CAPTURE_MODE_GLOBAL)
    for _ in range(5):
        small[1, stream](buf)
    ri, ret = acl.mdl.ri_capture_end(stream)
    assert ret == 0
    teach.mark("start")
    acl.mdl.ri_execute_async(ri, stream)
    acl.rt.synchronize_stream(stream)
    teach.mark("end")
    assert teach.check_host_calls(at_most=2, start="start", end="end").value == 2


# -- hazards and leaks (notebooks 09 and 10) -------------------------------------------------------------
@sandbox.kernel(ns=10_000, writes=("dst",))
def copy_kernel(src: "uint8*", dst: "uint8*"):
    dst[:64] = src[:64]


def _two_streams_one_buffer(wait: bool):
    """A copy on one stream fills a buffer a kernel on another stream reads: ordered by an event or not."""
    fresh(1)
    acl.rt.set_device(0)
    s1, _ = acl.rt.create_stream()
    s2, _ = acl.rt.create_stream()
    host, _ = acl.rt.malloc_host(64)
    a, _ = acl.rt.malloc(64, acl.ACL_MEM_MALLOC_HUGE_FIRST)
    b, _ = acl.rt.malloc(64, acl.ACL_MEM_MALLOC_HUGE_FIRST)
    acl.rt.memcpy_async(a, 64, host, 64, acl.ACL_MEMCPY_HOST_TO_DEVICE, s1)
    if wait:
        ev, _ = acl.rt.create_event()
        acl.rt.record_event(ev, s1)
        acl.rt.stream_wait_event(s2, ev)
    copy_kernel[1, s2](a, b)
    acl.rt.synchronize_device()


def test_no_hazards_fails_on_a_race_and_names_its_kind():
    import warnings

    with warnings.catch_warnings():
        warnings.simplefilter("ignore", sandbox.HazardWarning)
        _two_streams_one_buffer(wait=False)
    check = teach.check_no_hazards()
    assert not check and check.value == 1 and "stream_race x1" in str(check) and "hint:" in str(check)


def test_no_hazards_passes_when_an_event_orders_the_streams():
    _two_streams_one_buffer(wait=True)
    check = teach.check_no_hazards()
    assert check and str(check) == "✔ hazards: none"


def test_no_leaks_fails_without_finalize():
    fresh(1)
    acl.rt.set_device(0)
    check = teach.check_no_leaks()
    assert not check and "never called" in str(check)


def test_no_leaks_fails_when_finalize_reports_leftovers():
    import warnings

    fresh(1)
    acl.rt.set_device(0)
    acl.rt.malloc(4096, acl.ACL_MEM_MALLOC_HUGE_FIRST)
    acl.rt.create_stream()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", sandbox.LeakWarning)
        acl.finalize()
    check = teach.check_no_leaks()
    assert not check and check.value == 2 and "allocation x1, stream x1" in str(check)


def test_no_leaks_passes_when_everything_is_released_before_finalize():
    fresh(1)
    acl.rt.set_device(0)
    buf, _ = acl.rt.malloc(4096, acl.ACL_MEM_MALLOC_HUGE_FIRST)
    stream, _ = acl.rt.create_stream()
    acl.rt.free(buf)
    acl.rt.destroy_stream(stream)
    acl.rt.reset_device(0)
    assert acl.finalize() == 0
    assert str(teach.check_no_leaks()) == "✔ leaks: nothing left at aclFinalize"


def test_error_reported_finds_the_device_error_at_the_synchronize():
    fresh(1)
    acl.rt.set_device(0)
    stream, _ = acl.rt.create_stream()
    buf, _ = acl.rt.malloc(4096, acl.ACL_MEM_MALLOC_HUGE_FIRST)
    assert not teach.check_error_reported(code=acl.ACL_ERROR_RT_AICORE_TRAP_EXCEPTION)
    sandbox.inject_fault("kernel_trap", device=0)
    tick[1, stream](buf)
    acl.rt.synchronize_stream(stream)
    check = teach.check_error_reported(code=acl.ACL_ERROR_RT_AICORE_TRAP_EXCEPTION)
    assert check and str(check) == (
        "✔ error reported: ACL_ERROR_RT_AICORE_TRAP_EXCEPTION (507016) returned by aclrtSynchronizeStream"
    )
    assert not teach.check_error_reported(code=acl.ACL_ERROR_RT_SYS_DMA)
