"""Notebook 03: reference solutions, mistakes that must fail, correct variants that must pass."""

from __future__ import annotations

from . import solutions

SOLUTIONS = solutions("03")


def _order(
    between="    acl.rt.record_event(ev, s1)\n    acl.rt.stream_wait_event(s2, ev)\n",
    before_long="",
    short_stream="s2",
    end="    acl.rt.synchronize_stream(s2)\n    acl.rt.memcpy(acl.util.numpy_to_ptr(x), 4, dev_x, 4, D2H)\n",
):
    """A 03.2 solution with the lines between the launches (and around them) replaceable."""
    return f"""
def solution(x0):
    x = np.array([x0], np.uint32)
    s1, _ = acl.rt.create_stream()
    s2, _ = acl.rt.create_stream()
    dev_x, _ = acl.rt.malloc(4, HUGE)
    acl.rt.memcpy(dev_x, 4, acl.util.numpy_to_ptr(x), 4, H2D)
    ev, _ = acl.rt.create_event()
{before_long}    long_op[1, s1](dev_x)
{between}    short_op[1, {short_stream}](dev_x)
{end}    return x
"""


def _timing(
    wait="    while acl.rt.query_event_status(end)[0] != acl.ACL_EVENT_RECORDED_STATUS_COMPLETE:\n"
    "        other_work()\n",
    result="    ms, _ = acl.rt.event_elapsed_time(start, end)\n    return ms\n",
    records=("    acl.rt.record_event(start, s)\n", "    acl.rt.record_event(end, s)\n"),
    create="    start, _ = acl.rt.create_event()\n    end, _ = acl.rt.create_event()\n",
):
    """A 03.3 solution with its parts replaceable."""
    return f"""
def solution(ns):
    s, _ = acl.rt.create_stream()
{create}{records[0]}    work[1, s](ns)
{records[1]}{wait}{result}"""


MISTAKES = {
    "03.1": {
        "own_work_declared_shorter_one_stream": """
@sandbox.kernel(ns=lambda t: t // 4)             # the notebook's name, a quarter of the declared time
def work(t: int):
    pass


def solution(t):
    s, _ = acl.rt.create_stream()                 # one stream: no side by side, yet as fast by time
    for _ in range(4):
        work[6, s](t)
    acl.rt.synchronize_device()
""",
        "no_device_work": """
def solution(t):
    sandbox.host_work(t, "pretend")
""",
        "one_stream": """
def solution(t):
    s, _ = acl.rt.create_stream()
    for _ in range(4):
        work[6, s](t)
    acl.rt.synchronize_device()
""",
        "two_streams": """
def solution(t):
    streams = [acl.rt.create_stream()[0] for _ in range(2)]
    for i in range(4):
        work[6, streams[i % 2]](t)
    acl.rt.synchronize_device()
""",
        "synchronize_after_each_launch": """
def solution(t):
    streams = [acl.rt.create_stream()[0] for _ in range(4)]
    for s in streams:
        work[6, s](t)
        acl.rt.synchronize_stream(s)
""",
        "every_core_per_kernel": """
def solution(t):
    streams = [acl.rt.create_stream()[0] for _ in range(4)]
    for s in streams:
        work[24, s](t)
    acl.rt.synchronize_device()
""",
        "one_kernel_for_all_four": """
def solution(t):
    s, _ = acl.rt.create_stream()
    work[24, s](t)
    acl.rt.synchronize_device()
""",
        "no_wait_before_return": """
def solution(t):
    streams = [acl.rt.create_stream()[0] for _ in range(4)]
    for s in streams:
        work[6, s](t)
""",
    },
    "03.2": {
        "no_device_work": """
def solution(x0):
    return np.array([(x0 + 1) * 2], np.uint32)
""",
        "host_computed_answer": """
def solution(x0):
    x = np.array([x0], np.uint32)
    s1, _ = acl.rt.create_stream()
    s2, _ = acl.rt.create_stream()
    dev_x, _ = acl.rt.malloc(4, HUGE)
    ev, _ = acl.rt.create_event()
    long_op[1, s1](dev_x)
    acl.rt.record_event(ev, s1)
    acl.rt.stream_wait_event(s2, ev)
    short_op[1, s2](dev_x)
    acl.rt.synchronize_device()
    return np.array([(x0 + 1) * 2], np.uint32)
""",
        "one_stream": _order(
            between="",
            short_stream="s1",
            end="    acl.rt.synchronize_stream(s1)\n    acl.rt.memcpy(acl.util.numpy_to_ptr(x), 4, dev_x, 4, D2H)\n",
        ),
        "host_sleep_instead_of_event": _order(between="    sandbox.host_work(2_500_000, 'wait for long_op')\n"),
        "synchronize_instead_of_event": _order(between="    acl.rt.synchronize_stream(s1)\n"),
        "no_synchronize_racy_read": _order(end="    acl.rt.memcpy(acl.util.numpy_to_ptr(x), 4, dev_x, 4, D2H)\n"),
        "time_line_event_cannot_be_waited_for": """
def solution(x0):
    x = np.array([x0], np.uint32)
    s1, _ = acl.rt.create_stream()
    s2, _ = acl.rt.create_stream()
    dev_x, _ = acl.rt.malloc(4, HUGE)
    acl.rt.memcpy(dev_x, 4, acl.util.numpy_to_ptr(x), 4, H2D)
    ev, _ = acl.rt.create_event_with_flag(acl.ACL_EVENT_TIME_LINE)   # no ACL_EVENT_SYNC: the wait is refused
    long_op[1, s1](dev_x)
    acl.rt.record_event(ev, s1)
    acl.rt.stream_wait_event(s2, ev)
    short_op[1, s2](dev_x)
    acl.rt.synchronize_device()
    acl.rt.memcpy(acl.util.numpy_to_ptr(x), 4, dev_x, 4, D2H)
    return x
""",
        "event_recorded_before_long_op": _order(
            before_long="    acl.rt.record_event(ev, s1)\n", between="    acl.rt.stream_wait_event(s2, ev)\n"
        ),
        "wrong_direction": _order(
            between="",
            before_long="",
            short_stream="s2",
            end="    acl.rt.record_event(ev, s2)\n"
            "    acl.rt.stream_wait_event(s1, ev)\n"
            "    acl.rt.synchronize_device()\n"
            "    acl.rt.memcpy(acl.util.numpy_to_ptr(x), 4, dev_x, 4, D2H)\n",
        ),
    },
    "03.3": {
        "no_query_other_work_long_enough": """
def solution(ns):
    s, _ = acl.rt.create_stream()
    start, _ = acl.rt.create_event()
    end, _ = acl.rt.create_event()
    acl.rt.record_event(start, s)
    work[1, s](ns)
    acl.rt.record_event(end, s)
    for _ in range(ns // 50_000 + 10):             # enough slices to outlast the kernel: timing, not order
        other_work()
    ms, _ = acl.rt.event_elapsed_time(start, end)
    return ms
""",
        "no_device_work": """
def solution(ns):
    return ns / 1e6
""",
        "synchronize_instead_of_polling": _timing(wait="    acl.rt.synchronize_event(end)\n"),
        "host_clock_timing": _timing(
            records=(
                "    t0 = sandbox.now()\n    acl.rt.record_event(start, s)\n",
                "    acl.rt.record_event(end, s)\n",
            ),
            result="    ms, _ = acl.rt.event_elapsed_time(start, end)\n    return (sandbox.now() - t0) / 1e6\n",
        ),
        "nominal_time": _timing(result="    ms, _ = acl.rt.event_elapsed_time(start, end)\n    return ns / 1e6\n"),
        "host_clock_without_events": """
def solution(ns):
    s, _ = acl.rt.create_stream()
    t0 = sandbox.now()
    work[1, s](ns)
    while acl.rt.stream_query(s)[0] != acl.ACL_STREAM_STATUS_COMPLETE:
        other_work()
    return (sandbox.now() - t0) / 1e6
""",
        "elapsed_before_complete": _timing(wait=""),
        "events_not_around_the_kernel": _timing(
            records=("    acl.rt.record_event(start, s)\n    acl.rt.record_event(end, s)\n", "")
        ),
        "busy_polling_without_host_work": _timing(
            wait="    while acl.rt.query_event_status(end)[0] != acl.ACL_EVENT_RECORDED_STATUS_COMPLETE:\n"
            "        pass\n"
        ),
        "microseconds_not_milliseconds": _timing(
            result="    ms, _ = acl.rt.event_elapsed_time(start, end)\n    return ms * 1000\n"
        ),
    },
}

VARIANTS = {
    "03.1": {
        "synchronize_each_stream_at_the_end": """
def solution(t):
    streams = [acl.rt.create_stream()[0] for _ in range(4)]
    for s in streams:
        work[6, s](t)
    for s in streams:
        acl.rt.synchronize_stream(s)
""",
        "poll_each_stream": """
def solution(t):
    streams = [acl.rt.create_stream()[0] for _ in range(4)]
    for s in streams:
        work[6, s](t)
    for s in streams:
        while acl.rt.stream_query(s)[0] != acl.ACL_STREAM_STATUS_COMPLETE:
            sandbox.host_work(20_000, "other host work")
""",
        "events_and_clean_up": """
def solution(t):
    streams = [acl.rt.create_stream()[0] for _ in range(4)]
    events = [acl.rt.create_event()[0] for _ in range(4)]
    for s, e in zip(streams, events):
        work[6, s](t)
        acl.rt.record_event(e, s)
    for e in events:
        acl.rt.synchronize_event(e)
    for s, e in zip(streams, events):
        acl.rt.destroy_event(e)
        acl.rt.destroy_stream(s)
""",
    },
    "03.2": {
        "synchronize_device_and_async_copies": _order(
            end="    acl.rt.synchronize_device()\n    acl.rt.memcpy(acl.util.numpy_to_ptr(x), 4, dev_x, 4, D2H)\n"
        ),
        "copy_back_on_stream_2_then_synchronize": """
def solution(x0):
    hx, _ = acl.rt.malloc_host(4)
    acl.util.ptr_to_numpy(hx, (1,), np.uint32)[:] = x0
    s1, _ = acl.rt.create_stream()
    s2, _ = acl.rt.create_stream()
    dev_x, _ = acl.rt.malloc(4, HUGE)
    ev, _ = acl.rt.create_event()
    acl.rt.memcpy_async(dev_x, 4, hx, 4, H2D, s1)
    long_op[1, s1](dev_x)
    acl.rt.record_event(ev, s1)
    acl.rt.stream_wait_event(s2, ev)
    short_op[1, s2](dev_x)
    acl.rt.memcpy_async(hx, 4, dev_x, 4, D2H, s2)
    acl.rt.synchronize_stream(s2)
    return acl.util.ptr_to_numpy(hx, (1,), np.uint32).copy()
""",
        "sync_event_with_flag": """
def solution(x0):
    x = np.array([x0], np.uint32)
    s1, _ = acl.rt.create_stream()
    s2, _ = acl.rt.create_stream()
    dev_x, _ = acl.rt.malloc(4, HUGE)
    acl.rt.memcpy(dev_x, 4, acl.util.numpy_to_ptr(x), 4, H2D)
    ev, _ = acl.rt.create_event_with_flag(acl.ACL_EVENT_SYNC)
    long_op[1, s1](dev_x)
    acl.rt.record_event(ev, s1)
    acl.rt.stream_wait_event(s2, ev)
    short_op[1, s2](dev_x)
    acl.rt.synchronize_stream(s2)
    acl.rt.memcpy(acl.util.numpy_to_ptr(x), 4, dev_x, 4, D2H)
    return x
""",
        "synchronize_on_an_event_after_short_op": _order(
            end="    done, _ = acl.rt.create_event()\n"
            "    acl.rt.record_event(done, s2)\n"
            "    acl.rt.synchronize_event(done)\n"
            "    acl.rt.memcpy(acl.util.numpy_to_ptr(x), 4, dev_x, 4, D2H)\n"
        ),
    },
    "03.3": {
        "poll_the_stream": _timing(
            wait="    while acl.rt.stream_query(s)[0] != acl.ACL_STREAM_STATUS_COMPLETE:\n        other_work()\n"
        ),
        "timeline_events_and_clean_up": _timing(
            create="    start, _ = acl.rt.create_event_with_flag(acl.ACL_EVENT_TIME_LINE)\n"
            "    end, _ = acl.rt.create_event_with_flag(acl.ACL_EVENT_TIME_LINE)\n",
            result="    ms, ret = acl.rt.event_elapsed_time(start, end)\n"
            "    acl.rt.destroy_event(start)\n"
            "    acl.rt.destroy_event(end)\n"
            "    acl.rt.destroy_stream(s)\n"
            "    return float(ms)\n",
        ),
        "work_first_then_query": _timing(
            wait="    done = False\n"
            "    while not done:\n"
            "        other_work()\n"
            "        done = acl.rt.query_event_status(end)[0] == acl.ACL_EVENT_RECORDED_STATUS_COMPLETE\n"
        ),
    },
}
