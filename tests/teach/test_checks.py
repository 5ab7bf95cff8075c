"""The exercise graders: each passes on a program that does the thing and fails on one that does not."""

from __future__ import annotations

import numpy as np
import pytest

import sandbox
from sandbox import acl, teach

MiB = 1 << 20
N = MiB  # int32 elements per vector (4 MiB)
H2D, D2H = acl.ACL_MEMCPY_HOST_TO_DEVICE, acl.ACL_MEMCPY_DEVICE_TO_HOST


@sandbox.kernel(ns=lambda a, b, c, n: 3_500_000 * n // N, writes=("c",))
def add(
    a: sandbox.ptr(np.int32, count="n"),
    b: sandbox.ptr(np.int32, count="n"),
    c: sandbox.ptr(np.int32, count="n"),
    n: int,
):
    c[:n] = a[:n] + b[:n]


def _setup(streams=1):
    sandbox.configure("ascend310b")
    acl.init()
    acl.rt.set_device(0)
    ss = [acl.rt.create_stream()[0] for _ in range(streams)]
    hosts = [acl.rt.malloc_host(4 * N)[0] for _ in range(3)]
    devs = [acl.rt.malloc(4 * N, acl.ACL_MEM_MALLOC_HUGE_FIRST)[0] for _ in range(3)]
    a = acl.util.ptr_to_numpy(hosts[0], (N,), np.int32)
    b = acl.util.ptr_to_numpy(hosts[1], (N,), np.int32)
    a[:] = np.arange(N)
    b[:] = 1
    return ss, hosts, devs


def one_stream(sync_each=False, read_early=False):
    """Seed 003's vector add on one stream: copy, copy, add, copy back, then synchronise."""
    (s,), (ha, hb, hc), (da, db, dc) = _setup()
    teach.mark("start")
    for dst, src, kind in ((da, ha, H2D), (db, hb, H2D)):
        acl.rt.memcpy_async(dst, 4 * N, src, 4 * N, kind, s)
        if sync_each:
            acl.rt.synchronize_stream(s)
    add[1, s](da, db, dc, N)
    acl.rt.memcpy_async(hc, 4 * N, dc, 4 * N, D2H, s)
    with pytest.warns(sandbox.HazardWarning, match="reads bytes"):  # the read this test is about
        early = acl.util.ptr_to_numpy(hc, (N,), np.int32).copy()
    acl.rt.synchronize_stream(s)
    teach.mark("end")
    late = acl.util.ptr_to_numpy(hc, (N,), np.int32).copy()
    return early if read_early else late


def chunked(chunks=8):
    """The same work in chunks over two streams: copies of one chunk run beside another's add."""
    streams, (ha, hb, hc), (da, db, dc) = _setup(streams=2)
    teach.mark("start")
    step = N // chunks
    for i in range(chunks):
        s, off = streams[i % 2], i * step * 4
        acl.rt.memcpy_async(da + off, 4 * step, ha + off, 4 * step, H2D, s)
        acl.rt.memcpy_async(db + off, 4 * step, hb + off, 4 * step, H2D, s)
        add[1, s](da + off, db + off, dc + off, step)
        acl.rt.memcpy_async(hc + off, 4 * step, dc + off, 4 * step, D2H, s)
    acl.rt.synchronize_device()
    teach.mark("end")
    return acl.util.ptr_to_numpy(hc, (N,), np.int32).copy()


def test_check_overlap_fails_on_one_stream_and_passes_on_chunked_streams():
    one_stream()
    bad = teach.check_overlap(at_least_fraction=0.5)
    assert not bad and bad.value == 0
    assert str(bad).startswith("\u2718 copy and compute overlap: 0 ns of the 3.5")
    assert "hint:" in str(bad)
    chunked()
    good = teach.check_overlap(at_least_fraction=0.5, at_least_ns=2_000_000)
    assert good and good.value > 2_000_000
    assert str(good).startswith("\u2714 copy and compute overlap:") and "hint" not in str(good)


def test_check_overlap_counts_copy_and_compute_on_the_same_device_only():
    """Device 0 copying while device 1 computes is not copy/compute overlap: each device's
    copy engine has to work beside its own AI Cores."""
    sandbox.configure("ascend910b", device_count=2)
    acl.init()
    streams, bufs = [], []
    for d in (0, 1):
        acl.rt.set_device(d)
        streams.append(acl.rt.create_stream()[0])
        bufs.append([acl.rt.malloc(4 * N, acl.ACL_MEM_MALLOC_HUGE_FIRST)[0] for _ in range(3)])
    host = acl.rt.malloc_host(4 * N)[0]
    teach.mark("start")
    acl.rt.set_device(0)
    for _ in range(4):
        acl.rt.memcpy_async(bufs[0][0], 4 * N, host, 4 * N, H2D, streams[0])
    acl.rt.set_device(1)
    da, db, dc = bufs[1]
    for _ in range(4):
        add[1, streams[1]](da, db, dc, N)
    for d in (0, 1):
        acl.rt.set_device(d)
        acl.rt.synchronize_device()
    teach.mark("end")
    assert teach.busy(start="start", end="end")["overlap"] > 200_000  # machine-wide, they do overlap
    check = teach.check_overlap(at_least_fraction=0.1, start="start", end="end")
    assert not check and check.value == 0
    assert "0 ns of the 0 ns that could overlap" in str(check)


def test_check_time_grades_end_to_end_time_between_marks_or_over_the_tasks():
    one_stream()
    serial = teach.check_time(at_most_ns=9_000_000)
    assert not serial and 11_600_000 < serial.value < 11_800_000
    between = teach.check_time(at_most_ns=9_000_000, start="start", end="end")
    assert not between and between.value >= serial.value  # marks include host time around it
    chunked()
    assert teach.check_time(at_most_ns=9_000_000)
    assert teach.check_time(at_most_ns=9_000_000, start="start", end="end")


def test_window_names_unknown_marks():
    one_stream()
    with pytest.raises(ValueError, match="no mark 'begin'.*'start', 'end'"):
        teach.window(start="begin")


def test_check_bytes_counts_each_direction():
    one_stream()
    moved = teach.bytes_moved()
    assert moved == {"H2D": 8 * MiB, "D2H": 4 * MiB, "D2D": 0, "peer": 0, "H2H": 0}
    assert teach.check_bytes(direction="H2D", exactly=8 * MiB)
    too_much = teach.check_bytes(direction="D2H", at_most=2 * MiB)
    assert not too_much and "each byte should cross once" in str(too_much)
    too_little = teach.check_bytes(direction="H2D", at_least=12 * MiB)
    assert not too_little and "never made the H2D trip" in str(too_little)


def test_check_bytes_tells_peer_copies_from_on_device_copies():
    sandbox.configure("ascend910b", device_count=2)
    acl.init()
    acl.rt.set_device(1)
    dst, _ = acl.rt.malloc(MiB, acl.ACL_MEM_MALLOC_HUGE_FIRST)
    acl.rt.set_device(0)
    acl.rt.device_enable_peer_access(1, 0)
    src, _ = acl.rt.malloc(MiB, acl.ACL_MEM_MALLOC_HUGE_FIRST)
    local, _ = acl.rt.malloc(MiB, acl.ACL_MEM_MALLOC_HUGE_FIRST)
    assert acl.rt.memcpy(dst, MiB, src, MiB, acl.ACL_MEMCPY_DEVICE_TO_DEVICE) == 0
    assert acl.rt.memcpy(local, MiB, src, MiB, acl.ACL_MEMCPY_DEVICE_TO_DEVICE) == 0
    assert teach.bytes_moved()["peer"] == MiB and teach.bytes_moved()["D2D"] == MiB
    assert teach.check_bytes(direction="peer", exactly=MiB)
    assert not teach.check_bytes(direction="peer", exactly=0)


def test_check_syncs_counts_and_names_synchronize_calls():
    one_stream()
    once = teach.check_syncs(at_most=1)
    assert once and str(once) == "\u2714 synchronize calls: 1 (aclrtSynchronizeStream x1)"
    one_stream(sync_each=True)
    many = teach.check_syncs(at_most=1)
    assert not many and many.value == 3
    assert "aclrtSynchronizeStream x3), want at most 1" in str(many)
    chunked()
    assert teach.sync_calls() == {"aclrtSynchronizeDevice": 1}
    assert not teach.check_syncs(exactly=1, allowed=("aclrtSynchronizeStream",))


def test_check_api_calls_counts_host_calls():
    one_stream()
    n = teach.api_calls()
    assert teach.check_api_calls(at_most=n) and not teach.check_api_calls(at_most=n - 1)
    assert teach.api_calls(name="aclrtMemcpyAsync") == 3
    assert teach.check_api_calls(name="aclrtMemcpyAsync", exactly=3)
    one_stream(sync_each=True)
    assert not teach.check_api_calls(at_most=n)


def test_check_peak_memory_sees_buffers_alive_together():
    sandbox.configure("ascend310b")
    acl.init()
    acl.rt.set_device(0)
    for _ in range(3):  # one at a time: 6 MiB (4 MiB + padding, in 2 MiB pages)
        p, _ = acl.rt.malloc(4 * MiB, acl.ACL_MEM_MALLOC_HUGE_FIRST)
        acl.rt.free(p)
    one_at_a_time = teach.peak_device_memory()
    assert one_at_a_time == 6 * MiB and teach.check_peak_memory(at_most=8 * MiB)
    ps = [acl.rt.malloc(4 * MiB, acl.ACL_MEM_MALLOC_HUGE_FIRST)[0] for _ in range(3)]
    assert teach.peak_device_memory() >= 3 * one_at_a_time
    bad = teach.check_peak_memory(at_most=8 * MiB, device=0)
    assert not bad and str(bad).startswith("\u2718 peak device memory: 18.0 MiB on device 0, want at most 8.0 MiB")
    for p in ps:
        acl.rt.free(p)


def test_check_equal_reports_the_first_difference_with_a_hint():
    good = teach.check_equal(one_stream(), np.arange(N) + 1)
    assert good and str(good) == f"\u2714 result: all {N} values match"
    stale = teach.check_equal(one_stream(read_early=True), np.arange(N) + 1)
    assert not stale and f"{N} of {N} values differ, first at [0]: 0, want 1" in str(stale)
    assert "hint: synchronise before reading" in str(stale)
    assert not teach.check_equal(np.zeros(3), np.zeros(4))
    assert teach.check_equal(np.float32([0.1, 0.2]), [0.1, 0.2])


def test_check_no_errors_reports_the_first_failed_call():
    sandbox.configure("ascend310b")
    acl.init()
    assert teach.check_no_errors()
    acl.rt.create_stream()  # no device set: no context
    bad = teach.check_no_errors()
    assert not bad and "aclrtCreateStream returned ACL_ERROR_RT_CONTEXT_NULL" in str(bad)


def test_grade_bundles_checks_with_a_tally():
    one_stream()
    report = teach.grade(teach.check_syncs(at_most=1), teach.check_overlap(at_least_fraction=0.5))
    assert not report
    lines = str(report).splitlines()
    assert lines[0].startswith("\u2714") and lines[1].startswith("\u2718")
    assert lines[-1] == "1 of 2 checks passed: not yet"


def test_graders_read_only_the_log_they_are_given():
    one_stream()
    log = sandbox.trace()
    chunked()
    assert not teach.check_overlap(log, at_least_fraction=0.5)
    assert teach.check_overlap(at_least_fraction=0.5)


def test_mark_puts_a_note_at_the_threads_clock():
    sandbox.configure("ascend310b")
    acl.init()
    t = teach.mark("here")
    assert t == sandbox.now()
    assert teach.window(start="here", end="here") == (t, t)


def test_the_readme_s_snippet_reaches_the_exercises_from_import_sandbox_alone():
    import subprocess
    import sys

    code = "import sandbox; print(len(sandbox.teach.exercises()) > 20, sandbox.teach is sandbox.teach)"
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0 and done.stdout.split() == ["True", "True"], done.stderr
