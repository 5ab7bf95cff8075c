"""The four multi-device programming patterns of RT-DG 05 (the Runtime programming guide), side by side on the timeline."""

from __future__ import annotations

import threading

import sandbox
from sandbox import acl
from sandbox.core import trace as T

DEVICES = (0, 1, 2, 3)


@sandbox.kernel(ns=100_000_000, writes=())  # 100 ms: long next to the cost of opening a device
def long_kernel(x: "uint8*"):
    pass


def drive(device):
    """The per-device work: a stream, a buffer, two kernels, a sync."""
    acl.rt.set_device(device)
    stream, _ = acl.rt.create_stream()
    buf, _ = acl.rt.malloc(4096, acl.ACL_MEM_MALLOC_HUGE_FIRST)
    long_kernel[24, stream](buf)
    long_kernel[24, stream](buf)
    return stream, buf


def finish(device, stream, buf):
    acl.rt.set_device(device)
    acl.rt.synchronize_stream(stream)
    acl.rt.free(buf)
    acl.rt.destroy_stream(stream)
    acl.rt.reset_device(device)


def thread_program(device):
    finish(device, *drive(device))


def process_program(devices):
    acl.init()
    threads = [threading.Thread(target=thread_program, args=(d,)) for d in devices]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    acl.finalize()


def kernel_spans():
    """device -> list of (start, end) of its kernels, and the pids that submitted them."""
    log = sandbox.trace()
    submitted = {r.task: r for r in log if isinstance(r, T.TaskSubmitted) and r.kind == "kernel"}
    starts = {r.task: r.t for r in log if isinstance(r, T.TaskStarted) and r.task in submitted}
    ends = {r.task: r.t for r in log if isinstance(r, T.TaskFinished) and r.task in submitted}
    spans = {}
    for task, rec in submitted.items():
        spans.setdefault(rec.device, []).append((starts[task], ends[task]))
    return spans


def busy_at_once(spans, devices):
    """Some instant at which every device in ``devices`` runs a kernel."""
    windows = [(min(s for s, _ in spans[d]), max(e for _, e in spans[d])) for d in devices]
    return max(s for s, _ in windows) < min(e for _, e in windows)


def test_pattern_one_thread_drives_several_devices():
    sandbox.configure()
    acl.init()
    work = {d: drive(d) for d in DEVICES}
    for d in DEVICES:
        finish(d, *work[d])
    spans = kernel_spans()
    assert set(spans) == set(DEVICES) and busy_at_once(spans, DEVICES)
    threads = {r.tid for r in sandbox.trace() if isinstance(r, T.ApiCall)}
    assert threads == {1}


def test_pattern_several_threads_each_drive_their_own_device():
    sandbox.configure()
    acl.init()
    threads = [threading.Thread(target=thread_program, args=(d,)) for d in DEVICES]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert busy_at_once(kernel_spans(), DEVICES)
    callers = {r.tid for r in sandbox.trace() if isinstance(r, T.ApiCall) and r.name == "aclrtLaunchKernel"}
    assert len(callers) == len(DEVICES)


def test_pattern_several_single_threaded_processes_each_drive_their_own_device():
    sandbox.configure()

    def single(device):
        acl.init()
        thread_program(device)
        acl.finalize()

    procs = [sandbox.spawn_process(single, d, name=f"proc{d}") for d in DEVICES]
    for p in procs:
        p.join()
    assert busy_at_once(kernel_spans(), DEVICES)
    pids = {r.pid for r in sandbox.trace() if isinstance(r, T.ApiCall) and r.name == "aclrtLaunchKernel"}
    assert len(pids) == len(DEVICES)


def test_pattern_several_processes_with_several_threads_each():
    sandbox.configure()
    procs = [sandbox.spawn_process(process_program, devs, name=f"proc{i}") for i, devs in enumerate(((0, 1), (2, 3)))]
    for p in procs:
        p.join()
    assert busy_at_once(kernel_spans(), DEVICES)
    launches = [r for r in sandbox.trace() if isinstance(r, T.ApiCall) and r.name == "aclrtLaunchKernel"]
    assert len({r.pid for r in launches}) == 2 and len({r.tid for r in launches}) == 4


def test_processes_sharing_a_device_contend_for_its_cores():
    sandbox.configure()

    def single():
        acl.init()
        thread_program(0)
        acl.finalize()

    procs = [sandbox.spawn_process(single) for _ in range(2)]
    for p in procs:
        p.join()
    spans = sorted(kernel_spans()[0])
    for (_s1, e1), (s2, _e2) in zip(spans, spans[1:]):
        assert s2 >= e1  # 24-block kernels take every core: one at a time
