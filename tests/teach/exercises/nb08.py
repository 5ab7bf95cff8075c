"""Notebook 08 and its deep dive 08x: reference solutions, mistakes that must fail, correct variants that must pass."""

from __future__ import annotations

from . import solutions

SOLUTIONS = solutions("08")

_OPEN = """
    buf, _ = acl.rt.malloc(4 * N, acl.ACL_MEM_MALLOC_HUGE_FIRST)
    acl.rt.memcpy(buf, 4 * N, acl.util.numpy_to_ptr(x), 4 * N, H2D)
"""
_READ = """
    out = np.empty(N, np.int32)
    acl.rt.memcpy(acl.util.numpy_to_ptr(out), 4 * N, buf, 4 * N, D2H)
    return out
"""

MISTAKES = {
    "08.1": {
        "own_tick_declared_cheaper": """
@sandbox.kernel(ns=1)                                   # the notebook's tick, declared 1000x cheaper
def tick(x: sandbox.ptr("int32", "n"), n: int, j: int):
    x[:n] = x[:n] * 3 + j


def solution(x, stream):
    buf, _ = acl.rt.malloc(4 * N, acl.ACL_MEM_MALLOC_HUGE_FIRST)
    host, _ = acl.rt.malloc_host(4 * N)
    acl.util.ptr_to_numpy(host, (N,), np.int32)[:] = x
    acl.rt.memcpy_async(buf, 4 * N, host, 4 * N, H2D, stream)
    acl.mdl.ri_capture_begin(stream, GLOBAL)
    for j in range(K):
        tick[1, stream](buf, N, j)
    ri, _ = acl.mdl.ri_capture_end(stream)
    for _ in range(REPEATS):
        acl.mdl.ri_execute_async(ri, stream)
    acl.rt.memcpy_async(host, 4 * N, buf, 4 * N, D2H, stream)
    acl.rt.synchronize_stream(stream)
    out = acl.util.ptr_to_numpy(host, (N,), np.int32).copy()
    acl.mdl.ri_destroy(ri)
    acl.rt.free(buf)
    acl.rt.free_host(host)
    return out
""",
        "eager_loop": "def solution(x, stream):"
        + _OPEN
        + """
    for _ in range(REPEATS):
        model_step(stream, buf)
    acl.rt.synchronize_stream(stream)
"""
        + _READ,
        "fused_kernel": """
@sandbox.kernel(ns=lambda x, n, k: 1_000 * k)
def ticks(x: sandbox.ptr("int32", "n"), n: int, k: int):
    for _ in range(k // K):
        for j in range(K):
            x[:n] = x[:n] * 3 + j


def solution(x, stream):"""
        + _OPEN
        + """
    ticks[1, stream](buf, N, K * REPEATS)
    acl.rt.synchronize_stream(stream)
"""
        + _READ,
        "fused_step_replayed": """
@sandbox.kernel(ns=K * 1_000)
def fused_step(x: sandbox.ptr("int32", "n"), n: int):
    for j in range(K):
        x[:n] = x[:n] * 3 + j


def solution(x, stream):"""
        + _OPEN
        + """
    acl.mdl.ri_capture_begin(stream, GLOBAL)
    fused_step[1, stream](buf, N)
    ri, _ = acl.mdl.ri_capture_end(stream)
    for _ in range(REPEATS):
        acl.mdl.ri_execute_async(ri, stream)
    acl.rt.synchronize_stream(stream)
"""
        + _READ,
        "host_computed_answer": "def solution(x, stream):"
        + _OPEN
        + """
    acl.mdl.ri_capture_begin(stream, GLOBAL)
    model_step(stream, buf)
    ri, _ = acl.mdl.ri_capture_end(stream)
    for _ in range(REPEATS):
        acl.mdl.ri_execute_async(ri, stream)
    acl.rt.synchronize_stream(stream)
    return model(x, REPEATS)
""",
        "no_device_work": """
def solution(x, stream):
    return model(x, REPEATS)
""",
        "missing_synchronize": """
def solution(x, stream):
    buf, _ = acl.rt.malloc(4 * N, acl.ACL_MEM_MALLOC_HUGE_FIRST)
    host, _ = acl.rt.malloc_host(4 * N)
    acl.util.ptr_to_numpy(host, (N,), np.int32)[:] = x
    acl.rt.memcpy_async(buf, 4 * N, host, 4 * N, H2D, stream)
    acl.mdl.ri_capture_begin(stream, GLOBAL)
    model_step(stream, buf)
    ri, _ = acl.mdl.ri_capture_end(stream)
    for _ in range(REPEATS):
        acl.mdl.ri_execute_async(ri, stream)
    acl.rt.memcpy_async(host, 4 * N, buf, 4 * N, D2H, stream)
    return acl.util.ptr_to_numpy(host, (N,), np.int32).copy()
""",
        "fewer_replays": "def solution(x, stream):"
        + _OPEN
        + """
    acl.mdl.ri_capture_begin(stream, GLOBAL)
    model_step(stream, buf)
    ri, _ = acl.mdl.ri_capture_end(stream)
    for _ in range(REPEATS // 2):
        acl.mdl.ri_execute_async(ri, stream)
    acl.rt.synchronize_stream(stream)
"""
        + _READ,
        "captured_every_step": "def solution(x, stream):"
        + _OPEN
        + """
    acl.mdl.ri_capture_begin(stream, GLOBAL)
    for _ in range(REPEATS):
        model_step(stream, buf)
    ri, _ = acl.mdl.ri_capture_end(stream)
    acl.mdl.ri_execute_async(ri, stream)
    acl.rt.synchronize_stream(stream)
"""
        + _READ,
        "first_step_eager": "def solution(x, stream):"
        + _OPEN
        + """
    model_step(stream, buf)
    acl.mdl.ri_capture_begin(stream, GLOBAL)
    model_step(stream, buf)
    ri, _ = acl.mdl.ri_capture_end(stream)
    for _ in range(REPEATS - 1):
        acl.mdl.ri_execute_async(ri, stream)
    acl.rt.synchronize_stream(stream)
"""
        + _READ,
        "synchronize_inside_capture": "def solution(x, stream):"
        + _OPEN
        + """
    acl.mdl.ri_capture_begin(stream, GLOBAL)
    model_step(stream, buf)
    acl.rt.synchronize_stream(stream)
    ri, _ = acl.mdl.ri_capture_end(stream)
    for _ in range(REPEATS):
        acl.mdl.ri_execute_async(ri, stream)
    acl.rt.synchronize_stream(stream)
"""
        + _READ,
    },
    "08.2": {
        "eager_batches": """
def solution(x, stream):
    hin, _ = acl.rt.malloc_host(4 * N)
    hout, _ = acl.rt.malloc_host(4 * N)
    buf, _ = acl.rt.malloc(4 * N, acl.ACL_MEM_MALLOC_HUGE_FIRST)
    out = np.empty((BATCHES, N), np.int32)
    for i in range(BATCHES):
        acl.util.ptr_to_numpy(hin, (N,), np.int32)[:] = x[i]
        acl.rt.memcpy_async(buf, 4 * N, hin, 4 * N, H2D, stream)
        model_step(stream, buf)
        acl.rt.memcpy_async(hout, 4 * N, buf, 4 * N, D2H, stream)
        acl.rt.synchronize_stream(stream)
        out[i] = acl.util.ptr_to_numpy(hout, (N,), np.int32)
    return out
""",
        "pageable_staging": """
def solution(x, stream):
    stage = np.zeros(N, np.int32)
    hout, _ = acl.rt.malloc_host(4 * N)
    buf, _ = acl.rt.malloc(4 * N, acl.ACL_MEM_MALLOC_HUGE_FIRST)
    acl.mdl.ri_capture_begin(stream, GLOBAL)
    acl.rt.memcpy_async(buf, 4 * N, acl.util.numpy_to_ptr(stage), 4 * N, H2D, stream)
    model_step(stream, buf)
    acl.rt.memcpy_async(hout, 4 * N, buf, 4 * N, D2H, stream)
    ri, _ = acl.mdl.ri_capture_end(stream)
    out = np.empty((BATCHES, N), np.int32)
    for i in range(BATCHES):
        stage[:] = x[i]
        acl.mdl.ri_execute_async(ri, stream)
        acl.rt.synchronize_stream(stream)
        out[i] = acl.util.ptr_to_numpy(hout, (N,), np.int32)
    return out
""",
        "copies_outside_the_graph": """
def solution(x, stream):
    hin, _ = acl.rt.malloc_host(4 * N)
    hout, _ = acl.rt.malloc_host(4 * N)
    buf, _ = acl.rt.malloc(4 * N, acl.ACL_MEM_MALLOC_HUGE_FIRST)
    acl.mdl.ri_capture_begin(stream, GLOBAL)
    model_step(stream, buf)
    ri, _ = acl.mdl.ri_capture_end(stream)
    out = np.empty((BATCHES, N), np.int32)
    for i in range(BATCHES):
        acl.util.ptr_to_numpy(hin, (N,), np.int32)[:] = x[i]
        acl.rt.memcpy_async(buf, 4 * N, hin, 4 * N, H2D, stream)
        acl.mdl.ri_execute_async(ri, stream)
        acl.rt.memcpy_async(hout, 4 * N, buf, 4 * N, D2H, stream)
        acl.rt.synchronize_stream(stream)
        out[i] = acl.util.ptr_to_numpy(hout, (N,), np.int32)
    return out
""",
        "no_wait_between_replays": """
def solution(x, stream):
    hin, _ = acl.rt.malloc_host(4 * N)
    hout, _ = acl.rt.malloc_host(4 * N)
    buf, _ = acl.rt.malloc(4 * N, acl.ACL_MEM_MALLOC_HUGE_FIRST)
    acl.mdl.ri_capture_begin(stream, GLOBAL)
    acl.rt.memcpy_async(buf, 4 * N, hin, 4 * N, H2D, stream)
    model_step(stream, buf)
    acl.rt.memcpy_async(hout, 4 * N, buf, 4 * N, D2H, stream)
    ri, _ = acl.mdl.ri_capture_end(stream)
    for i in range(BATCHES):
        acl.util.ptr_to_numpy(hin, (N,), np.int32)[:] = x[i]
        acl.mdl.ri_execute_async(ri, stream)
    acl.rt.synchronize_stream(stream)
    return np.stack([acl.util.ptr_to_numpy(hout, (N,), np.int32).copy() for _ in range(BATCHES)])
""",
        "read_before_synchronize": """
def solution(x, stream):
    hin, _ = acl.rt.malloc_host(4 * N)
    hout, _ = acl.rt.malloc_host(4 * N)
    buf, _ = acl.rt.malloc(4 * N, acl.ACL_MEM_MALLOC_HUGE_FIRST)
    acl.mdl.ri_capture_begin(stream, GLOBAL)
    acl.rt.memcpy_async(buf, 4 * N, hin, 4 * N, H2D, stream)
    model_step(stream, buf)
    acl.rt.memcpy_async(hout, 4 * N, buf, 4 * N, D2H, stream)
    ri, _ = acl.mdl.ri_capture_end(stream)
    out = np.empty((BATCHES, N), np.int32)
    for i in range(BATCHES):
        acl.util.ptr_to_numpy(hin, (N,), np.int32)[:] = x[i]
        acl.mdl.ri_execute_async(ri, stream)
        out[i] = acl.util.ptr_to_numpy(hout, (N,), np.int32)
        acl.rt.synchronize_stream(stream)
    return out
""",
        "host_computed_answer": """
def solution(x, stream):
    hin, _ = acl.rt.malloc_host(4 * N)
    hout, _ = acl.rt.malloc_host(4 * N)
    buf, _ = acl.rt.malloc(4 * N, acl.ACL_MEM_MALLOC_HUGE_FIRST)
    acl.mdl.ri_capture_begin(stream, GLOBAL)
    acl.rt.memcpy_async(buf, 4 * N, hin, 4 * N, H2D, stream)
    model_step(stream, buf)
    acl.rt.memcpy_async(hout, 4 * N, buf, 4 * N, D2H, stream)
    ri, _ = acl.mdl.ri_capture_end(stream)
    for i in range(BATCHES):
        acl.mdl.ri_execute_async(ri, stream)
        acl.rt.synchronize_stream(stream)
    return np.stack([model(row) for row in x])
""",
        "one_graph_of_all_batches": """
def solution(x, stream):
    hin, _ = acl.rt.malloc_host(4 * N * BATCHES)
    hout, _ = acl.rt.malloc_host(4 * N * BATCHES)
    buf, _ = acl.rt.malloc(4 * N * BATCHES, acl.ACL_MEM_MALLOC_HUGE_FIRST)
    acl.util.ptr_to_numpy(hin, (BATCHES, N), np.int32)[:] = x
    acl.mdl.ri_capture_begin(stream, GLOBAL)
    for i in range(BATCHES):
        acl.rt.memcpy_async(buf + 4 * N * i, 4 * N, hin + 4 * N * i, 4 * N, H2D, stream)
        model_step(stream, buf + 4 * N * i)
        acl.rt.memcpy_async(hout + 4 * N * i, 4 * N, buf + 4 * N * i, 4 * N, D2H, stream)
    ri, _ = acl.mdl.ri_capture_end(stream)
    acl.mdl.ri_execute_async(ri, stream)
    acl.rt.synchronize_stream(stream)
    return acl.util.ptr_to_numpy(hout, (BATCHES, N), np.int32).copy()
""",
    },
    "08.3": {
        "plain_events_in_the_capture": """
def solution(a, b, stream):
    side, _ = acl.rt.create_stream()
    fork, _ = acl.rt.create_event()  # a capturing stream refuses aclrtCreateEvent's events (207000)
    join, _ = acl.rt.create_event()
    host, _ = acl.rt.malloc_host(8 * N)
    dev, _ = acl.rt.malloc(8 * N, acl.ACL_MEM_MALLOC_HUGE_FIRST)
    acl.util.ptr_to_numpy(host, (2, N), np.int32)[:] = [a, b]
    acl.rt.memcpy_async(dev, 8 * N, host, 8 * N, H2D, stream)
    acl.mdl.ri_capture_begin(stream, GLOBAL)
    acl.rt.record_event(fork, stream)
    acl.rt.stream_wait_event(side, fork)
    model_step(stream, dev)
    model_step(side, dev + 4 * N)
    acl.rt.record_event(join, side)
    acl.rt.stream_wait_event(stream, join)
    ri, _ = acl.mdl.ri_capture_end(stream)
    for _ in range(REPEATS):
        acl.mdl.ri_execute_async(ri, stream)
    acl.rt.memcpy_async(host, 8 * N, dev, 8 * N, D2H, stream)
    acl.rt.synchronize_stream(stream)
    return acl.util.ptr_to_numpy(host, (2, N), np.int32).copy()
""",
        "one_stream_graph": """
def solution(a, b, stream):
    host, _ = acl.rt.malloc_host(8 * N)
    dev, _ = acl.rt.malloc(8 * N, acl.ACL_MEM_MALLOC_HUGE_FIRST)
    acl.util.ptr_to_numpy(host, (2, N), np.int32)[:] = [a, b]
    acl.rt.memcpy_async(dev, 8 * N, host, 8 * N, H2D, stream)
    acl.mdl.ri_capture_begin(stream, GLOBAL)
    model_step(stream, dev)
    model_step(stream, dev + 4 * N)
    ri, _ = acl.mdl.ri_capture_end(stream)
    for _ in range(REPEATS):
        acl.mdl.ri_execute_async(ri, stream)
    acl.rt.memcpy_async(host, 8 * N, dev, 8 * N, D2H, stream)
    acl.rt.synchronize_stream(stream)
    return acl.util.ptr_to_numpy(host, (2, N), np.int32).copy()
""",
        "side_stream_not_rejoined": """
def solution(a, b, stream):
    side, _ = acl.rt.create_stream()
    fork, _ = acl.rt.create_event_ex_with_flag(acl.ACL_EVENT_SYNC)
    host, _ = acl.rt.malloc_host(8 * N)
    dev, _ = acl.rt.malloc(8 * N, acl.ACL_MEM_MALLOC_HUGE_FIRST)
    acl.util.ptr_to_numpy(host, (2, N), np.int32)[:] = [a, b]
    acl.rt.memcpy_async(dev, 8 * N, host, 8 * N, H2D, stream)
    acl.mdl.ri_capture_begin(stream, GLOBAL)
    acl.rt.record_event(fork, stream)
    acl.rt.stream_wait_event(side, fork)
    model_step(stream, dev)
    model_step(side, dev + 4 * N)
    ri, _ = acl.mdl.ri_capture_end(stream)
    for _ in range(REPEATS):
        acl.mdl.ri_execute_async(ri, stream)
    acl.rt.memcpy_async(host, 8 * N, dev, 8 * N, D2H, stream)
    acl.rt.synchronize_stream(stream)
    return acl.util.ptr_to_numpy(host, (2, N), np.int32).copy()
""",
        "two_graphs_no_fork": """
def solution(a, b, stream):
    side, _ = acl.rt.create_stream()
    host, _ = acl.rt.malloc_host(8 * N)
    dev, _ = acl.rt.malloc(8 * N, acl.ACL_MEM_MALLOC_HUGE_FIRST)
    acl.util.ptr_to_numpy(host, (2, N), np.int32)[:] = [a, b]
    acl.rt.memcpy_async(dev, 8 * N, host, 8 * N, H2D, stream)
    acl.rt.synchronize_stream(stream)
    acl.mdl.ri_capture_begin(stream, GLOBAL)
    model_step(stream, dev)
    ri_a, _ = acl.mdl.ri_capture_end(stream)
    acl.mdl.ri_capture_begin(side, GLOBAL)
    model_step(side, dev + 4 * N)
    ri_b, _ = acl.mdl.ri_capture_end(side)
    for _ in range(REPEATS):
        acl.mdl.ri_execute_async(ri_a, stream)
        acl.mdl.ri_execute_async(ri_b, side)
    acl.rt.synchronize_device()
    acl.rt.memcpy(host, 8 * N, dev, 8 * N, D2H)
    return acl.util.ptr_to_numpy(host, (2, N), np.int32).copy()
""",
        "eager_two_streams": """
def solution(a, b, stream):
    side, _ = acl.rt.create_stream()
    host, _ = acl.rt.malloc_host(8 * N)
    dev, _ = acl.rt.malloc(8 * N, acl.ACL_MEM_MALLOC_HUGE_FIRST)
    acl.util.ptr_to_numpy(host, (2, N), np.int32)[:] = [a, b]
    acl.rt.memcpy_async(dev, 8 * N, host, 8 * N, H2D, stream)
    acl.rt.synchronize_stream(stream)
    for _ in range(REPEATS):
        model_step(stream, dev)
        model_step(side, dev + 4 * N)
    acl.rt.synchronize_device()
    acl.rt.memcpy(host, 8 * N, dev, 8 * N, D2H)
    return acl.util.ptr_to_numpy(host, (2, N), np.int32).copy()
""",
        "fork_after_a_step": """
def solution(a, b, stream):
    side, _ = acl.rt.create_stream()
    fork, _ = acl.rt.create_event_ex_with_flag(acl.ACL_EVENT_SYNC)
    join, _ = acl.rt.create_event_ex_with_flag(acl.ACL_EVENT_SYNC)
    host, _ = acl.rt.malloc_host(8 * N)
    dev, _ = acl.rt.malloc(8 * N, acl.ACL_MEM_MALLOC_HUGE_FIRST)
    acl.util.ptr_to_numpy(host, (2, N), np.int32)[:] = [a, b]
    acl.rt.memcpy_async(dev, 8 * N, host, 8 * N, H2D, stream)
    acl.mdl.ri_capture_begin(stream, GLOBAL)
    model_step(stream, dev)
    acl.rt.record_event(fork, stream)
    acl.rt.stream_wait_event(side, fork)
    model_step(side, dev + 4 * N)
    acl.rt.record_event(join, side)
    acl.rt.stream_wait_event(stream, join)
    ri, _ = acl.mdl.ri_capture_end(stream)
    for _ in range(REPEATS):
        acl.mdl.ri_execute_async(ri, stream)
    acl.rt.memcpy_async(host, 8 * N, dev, 8 * N, D2H, stream)
    acl.rt.synchronize_stream(stream)
    return acl.util.ptr_to_numpy(host, (2, N), np.int32).copy()
""",
        "host_computed_answer": """
def solution(a, b, stream):
    side, _ = acl.rt.create_stream()
    fork, _ = acl.rt.create_event_ex_with_flag(acl.ACL_EVENT_SYNC)
    join, _ = acl.rt.create_event_ex_with_flag(acl.ACL_EVENT_SYNC)
    dev, _ = acl.rt.malloc(8 * N, acl.ACL_MEM_MALLOC_HUGE_FIRST)
    acl.mdl.ri_capture_begin(stream, GLOBAL)
    acl.rt.record_event(fork, stream)
    acl.rt.stream_wait_event(side, fork)
    model_step(stream, dev)
    model_step(side, dev + 4 * N)
    acl.rt.record_event(join, side)
    acl.rt.stream_wait_event(stream, join)
    ri, _ = acl.mdl.ri_capture_end(stream)
    for _ in range(REPEATS):
        acl.mdl.ri_execute_async(ri, stream)
    acl.rt.synchronize_stream(stream)
    return np.stack([model(a, REPEATS), model(b, REPEATS)])
""",
        "missing_synchronize": """
def solution(a, b, stream):
    side, _ = acl.rt.create_stream()
    fork, _ = acl.rt.create_event_ex_with_flag(acl.ACL_EVENT_SYNC)
    join, _ = acl.rt.create_event_ex_with_flag(acl.ACL_EVENT_SYNC)
    host, _ = acl.rt.malloc_host(8 * N)
    dev, _ = acl.rt.malloc(8 * N, acl.ACL_MEM_MALLOC_HUGE_FIRST)
    acl.util.ptr_to_numpy(host, (2, N), np.int32)[:] = [a, b]
    acl.rt.memcpy_async(dev, 8 * N, host, 8 * N, H2D, stream)
    acl.mdl.ri_capture_begin(stream, GLOBAL)
    acl.rt.record_event(fork, stream)
    acl.rt.stream_wait_event(side, fork)
    model_step(stream, dev)
    model_step(side, dev + 4 * N)
    acl.rt.record_event(join, side)
    acl.rt.stream_wait_event(stream, join)
    ri, _ = acl.mdl.ri_capture_end(stream)
    for _ in range(REPEATS):
        acl.mdl.ri_execute_async(ri, stream)
    acl.rt.memcpy_async(host, 8 * N, dev, 8 * N, D2H, stream)
    return acl.util.ptr_to_numpy(host, (2, N), np.int32).copy()
""",
    },
}

VARIANTS = {
    "08.1": {
        "pageable_copies_and_a_wait_per_replay": "def solution(x, stream):"
        + _OPEN
        + """
    acl.mdl.ri_capture_begin(stream, GLOBAL)
    model_step(stream, buf)
    ri, _ = acl.mdl.ri_capture_end(stream)
    for _ in range(REPEATS):
        acl.mdl.ri_execute_async(ri, stream)
        acl.rt.synchronize_stream(stream)
"""
        + _READ,
        "two_steps_captured_ten_replays": "def solution(x, stream):"
        + _OPEN
        + """
    acl.mdl.ri_capture_begin(stream, acl.ACL_MODEL_RI_CAPTURE_MODE_THREAD_LOCAL)
    model_step(stream, buf)
    model_step(stream, buf)
    ri, _ = acl.mdl.ri_capture_end(stream)
    for _ in range(REPEATS // 2):
        acl.mdl.ri_execute_async(ri, stream)
    acl.rt.synchronize_stream(stream)
"""
        + _READ,
        "own_stream_and_polling": """
def solution(x, stream):
    mine, _ = acl.rt.create_stream()
    buf, _ = acl.rt.malloc(4 * N, acl.ACL_MEM_MALLOC_HUGE_FIRST)
    acl.rt.memcpy(buf, 4 * N, acl.util.numpy_to_ptr(x), 4 * N, H2D)
    acl.mdl.ri_capture_begin(mine, GLOBAL)
    model_step(mine, buf)
    ri, _ = acl.mdl.ri_capture_end(mine)
    for _ in range(REPEATS):
        acl.mdl.ri_execute_async(ri, mine)
    while acl.rt.stream_query(mine)[0] != acl.ACL_STREAM_STATUS_COMPLETE:
        sandbox.host_work(50_000, "other host work")
    out = np.empty(N, np.int32)
    acl.rt.memcpy(acl.util.numpy_to_ptr(out), 4 * N, buf, 4 * N, D2H)
    acl.mdl.ri_destroy(ri)
    acl.rt.free(buf)
    acl.rt.destroy_stream(mine)
    return out
""",
    },
    "08.2": {
        "device_synchronize_and_one_pinned_pair": """
def solution(x, stream):
    pinned, _ = acl.rt.malloc_host(8 * N)
    hin, hout = pinned, pinned + 4 * N
    buf, _ = acl.rt.malloc(4 * N, acl.ACL_MEM_MALLOC_NORMAL_ONLY)
    acl.mdl.ri_capture_begin(stream, RELAXED)
    acl.rt.memcpy_async(buf, 4 * N, hin, 4 * N, H2D, stream)
    model_step(stream, buf)
    acl.rt.memcpy_async(hout, 4 * N, buf, 4 * N, D2H, stream)
    ri, _ = acl.mdl.ri_capture_end(stream)
    rows = []
    for row in x:
        acl.util.ptr_to_numpy(hin, (N,), np.int32)[:] = row
        acl.mdl.ri_execute_async(ri, stream)
        acl.rt.synchronize_device()
        rows.append(acl.util.ptr_to_numpy(hout, (N,), np.int32).copy())
    acl.mdl.ri_destroy(ri)
    return np.stack(rows)
""",
    },
    "08.3": {
        "side_does_a_own_buffers_device_sync": """
def solution(a, b, stream):
    side, _ = acl.rt.create_stream()
    fork, _ = acl.rt.create_event_ex_with_flag(acl.ACL_EVENT_SYNC)
    join, _ = acl.rt.create_event_ex_with_flag(acl.ACL_EVENT_SYNC)
    da, _ = acl.rt.malloc(4 * N, acl.ACL_MEM_MALLOC_HUGE_FIRST)
    db, _ = acl.rt.malloc(4 * N, acl.ACL_MEM_MALLOC_HUGE_FIRST)
    acl.rt.memcpy(da, 4 * N, acl.util.numpy_to_ptr(a), 4 * N, H2D)
    acl.rt.memcpy(db, 4 * N, acl.util.numpy_to_ptr(b), 4 * N, H2D)
    acl.mdl.ri_capture_begin(stream, GLOBAL)
    acl.rt.record_event(fork, stream)
    acl.rt.stream_wait_event(side, fork)
    model_step(side, da)
    model_step(stream, db)
    acl.rt.record_event(join, side)
    acl.rt.stream_wait_event(stream, join)
    ri, _ = acl.mdl.ri_capture_end(stream)
    for _ in range(REPEATS):
        acl.mdl.ri_execute_async(ri, stream)
    acl.rt.synchronize_device()
    out = np.empty((2, N), np.int32)
    acl.rt.memcpy(acl.util.numpy_to_ptr(out[0]), 4 * N, da, 4 * N, D2H)
    acl.rt.memcpy(acl.util.numpy_to_ptr(out[1]), 4 * N, db, 4 * N, D2H)
    return out
""",
    },
}
