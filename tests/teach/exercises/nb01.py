"""Notebook 01: reference solutions, mistakes that must fail, correct variants that must pass."""

from __future__ import annotations

from . import solutions

SOLUTIONS = solutions("01")

MISTAKES = {
    "01.1": {
        "missing_synchronize": """
def solution(a, b):
    s, host_c, dev_c = start_vector_add(a, b)
    acl.rt.memcpy_async(host_c, NBYTES, dev_c, NBYTES, D2H, s)
    return acl.util.ptr_to_numpy(host_c, (N,), np.int32).copy()
""",
        "host_computed_answer": """
def solution(a, b):
    s, host_c, dev_c = start_vector_add(a, b)
    acl.rt.synchronize_stream(s)
    return a + b
""",
        "no_device_work": """
def solution(a, b):
    return (a + b).astype(np.int32)
""",
        "copied_to_device_and_back": """
def solution(a, b):
    s, host_c, dev_c = start_vector_add(a, b)
    acl.rt.synchronize_stream(s)
    acl.util.ptr_to_numpy(host_c, (N,), np.int32)[:] = a + b
    acl.rt.memcpy(dev_c, NBYTES, host_c, NBYTES, H2D)
    acl.rt.memcpy(host_c, NBYTES, dev_c, NBYTES, D2H)
    return acl.util.ptr_to_numpy(host_c, (N,), np.int32).copy()
""",
        "sleep_instead_of_synchronize": """
def solution(a, b):
    s, host_c, dev_c = start_vector_add(a, b)
    acl.rt.memcpy_async(host_c, NBYTES, dev_c, NBYTES, D2H, s)
    sandbox.host_work(50_000_000, "wait long enough")   # the copy has landed by then: timing, not order
    return acl.util.ptr_to_numpy(host_c, (N,), np.int32).copy()
""",
        "synchronize_another_stream_after_a_delay": """
def solution(a, b):
    s, host_c, dev_c = start_vector_add(a, b)
    acl.rt.memcpy_async(host_c, NBYTES, dev_c, NBYTES, D2H, s)
    other, _ = acl.rt.create_stream()
    sandbox.host_work(50_000_000, "something else")
    acl.rt.synchronize_stream(other)                    # an empty stream: it covers nothing of s
    return acl.util.ptr_to_numpy(host_c, (N,), np.int32).copy()
""",
        "event_recorded_before_the_kernel": """
def solution(a, b):
    s, _ = acl.rt.create_stream()
    ha, hb, hc = (acl.rt.malloc_host(NBYTES)[0] for _ in range(3))
    da, db, dc = (acl.rt.malloc(NBYTES, acl.ACL_MEM_MALLOC_HUGE_FIRST)[0] for _ in range(3))
    acl.util.ptr_to_numpy(ha, (N,), np.int32)[:] = a
    acl.util.ptr_to_numpy(hb, (N,), np.int32)[:] = b
    early, _ = acl.rt.create_event()
    acl.rt.record_event(early, s)                       # before any work: waiting for it covers nothing
    acl.rt.memcpy_async(da, NBYTES, ha, NBYTES, H2D, s)
    acl.rt.memcpy_async(db, NBYTES, hb, NBYTES, H2D, s)
    add[1, s](da, db, dc, N)
    acl.rt.memcpy_async(hc, NBYTES, dc, NBYTES, D2H, s)
    sandbox.host_work(50_000_000, "something else")
    acl.rt.synchronize_event(early)
    return acl.util.ptr_to_numpy(hc, (N,), np.int32).copy()
""",
        "hard_coded_answer": """
def solution(a, b):
    s, host_c, dev_c = start_vector_add(a, b)
    acl.rt.memcpy_async(host_c, NBYTES, dev_c, NBYTES, D2H, s)
    acl.rt.synchronize_stream(s)
    return np.full(N, N, np.int32)
""",
    },
    "01.2": {
        "synchronize_after_every_call": """
def solution(a, b):
    acl.init()
    acl.rt.set_device(0)
    s, _ = acl.rt.create_stream()
    ha, hb, hc = (acl.rt.malloc_host(NBYTES)[0] for _ in range(3))
    da, db, dc = (acl.rt.malloc(NBYTES, acl.ACL_MEM_MALLOC_HUGE_FIRST)[0] for _ in range(3))
    acl.util.ptr_to_numpy(ha, (N,), np.int32)[:] = a
    acl.util.ptr_to_numpy(hb, (N,), np.int32)[:] = b
    acl.rt.memcpy_async(da, NBYTES, ha, NBYTES, H2D, s)
    acl.rt.synchronize_stream(s)
    acl.rt.memcpy_async(db, NBYTES, hb, NBYTES, H2D, s)
    acl.rt.synchronize_stream(s)
    add[(N + 255) // 256, s](da, db, dc, N)
    acl.rt.synchronize_stream(s)
    acl.rt.memcpy_async(hc, NBYTES, dc, NBYTES, D2H, s)
    acl.rt.synchronize_stream(s)
    c = acl.util.ptr_to_numpy(hc, (N,), np.int32).copy()
    for p in (da, db, dc):
        acl.rt.free(p)
    for p in (ha, hb, hc):
        acl.rt.free_host(p)
    acl.rt.destroy_stream(s)
    acl.rt.reset_device(0)
    acl.finalize()
    return c
""",
        "blocking_copies": """
def solution(a, b):
    acl.init()
    acl.rt.set_device(0)
    s, _ = acl.rt.create_stream()
    ha, hb, hc = (acl.rt.malloc_host(NBYTES)[0] for _ in range(3))
    da, db, dc = (acl.rt.malloc(NBYTES, acl.ACL_MEM_MALLOC_HUGE_FIRST)[0] for _ in range(3))
    acl.util.ptr_to_numpy(ha, (N,), np.int32)[:] = a
    acl.util.ptr_to_numpy(hb, (N,), np.int32)[:] = b
    acl.rt.memcpy(da, NBYTES, ha, NBYTES, H2D)
    acl.rt.memcpy(db, NBYTES, hb, NBYTES, H2D)
    add[(N + 255) // 256, s](da, db, dc, N)
    acl.rt.synchronize_stream(s)
    acl.rt.memcpy(hc, NBYTES, dc, NBYTES, D2H)
    c = acl.util.ptr_to_numpy(hc, (N,), np.int32).copy()
    for p in (da, db, dc):
        acl.rt.free(p)
    for p in (ha, hb, hc):
        acl.rt.free_host(p)
    acl.rt.destroy_stream(s)
    acl.rt.reset_device(0)
    acl.finalize()
    return c
""",
        "no_clean_up": """
def solution(a, b):
    acl.init()
    acl.rt.set_device(0)
    s, _ = acl.rt.create_stream()
    ha, hb, hc = (acl.rt.malloc_host(NBYTES)[0] for _ in range(3))
    da, db, dc = (acl.rt.malloc(NBYTES, acl.ACL_MEM_MALLOC_HUGE_FIRST)[0] for _ in range(3))
    acl.util.ptr_to_numpy(ha, (N,), np.int32)[:] = a
    acl.util.ptr_to_numpy(hb, (N,), np.int32)[:] = b
    acl.rt.memcpy_async(da, NBYTES, ha, NBYTES, H2D, s)
    acl.rt.memcpy_async(db, NBYTES, hb, NBYTES, H2D, s)
    add[(N + 255) // 256, s](da, db, dc, N)
    acl.rt.memcpy_async(hc, NBYTES, dc, NBYTES, D2H, s)
    acl.rt.synchronize_stream(s)
    c = acl.util.ptr_to_numpy(hc, (N,), np.int32).copy()
    acl.finalize()
    return c
""",
        "freed_before_reading": """
def solution(a, b):
    acl.init()
    acl.rt.set_device(0)
    s, _ = acl.rt.create_stream()
    ha, hb, hc = (acl.rt.malloc_host(NBYTES)[0] for _ in range(3))
    da, db, dc = (acl.rt.malloc(NBYTES, acl.ACL_MEM_MALLOC_HUGE_FIRST)[0] for _ in range(3))
    acl.util.ptr_to_numpy(ha, (N,), np.int32)[:] = a
    acl.util.ptr_to_numpy(hb, (N,), np.int32)[:] = b
    acl.rt.memcpy_async(da, NBYTES, ha, NBYTES, H2D, s)
    acl.rt.memcpy_async(db, NBYTES, hb, NBYTES, H2D, s)
    add[(N + 255) // 256, s](da, db, dc, N)
    acl.rt.memcpy_async(hc, NBYTES, dc, NBYTES, D2H, s)
    for p in (da, db, dc):
        acl.rt.free(p)
    acl.rt.synchronize_stream(s)
    c = acl.util.ptr_to_numpy(hc, (N,), np.int32).copy()
    for p in (ha, hb, hc):
        acl.rt.free_host(p)
    acl.rt.destroy_stream(s)
    acl.rt.reset_device(0)
    acl.finalize()
    return c
""",
        "own_kernel_named_add_writes_a_host_answer": """
@sandbox.kernel(ns=lambda a, b, c, size: 3_500_000 * size // N)
def add(a: "int32*", b: "int32*", c: "int32*", size: int):   # the notebook's name, signature and cost
    c[:size] = ANSWER[:size]                                  # ... but the answer is the host's


def solution(a, b):
    acl.init()
    acl.rt.set_device(0)
    s, _ = acl.rt.create_stream()
    ha, hb, hc = (acl.rt.malloc_host(NBYTES)[0] for _ in range(3))
    da, db, dc = (acl.rt.malloc(NBYTES, acl.ACL_MEM_MALLOC_HUGE_FIRST)[0] for _ in range(3))
    global ANSWER
    ANSWER = a + b
    acl.util.ptr_to_numpy(ha, (N,), np.int32)[:] = a
    acl.util.ptr_to_numpy(hb, (N,), np.int32)[:] = b
    acl.rt.memcpy_async(da, NBYTES, ha, NBYTES, H2D, s)
    acl.rt.memcpy_async(db, NBYTES, hb, NBYTES, H2D, s)
    add[(N + 255) // 256, s](da, db, dc, N)
    acl.rt.memcpy_async(hc, NBYTES, dc, NBYTES, D2H, s)
    acl.rt.synchronize_stream(s)
    c = acl.util.ptr_to_numpy(hc, (N,), np.int32).copy()
    for p in (da, db, dc):
        acl.rt.free(p)
    for p in (ha, hb, hc):
        acl.rt.free_host(p)
    acl.rt.destroy_stream(s)
    acl.rt.reset_device(0)
    acl.finalize()
    return c
""",
        "host_sum_uploaded_as_a_and_zeros_as_b": """
def solution(a, b):
    acl.init()
    acl.rt.set_device(0)
    s, _ = acl.rt.create_stream()
    ha, hb, hc = (acl.rt.malloc_host(NBYTES)[0] for _ in range(3))
    da, db, dc = (acl.rt.malloc(NBYTES, acl.ACL_MEM_MALLOC_HUGE_FIRST)[0] for _ in range(3))
    acl.util.ptr_to_numpy(ha, (N,), np.int32)[:] = a + b   # the host adds
    acl.util.ptr_to_numpy(hb, (N,), np.int32)[:] = 0       # the kernel adds zero
    acl.rt.memcpy_async(da, NBYTES, ha, NBYTES, H2D, s)
    acl.rt.memcpy_async(db, NBYTES, hb, NBYTES, H2D, s)
    add[(N + 255) // 256, s](da, db, dc, N)
    acl.rt.memcpy_async(hc, NBYTES, dc, NBYTES, D2H, s)
    acl.rt.synchronize_stream(s)
    c = acl.util.ptr_to_numpy(hc, (N,), np.int32).copy()
    for p in (da, db, dc):
        acl.rt.free(p)
    for p in (ha, hb, hc):
        acl.rt.free_host(p)
    acl.rt.destroy_stream(s)
    acl.rt.reset_device(0)
    acl.finalize()
    return c
""",
        "inputs_zeroed_in_place": """
def solution(a, b):
    acl.init()
    acl.rt.set_device(0)
    s, _ = acl.rt.create_stream()
    ha, hb, hc = (acl.rt.malloc_host(NBYTES)[0] for _ in range(3))
    da, db, dc = (acl.rt.malloc(NBYTES, acl.ACL_MEM_MALLOC_HUGE_FIRST)[0] for _ in range(3))
    a[:] = 0                                               # then the expected sum would be zeros
    b[:] = 0
    acl.util.ptr_to_numpy(ha, (N,), np.int32)[:] = a
    acl.util.ptr_to_numpy(hb, (N,), np.int32)[:] = b
    acl.rt.memcpy_async(da, NBYTES, ha, NBYTES, H2D, s)
    acl.rt.memcpy_async(db, NBYTES, hb, NBYTES, H2D, s)
    add[(N + 255) // 256, s](da, db, dc, N)
    acl.rt.memcpy_async(hc, NBYTES, dc, NBYTES, D2H, s)
    acl.rt.synchronize_stream(s)
    c = acl.util.ptr_to_numpy(hc, (N,), np.int32).copy()
    for p in (da, db, dc):
        acl.rt.free(p)
    for p in (ha, hb, hc):
        acl.rt.free_host(p)
    acl.rt.destroy_stream(s)
    acl.rt.reset_device(0)
    acl.finalize()
    return c
""",
        "returns_a_view_of_a_freed_host_buffer": """
def solution(a, b):
    acl.init()
    acl.rt.set_device(0)
    s, _ = acl.rt.create_stream()
    ha, hb, hc = (acl.rt.malloc_host(NBYTES)[0] for _ in range(3))
    da, db, dc = (acl.rt.malloc(NBYTES, acl.ACL_MEM_MALLOC_HUGE_FIRST)[0] for _ in range(3))
    acl.util.ptr_to_numpy(ha, (N,), np.int32)[:] = a
    acl.util.ptr_to_numpy(hb, (N,), np.int32)[:] = b
    acl.rt.memcpy_async(da, NBYTES, ha, NBYTES, H2D, s)
    acl.rt.memcpy_async(db, NBYTES, hb, NBYTES, H2D, s)
    add[(N + 255) // 256, s](da, db, dc, N)
    acl.rt.memcpy_async(hc, NBYTES, dc, NBYTES, D2H, s)
    acl.rt.synchronize_stream(s)
    c = acl.util.ptr_to_numpy(hc, (N,), np.int32)                     # a view: its memory is freed below
    for p in (da, db, dc):
        acl.rt.free(p)
    for p in (ha, hb, hc):
        acl.rt.free_host(p)
    acl.rt.destroy_stream(s)
    acl.rt.reset_device(0)
    acl.finalize()
    return c
""",
        "host_computed_answer": """
def solution(a, b):
    acl.init()
    acl.rt.set_device(0)
    s, _ = acl.rt.create_stream()
    acl.rt.synchronize_stream(s)
    acl.rt.destroy_stream(s)
    acl.rt.reset_device(0)
    acl.finalize()
    return a + b
""",
    },
}

VARIANTS = {
    "01.1": {
        "poll_with_stream_query": """
def solution(a, b):
    s, host_c, dev_c = start_vector_add(a, b)
    acl.rt.memcpy_async(host_c, NBYTES, dev_c, NBYTES, D2H, s)
    while acl.rt.stream_query(s)[0] != acl.ACL_STREAM_STATUS_COMPLETE:
        sandbox.host_work(100_000, "other host work")
    return acl.util.ptr_to_numpy(host_c, (N,), np.int32).copy()
""",
        "synchronize_an_event_recorded_after_the_copy": """
def solution(a, b):
    s, host_c, dev_c = start_vector_add(a, b)
    acl.rt.memcpy_async(host_c, NBYTES, dev_c, NBYTES, D2H, s)
    done, _ = acl.rt.create_event()
    acl.rt.record_event(done, s)
    acl.rt.synchronize_event(done)
    return acl.util.ptr_to_numpy(host_c, (N,), np.int32).copy()
""",
    },
    "01.2": {
        "set_twice_then_one_reset_device_force": """
def solution(a, b):
    acl.init()
    acl.rt.set_device(0)
    acl.rt.set_device(0)                                # a second open: one aclrtResetDeviceForce still releases all
    s, _ = acl.rt.create_stream()
    ha, hb, hc = (acl.rt.malloc_host(NBYTES)[0] for _ in range(3))
    da, db, dc = (acl.rt.malloc(NBYTES, acl.ACL_MEM_MALLOC_HUGE_FIRST)[0] for _ in range(3))
    acl.util.ptr_to_numpy(ha, (N,), np.int32)[:] = a
    acl.util.ptr_to_numpy(hb, (N,), np.int32)[:] = b
    acl.rt.memcpy_async(da, NBYTES, ha, NBYTES, H2D, s)
    acl.rt.memcpy_async(db, NBYTES, hb, NBYTES, H2D, s)
    add[1, s](da, db, dc, N)
    acl.rt.memcpy_async(hc, NBYTES, dc, NBYTES, D2H, s)
    acl.rt.synchronize_stream(s)
    c = acl.util.ptr_to_numpy(hc, (N,), np.int32).copy()
    for p in (da, db, dc):
        acl.rt.free(p)
    for p in (ha, hb, hc):
        acl.rt.free_host(p)
    acl.rt.destroy_stream(s)
    acl.rt.reset_device_force(0)
    acl.finalize()
    return c
""",
        "synchronize_event": """
def solution(a, b):
    acl.init()
    acl.rt.set_device(0)
    s, _ = acl.rt.create_stream()
    ha, hb, hc = (acl.rt.malloc_host(NBYTES)[0] for _ in range(3))
    da, db, dc = (acl.rt.malloc(NBYTES, acl.ACL_MEM_MALLOC_HUGE_FIRST)[0] for _ in range(3))
    acl.util.ptr_to_numpy(ha, (N,), np.int32)[:] = a
    acl.util.ptr_to_numpy(hb, (N,), np.int32)[:] = b
    acl.rt.memcpy_async(da, NBYTES, ha, NBYTES, H2D, s)
    acl.rt.memcpy_async(db, NBYTES, hb, NBYTES, H2D, s)
    add[(N + 255) // 256, s](da, db, dc, N)
    acl.rt.memcpy_async(hc, NBYTES, dc, NBYTES, D2H, s)
    done, _ = acl.rt.create_event()
    acl.rt.record_event(done, s)
    acl.rt.synchronize_event(done)
    acl.rt.destroy_event(done)
    c = acl.util.ptr_to_numpy(hc, (N,), np.int32).copy()
    for p in (da, db, dc):
        acl.rt.free(p)
    for p in (ha, hb, hc):
        acl.rt.free_host(p)
    acl.rt.destroy_stream(s)
    acl.rt.reset_device(0)
    acl.finalize()
    return c
""",
        "poll_with_stream_query": """
def solution(a, b):
    acl.init()
    acl.rt.set_device(0)
    s, _ = acl.rt.create_stream()
    ha, hb, hc = (acl.rt.malloc_host(NBYTES)[0] for _ in range(3))
    da, db, dc = (acl.rt.malloc(NBYTES, acl.ACL_MEM_MALLOC_HUGE_FIRST)[0] for _ in range(3))
    acl.util.ptr_to_numpy(ha, (N,), np.int32)[:] = a
    acl.util.ptr_to_numpy(hb, (N,), np.int32)[:] = b
    acl.rt.memcpy_async(da, NBYTES, ha, NBYTES, H2D, s)
    acl.rt.memcpy_async(db, NBYTES, hb, NBYTES, H2D, s)
    add[(N + 255) // 256, s](da, db, dc, N)
    acl.rt.memcpy_async(hc, NBYTES, dc, NBYTES, D2H, s)
    while acl.rt.stream_query(s)[0] != acl.ACL_STREAM_STATUS_COMPLETE:
        sandbox.host_work(100_000, "other host work")
    c = acl.util.ptr_to_numpy(hc, (N,), np.int32).copy()
    for p in (da, db, dc):
        acl.rt.free(p)
    for p in (ha, hb, hc):
        acl.rt.free_host(p)
    acl.rt.destroy_stream(s)
    acl.rt.reset_device(0)
    acl.finalize()
    return c
""",
        "synchronize_device_and_one_carved_input_buffer": """
def solution(a, b):
    acl.init()
    acl.rt.set_device(0)
    s, _ = acl.rt.create_stream()
    hab, _ = acl.rt.malloc_host(2 * NBYTES)
    hc, _ = acl.rt.malloc_host(NBYTES)
    dab, _ = acl.rt.malloc(2 * NBYTES, acl.ACL_MEM_MALLOC_HUGE_FIRST)
    dc, _ = acl.rt.malloc(NBYTES, acl.ACL_MEM_MALLOC_NORMAL_ONLY)
    view = acl.util.ptr_to_numpy(hab, (2 * N,), np.int32)
    view[:N], view[N:] = a, b
    acl.rt.memcpy_async(dab, 2 * NBYTES, hab, 2 * NBYTES, H2D, s)
    add[8, s](dab, dab + NBYTES, dc, N)
    acl.rt.memcpy_async(hc, NBYTES, dc, NBYTES, D2H, s)
    acl.rt.synchronize_device()
    c = acl.util.ptr_to_numpy(hc, (N,), np.int32).copy()
    acl.rt.free(dab)
    acl.rt.free(dc)
    acl.rt.free_host(hab)
    acl.rt.free_host(hc)
    acl.rt.destroy_stream(s)
    acl.rt.reset_device(0)
    acl.finalize()
    return c
""",
    },
}
