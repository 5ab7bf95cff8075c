"""Host threads and processes: deterministic interleaving, parking, deadlock detection (the multi-device patterns of RT-DG 05)."""

from __future__ import annotations

import os
import threading

import pytest

import sandbox
from sandbox import acl
from sandbox.core import trace as T


@sandbox.kernel(ns=200_000, writes=())
def work(x: "uint8*"):
    pass


def _worker(dev, calls, log):
    acl.rt.set_device(dev)
    stream, _ = acl.rt.create_stream()
    buf, _ = acl.rt.malloc(4096, acl.ACL_MEM_MALLOC_HUGE_FIRST)
    for i in range(calls):
        work[1, stream](buf)
        if i % 7 == 0:
            acl.rt.memset_async(buf, 4096, i, 4096, stream)
        log.append((dev, i, sandbox.now()))
    acl.rt.synchronize_stream(stream)
    log.append((dev, "synced", sandbox.now()))
    acl.rt.free(buf)
    acl.rt.destroy_stream(stream)
    acl.rt.reset_device(dev)


def run_threads(n_threads=4, calls=20):
    sandbox.configure()
    acl.init()
    log = []
    threads = [threading.Thread(target=_worker, args=(d % 8, calls, log)) for d in range(n_threads)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    return log, [repr(r) for r in sandbox.trace()]


def test_threads_calling_the_runtime_give_the_same_trace_every_run():
    first = run_threads()
    for _ in range(3):
        assert run_threads() == first


def test_stress_8_threads_on_8_devices_with_thousands_of_calls_is_deterministic_and_finishes():
    first = run_threads(8, 500)
    again = run_threads(8, 500)
    assert first == again
    calls = sum(1 for line in first[1] if line.startswith("ApiCall"))
    assert calls > 4000


def test_each_thread_has_its_own_clock_and_current_device():
    log, _ = run_threads(2, 3)
    devices = {entry[0] for entry in log}
    assert devices == {0, 1}
    syncs = {dev: t for dev, what, t in log if what == "synced"}
    assert syncs[0] != syncs[1]  # device 0 paid the process's first SetDevice


def test_two_threads_keep_two_devices_busy_at_the_same_time():
    run_threads(2, 5)
    spans = {}
    for r in sandbox.trace():
        if isinstance(r, T.TaskSubmitted) and r.kind == "kernel":
            spans[r.task] = [r.device]
        elif isinstance(r, T.TaskStarted) and r.task in spans:
            spans[r.task].append(r.t)
        elif isinstance(r, T.TaskFinished) and r.task in spans:
            spans[r.task].append(r.t)
    dev0 = [(s, e) for d, s, e in spans.values() if d == 0]
    dev1 = [(s, e) for d, s, e in spans.values() if d == 1]
    # both devices are busy; their busy windows overlap once the slow first SetDevice is paid
    assert dev0 and dev1


def test_the_turn_goes_to_the_thread_with_the_smallest_clock():
    sandbox.configure()
    acl.init()
    acl.rt.set_device(0)
    order = []

    def slow():
        acl.rt.synchronize_device()
        for _ in range(3):
            acl.rt.create_stream()  # 50 us each
            order.append("slow")

    def fast():
        for _ in range(6):
            acl.rt.create_event()  # 5 us each
            order.append("fast")

    a, b = threading.Thread(target=slow), threading.Thread(target=fast)
    a.start()
    b.start()
    a.join()
    b.join()
    assert order == ["fast"] * 6 + ["slow"] * 3 or order.index("slow") > 0
    assert order[:2] == ["fast", "fast"]


def test_join_moves_the_callers_clock_to_the_joined_threads_end():
    sandbox.configure()
    acl.init()
    ends = {}

    def worker():
        acl.rt.set_device(1)
        ends["worker"] = sandbox.now()

    t = threading.Thread(target=worker)
    start = sandbox.now()
    t.start()
    t.join()
    assert sandbox.now() == max(start, ends["worker"])


def test_a_thread_blocked_on_work_that_can_never_finish_gets_an_error_not_a_hang():
    sandbox.configure()
    acl.init()
    acl.rt.set_device(0)
    stream, _ = acl.rt.create_stream()
    results = {}

    def subscriber():  # subscribes, then ends without ever processing reports
        acl.rt.set_device(0)
        results["subscribe"] = acl.rt.subscribe_report(threading.get_ident(), stream)

    t = threading.Thread(target=subscriber)
    t.start()
    t.join()
    acl.rt.launch_callback(lambda data: None, [], acl.ACL_CALLBACK_BLOCK, stream)
    ret = acl.rt.synchronize_stream(stream)  # every thread is parked or gone: an error
    assert results["subscribe"] == 0 and ret != 0
    assert "can never finish" in acl.get_recent_err_msg()


def test_two_threads_both_waiting_on_blocked_work_both_get_the_error():
    sandbox.configure()
    acl.init()
    acl.rt.set_device(0)
    stream, _ = acl.rt.create_stream()
    server = threading.Thread(target=lambda: None)
    server.start()
    acl.rt.subscribe_report(server.ident, stream)
    server.join()
    acl.rt.launch_callback(lambda data: None, [], acl.ACL_CALLBACK_BLOCK, stream)
    rets = {}

    def waiter():
        acl.rt.set_device(0)
        rets["worker"] = acl.rt.synchronize_stream(stream)

    w = threading.Thread(target=waiter)
    w.start()
    rets["main"] = acl.rt.synchronize_stream(stream)
    w.join()
    assert rets["main"] != 0 and rets["worker"] != 0


def test_processes_have_their_own_init_and_contexts_but_share_devices():
    sandbox.configure()
    acl.init()
    seen = {}

    def program(name):
        seen[name, "init"] = acl.init()  # its own: not 100002 REPEAT_INITIALIZE after the parent's
        acl.rt.set_device(0)
        seen[name, "ctx"] = acl.rt.get_context()[0]
        stream, _ = acl.rt.create_stream()
        buf, _ = acl.rt.malloc(4096, 0)
        work[24, stream](buf)  # every core of device 0
        acl.rt.synchronize_stream(stream)
        acl.rt.free(buf)
        acl.rt.destroy_stream(stream)
        acl.finalize()

    p1 = sandbox.spawn_process(program, "a")
    p2 = sandbox.spawn_process(program, "b")
    p1.join()
    p2.join()
    assert seen["a", "init"] == seen["b", "init"] == 0
    assert seen["a", "ctx"] != seen["b", "ctx"]
    kernels = [r for r in sandbox.trace() if isinstance(r, T.TaskSubmitted) and r.kind == "kernel"]
    starts = {r.task: r.t for r in sandbox.trace() if isinstance(r, T.TaskStarted)}
    ends = {r.task: r.t for r in sandbox.trace() if isinstance(r, T.TaskFinished)}
    k1, k2 = kernels
    assert starts[k2.task] >= ends[k1.task] or starts[k1.task] >= ends[k2.task]  # they contend for cores
    pids = {r.pid for r in sandbox.trace() if isinstance(r, T.ProcessStarted)}
    assert pids == {1, 2, 3}
    assert not p1.is_alive() and not p2.is_alive()


def test_a_process_ending_releases_its_memory():
    sandbox.configure()
    acl.init()

    def leaky():
        acl.init()
        acl.rt.set_device(0)
        acl.rt.malloc(1 << 30, 0)

    with pytest.warns(sandbox.LeakWarning, match="1 resource at process end"):
        sandbox.spawn_process(leaky).join()
    acl.rt.set_device(0)
    free, total, _ = acl.rt.get_mem_info(acl.ACL_HBM_MEM)
    assert free == total


def test_threads_that_libraries_start_do_not_take_turns():
    import asyncio
    import concurrent.futures

    sandbox.configure()
    acl.init()
    loop = asyncio.new_event_loop()
    runner = threading.Thread(target=loop.run_forever)  # library code: an asyncio loop
    runner.start()
    with concurrent.futures.ThreadPoolExecutor(max_workers=2) as pool:
        assert pool.submit(sum, [1, 2, 3]).result(timeout=10) == 6
    assert asyncio.run_coroutine_threadsafe(asyncio.sleep(0, "done"), loop).result(timeout=10) == "done"
    assert acl.rt.set_device(0) == 0  # the main thread is not held back
    loop.call_soon_threadsafe(loop.stop)
    runner.join(timeout=10)
    assert not runner.is_alive()
    names = {r.name for r in sandbox.trace() if isinstance(r, T.ThreadStarted)}
    assert names == {"main"}


def test_a_learner_file_whose_path_starts_like_the_package_s_is_the_learner_s_own_code():
    """<checkout>/sandbox_demo.py is the program's code, <checkout>/sandbox/x.py the package's: a
    thread of the first takes part in the turn (a prefix of the path without its separator took it
    for the package's, and its threads' first calls waited for the watchdog)."""
    from sandbox.core import python_threads

    def made_in(filename):
        ns = {}
        exec(compile("def f():\n    pass\n", filename, "exec"), ns)
        return ns["f"]

    assert python_threads._own_code(made_in(python_threads._PACKAGE_DIR + "_demo.py"))
    assert not python_threads._own_code(made_in(os.path.join(python_threads._PACKAGE_DIR, "demo.py")))


def test_a_bounded_join_of_a_sandbox_thread_ends_when_its_timeout_does():
    """Thread.join(timeout=...) keeps Python's meaning: the thread may be waiting for the joiner."""
    sandbox.configure()
    acl.init()
    acl.rt.set_device(0)
    go = threading.Event()
    seen = []

    def worker():
        acl.rt.set_device(0)
        go.wait(30)  # without a bounded join this test fails after 30 s instead of hanging
        seen.append(acl.rt.get_device())

    t = threading.Thread(target=worker)
    t.start()
    t.join(timeout=0.05)
    assert t.is_alive()
    t.join(timeout=0)
    assert t.is_alive()
    go.set()
    t.join()
    assert not t.is_alive()
    assert seen == [(0, 0)]
    assert acl.rt.get_device() == (0, 0)
    acl.rt.reset_device(0)
    acl.finalize()


def test_a_call_wakes_only_the_thread_whose_turn_it_is(monkeypatch):
    """The turn passes with one wake-up, not one per waiting thread: with 64 threads, a call costs a
    few evaluations of whose turn it is (waking every thread cost 64, and 1,000 threads did not
    finish in 600 s)."""
    from sandbox.core.host_turns import Scheduler

    evaluations = [0]
    original = Scheduler.turn

    def counted(self):
        evaluations[0] += 1
        return original(self)

    monkeypatch.setattr(Scheduler, "turn", counted)
    log, trace = run_threads(64, 5)
    calls = sum(1 for line in trace if line.startswith("ApiCall"))
    assert len(log) == 64 * 6 and calls > 64 * 5
    assert evaluations[0] / calls < 8
