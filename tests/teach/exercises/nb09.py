"""Notebook 09 (and the 09b.1 cases, taken by nb09b.py): reference solutions, mistakes that must fail, correct variants that must pass."""

from __future__ import annotations

from . import solutions

SOLUTIONS = solutions("09")

_SETUP = """
    copy_s, _ = acl.rt.create_stream()
    compute_s, _ = acl.rt.create_stream()
    hin, _ = acl.rt.malloc_host(2 * NB)
    hout, _ = acl.rt.malloc_host(2 * NB)
    acl.util.ptr_to_numpy(hin, (2, N), np.float32)[:] = x
"""
_READ = """
    return acl.util.ptr_to_numpy(hout, (2, N), np.float32).copy()
"""

# 09.1: a recovery written out, with one thing changed per mistake
_RECOVERY = """
def solution(x, stream):
    hin, _ = acl.rt.malloc_host(BATCHES * NB)
    hout, _ = acl.rt.malloc_host(BATCHES * NB)
    acl.util.ptr_to_numpy(hin, (BATCHES, N), np.float32)[:] = x
    dx, _ = acl.rt.malloc(NB, HUGE)
    dy, _ = acl.rt.malloc(NB, HUGE)
    st = stream
    for b in range(BATCHES):
        batch(b, hin, hout, dx, dy, st)
    ret = acl.rt.synchronize_stream(st)
    if ret != acl.ACL_SUCCESS:
        @RECOVER@
    out = acl.util.ptr_to_numpy(hout, (BATCHES, N), np.float32).copy()
    @END@
    return out
"""
_FULL_END = """acl.rt.free(dx)
    acl.rt.free(dy)
    acl.rt.free_host(hin)
    acl.rt.free_host(hout)
    acl.rt.destroy_stream(st)
    acl.rt.reset_device(0)
    acl.finalize()"""


def _recovery(recover: str, end: str = _FULL_END) -> str:
    return _RECOVERY.replace("@RECOVER@", recover.strip()).replace("@END@", end)


MISTAKES = {
    "09b.1": {
        "racy_as_given": "def solution(x):"
        + _SETUP
        + """
    for b in range(2):
        dx, _ = acl.rt.malloc(NB, HUGE)
        dy, _ = acl.rt.malloc(NB, HUGE)
        acl.rt.memcpy_async(dx, NB, hin + b * NB, NB, H2D, copy_s)
        scale[8, compute_s](dx, dy, N)
        acl.rt.memcpy_async(hout + b * NB, NB, dy, NB, D2H, compute_s)
    acl.rt.synchronize_device()
"""
        + _READ,
        "event_recorded_but_never_waited_for": "def solution(x):"
        + _SETUP
        + """
    for b in range(2):
        dx, _ = acl.rt.malloc(NB, HUGE)
        dy, _ = acl.rt.malloc(NB, HUGE)
        loaded, _ = acl.rt.create_event()
        acl.rt.memcpy_async(dx, NB, hin + b * NB, NB, H2D, copy_s)
        acl.rt.record_event(loaded, copy_s)
        scale[8, compute_s](dx, dy, N)
        acl.rt.memcpy_async(hout + b * NB, NB, dy, NB, D2H, compute_s)
    acl.rt.synchronize_stream(compute_s)
"""
        + _READ,
        "read_before_synchronize": "def solution(x):"
        + _SETUP
        + """
    for b in range(2):
        dx, _ = acl.rt.malloc(NB, HUGE)
        dy, _ = acl.rt.malloc(NB, HUGE)
        loaded, _ = acl.rt.create_event()
        acl.rt.memcpy_async(dx, NB, hin + b * NB, NB, H2D, copy_s)
        acl.rt.record_event(loaded, copy_s)
        acl.rt.stream_wait_event(compute_s, loaded)
        scale[8, compute_s](dx, dy, N)
        acl.rt.memcpy_async(hout + b * NB, NB, dy, NB, D2H, compute_s)
    out = acl.util.ptr_to_numpy(hout, (2, N), np.float32).copy()
    acl.rt.synchronize_stream(compute_s)
    return out
""",
        "one_stream": "def solution(x):"
        + _SETUP
        + """
    for b in range(2):
        dx, _ = acl.rt.malloc(NB, HUGE)
        dy, _ = acl.rt.malloc(NB, HUGE)
        acl.rt.memcpy_async(dx, NB, hin + b * NB, NB, H2D, compute_s)
        scale[8, compute_s](dx, dy, N)
        acl.rt.memcpy_async(hout + b * NB, NB, dy, NB, D2H, compute_s)
    acl.rt.synchronize_stream(compute_s)
"""
        + _READ,
        "host_waits_instead_of_events": "def solution(x):"
        + _SETUP
        + """
    for b in range(2):
        dx, _ = acl.rt.malloc(NB, HUGE)
        dy, _ = acl.rt.malloc(NB, HUGE)
        acl.rt.memcpy_async(dx, NB, hin + b * NB, NB, H2D, copy_s)
        acl.rt.synchronize_stream(copy_s)
        scale[8, compute_s](dx, dy, N)
        acl.rt.memcpy_async(hout + b * NB, NB, dy, NB, D2H, compute_s)
    acl.rt.synchronize_stream(compute_s)
"""
        + _READ,
        "polls_the_copy_stream_instead_of_events": "def solution(x):"
        + _SETUP
        + """
    for b in range(2):
        dx, _ = acl.rt.malloc(NB, HUGE)
        dy, _ = acl.rt.malloc(NB, HUGE)
        acl.rt.memcpy_async(dx, NB, hin + b * NB, NB, H2D, copy_s)
        while acl.rt.stream_query(copy_s)[0] != acl.ACL_STREAM_STATUS_COMPLETE:
            pass
        scale[8, compute_s](dx, dy, N)
        acl.rt.memcpy_async(hout + b * NB, NB, dy, NB, D2H, compute_s)
    acl.rt.synchronize_stream(compute_s)
"""
        + _READ,
        "event_recorded_on_the_wrong_stream": "def solution(x):"
        + _SETUP
        + """
    for b in range(2):
        dx, _ = acl.rt.malloc(NB, HUGE)
        dy, _ = acl.rt.malloc(NB, HUGE)
        loaded, _ = acl.rt.create_event()
        acl.rt.memcpy_async(dx, NB, hin + b * NB, NB, H2D, copy_s)
        acl.rt.record_event(loaded, compute_s)
        acl.rt.stream_wait_event(compute_s, loaded)
        scale[8, compute_s](dx, dy, N)
        acl.rt.memcpy_async(hout + b * NB, NB, dy, NB, D2H, compute_s)
    acl.rt.synchronize_device()
"""
        + _READ,
        "host_computed_answer": "def solution(x):"
        + _SETUP
        + """
    for b in range(2):
        dx, _ = acl.rt.malloc(NB, HUGE)
        dy, _ = acl.rt.malloc(NB, HUGE)
        loaded, _ = acl.rt.create_event()
        acl.rt.memcpy_async(dx, NB, hin + b * NB, NB, H2D, copy_s)
        acl.rt.record_event(loaded, copy_s)
        acl.rt.stream_wait_event(compute_s, loaded)
        scale[8, compute_s](dx, dy, N)
    acl.rt.synchronize_device()
    return 2 * x
""",
        "no_device_work": """
def solution(x):
    return (2 * x).astype(np.float32)
""",
    },
    "09.1": {
        "ignores_errors": """
def solution(x, stream):
    return ignores_errors(x, stream)
""",
        "retries_on_the_stopped_stream": _recovery("""
        for b in range(BATCHES):
            batch(b, hin, hout, dx, dy, st)
        acl.rt.synchronize_stream(st)
"""),
        "new_stream_without_reset": _recovery("""
        acl.rt.destroy_stream(st)
        st, _ = acl.rt.create_stream()
        for b in range(BATCHES):
            batch(b, hin, hout, dx, dy, st)
        acl.rt.synchronize_stream(st)
"""),
        "memory_kept_across_the_reset": _recovery("""
        acl.rt.destroy_stream(st)
        acl.rt.reset_device(0)
        acl.rt.set_device(0)
        st, _ = acl.rt.create_stream()
        for b in range(BATCHES):
            batch(b, hin, hout, dx, dy, st)
        acl.rt.synchronize_stream(st)
"""),
        "freed_after_the_reset": _recovery("""
        acl.rt.destroy_stream(st)
        acl.rt.reset_device(0)
        acl.rt.set_device(0)
        acl.rt.free(dx)
        acl.rt.free(dy)
        acl.rt.free_host(hin)
        acl.rt.free_host(hout)
        st, _ = acl.rt.create_stream()
        hin, _ = acl.rt.malloc_host(BATCHES * NB)
        hout, _ = acl.rt.malloc_host(BATCHES * NB)
        acl.util.ptr_to_numpy(hin, (BATCHES, N), np.float32)[:] = x
        dx, _ = acl.rt.malloc(NB, HUGE)
        dy, _ = acl.rt.malloc(NB, HUGE)
        for b in range(BATCHES):
            batch(b, hin, hout, dx, dy, st)
        acl.rt.synchronize_stream(st)
"""),
        "stream_not_destroyed_before_the_reset": _recovery("""
        acl.rt.free(dx)
        acl.rt.free(dy)
        acl.rt.free_host(hin)
        acl.rt.free_host(hout)
        acl.rt.reset_device(0)
        acl.rt.set_device(0)
        st, _ = acl.rt.create_stream()
        hin, _ = acl.rt.malloc_host(BATCHES * NB)
        hout, _ = acl.rt.malloc_host(BATCHES * NB)
        acl.util.ptr_to_numpy(hin, (BATCHES, N), np.float32)[:] = x
        dx, _ = acl.rt.malloc(NB, HUGE)
        dy, _ = acl.rt.malloc(NB, HUGE)
        for b in range(BATCHES):
            batch(b, hin, hout, dx, dy, st)
        acl.rt.synchronize_stream(st)
"""),
        "not_uploaded_again": _recovery("""
        acl.rt.free(dx)
        acl.rt.free(dy)
        acl.rt.free_host(hout)
        acl.rt.free_host(hin)
        acl.rt.destroy_stream(st)
        acl.rt.reset_device(0)
        acl.rt.set_device(0)
        st, _ = acl.rt.create_stream()
        hin, _ = acl.rt.malloc_host(BATCHES * NB)
        hout, _ = acl.rt.malloc_host(BATCHES * NB)
        dx, _ = acl.rt.malloc(NB, HUGE)
        dy, _ = acl.rt.malloc(NB, HUGE)
        for b in range(BATCHES):
            batch(b, hin, hout, dx, dy, st)
        acl.rt.synchronize_stream(st)
"""),
        "host_computed_answer": _recovery("""
        acl.rt.free(dx)
        acl.rt.free(dy)
        acl.rt.free_host(hin)
        acl.rt.free_host(hout)
        acl.rt.destroy_stream(st)
        acl.rt.reset_device(0)
        acl.finalize()
        return 2 * x
"""),
        "no_device_work": """
def solution(x, stream):
    acl.rt.destroy_stream(stream)
    acl.rt.reset_device(0)
    acl.finalize()
    return (2 * x).astype(np.float32)
""",
        "missing_synchronize_after_the_retry": _recovery("""
        acl.rt.free(dx)
        acl.rt.free(dy)
        acl.rt.free_host(hin)
        acl.rt.free_host(hout)
        acl.rt.destroy_stream(st)
        acl.rt.reset_device(0)
        acl.rt.set_device(0)
        st, _ = acl.rt.create_stream()
        hin, _ = acl.rt.malloc_host(BATCHES * NB)
        hout, _ = acl.rt.malloc_host(BATCHES * NB)
        acl.util.ptr_to_numpy(hin, (BATCHES, N), np.float32)[:] = x
        dx, _ = acl.rt.malloc(NB, HUGE)
        dy, _ = acl.rt.malloc(NB, HUGE)
        for b in range(BATCHES):
            batch(b, hin, hout, dx, dy, st)
"""),
        "no_clean_up": _recovery(
            """
        acl.rt.free(dx)
        acl.rt.free(dy)
        acl.rt.free_host(hin)
        acl.rt.free_host(hout)
        acl.rt.destroy_stream(st)
        acl.rt.reset_device(0)
        acl.rt.set_device(0)
        st, _ = acl.rt.create_stream()
        hin, _ = acl.rt.malloc_host(BATCHES * NB)
        hout, _ = acl.rt.malloc_host(BATCHES * NB)
        acl.util.ptr_to_numpy(hin, (BATCHES, N), np.float32)[:] = x
        dx, _ = acl.rt.malloc(NB, HUGE)
        dy, _ = acl.rt.malloc(NB, HUGE)
        for b in range(BATCHES):
            batch(b, hin, hout, dx, dy, st)
        acl.rt.synchronize_stream(st)
""",
            end="acl.finalize()",
        ),
    },
}

VARIANTS = {
    "09b.1": {
        "one_event_after_both_loads_and_device_synchronize": "def solution(x):"
        + _SETUP
        + """
    loaded, _ = acl.rt.create_event()
    bufs = [(acl.rt.malloc(NB, HUGE)[0], acl.rt.malloc(NB, HUGE)[0]) for _ in range(2)]
    for b, (dx, dy) in enumerate(bufs):
        acl.rt.memcpy_async(dx, NB, hin + b * NB, NB, H2D, copy_s)
    acl.rt.record_event(loaded, copy_s)
    acl.rt.stream_wait_event(compute_s, loaded)
    for b, (dx, dy) in enumerate(bufs):
        scale[8, compute_s](dx, dy, N)
        acl.rt.memcpy_async(hout + b * NB, NB, dy, NB, D2H, compute_s)
    acl.rt.synchronize_device()
"""
        + _READ,
        "polls_the_compute_stream_at_the_end": "def solution(x):"
        + _SETUP
        + """
    for b in range(2):
        dx, _ = acl.rt.malloc(NB, HUGE)
        dy, _ = acl.rt.malloc(NB, HUGE)
        loaded, _ = acl.rt.create_event()
        acl.rt.memcpy_async(dx, NB, hin + b * NB, NB, H2D, copy_s)
        acl.rt.record_event(loaded, copy_s)
        acl.rt.stream_wait_event(compute_s, loaded)
        scale[8, compute_s](dx, dy, N)
        acl.rt.memcpy_async(hout + b * NB, NB, dy, NB, D2H, compute_s)
    while acl.rt.stream_query(compute_s)[0] != acl.ACL_STREAM_STATUS_COMPLETE:
        sandbox.host_work(20_000, "other host work")
"""
        + _READ,
    },
    "09.1": {
        "a_synchronize_per_batch_and_redo_from_the_failed_one": """
def solution(x, stream):
    done = np.zeros((BATCHES, N), np.float32)

    def attempt(st, first):
        hin, _ = acl.rt.malloc_host(BATCHES * NB)
        hout, _ = acl.rt.malloc_host(BATCHES * NB)
        acl.util.ptr_to_numpy(hin, (BATCHES, N), np.float32)[:] = x
        dx, _ = acl.rt.malloc(NB, HUGE)
        dy, _ = acl.rt.malloc(NB, HUGE)
        failed = None
        for b in range(first, BATCHES):
            batch(b, hin, hout, dx, dy, st)
            ret = acl.rt.synchronize_stream(st)
            if ret != acl.ACL_SUCCESS:
                print("batch", b, "failed:", name(ret), acl.get_recent_err_msg())
                failed = b
                break
            done[b] = acl.util.ptr_to_numpy(hout + b * NB, (N,), np.float32)
        acl.rt.free(dx)
        acl.rt.free(dy)
        acl.rt.free_host(hin)
        acl.rt.free_host(hout)
        acl.rt.destroy_stream(st)
        return failed

    failed = attempt(stream, 0)
    acl.rt.reset_device(0)
    if failed is not None:
        acl.rt.set_device(0)
        st, _ = acl.rt.create_stream()
        attempt(st, failed)
        acl.rt.reset_device(0)
    acl.finalize()
    return done
""",
        "one_carved_device_buffer_and_device_synchronize": """
def solution(x, stream):
    def start(st):
        hin, _ = acl.rt.malloc_host(BATCHES * NB)
        hout, _ = acl.rt.malloc_host(BATCHES * NB)
        acl.util.ptr_to_numpy(hin, (BATCHES, N), np.float32)[:] = x
        dev, _ = acl.rt.malloc(2 * NB, HUGE)
        for b in range(BATCHES):
            batch(b, hin, hout, dev, dev + NB, st)
        return [hin, hout, dev], acl.rt.synchronize_device()

    held, ret = start(stream)
    st = stream
    if ret:
        acl.rt.free(held[2])
        acl.rt.free_host(held[0])
        acl.rt.free_host(held[1])
        acl.rt.destroy_stream(st)
        acl.rt.reset_device(0)
        acl.rt.set_device(0)
        st, _ = acl.rt.create_stream()
        held, ret = start(st)
    out = acl.util.ptr_to_numpy(held[1], (BATCHES, N), np.float32).copy()
    acl.rt.free(held[2])
    acl.rt.free_host(held[0])
    acl.rt.free_host(held[1])
    acl.rt.destroy_stream(st)
    acl.rt.reset_device(0)
    acl.finalize()
    return out
""",
    },
}

# Exercise 09b.1 belongs to notebook 09b (nb09b.py takes its cases from here).
PIPELINE = {"MISTAKES": MISTAKES.pop("09b.1"), "VARIANTS": VARIANTS.pop("09b.1")}
