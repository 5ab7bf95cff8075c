"""What learners do in Jupyter, as first-class cases: threads from pools and daemons, threads
never joined, code of theirs the runtime runs that blocks or is interrupted, the stop button.

Each test is named after the rule it checks; the programs are the issue's reproductions."""

from __future__ import annotations

import concurrent.futures
import os
import signal
import subprocess
import sys
import textwrap
import threading
import time
import weakref

import pytest

import sandbox
from sandbox import acl
from sandbox.core import python_threads
from sandbox.core import trace as T


@pytest.fixture
def board():
    sandbox.configure()
    acl.init()
    acl.rt.set_device(0)
    s, _ = acl.rt.create_stream()
    return s


def _run(code: str, seed: str = "0", timeout: float = 60) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-c", textwrap.dedent(code)],
        capture_output=True,
        text=True,
        timeout=timeout,
        env={"PYTHONHASHSEED": seed, "PATH": "/usr/bin:/bin"},
    )


# -- determinism --------------------------------------------------------------------------------------
JOIN_PROGRAM = """
    import hashlib, threading
    import sandbox
    from sandbox import acl
    acl.init(); acl.rt.set_device(0)
    def short():
        acl.rt.set_device(0)
        s, _ = acl.rt.create_stream()
        acl.rt.destroy_stream(s)
    def long():
        acl.rt.set_device(0)
        s, _ = acl.rt.create_stream()
        d, _ = acl.rt.malloc(1 << 20, 0)
        h, _ = acl.rt.malloc_host(1 << 20)
        for _ in range(300):
            acl.rt.memcpy_async(d, 1 << 20, h, 1 << 20, 1, s)
        acl.rt.synchronize_stream(s)
    a, b = threading.Thread(target=short), threading.Thread(target=long)
    a.start(); b.start()
    a.join()
    s, _ = acl.rt.create_stream()
    d, _ = acl.rt.malloc(1 << 20, 0)
    h, _ = acl.rt.malloc_host(1 << 20)
    for _ in range(17):
        acl.rt.memcpy_async(d, 1 << 20, h, 1 << 20, 1, s)
    b.join()
    acl.rt.synchronize_device()
    import os, tempfile
    path = os.path.join(tempfile.mkdtemp(), "trace.json")
    sandbox.export_trace(path)
    print(hashlib.sha256(open(path, "rb").read()).hexdigest())
"""


def test_join_lets_no_thread_run_ahead_of_the_joiner():
    """The joiner is runnable again, at the joined thread's end, the moment that thread ends:
    the exported trace is the same in every fresh process, whatever the hash seed."""
    outs = {_run(JOIN_PROGRAM, seed).stdout for seed in ("1", "2", "3", "4", "5", "6")}
    assert len(outs) == 1 and len(next(iter(outs))) == 65, outs


# -- threads not started the program's usual way ---------------------------------------------------------
def _work(device):
    assert acl.rt.set_device(0) == 0
    s, ret = acl.rt.create_stream()
    assert ret == 0
    return acl.rt.synchronize_stream(s)


def test_thread_pool_tasks_take_part_in_the_turn_from_their_submit(board):
    with concurrent.futures.ThreadPoolExecutor(max_workers=2) as ex:
        assert list(ex.map(_work, [0, 1])) == [0, 0]  # (a task left out of the turn would get 107019)
    assert acl.rt.get_device() == (0, 0)  # main's next call works at once
    names = [r.name for r in sandbox.trace() if isinstance(r, T.ThreadStarted)]
    assert names.count("pool task (_work)") == 2


def test_futures_waited_for_in_every_way_come_back_promptly(board):
    with concurrent.futures.ThreadPoolExecutor(max_workers=3) as ex:
        fs = [ex.submit(_work, d) for d in range(3)]
        done, _ = concurrent.futures.wait(fs)
        assert len(done) == 3 and all(f.result() == 0 for f in fs)
        more = [ex.submit(_work, d) for d in range(3)]
        assert sorted(f.result() for f in concurrent.futures.as_completed(more)) == [0, 0, 0]
        assert ex.submit(_work, 0).exception() is None


def test_a_daemon_thread_of_the_program_takes_part_from_its_start(board):
    out = []
    t = threading.Thread(target=lambda: out.append(_work(0)), daemon=True)
    t.start()
    t.join()
    assert out == [0]
    assert acl.rt.get_device() == (0, 0)


# -- user code the runtime runs -----------------------------------------------------------------------
def test_user_code_that_waits_for_another_host_thread_fails_within_seconds(board):
    ready = threading.Event()

    def on_host(_):
        ready.wait()  # set by the producer thread, which can never run now

    acl.rt.launch_host_func(board, on_host, None)
    producer = threading.Thread(target=lambda: (acl.rt.set_device(0), ready.set()))
    producer.start()
    ret = acl.rt.synchronize_stream(board)
    producer.join()
    runs = [r for r in sandbox.trace() if isinstance(r, T.CallbackRun)]
    assert "waited more than" in runs[0].error and ret in (0,)
    assert acl.rt.synchronize_stream(board) == 0  # the machine goes on


def test_a_kernel_body_that_waits_for_a_producer_thread_fails_its_task_within_seconds(board):
    produced = threading.Event()

    def producer():
        acl.rt.set_device(0)
        for _ in range(5):
            acl.rt.get_device()
        produced.set()

    worker = threading.Thread(target=producer)

    @sandbox.kernel(ns=1000)
    def waits(x: "uint8*"):
        produced.wait()  # the producer needs a turn the kernel's thread holds

    d, _ = acl.rt.malloc(64, 0)
    waits[1, board](d)
    worker.start()
    assert acl.rt.synchronize_stream(board) == acl.ACL_ERROR_RT_AICORE_EXCEPTION
    assert "waited more than" in acl.get_recent_err_msg()
    worker.join()


@pytest.mark.parametrize("make", [threading.Lock, threading.RLock])
def test_a_kernel_body_that_takes_a_lock_the_host_holds_fails_its_task_within_seconds(board, make):
    """A lock the program made, held by the host thread that runs the body: the acquire gives up
    (it hung for good: only Condition waits were bounded); a short bounded acquire is the learner's."""
    lock, tried = make(), []

    @sandbox.kernel(ns=1000, writes=())
    def takes(x: "uint8*"):
        tried.append(lock.acquire(timeout=0.01))  # bounded by the learner: an answer, not an error
        with lock:
            pass

    d, _ = acl.rt.malloc(64, 0)
    holder = threading.Thread(target=lambda: lock.acquire() and None) if make is threading.RLock else None
    if holder is not None:  # an RLock is the holder's own: another thread holds it
        holder.start()
        holder.join()
    else:
        lock.acquire()
    takes[1, board](d)
    assert acl.rt.synchronize_stream(board) == acl.ACL_ERROR_RT_AICORE_EXCEPTION
    assert "threading.Lock's acquire waited more than" in acl.get_recent_err_msg() and tried == [False]
    assert acl.rt.synchronize_stream(board) == 0


def test_locks_that_libraries_make_are_left_as_they_are():
    import queue

    assert type(threading.Lock()).__name__ == "LearnerLock"  # this file is the program's own
    assert type(queue.Queue().mutex) is type(threading._allocate_lock())  # the standard library's


def test_a_kernel_body_that_calls_the_runtime_is_refused_at_once_with_207000(board):
    seen = []

    @sandbox.kernel(ns=1000)
    def calls(x: "uint8*"):
        seen.append(acl.rt.get_device())

    d, _ = acl.rt.malloc(64, 0)
    calls[1, board](d)
    assert acl.rt.synchronize_stream(board) == 0
    assert [ret for _, ret in seen] == [acl.ACL_ERROR_RT_FEATURE_NOT_SUPPORT]


# -- threads never joined -----------------------------------------------------------------------------
def test_a_thread_never_joined_does_not_hang_the_end_of_a_script():
    done = _run(
        """
        import threading
        import sandbox
        from sandbox import acl
        acl.init(); acl.rt.set_device(0)
        def worker():
            acl.rt.set_device(0)
            s, _ = acl.rt.create_stream()
            print("worker:", acl.rt.synchronize_stream(s), flush=True)
        threading.Thread(target=worker).start()
        print("main done", flush=True)
    """,
        timeout=30,
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.split("\n")[:2] == ["main done", "worker: 0"], done.stdout
    assert "107019" not in done.stdout + done.stderr


def test_a_thread_a_cell_leaves_running_runs_to_its_end_before_the_next_cell():
    nbformat = pytest.importorskip("nbformat")
    from nbclient import NotebookClient

    cells = [
        """
import threading
import sandbox
from sandbox import acl
acl.init(); acl.rt.set_device(0)
calls = []
def worker():
    acl.rt.set_device(0)
    s, _ = acl.rt.create_stream()
    for _ in range(20):
        calls.append(acl.rt.synchronize_stream(s))
t = threading.Thread(target=worker)
t.start()
""",
        """
print(len(calls), t.is_alive() is False or len(calls) == 20, acl.rt.get_device())
""",
    ]
    nb = nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell(c) for c in cells])
    NotebookClient(nb, timeout=60, kernel_name="python3").execute()
    assert nb.cells[1].outputs[0]["text"].strip() == "20 True (0, 0)"


# -- interrupts -----------------------------------------------------------------------------------------
def _stop_button():
    """What JupyterLab's stop button does: SIGINT to the kernel's process."""
    os.kill(os.getpid(), signal.SIGINT)


@pytest.mark.parametrize("exc", [KeyboardInterrupt, SystemExit])
def test_an_interrupt_in_a_kernel_body_reaches_the_caller_and_the_machine_stays_usable(board, exc):
    @sandbox.kernel(ns=1000)
    def stopped(x: "uint8*"):
        raise exc()

    d, _ = acl.rt.malloc(64, 0)
    stopped[1, board](d)
    with pytest.raises(exc):
        acl.rt.synchronize_stream(board)
    assert acl.rt.synchronize_stream(board) == acl.ACL_ERROR_RT_AICORE_EXCEPTION  # the task failed cleanly
    assert acl.rt.synchronize_stream(board) == 0


def test_an_interrupt_in_a_block_callback_leaves_its_stream_usable(board):
    from sandbox.core.features.callbacks import state  # noqa: F401  (the feature exists)

    stop = threading.Event()
    errors = []

    def serve():
        while not stop.is_set():
            try:
                acl.rt.process_report(50)
            except SystemExit as e:
                errors.append(e)

    server = threading.Thread(target=serve)
    server.start()
    assert acl.rt.subscribe_report(server.ident, board) == 0

    def leaves(_):
        raise SystemExit(1)

    acl.rt.launch_callback(leaves, None, acl.ACL_CALLBACK_BLOCK, board)
    assert acl.rt.synchronize_stream(board) == 0
    stop.set()
    acl.rt.unsubscribe_report(server.ident, board)
    server.join()
    assert len(errors) == 1
    d, _ = acl.rt.malloc(64, 0)
    assert acl.rt.memset_async(d, 64, 1, 64, board) == 0 and acl.rt.synchronize_stream(board) == 0


def test_the_stop_button_during_a_slow_kernel_body_stops_the_cell(board):
    """The stop interrupts the body itself, not the call after it has finished."""
    stopped_inside = []

    @sandbox.kernel(ns=1000)
    def slow(x: "uint8*"):
        try:
            for _ in range(3000):  # 30 s of real work, unless the stop button ends it
                time.sleep(0.01)
        except KeyboardInterrupt:
            stopped_inside.append(True)
            raise

    d, _ = acl.rt.malloc(64, 0)
    slow[1, board](d)
    threading.Timer(0.3, _stop_button).start()
    with pytest.raises(KeyboardInterrupt):
        acl.rt.synchronize_stream(board)
    assert stopped_inside == [True]
    assert acl.rt.synchronize_stream(board) == acl.ACL_ERROR_RT_AICORE_EXCEPTION
    assert acl.rt.get_device() == (0, 0)
    sandbox.configure()
    assert acl.init() == 0


def test_the_stop_button_reaches_a_main_thread_in_join_while_the_worker_still_runs(board):
    release, woke = threading.Event(), []

    def slow_worker():
        # busy with work of its own, holding no runtime call, until released (False: 30 s passed)
        woke.append(release.wait(30))

    t = threading.Thread(target=slow_worker)
    t.start()
    threading.Timer(0.3, _stop_button).start()
    with pytest.raises(KeyboardInterrupt):
        t.join()
    assert woke == []  # the stop came through while the worker still waited (is_alive() cannot say:
    # an interrupted Thread.join may leave it False in CPython 3.11)
    release.set()
    t.join()
    assert woke == [True] and acl.rt.get_device() == (0, 0)


def test_after_the_stop_button_a_call_does_not_wait_for_a_thread_busy_with_code_of_its_own(board, capfd):
    """Stopped, the main thread's next call answers: the worker, which holds the turn with a wait of
    its own, is set aside after a short bound (the notice says so), and takes part again later."""
    release, woke = threading.Event(), []

    def slow_worker():
        acl.rt.set_device(0)
        woke.append(release.wait(60))
        woke.append(acl.rt.get_device())  # its next call: it takes part again

    t = threading.Thread(target=slow_worker)
    t.start()
    threading.Timer(0.3, _stop_button).start()
    with pytest.raises(KeyboardInterrupt):
        t.join()
    assert sandbox.host_work(10**9) == 0 and woke == []  # past the worker's clock: answered while it waits
    notes = [r.text for r in sandbox.trace().records if isinstance(r, T.Note)]
    assert notes and notes[-1].startswith("not waited for: thread 'worker (slow_worker)'")
    assert "not waited for" in capfd.readouterr().err
    release.set()
    t.join()
    assert woke == [True, (0, 0)]


def test_the_next_cell_does_not_wait_for_a_thread_the_last_one_left_busy_with_code_of_its_own():
    """A cell leaves a thread sleeping (outside the runtime) while it holds the turn; the next cell's
    call answers, with a notice, instead of waiting for the sleep."""
    nbformat = pytest.importorskip("nbformat")
    from nbclient import NotebookClient

    cells = [
        """
import threading
import sandbox
from sandbox import acl
acl.init(); acl.rt.set_device(0)
release, woke = threading.Event(), []
def sleeper():
    acl.rt.set_device(0)
    woke.append(release.wait(60))
    woke.append(acl.rt.get_device())
t = threading.Thread(target=sleeper)
t.start()
""",
        "print(acl.rt.get_device(), woke); release.set(); t.join(); print(woke)",
    ]
    nb = nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell(c) for c in cells])
    NotebookClient(nb, timeout=50, kernel_name="python3").execute()
    out = nb.cells[1].outputs
    assert [o["text"] for o in out if o.get("name") == "stdout"] == ["(0, 0) []\n[True, (0, 0)]\n"]
    assert any("not waited for" in o["text"] for o in out if o.get("name") == "stderr")


REPORT_THREAD = """
import threading, time
import sandbox
from sandbox import acl
acl.init(); acl.rt.set_device(0)
s, _ = acl.rt.create_stream()
stop = threading.Event()
def serve():
    while not stop.is_set():
        acl.rt.process_report(100)
server = threading.Thread(target=serve)
server.start()
acl.rt.subscribe_report(server.ident, s)
"""


def test_a_report_thread_a_cell_leaves_waiting_does_not_run_time_away_between_cells():
    """A thread parked with a timeout, left running by a cell, keeps its place: the idle main
    thread comes back at the same clock, and the next cell's callbacks are served as usual."""
    nbformat = pytest.importorskip("nbformat")
    from nbclient import NotebookClient

    cells = [
        REPORT_THREAD + "before = sandbox.now()\n",
        """
after = sandbox.now()
ran = []
acl.rt.launch_callback(lambda d: ran.append(d), 7, acl.ACL_CALLBACK_BLOCK, s)
print(after - before < 1_000_000, acl.rt.synchronize_stream(s), ran)
stop.set()
acl.rt.unsubscribe_report(server.ident, s)
server.join()
""",
    ]
    nb = nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell(c) for c in cells])
    NotebookClient(nb, timeout=60, kernel_name="python3").execute()
    assert nb.cells[1].outputs[0]["text"].strip() == "True 0 [7]"


def test_an_interrupt_in_a_host_function_reaches_the_caller_and_the_stream_goes_on(board):
    def stopped(_):
        raise KeyboardInterrupt

    acl.rt.launch_host_func(board, stopped, None)
    with pytest.raises(KeyboardInterrupt):
        acl.rt.synchronize_stream(board)
    d, _ = acl.rt.malloc(64, 0)
    assert acl.rt.memset_async(d, 64, 1, 64, board) == 0
    assert acl.rt.synchronize_stream(board) == 0


def _stopping_kernel():
    @sandbox.kernel(ns=1000, writes=())
    def stopped(x: "uint8*"):
        raise KeyboardInterrupt

    return stopped


@pytest.mark.parametrize("caller", ["host_work", "create_stream", "memcpy_async"])
def test_the_stop_button_in_code_a_call_runs_is_raised_by_that_call_even_if_it_does_not_wait(board, caller):
    """The interrupt comes out of the call that ran the code (its record is in the log), not out of
    a later, unrelated wait; the next calls answer as usual."""
    d, _ = acl.rt.malloc(64, 0)
    h, _ = acl.rt.malloc_host(64)
    _stopping_kernel()[1, board](d)
    run = {
        "host_work": lambda: sandbox.host_work(50_000),
        "create_stream": lambda: (sandbox.host_work(50_000), acl.rt.create_stream()),
        "memcpy_async": lambda: acl.rt.memcpy_async(d, 64, h, 64, acl.ACL_MEMCPY_HOST_TO_DEVICE, board),
    }[caller]
    if caller == "memcpy_async":
        sandbox.host_work(500)  # the kernel ends during the copy's own host time
    with pytest.raises(KeyboardInterrupt):
        run()
        run()
    assert acl.rt.synchronize_stream(board) == acl.ACL_ERROR_RT_AICORE_EXCEPTION  # no interrupt left over
    assert acl.rt.synchronize_stream(board) == 0
    assert sandbox.host_work(10) == 0


def test_an_interrupt_pending_for_a_thread_that_ends_is_raised_in_it_and_no_wait_stalls(board):
    """A worker whose kernel body raises SystemExit gets it from the call that ran the body, though
    that call does not wait, and ends; the main thread's next waits answer at once (an interrupt
    left pending stopped every later catch-up of the device: they waited for the 60 s watchdog)."""
    d, _ = acl.rt.malloc(64, 0)
    after = []

    def worker():
        acl.rt.set_device(0)
        s, _ = acl.rt.create_stream()

        @sandbox.kernel(ns=1000, writes=())
        def leaves(x: "uint8*"):
            raise SystemExit

        leaves[1, s](d)
        try:
            sandbox.host_work(50_000)
        except SystemExit:
            after.append("stopped in host_work")

    t = threading.Thread(target=worker)
    t.start()
    t.join()
    assert after == ["stopped in host_work"]
    assert acl.rt.synchronize_device() == acl.ACL_ERROR_RT_AICORE_EXCEPTION  # the kernel's own failure
    assert acl.rt.synchronize_device() == 0
    assert acl.rt.reset_device_force(0) == 0


REPORT_THREAD_WITH_A_SLOW_CALLBACK = (
    REPORT_THREAD
    + """
released, ended = [], []
def slow(_):  # learner code that runs for up to a minute, unless released
    end = time.monotonic() + 60
    while not released and time.monotonic() < end:
        time.sleep(0.01)
    ended.append(bool(released))
acl.rt.launch_callback(slow, None, acl.ACL_CALLBACK_BLOCK, s)
"""
)


def test_the_stop_button_reaches_a_wait_while_another_thread_runs_learner_code():
    """The main thread waits in a synchronize for a BLOCK callback that the report thread runs; the
    stop reaches it while the callback still runs (it came only once the callback had ended)."""
    scope: dict = {}
    exec(REPORT_THREAD_WITH_A_SLOW_CALLBACK, scope)
    acl, s, released, ended = scope["acl"], scope["s"], scope["released"], scope["ended"]

    def stop_button(*_):
        raise KeyboardInterrupt

    previous = signal.signal(signal.SIGALRM, stop_button)
    signal.setitimer(signal.ITIMER_REAL, 0.3)  # (a thread of the test's own would wait for its turn)
    try:
        with pytest.raises(KeyboardInterrupt):
            acl.rt.synchronize_stream(s)
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)
    assert ended == []  # the callback still runs
    released.append(True)
    assert acl.rt.synchronize_stream(s) == 0 and ended == [True]
    scope["stop"].set()
    assert acl.rt.unsubscribe_report(scope["server"].ident, s) == 0
    scope["server"].join()


def test_in_a_real_kernel_the_stop_button_reaches_a_cell_waiting_for_another_thread_s_callback():
    nbformat = pytest.importorskip("nbformat")
    from nbclient import NotebookClient

    cells = [
        REPORT_THREAD_WITH_A_SLOW_CALLBACK,
        "acl.rt.synchronize_stream(s)",
        "print(ended); released.append(True); print(acl.rt.synchronize_stream(s), ended)",
    ]
    nb = nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell(c) for c in cells])
    client = NotebookClient(nb, timeout=20, kernel_name="python3", allow_errors=True, interrupt_on_timeout=True)
    client.on_cell_execute = lambda cell, **_: setattr(client, "timeout", 2 if cell.source == cells[1] else 30)
    client.execute()
    assert [o.get("ename") for o in nb.cells[1].outputs if o["output_type"] == "error"] == ["KeyboardInterrupt"]
    assert nb.cells[2].outputs[0]["text"] == "[]\n0 [True]\n"


def test_in_a_real_kernel_the_cell_whose_call_ran_the_stopped_code_stops_and_the_next_cell_runs():
    """Through a real kernel: the cell ends with the KeyboardInterrupt (it used to end "ok", and the
    next cell died of it instead)."""
    nbformat = pytest.importorskip("nbformat")
    from nbclient import NotebookClient

    cells = [
        """
import sandbox
from sandbox import acl
acl.init(); acl.rt.set_device(0)
s, _ = acl.rt.create_stream()
d, _ = acl.rt.malloc(64, 0)
@sandbox.kernel(ns=1000, writes=())
def stopped(x: "uint8*"):
    raise KeyboardInterrupt
stopped[1, s](d)
sandbox.host_work(50_000)
print("not reached")
""",
        """
print(acl.rt.synchronize_stream(s), acl.rt.synchronize_stream(s))
""",
    ]
    nb = nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell(c) for c in cells])
    NotebookClient(nb, timeout=60, kernel_name="python3", allow_errors=True).execute()
    first, second = nb.cells[0].outputs, nb.cells[1].outputs
    assert [o.get("ename") for o in first if o["output_type"] == "error"] == ["KeyboardInterrupt"]
    assert not any(o.get("text", "").startswith("not reached") for o in first)
    assert [o["output_type"] for o in second] == ["stream"]
    assert second[0]["text"].strip() == "507015 0"


def test_a_stop_that_lands_where_python_drops_exceptions_is_raised_at_the_next_line(monkeypatch):
    """A stop inside a weak reference's callback (or a finalizer the collector runs) would be dropped:
    sandbox's sys.unraisablehook raises it again on the main thread (pytest sets a hook of its own
    around each test, so the test puts the sandbox's back)."""
    monkeypatch.setattr(sys, "unraisablehook", python_threads._keeping_stops(sys.unraisablehook))

    class Freed:
        pass

    def stop_inside_the_callback(_):
        signal.raise_signal(signal.SIGINT)  # the stop button, landing while the callback runs
        for _ in range(1000):  # (its next bytecodes raise it, inside the callback)
            pass

    freed = Freed()
    ref = weakref.ref(freed, stop_inside_the_callback)
    with pytest.raises(KeyboardInterrupt):
        del freed
        for _ in range(3000):  # (a bound: 30 s)
            time.sleep(0.01)
    assert ref() is None


def test_in_a_notebook_kernel_one_press_stops_a_cell_whose_stop_lands_in_a_finalizer():
    """The same rule in a real kernel, whose interrupt is a SIGINT: it lands while a weak reference's
    callback runs (Python would drop it there and the cell would go on), and the cell stops."""
    from jupyter_client.manager import start_new_kernel

    manager, client = start_new_kernel(kernel_name="python3")
    cell = textwrap.dedent("""\
        import sandbox, time, weakref
        class Freed: pass
        def callback(_):
            print("in the callback", flush=True)
            time.sleep(30)  # the stop lands here
        freed = Freed(); ref = weakref.ref(freed, callback)
        del freed
        for _ in range(3000): time.sleep(0.01)
        print("not stopped")
        """)
    seen = []
    try:
        msg_id = client.execute(cell)
        while True:
            msg = client.get_iopub_msg(timeout=60)
            if msg["parent_header"].get("msg_id") != msg_id:
                continue
            if msg["msg_type"] == "stream":
                seen.append(msg["content"]["text"].strip())
                if seen[-1] == "in the callback":
                    manager.interrupt_kernel()  # the stop button
            if msg["msg_type"] == "error":
                seen.append(msg["content"]["ename"])
            if msg["msg_type"] == "status" and msg["content"]["execution_state"] == "idle":
                break
    finally:
        client.stop_channels()
        manager.shutdown_kernel(now=True)
    assert seen[0] == "in the callback" and seen[-1] == "KeyboardInterrupt" and "not stopped" not in seen
