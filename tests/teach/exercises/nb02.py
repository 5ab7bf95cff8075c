"""Notebook 02: reference solutions, mistakes that must fail, correct variants that must pass."""

from __future__ import annotations

from . import solutions

SOLUTIONS = solutions("02")

# the pinned inputs, a stream and the device buffers: the lines every 02.1 attempt starts with
_ONE_STREAM = """
    s, _ = acl.rt.create_stream()
    ha, hb, hc = (acl.rt.malloc_host(NBYTES)[0] for _ in range(3))
    da, db, dc = (acl.rt.malloc(NBYTES, HUGE)[0] for _ in range(3))
    acl.util.ptr_to_numpy(ha, (N,), np.int32)[:] = a
    acl.util.ptr_to_numpy(hb, (N,), np.int32)[:] = b
"""


def _pipeline(
    chunks=8, slots=2, wait_slot=True, tail="    acl.rt.synchronize_stream(compute_s)\n    return result(hc)\n"
):
    """A double-buffered solution for 02.2 (the reference's loop), with knobs for mistakes."""
    wait = ("        if i >= SLOTS:\n            acl.rt.stream_wait_event(copy_s, done[slot])\n") if wait_slot else ""
    return f"""
def solution(a, b):
    CHUNKS, SLOTS = {chunks}, {slots}
    step = N // CHUNKS
    cb = 4 * step
    copy_s, _ = acl.rt.create_stream()
    compute_s, _ = acl.rt.create_stream()
    ha, hb, hc = (acl.rt.malloc_host(NBYTES)[0] for _ in range(3))
    acl.util.ptr_to_numpy(ha, (N,), np.int32)[:] = a
    acl.util.ptr_to_numpy(hb, (N,), np.int32)[:] = b
    slots = [[acl.rt.malloc(cb, HUGE)[0] for _ in range(3)] for _ in range(SLOTS)]
    loaded = [acl.rt.create_event()[0] for _ in range(SLOTS)]
    done = [acl.rt.create_event()[0] for _ in range(SLOTS)]
    for i in range(CHUNKS):
        slot, off = i % SLOTS, i * cb
        da, db, dc = slots[slot]
{wait}        acl.rt.memcpy_async(da, cb, ha + off, cb, H2D, copy_s)
        acl.rt.memcpy_async(db, cb, hb + off, cb, H2D, copy_s)
        acl.rt.record_event(loaded[slot], copy_s)
        acl.rt.stream_wait_event(compute_s, loaded[slot])
        add[1, compute_s](da, db, dc, step)
        acl.rt.memcpy_async(hc + off, cb, dc, cb, D2H, compute_s)
        acl.rt.record_event(done[slot], compute_s)
{tail}"""


MISTAKES = {
    "02.1": {
        "no_device_work": """
def solution(a, b):
    prepare_next_batch()
    return (a + b).astype(np.int32)
""",
        "host_computed_answer": """
def solution(a, b):"""
        + _ONE_STREAM
        + """
    acl.rt.memcpy_async(da, NBYTES, ha, NBYTES, H2D, s)
    add[1, s](da, da, dc, 1024)
    prepare_next_batch()
    acl.rt.synchronize_stream(s)
    return a + b
""",
        "blocking_copies": """
def solution(a, b):"""
        + _ONE_STREAM
        + """
    acl.rt.memcpy(da, NBYTES, ha, NBYTES, H2D)
    acl.rt.memcpy(db, NBYTES, hb, NBYTES, H2D)
    add[1, s](da, db, dc, N)
    prepare_next_batch()
    acl.rt.synchronize_stream(s)
    acl.rt.memcpy(hc, NBYTES, dc, NBYTES, D2H)
    return result(hc)
""",
        "host_work_after_synchronize": """
def solution(a, b):"""
        + _ONE_STREAM
        + """
    acl.rt.memcpy_async(da, NBYTES, ha, NBYTES, H2D, s)
    acl.rt.memcpy_async(db, NBYTES, hb, NBYTES, H2D, s)
    add[1, s](da, db, dc, N)
    acl.rt.memcpy_async(hc, NBYTES, dc, NBYTES, D2H, s)
    acl.rt.synchronize_stream(s)
    prepare_next_batch()
    return result(hc)
""",
        "host_work_before_queuing": """
def solution(a, b):"""
        + _ONE_STREAM
        + """
    prepare_next_batch()
    acl.rt.memcpy_async(da, NBYTES, ha, NBYTES, H2D, s)
    acl.rt.memcpy_async(db, NBYTES, hb, NBYTES, H2D, s)
    add[1, s](da, db, dc, N)
    acl.rt.memcpy_async(hc, NBYTES, dc, NBYTES, D2H, s)
    acl.rt.synchronize_stream(s)
    return result(hc)
""",
        "launch_after_host_work": """
def solution(a, b):"""
        + _ONE_STREAM
        + """
    acl.rt.memcpy_async(da, NBYTES, ha, NBYTES, H2D, s)
    acl.rt.memcpy_async(db, NBYTES, hb, NBYTES, H2D, s)
    prepare_next_batch()
    add[1, s](da, db, dc, N)
    acl.rt.memcpy_async(hc, NBYTES, dc, NBYTES, D2H, s)
    acl.rt.synchronize_stream(s)
    return result(hc)
""",
        "missing_synchronize": """
def solution(a, b):"""
        + _ONE_STREAM
        + """
    acl.rt.memcpy_async(da, NBYTES, ha, NBYTES, H2D, s)
    acl.rt.memcpy_async(db, NBYTES, hb, NBYTES, H2D, s)
    add[1, s](da, db, dc, N)
    acl.rt.memcpy_async(hc, NBYTES, dc, NBYTES, D2H, s)
    prepare_next_batch()
    return result(hc)
""",
        "synchronize_after_every_call": """
def solution(a, b):"""
        + _ONE_STREAM
        + """
    acl.rt.memcpy_async(da, NBYTES, ha, NBYTES, H2D, s)
    acl.rt.synchronize_stream(s)
    acl.rt.memcpy_async(db, NBYTES, hb, NBYTES, H2D, s)
    acl.rt.synchronize_stream(s)
    add[1, s](da, db, dc, N)
    prepare_next_batch()
    acl.rt.synchronize_stream(s)
    acl.rt.memcpy_async(hc, NBYTES, dc, NBYTES, D2H, s)
    acl.rt.synchronize_stream(s)
    return result(hc)
""",
    },
    "02.2": {
        "no_device_work": """
def solution(a, b):
    return (a + b).astype(np.int32)
""",
        "host_computed_answer": _pipeline(chunks=8)
        .replace("    return result(hc)", "    return a + b")
        .replace("for i in range(CHUNKS)", "for i in range(1)"),
        "one_stream": """
def solution(a, b):"""
        + _ONE_STREAM
        + """
    acl.rt.memcpy_async(da, NBYTES, ha, NBYTES, H2D, s)
    acl.rt.memcpy_async(db, NBYTES, hb, NBYTES, H2D, s)
    add[1, s](da, db, dc, N)
    acl.rt.memcpy_async(hc, NBYTES, dc, NBYTES, D2H, s)
    acl.rt.synchronize_stream(s)
    return result(hc)
""",
        "chunks_on_one_stream": """
def solution(a, b):"""
        + _ONE_STREAM
        + """
    step = N // 8
    cb = 4 * step
    for i in range(8):
        off = i * cb
        acl.rt.memcpy_async(da + off, cb, ha + off, cb, H2D, s)
        acl.rt.memcpy_async(db + off, cb, hb + off, cb, H2D, s)
        add[1, s](da + off, db + off, dc + off, step)
        acl.rt.memcpy_async(hc + off, cb, dc + off, cb, D2H, s)
    acl.rt.synchronize_stream(s)
    return result(hc)
""",
        "hard_coded_answer": _pipeline(chunks=8).replace("    return result(hc)", "    return np.full(N, N, np.int32)"),
        "race_slot_reused_without_waiting": _pipeline(chunks=8, wait_slot=False),
        "missing_synchronize": _pipeline(chunks=8, tail="    return result(hc)\n"),
        "host_waits_instead_of_events": """
def solution(a, b):
    step = N // 8
    cb = 4 * step
    copy_s, _ = acl.rt.create_stream()
    compute_s, _ = acl.rt.create_stream()
    ha, hb, hc = (acl.rt.malloc_host(NBYTES)[0] for _ in range(3))
    acl.util.ptr_to_numpy(ha, (N,), np.int32)[:] = a
    acl.util.ptr_to_numpy(hb, (N,), np.int32)[:] = b
    slots = [[acl.rt.malloc(cb, HUGE)[0] for _ in range(3)] for _ in range(2)]
    for i in range(8):
        da, db, dc = slots[i % 2]
        off = i * cb
        acl.rt.memcpy_async(da, cb, ha + off, cb, H2D, copy_s)
        acl.rt.memcpy_async(db, cb, hb + off, cb, H2D, copy_s)
        acl.rt.synchronize_stream(copy_s)
        add[1, compute_s](da, db, dc, step)
        acl.rt.memcpy_async(hc + off, cb, dc, cb, D2H, compute_s)
        if i % 2:
            acl.rt.synchronize_stream(compute_s)
    acl.rt.synchronize_stream(compute_s)
    return result(hc)
""",
        "copies_of_extra_data_to_fake_overlap": """
def solution(a, b):"""
        + _ONE_STREAM
        + """
    s2, _ = acl.rt.create_stream()
    junk, _ = acl.rt.malloc(NBYTES, HUGE)
    ev, _ = acl.rt.create_event()
    acl.rt.memcpy_async(da, NBYTES, ha, NBYTES, H2D, s)
    acl.rt.memcpy_async(db, NBYTES, hb, NBYTES, H2D, s)
    acl.rt.record_event(ev, s)
    acl.rt.stream_wait_event(s2, ev)
    add[1, s](da, db, dc, N)
    acl.rt.memcpy_async(junk, NBYTES, ha, NBYTES, H2D, s2)
    acl.rt.memcpy_async(hc, NBYTES, dc, NBYTES, D2H, s)
    acl.rt.synchronize_device()
    return result(hc)
""",
    },
}

VARIANTS = {
    "02.1": {
        "poll_with_stream_query": """
def solution(a, b):"""
        + _ONE_STREAM
        + """
    acl.rt.memcpy_async(da, NBYTES, ha, NBYTES, H2D, s)
    acl.rt.memcpy_async(db, NBYTES, hb, NBYTES, H2D, s)
    add[1, s](da, db, dc, N)
    acl.rt.memcpy_async(hc, NBYTES, dc, NBYTES, D2H, s)
    prepare_next_batch()
    while acl.rt.stream_query(s)[0] != acl.ACL_STREAM_STATUS_COMPLETE:
        sandbox.host_work(50_000, "waiting")
    return result(hc)
""",
        "synchronize_device_and_clean_up": """
def solution(a, b):"""
        + _ONE_STREAM
        + """
    acl.rt.memcpy_async(da, NBYTES, ha, NBYTES, H2D, s)
    acl.rt.memcpy_async(db, NBYTES, hb, NBYTES, H2D, s)
    add[1, s](da, db, dc, N)
    acl.rt.memcpy_async(hc, NBYTES, dc, NBYTES, D2H, s)
    prepare_next_batch()
    acl.rt.synchronize_device()
    c = result(hc)
    for p in (da, db, dc):
        acl.rt.free(p)
    for p in (ha, hb, hc):
        acl.rt.free_host(p)
    acl.rt.destroy_stream(s)
    acl.rt.reset_device(0)
    return c
""",
        "one_carved_input_buffer": """
def solution(a, b):
    s, _ = acl.rt.create_stream()
    hab, _ = acl.rt.malloc_host(2 * NBYTES)
    hc, _ = acl.rt.malloc_host(NBYTES)
    dab, _ = acl.rt.malloc(2 * NBYTES, HUGE)
    dc, _ = acl.rt.malloc(NBYTES, HUGE)
    view = acl.util.ptr_to_numpy(hab, (2 * N,), np.int32)
    view[:N], view[N:] = a, b
    acl.rt.memcpy_async(dab, 2 * NBYTES, hab, 2 * NBYTES, H2D, s)
    add[8, s](dab, dab + NBYTES, dc, N)
    acl.rt.memcpy_async(hc, NBYTES, dc, NBYTES, D2H, s)
    prepare_next_batch()
    acl.rt.synchronize_stream(s)
    return result(hc)
""",
        "pipelined_with_host_work": _pipeline(chunks=8).replace(
            "    acl.rt.synchronize_stream(compute_s)",
            "    prepare_next_batch()\n    acl.rt.synchronize_stream(compute_s)",
        ),
    },
    "02.2": {
        "sixteen_chunks": _pipeline(chunks=16),
        "three_slots": _pipeline(chunks=8, slots=3),
        "thirty_two_chunks": _pipeline(chunks=32),
        "sixteen_chunks_three_slots": _pipeline(chunks=16, slots=3),
        "poll_with_stream_query": _pipeline(
            chunks=8,
            tail=(
                "    while acl.rt.stream_query(compute_s)[0] != acl.ACL_STREAM_STATUS_COMPLETE:\n"
                "        sandbox.host_work(20_000, 'other host work')\n"
                "    return result(hc)\n"
            ),
        ),
        "synchronize_event_and_clean_up": _pipeline(
            chunks=8,
            tail=(
                "    acl.rt.synchronize_event(done[(CHUNKS - 1) % SLOTS])\n"
                "    c = result(hc)\n"
                "    for p in [q for slot in slots for q in slot]:\n"
                "        acl.rt.free(p)\n"
                "    for p in (ha, hb, hc):\n"
                "        acl.rt.free_host(p)\n"
                "    for e in loaded + done:\n"
                "        acl.rt.destroy_event(e)\n"
                "    acl.rt.destroy_stream(copy_s)\n"
                "    acl.rt.destroy_stream(compute_s)\n"
                "    return c\n"
            ),
        ),
        "three_streams": """
def solution(a, b):
    step = N // 8
    cb = 4 * step
    load_s, add_s, back_s = (acl.rt.create_stream()[0] for _ in range(3))
    ha, hb, hc = (acl.rt.malloc_host(NBYTES)[0] for _ in range(3))
    acl.util.ptr_to_numpy(ha, (N,), np.int32)[:] = a
    acl.util.ptr_to_numpy(hb, (N,), np.int32)[:] = b
    slots = [[acl.rt.malloc(cb, HUGE)[0] for _ in range(3)] for _ in range(2)]
    loaded, added, back = ([acl.rt.create_event()[0] for _ in range(2)] for _ in range(3))
    for i in range(8):
        k, off = i % 2, i * cb
        da, db, dc = slots[k]
        if i >= 2:
            acl.rt.stream_wait_event(load_s, added[k])
            acl.rt.stream_wait_event(add_s, back[k])
        acl.rt.memcpy_async(da, cb, ha + off, cb, H2D, load_s)
        acl.rt.memcpy_async(db, cb, hb + off, cb, H2D, load_s)
        acl.rt.record_event(loaded[k], load_s)
        acl.rt.stream_wait_event(add_s, loaded[k])
        add[1, add_s](da, db, dc, step)
        acl.rt.record_event(added[k], add_s)
        acl.rt.stream_wait_event(back_s, added[k])
        acl.rt.memcpy_async(hc + off, cb, dc, cb, D2H, back_s)
        acl.rt.record_event(back[k], back_s)
    acl.rt.synchronize_device()
    return result(hc)
""",
    },
}
