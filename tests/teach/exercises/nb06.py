"""Notebook 06: reference solutions, mistakes that must fail, correct variants that must pass."""

from __future__ import annotations

from . import solutions

SOLUTIONS = solutions("06")

# The work of one device, queued or done at once, shared by the sources below.
_DEVICE_WORK = """
def queue_square(d, x, block_dim=8):
    acl.rt.set_device(d)
    stream, _ = acl.rt.create_stream()
    host, _ = acl.rt.malloc_host(NBYTES)
    dev, _ = acl.rt.malloc(NBYTES, acl.ACL_MEM_MALLOC_HUGE_FIRST)
    acl.util.ptr_to_numpy(host, (N,), np.float32)[:] = x
    acl.rt.memcpy_async(dev, NBYTES, host, NBYTES, H2D, stream)
    square[block_dim, stream](dev, N)
    acl.rt.memcpy_async(host, NBYTES, dev, NBYTES, D2H, stream)
    return d, stream, host, dev


def collect(d, stream, host, dev):
    acl.rt.set_device(d)
    acl.rt.synchronize_stream(stream)
    y = acl.util.ptr_to_numpy(host, (N,), np.float32).copy()
    acl.rt.free(dev)
    acl.rt.free_host(host)
    acl.rt.destroy_stream(stream)
    acl.rt.reset_device(d)
    return y
"""

MISTAKES = {
    "06.1": {
        "own_square_kernel": """
@sandbox.kernel(ns=200_000_000)
def square(x: "float32*", n: int):              # the notebook's name and cost, a body of one's own
    x[:n] = x[:n] ** 2


def solution(chunks):
    queued = []
    for d, x in zip(DEVICES, chunks):
        acl.rt.set_device(d)
        stream, _ = acl.rt.create_stream()
        host, _ = acl.rt.malloc_host(NBYTES)
        dev, _ = acl.rt.malloc(NBYTES, acl.ACL_MEM_MALLOC_HUGE_FIRST)
        acl.util.ptr_to_numpy(host, (N,), np.float32)[:] = x
        acl.rt.memcpy_async(dev, NBYTES, host, NBYTES, H2D, stream)
        square[8, stream](dev, N)
        acl.rt.memcpy_async(host, NBYTES, dev, NBYTES, D2H, stream)
        queued.append((d, stream, host, dev))
    squares = []
    for d, stream, host, dev in queued:
        acl.rt.set_device(d)
        acl.rt.synchronize_stream(stream)
        squares.append(acl.util.ptr_to_numpy(host, (N,), np.float32).copy())
        acl.rt.free(dev)
        acl.rt.free_host(host)
        acl.rt.destroy_stream(stream)
        acl.rt.reset_device(d)
    return squares
""",
        "host_computed_answer": _DEVICE_WORK
        + """
def solution(chunks):
    work = [queue_square(d, np.zeros(N, np.float32)) for d in DEVICES]   # token device work
    for w in work:
        collect(*w)
    return [x * x for x in chunks]
""",
        "no_device_work": """
def solution(chunks):
    return [x * x for x in chunks]
""",
        "synchronize_before_switching": _DEVICE_WORK
        + """
def solution(chunks):
    return [collect(*queue_square(d, x)) for d, x in zip(DEVICES, chunks)]
""",
        "everything_on_device_0": _DEVICE_WORK
        + """
def solution(chunks):
    work = [queue_square(0, x) for x in chunks]
    return [collect(*w) for w in work]
""",
        "a_thread_per_device_instead": _DEVICE_WORK
        + """
def solution(chunks):
    out = [None] * 4
    def body(d, x):
        out[d] = collect(*queue_square(d, x))
    ts = [threading.Thread(target=body, args=(d, x)) for d, x in zip(DEVICES, chunks)]
    for t in ts:
        t.start()
    for t in ts:
        t.join()
    return out
""",
        "missing_synchronize": """
def solution(chunks):
    out = []
    for d, x in zip(DEVICES, chunks):
        acl.rt.set_device(d)
        stream, _ = acl.rt.create_stream()
        host, _ = acl.rt.malloc_host(NBYTES)
        dev, _ = acl.rt.malloc(NBYTES, acl.ACL_MEM_MALLOC_HUGE_FIRST)
        acl.util.ptr_to_numpy(host, (N,), np.float32)[:] = x
        acl.rt.memcpy_async(dev, NBYTES, host, NBYTES, H2D, stream)
        square[8, stream](dev, N)
        acl.rt.memcpy_async(host, NBYTES, dev, NBYTES, D2H, stream)
        out.append(acl.util.ptr_to_numpy(host, (N,), np.float32).copy())
    return out
""",
    },
    "06.2": {
        "threads_started_but_work_on_one_thread": _DEVICE_WORK
        + """
def solution(chunks):
    def body(d):
        acl.rt.set_device(d)
    ts = [threading.Thread(target=body, args=(d,)) for d in DEVICES]
    for t in ts:
        t.start()
    for t in ts:
        t.join()
    work = [queue_square(d, x) for d, x in zip(DEVICES, chunks)]
    return [collect(*w) for w in work]
""",
        "set_device_not_in_the_thread": """
def solution(chunks):
    out = [None] * 4
    def body(d, x):                          # the main thread set the device, not this one
        stream, _ = acl.rt.create_stream()
        host, _ = acl.rt.malloc_host(NBYTES)
        dev, _ = acl.rt.malloc(NBYTES, acl.ACL_MEM_MALLOC_HUGE_FIRST)
        acl.util.ptr_to_numpy(host, (N,), np.float32)[:] = x
        acl.rt.memcpy_async(dev, NBYTES, host, NBYTES, H2D, stream)
        square[8, stream](dev, N)
        acl.rt.memcpy_async(host, NBYTES, dev, NBYTES, D2H, stream)
        acl.rt.synchronize_stream(stream)
        out[d] = acl.util.ptr_to_numpy(host, (N,), np.float32).copy()
    ts = []
    for d, x in zip(DEVICES, chunks):
        acl.rt.set_device(d)
        ts.append(threading.Thread(target=body, args=(d, x)))
    for t in ts:
        t.start()
    for t in ts:
        t.join()
    return out
""",
        "threads_joined_one_by_one": _DEVICE_WORK
        + """
def solution(chunks):
    out = [None] * 4
    def body(d, x):
        out[d] = collect(*queue_square(d, x))
    for d, x in zip(DEVICES, chunks):
        t = threading.Thread(target=body, args=(d, x))
        t.start()
        t.join()
    return out
""",
        "thread_left_running": _DEVICE_WORK
        + """
def solution(chunks):
    out = [None] * 4
    def body(d, x):
        out[d] = collect(*queue_square(d, x))
    ts = [threading.Thread(target=body, args=(d, x)) for d, x in zip(DEVICES, chunks)]
    for t in ts:
        t.start()
    for t in ts[:3]:
        t.join()
    return out
""",
        "host_computed_answer": _DEVICE_WORK
        + """
def solution(chunks):
    def body(d, x):
        collect(*queue_square(d, np.ones(N, np.float32)))                # token device work
    ts = [threading.Thread(target=body, args=(d, x)) for d, x in zip(DEVICES, chunks)]
    for t in ts:
        t.start()
    for t in ts:
        t.join()
    return [x * x for x in chunks]
""",
        "no_device_work": """
def solution(chunks):
    out = [None] * 4
    def body(d, x):
        out[d] = x * x
    ts = [threading.Thread(target=body, args=(d, x)) for d, x in zip(DEVICES, chunks)]
    for t in ts:
        t.start()
    for t in ts:
        t.join()
    return out
""",
        "thread_started_with_missing_arguments": _DEVICE_WORK
        + """
def solution(chunks):
    out = [None] * 4
    def body(d, x):
        out[d] = collect(*queue_square(d, x))
    ts = [threading.Thread(target=body, args=(d,)) for d in DEVICES]
    for t in ts:
        t.start()
    for t in ts:
        t.join()
    return out
""",
        "two_threads_two_devices_each": _DEVICE_WORK
        + """
def solution(chunks):
    out = [None] * 4
    def body(ds):
        work = [queue_square(d, chunks[d]) for d in ds]
        for w in work:
            out[w[0]] = collect(*w)
    ts = [threading.Thread(target=body, args=(ds,)) for ds in ((0, 1), (2, 3))]
    for t in ts:
        t.start()
    for t in ts:
        t.join()
    return out
""",
        "main_thread_drives_device_0": _DEVICE_WORK
        + """
def solution(chunks):
    out = [None] * 4
    def body(d, x):
        out[d] = collect(*queue_square(d, x))
    ts = [threading.Thread(target=body, args=(d, chunks[d])) for d in (1, 2, 3)]
    for t in ts:
        t.start()
    out[0] = collect(*queue_square(0, chunks[0]))
    for t in ts:
        t.join()
    return out
""",
        "acl_init_and_finalize_around_the_threads": _DEVICE_WORK
        + """
def solution(chunks):
    out = [None] * 4
    def body(d, x):
        out[d] = collect(*queue_square(d, x))
    acl.init()                                   # ✘ runtime errors: 100002, hint BOARD_OPENED (the grader's)
    ts = [threading.Thread(target=body, args=(d, x)) for d, x in zip(DEVICES, chunks)]
    for t in ts:
        t.start()
    for t in ts:
        t.join()
    acl.finalize()
    return out
""",
    },
    "06.3": {
        "full_device_block_dim": _DEVICE_WORK
        + """
def solution(chunks):
    out = [None] * 2
    def body(i, x):
        acl.init()
        out[i] = collect(*queue_square(0, x, block_dim=24))
        acl.finalize()
    ps = [sandbox.spawn_process(body, i, x) for i, x in enumerate(chunks)]
    for p in ps:
        p.join()
    return out
""",
        "threads_not_processes": _DEVICE_WORK
        + """
def solution(chunks):
    out = [None] * 2
    def body(i, x):
        out[i] = collect(*queue_square(0, x, block_dim=12))
    ts = [threading.Thread(target=body, args=(i, x)) for i, x in enumerate(chunks)]
    for t in ts:
        t.start()
    for t in ts:
        t.join()
    return out
""",
        "processes_one_after_another": _DEVICE_WORK
        + """
def solution(chunks):
    out = [None] * 2
    def body(i, x):
        acl.init()
        out[i] = collect(*queue_square(0, x, block_dim=12))
        acl.finalize()
    for i, x in enumerate(chunks):
        sandbox.spawn_process(body, i, x).join()
    return out
""",
        "one_process_does_both": _DEVICE_WORK
        + """
def solution(chunks):
    out = [None] * 2
    def body():
        acl.init()
        work = [queue_square(0, x, block_dim=12) for x in chunks]
        for i, w in enumerate(work):
            out[i] = collect(*w)
        acl.finalize()
    sandbox.spawn_process(body).join()
    return out
""",
        "host_computed_answer": _DEVICE_WORK
        + """
def solution(chunks):
    def body(x):
        acl.init()
        collect(*queue_square(0, x[::-1].copy(), block_dim=12))         # token device work
        acl.finalize()
    ps = [sandbox.spawn_process(body, x) for x in chunks]
    for p in ps:
        p.join()
    return [x * x for x in chunks]
""",
        "no_device_work": """
def solution(chunks):
    return [x * x for x in chunks]
""",
        "process_raises": _DEVICE_WORK
        + """
def solution(chunks):
    out = [None] * 2
    def body(i, x):
        acl.init()
        out[i] = collect(*queue_square(0, x, block_dim=12))
        acl.finalize()
    ps = [sandbox.spawn_process(body, x) for x in chunks]      # i forgotten
    for p in ps:
        p.join()
    return out
""",
        "one_process_squares_both_the_other_idles": _DEVICE_WORK
        + """
def solution(chunks):
    out = [None] * 2
    def both():
        acl.init()
        work = [queue_square(0, x, block_dim=6) for x in chunks]
        for i, w in enumerate(work):
            out[i] = collect(*w)
        acl.finalize()
    def token():
        acl.init()
        collect(*queue_square(0, np.zeros(N, np.float32), block_dim=6))
        acl.finalize()
    ps = [sandbox.spawn_process(both), sandbox.spawn_process(token)]
    for p in ps:
        p.join()
    return out
""",
        "process_not_joined": _DEVICE_WORK
        + """
def solution(chunks):
    out = [None] * 2
    def body(i, x):
        acl.init()
        out[i] = collect(*queue_square(0, x, block_dim=12))
        acl.finalize()
    ps = [sandbox.spawn_process(body, i, x) for i, x in enumerate(chunks)]
    ps[0].join()
    return out
""",
    },
}

VARIANTS = {
    "06.1": {
        "poll_each_device_with_stream_query": _DEVICE_WORK
        + """
def solution(chunks):
    work = [queue_square(d, x) for d, x in zip(DEVICES, chunks)]
    out = []
    for d, stream, host, dev in work:
        acl.rt.set_device(d)
        while acl.rt.stream_query(stream)[0] != acl.ACL_STREAM_STATUS_COMPLETE:
            sandbox.host_work(1_000_000, "other host work")
        out.append(acl.util.ptr_to_numpy(host, (N,), np.float32).copy())
    return out
""",
        "default_stream_and_synchronize_device": """
def solution(chunks):
    bufs = []
    for d, x in zip(DEVICES, chunks):
        acl.rt.set_device(d)
        host, _ = acl.rt.malloc_host(NBYTES)
        dev, _ = acl.rt.malloc(NBYTES, acl.ACL_MEM_MALLOC_HUGE_FIRST)
        acl.util.ptr_to_numpy(host, (N,), np.float32)[:] = x
        acl.rt.memcpy_async(dev, NBYTES, host, NBYTES, H2D, 0)
        square[24, 0](dev, N)
        acl.rt.memcpy_async(host, NBYTES, dev, NBYTES, D2H, 0)
        bufs.append(host)
    out = []
    for d, host in zip(DEVICES, bufs):
        acl.rt.set_device(d)
        acl.rt.synchronize_device()
        out.append(acl.util.ptr_to_numpy(host, (N,), np.float32).copy())
    return out
""",
        "devices_in_reverse_order_one_carved_host_buffer": """
def solution(chunks):
    acl.rt.set_device(0)
    host, _ = acl.rt.malloc_host(4 * NBYTES)
    view = acl.util.ptr_to_numpy(host, (4, N), np.float32)
    streams = {}
    for d in reversed(DEVICES):
        acl.rt.set_device(d)
        s, _ = acl.rt.create_stream()
        dev, _ = acl.rt.malloc(NBYTES, acl.ACL_MEM_MALLOC_HUGE_FIRST)
        view[d] = chunks[d]
        acl.rt.memcpy_async(dev, NBYTES, host + d * NBYTES, NBYTES, H2D, s)
        square[8, s](dev, N)
        acl.rt.memcpy_async(host + d * NBYTES, NBYTES, dev, NBYTES, D2H, s)
        streams[d] = s
    for d in DEVICES:
        acl.rt.set_device(d)
        acl.rt.synchronize_stream(streams[d])
    return [view[d].copy() for d in DEVICES]
""",
    },
    "06.2": {
        "thread_subclass_and_acl_util_threads": _DEVICE_WORK
        + """
class DeviceThread(threading.Thread):
    def __init__(self, d, x, out):
        super().__init__(name=f"device {d}")
        self.d, self.x, self.out = d, x, out

    def run(self):
        self.out[self.d] = collect(*queue_square(self.d, self.x))


def solution(chunks):
    out = [None] * 4
    ts = [DeviceThread(d, x, out) for d, x in zip(DEVICES, chunks)]
    for t in ts:
        t.start()
    for t in ts:
        t.join()
    return out
""",
        "thread_pool_of_four": _DEVICE_WORK
        + """
from concurrent.futures import ThreadPoolExecutor


def solution(chunks):
    with ThreadPoolExecutor(max_workers=4) as pool:
        futures = [pool.submit(lambda d, x: collect(*queue_square(d, x)), d, x) for d, x in zip(DEVICES, chunks)]
        return [f.result() for f in futures]
""",
        "acl_util_start_thread": _DEVICE_WORK
        + """
def solution(chunks):
    out = [None] * 4
    def body(args):
        d, x = args
        out[d] = collect(*queue_square(d, x))
    ids = [acl.util.start_thread(body, (d, x))[0] for d, x in zip(DEVICES, chunks)]
    for i in ids:
        acl.util.stop_thread(i)
    return out
""",
        "threads_poll_with_events": """
def solution(chunks):
    out = [None] * 4
    def body(d, x):
        acl.rt.set_device(d)
        stream, _ = acl.rt.create_stream()
        event, _ = acl.rt.create_event()
        host, _ = acl.rt.malloc_host(NBYTES)
        dev, _ = acl.rt.malloc(NBYTES, acl.ACL_MEM_MALLOC_HUGE_FIRST)
        acl.util.ptr_to_numpy(host, (N,), np.float32)[:] = x
        acl.rt.memcpy_async(dev, NBYTES, host, NBYTES, H2D, stream)
        square[1, stream](dev, N)
        acl.rt.memcpy_async(host, NBYTES, dev, NBYTES, D2H, stream)
        acl.rt.record_event(event, stream)
        acl.rt.synchronize_event(event)
        out[d] = acl.util.ptr_to_numpy(host, (N,), np.float32).copy()
    ts = [threading.Thread(target=body, args=(d, x)) for d, x in zip(DEVICES, chunks)]
    for t in reversed(ts):
        t.start()
    for t in ts:
        t.join()
    return out
""",
    },
    "06.3": {
        "one_block_each_and_processes_with_a_thread_inside": _DEVICE_WORK
        + """
def solution(chunks):
    out = [None] * 2
    def body(i, x):
        acl.init()
        def work():
            out[i] = collect(*queue_square(0, x, block_dim=1))
        t = threading.Thread(target=work)
        t.start()
        t.join()
        acl.finalize()
    ps = [sandbox.spawn_process(body, i, x, name=f"proc{i}") for i, x in enumerate(chunks)]
    for p in ps:
        p.join()
    return out
""",
        "default_stream_synchronize_device": """
def solution(chunks):
    out = [None] * 2
    def body(i, x):
        acl.init()
        acl.rt.set_device(0)
        host, _ = acl.rt.malloc_host(NBYTES)
        dev, _ = acl.rt.malloc(NBYTES, acl.ACL_MEM_MALLOC_HUGE_FIRST)
        acl.util.ptr_to_numpy(host, (N,), np.float32)[:] = x
        acl.rt.memcpy_async(dev, NBYTES, host, NBYTES, H2D, 0)
        square[12, 0](dev, N)
        acl.rt.memcpy_async(host, NBYTES, dev, NBYTES, D2H, 0)
        acl.rt.synchronize_device()
        out[i] = acl.util.ptr_to_numpy(host, (N,), np.float32).copy()
    ps = [sandbox.spawn_process(body, i, x) for i, x in enumerate(chunks)]
    for p in reversed(ps):
        p.join()
    return out
""",
    },
}
