"""Notebook 05: reference solutions, mistakes that must fail, correct variants that must pass."""

from __future__ import annotations

from . import solutions

SOLUTIONS = solutions("05")

# A broadcast's set-up, shared by several cases: device 0's buffer holds data; dsts[d] on device d.
_BROADCAST_SETUP = """
def setup(data, targets=(1, 2, 3)):
    dsts = {}
    for d in targets:
        acl.rt.set_device(d)
        dsts[d], _ = acl.rt.malloc(N, P2P)
    acl.rt.set_device(0)
    src, _ = acl.rt.malloc(N, P2P)
    acl.rt.memcpy(src, N, acl.util.numpy_to_ptr(data), N, H2D)
    return src, dsts
"""

# An exchange's set-up: mine[d] holds a (d = 0) or b (d = 1), theirs[d] is empty.
_EXCHANGE_SETUP = """
def setup(a, b, enable=(0, 1)):
    mine, theirs, streams = {}, {}, {}
    for d, x in ((0, a), (1, b)):
        acl.rt.set_device(d)
        mine[d], _ = acl.rt.malloc(N, P2P)
        theirs[d], _ = acl.rt.malloc(N, P2P)
        acl.rt.memcpy(mine[d], N, acl.util.numpy_to_ptr(x), N, H2D)
        if d in enable:
            acl.rt.device_enable_peer_access(1 - d, 0)
        streams[d], _ = acl.rt.create_stream()
    return mine, theirs, streams
"""

MISTAKES = {
    "05.1": {
        "calls_acl_init_itself": """
def solution():
    acl.init()                                   # ✘ runtime errors: 100002, hint BOARD_OPENED (the grader's)
    acl.rt.set_device(0)
    s0, _ = acl.rt.create_stream()
    e0, _ = acl.rt.create_event()
    b0, _ = acl.rt.malloc(4096, acl.ACL_MEM_MALLOC_HUGE_FIRST)
    work[8, s0](b0)
    acl.rt.record_event(e0, s0)
    acl.rt.set_device(1)
    s1, _ = acl.rt.create_stream()
    b1, _ = acl.rt.malloc(4096, acl.ACL_MEM_MALLOC_HUGE_FIRST)
    acl.rt.synchronize_event(e0)
    work[8, s1](b1)
    acl.rt.synchronize_stream(s1)
""",
        "stream_waits_for_another_devices_event": """
def solution():
    acl.rt.set_device(0)
    s0, _ = acl.rt.create_stream()
    e0, _ = acl.rt.create_event()
    b0, _ = acl.rt.malloc(4096, acl.ACL_MEM_MALLOC_HUGE_FIRST)
    work[8, s0](b0)
    acl.rt.record_event(e0, s0)
    acl.rt.set_device(1)
    s1, _ = acl.rt.create_stream()
    b1, _ = acl.rt.malloc(4096, acl.ACL_MEM_MALLOC_HUGE_FIRST)
    acl.rt.stream_wait_event(s1, e0)             # 107003: the event is on device 0
    work[8, s1](b1)
    acl.rt.synchronize_stream(s1)
""",
        "synchronize_an_event_recorded_before_the_kernel": """
def solution():
    acl.rt.set_device(0)
    s0, _ = acl.rt.create_stream()
    e0, _ = acl.rt.create_event()
    b0, _ = acl.rt.malloc(4096, acl.ACL_MEM_MALLOC_HUGE_FIRST)
    acl.rt.record_event(e0, s0)                   # before the kernel: waiting for it covers nothing
    work[8, s0](b0)
    acl.rt.set_device(1)                          # ... but opening device 1 makes the wait late enough
    acl.rt.synchronize_event(e0)
    s1, _ = acl.rt.create_stream()
    b1, _ = acl.rt.malloc(4096, acl.ACL_MEM_MALLOC_HUGE_FIRST)
    work[8, s1](b1)
    acl.rt.synchronize_device()
    acl.rt.set_device(0)
    acl.rt.synchronize_device()
""",
        "no_wait_devices_opened_first": """
def solution():
    bufs, streams = {}, {}
    for d in (1, 0):
        acl.rt.set_device(d)
        streams[d], _ = acl.rt.create_stream()
        bufs[d], _ = acl.rt.malloc(4096, acl.ACL_MEM_MALLOC_HUGE_FIRST)
    work[8, streams[0]](bufs[0])
    acl.rt.set_device(1)
    work[8, streams[1]](bufs[1])
    acl.rt.synchronize_device()
""",
        "no_wait_but_a_slow_set_device": """
def solution():
    acl.rt.set_device(0)
    s0, _ = acl.rt.create_stream()
    b0, _ = acl.rt.malloc(4096, acl.ACL_MEM_MALLOC_HUGE_FIRST)
    work[8, s0](b0)
    acl.rt.set_device(1)                          # opening device 1 takes 20 ms: luck, not order
    s1, _ = acl.rt.create_stream()
    b1, _ = acl.rt.malloc(4096, acl.ACL_MEM_MALLOC_HUGE_FIRST)
    work[8, s1](b1)
    acl.rt.synchronize_stream(s1)
""",
        "fixed_delay_instead_of_a_wait": """
def solution():
    bufs, streams = {}, {}
    for d in (1, 0):
        acl.rt.set_device(d)
        streams[d], _ = acl.rt.create_stream()
        bufs[d], _ = acl.rt.malloc(4096, acl.ACL_MEM_MALLOC_HUGE_FIRST)
    work[8, streams[0]](bufs[0])
    sandbox.host_work(6_000_000, "wait long enough")
    acl.rt.set_device(1)
    work[8, streams[1]](bufs[1])
    acl.rt.synchronize_stream(streams[1])
""",
        "waits_on_device_1s_idle_stream": """
def solution():
    bufs, streams = {}, {}
    for d in (1, 0):
        acl.rt.set_device(d)
        streams[d], _ = acl.rt.create_stream()
        bufs[d], _ = acl.rt.malloc(4096, acl.ACL_MEM_MALLOC_HUGE_FIRST)
    work[8, streams[0]](bufs[0])
    acl.rt.set_device(1)
    acl.rt.synchronize_stream(streams[1])         # nothing queued there yet
    work[8, streams[1]](bufs[1])
    acl.rt.synchronize_stream(streams[1])
""",
        "both_on_device_0": """
def solution():
    acl.rt.set_device(0)
    s0, _ = acl.rt.create_stream()
    b0, _ = acl.rt.malloc(4096, acl.ACL_MEM_MALLOC_HUGE_FIRST)
    work[8, s0](b0)
    acl.rt.synchronize_stream(s0)
    work[8, s0](b0)
    acl.rt.synchronize_stream(s0)
""",
        "no_device_work": """
def solution():
    acl.rt.set_device(0)
    acl.rt.set_device(1)
""",
    },
    "05.2": {
        "gather_into_device_0": """
def solution(data):
    srcs, streams = {}, {}
    acl.rt.set_device(0)
    dst0, _ = acl.rt.malloc(N, P2P)
    for d in (1, 2, 3):
        acl.rt.set_device(d)
        srcs[d], _ = acl.rt.malloc(N, P2P)
        acl.rt.memcpy(srcs[d], N, acl.util.numpy_to_ptr(data), N, H2D)
        acl.rt.device_enable_peer_access(0, 0)       # d -> 0
        streams[d], _ = acl.rt.create_stream()
    for d in (1, 2, 3):
        acl.rt.set_device(d)
        acl.rt.memcpy_async(dst0, N, srcs[d], N, D2D, streams[d])
    for d in (1, 2, 3):
        acl.rt.set_device(d)
        acl.rt.synchronize_stream(streams[d])
    return {0: dst0, **srcs}
""",
        "upload_to_every_device_from_the_host": """
def solution(data):
    out = {}
    for d in (0, 1, 2, 3):
        acl.rt.set_device(d)
        out[d], _ = acl.rt.malloc(N, P2P)
        acl.rt.memcpy(out[d], N, acl.util.numpy_to_ptr(data), N, H2D)
    return out
""",
        "one_stream_for_all_three": _BROADCAST_SETUP
        + """
def solution(data):
    src, dsts = setup(data)
    s, _ = acl.rt.create_stream()
    for d in dsts:
        acl.rt.device_enable_peer_access(d, 0)
        acl.rt.memcpy_async(dsts[d], N, src, N, D2D, s)
    acl.rt.synchronize_stream(s)
    return {0: src, **dsts}
""",
        "synchronize_after_each_copy": _BROADCAST_SETUP
        + """
def solution(data):
    src, dsts = setup(data)
    for d in dsts:
        acl.rt.device_enable_peer_access(d, 0)
        s, _ = acl.rt.create_stream()
        acl.rt.memcpy_async(dsts[d], N, src, N, D2D, s)
        acl.rt.synchronize_stream(s)
    return {0: src, **dsts}
""",
        "chain_0_to_1_to_2_to_3": _BROADCAST_SETUP
        + """
def solution(data):
    src, dsts = setup(data)
    order = [(0, src), (1, dsts[1]), (2, dsts[2]), (3, dsts[3])]
    for (a, pa), (b, pb) in zip(order, order[1:]):
        acl.rt.set_device(a)
        acl.rt.device_enable_peer_access(b, 0)
        s, _ = acl.rt.create_stream()
        acl.rt.memcpy_async(pb, N, pa, N, D2D, s)
        acl.rt.synchronize_stream(s)
    return {0: src, **dsts}
""",
        "wrong_destinations": _BROADCAST_SETUP
        + """
def solution(data):
    src, dsts = setup(data, targets=(4, 5, 6))
    streams = {}
    for d in dsts:
        acl.rt.device_enable_peer_access(d, 0)
        streams[d], _ = acl.rt.create_stream()
    for d in dsts:
        acl.rt.memcpy_async(dsts[d], N, src, N, D2D, streams[d])
    acl.rt.synchronize_device()
    return {0: src, 1: dsts[4], 2: dsts[5], 3: dsts[6]}
""",
        "no_peer_access": _BROADCAST_SETUP
        + """
def solution(data):
    src, dsts = setup(data)
    streams = {d: acl.rt.create_stream()[0] for d in dsts}
    for d in dsts:
        acl.rt.memcpy_async(dsts[d], N, src, N, D2D, streams[d])
    acl.rt.synchronize_device()
    return {0: src, **dsts}
""",
        "through_the_host": _BROADCAST_SETUP
        + """
def solution(data):
    src, dsts = setup(data)
    staging = np.zeros(N, np.uint8)
    acl.rt.memcpy(acl.util.numpy_to_ptr(staging), N, src, N, acl.ACL_MEMCPY_DEVICE_TO_HOST)
    for d in dsts:
        acl.rt.set_device(d)
        acl.rt.memcpy(dsts[d], N, acl.util.numpy_to_ptr(staging), N, H2D)
    return {0: src, **dsts}
""",
        "missing_synchronize": _BROADCAST_SETUP
        + """
def solution(data):
    src, dsts = setup(data)
    streams = {}
    for d in dsts:
        acl.rt.device_enable_peer_access(d, 0)
        streams[d], _ = acl.rt.create_stream()
    for d in dsts:
        acl.rt.memcpy_async(dsts[d], N, src, N, D2D, streams[d])
    return {0: src, **dsts}
""",
    },
    "05.3": {
        "only_one_direction_enabled": _EXCHANGE_SETUP
        + """
def solution(a, b):
    mine, theirs, streams = setup(a, b, enable=(0,))
    for d in (0, 1):
        acl.rt.set_device(d)
        acl.rt.memcpy_async(theirs[1 - d], N, mine[d], N, D2D, streams[d])
    for d in (0, 1):
        acl.rt.set_device(d)
        acl.rt.synchronize_stream(streams[d])
    return {0: theirs[0], 1: theirs[1]}
""",
        "in_place_at_once_race": _EXCHANGE_SETUP
        + """
def solution(a, b):
    mine, theirs, streams = setup(a, b)
    for d in (0, 1):
        acl.rt.set_device(d)
        acl.rt.memcpy_async(mine[1 - d], N, mine[d], N, D2D, streams[d])
    for d in (0, 1):
        acl.rt.set_device(d)
        acl.rt.synchronize_stream(streams[d])
    return {0: mine[0], 1: mine[1]}
""",
        "in_place_one_after_the_other": _EXCHANGE_SETUP
        + """
def solution(a, b):
    mine, theirs, streams = setup(a, b)
    for d in (0, 1):
        acl.rt.set_device(d)
        acl.rt.memcpy_async(mine[1 - d], N, mine[d], N, D2D, streams[d])
        acl.rt.synchronize_stream(streams[d])
    return {0: mine[0], 1: mine[1]}
""",
        "both_copies_on_one_stream": _EXCHANGE_SETUP
        + """
def solution(a, b):
    mine, theirs, streams = setup(a, b)
    acl.rt.set_device(0)
    for d in (0, 1):
        acl.rt.memcpy_async(theirs[1 - d], N, mine[d], N, D2D, streams[0])
    acl.rt.synchronize_stream(streams[0])
    return {0: theirs[0], 1: theirs[1]}
""",
        "through_the_host": _EXCHANGE_SETUP
        + """
def solution(a, b):
    mine, theirs, streams = setup(a, b)
    for d in (0, 1):
        acl.rt.set_device(d)
        staging = np.zeros(N, np.uint8)
        acl.rt.memcpy(acl.util.numpy_to_ptr(staging), N, mine[d], N, acl.ACL_MEMCPY_DEVICE_TO_HOST)
        acl.rt.set_device(1 - d)
        acl.rt.memcpy(theirs[1 - d], N, acl.util.numpy_to_ptr(staging), N, H2D)
    return {0: theirs[0], 1: theirs[1]}
""",
        "swapped_on_the_host": """
def solution(a, b):
    out = {}
    for d, x in ((0, b), (1, a)):
        acl.rt.set_device(d)
        out[d], _ = acl.rt.malloc(N, P2P)
        acl.rt.memcpy(out[d], N, acl.util.numpy_to_ptr(x), N, H2D)
    return out
""",
        "missing_synchronize": _EXCHANGE_SETUP
        + """
def solution(a, b):
    mine, theirs, streams = setup(a, b)
    for d in (0, 1):
        acl.rt.set_device(d)
        acl.rt.memcpy_async(theirs[1 - d], N, mine[d], N, D2D, streams[d])
    return {0: theirs[0], 1: theirs[1]}
""",
    },
}

VARIANTS = {
    "05.1": {
        "synchronize_device_0s_stream": """
def solution():
    acl.rt.set_device(0)
    s0, _ = acl.rt.create_stream()
    b0, _ = acl.rt.malloc(4096, acl.ACL_MEM_MALLOC_HUGE_FIRST)
    work[8, s0](b0)
    acl.rt.synchronize_stream(s0)
    acl.rt.set_device(1)
    s1, _ = acl.rt.create_stream()
    b1, _ = acl.rt.malloc(4096, acl.ACL_MEM_MALLOC_HUGE_FIRST)
    work[8, s1](b1)
    acl.rt.synchronize_stream(s1)
""",
        "poll_the_event_from_device_1": """
def solution():
    bufs, streams = {}, {}
    for d in (1, 0):
        acl.rt.set_device(d)
        streams[d], _ = acl.rt.create_stream()
        bufs[d], _ = acl.rt.malloc(4096, acl.ACL_MEM_MALLOC_HUGE_FIRST)
    e0, _ = acl.rt.create_event()
    work[8, streams[0]](bufs[0])
    acl.rt.record_event(e0, streams[0])
    acl.rt.set_device(1)
    while acl.rt.query_event_status(e0)[0] != acl.ACL_EVENT_RECORDED_STATUS_COMPLETE:
        sandbox.host_work(200_000, "other host work")
    work[8, streams[1]](bufs[1])
    acl.rt.synchronize_device()
""",
        "device_1_in_a_thread_of_its_own": """
def solution():
    acl.rt.set_device(0)
    s0, _ = acl.rt.create_stream()
    e0, _ = acl.rt.create_event()
    b0, _ = acl.rt.malloc(4096, acl.ACL_MEM_MALLOC_HUGE_FIRST)

    def second():
        acl.rt.set_device(1)
        s1, _ = acl.rt.create_stream()
        b1, _ = acl.rt.malloc(4096, acl.ACL_MEM_MALLOC_HUGE_FIRST)
        acl.rt.synchronize_event(e0)
        work[8, s1](b1)
        acl.rt.synchronize_stream(s1)

    work[8, s0](b0)
    acl.rt.record_event(e0, s0)
    t = threading.Thread(target=second)
    t.start()
    t.join()
""",
    },
    "05.2": {
        "copies_on_streams_of_the_targets": _BROADCAST_SETUP
        + """
def solution(data):
    src, dsts = setup(data)
    for d in dsts:
        acl.rt.device_enable_peer_access(d, 0)
    streams = {}
    for d in dsts:
        acl.rt.set_device(d)
        streams[d], _ = acl.rt.create_stream()
        acl.rt.memcpy_async(dsts[d], N, src, N, D2D, streams[d])
    for d in dsts:
        acl.rt.set_device(d)
        acl.rt.synchronize_stream(streams[d])
    return {0: src, **dsts}
""",
        "two_halves_per_target_polled": _BROADCAST_SETUP
        + """
def solution(data):
    src, dsts = setup(data)
    streams = {}
    for d in dsts:
        acl.rt.device_enable_peer_access(d, 0)
        streams[d], _ = acl.rt.create_stream()
    half = N // 2
    for d in dsts:
        for k in range(2):
            acl.rt.memcpy_async(dsts[d] + k * half, half, src + k * half, half, D2D, streams[d])
    for d in dsts:
        while acl.rt.stream_query(streams[d])[0] != acl.ACL_STREAM_STATUS_COMPLETE:
            sandbox.host_work(100_000, "other host work")
    return {0: src, **dsts}
""",
        "blocking_copies_in_three_threads": _BROADCAST_SETUP
        + """
def solution(data):
    src, dsts = setup(data)
    for d in dsts:
        acl.rt.device_enable_peer_access(d, 0)

    def copy(d):
        acl.rt.set_device(d)                      # the copy goes through device d's own queue
        acl.rt.memcpy(dsts[d], N, src, N, D2D)

    threads = [threading.Thread(target=copy, args=(d,)) for d in dsts]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    return {0: src, **dsts}
""",
    },
    "05.3": {
        "both_streams_on_device_0": _EXCHANGE_SETUP
        + """
def solution(a, b):
    mine, theirs, streams = setup(a, b)
    acl.rt.set_device(0)
    other, _ = acl.rt.create_stream()
    acl.rt.memcpy_async(theirs[1], N, mine[0], N, D2D, streams[0])
    acl.rt.memcpy_async(theirs[0], N, mine[1], N, D2D, other)
    acl.rt.synchronize_device()
    return {0: theirs[0], 1: theirs[1]}
""",
        "a_thread_per_direction": _EXCHANGE_SETUP
        + """
def solution(a, b):
    mine, theirs, streams = setup(a, b)

    def send(d):
        acl.rt.set_device(d)
        acl.rt.memcpy_async(theirs[1 - d], N, mine[d], N, D2D, streams[d])
        acl.rt.synchronize_stream(streams[d])

    threads = [threading.Thread(target=send, args=(d,)) for d in (0, 1)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    return {0: theirs[0], 1: theirs[1]}
""",
        "four_pieces_each_way": _EXCHANGE_SETUP
        + """
def solution(a, b):
    mine, theirs, streams = setup(a, b)
    piece = N // 4
    for d in (0, 1):
        acl.rt.set_device(d)
        for k in range(4):
            acl.rt.memcpy_async(theirs[1 - d] + k * piece, piece, mine[d] + k * piece, piece, D2D, streams[d])
    for d in (0, 1):
        acl.rt.set_device(d)
        acl.rt.synchronize_stream(streams[d])
    return {0: theirs[0], 1: theirs[1]}
""",
    },
}
