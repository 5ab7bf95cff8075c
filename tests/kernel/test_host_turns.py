"""The host-thread scheduler on its own (core/host_turns.py Scheduler): turns by smallest clock,
the horizon, parking and waking, deadlines and deadlocks, join.  Driven on a FakeMachine
(a Simulator and a lock, no acl, no OS threads)."""

from __future__ import annotations

from sandbox.core.engines import Engine

from sim_rig import FakeMachine


def parked(th, done, what="aclrtSynchronizeStream", deadline=None):
    """Put ``th`` in the state Scheduler.park gives it, without blocking this OS thread in wait_turn."""
    th.parked, th.wake_when, th.waiting_for = True, done, what
    th.deadline, th.timed_out, th.wake_error = deadline, False, None
    return th


def copy_until(m, end):
    """A device task that finishes at ``end`` (submitted at 0, while the device is still at 0)."""
    return m.rig.submit(m.rig.stream(), Engine("DMA H2D", 0), at=0, duration=end)


def test_the_turn_goes_to_the_runnable_thread_with_the_smallest_clock():
    """The turn belongs to the runnable thread with the smallest clock."""
    m = FakeMachine()
    m.thread("a", 300)
    b = m.thread("b", 100)
    m.thread("c", 200)
    assert m.scheduler.turn() is b


def test_equal_clocks_give_the_turn_to_the_thread_created_first():
    """Ties of clock go by creation order."""
    m = FakeMachine()
    first = m.thread("first", 100)
    m.thread("second", 100)
    assert m.scheduler.turn() is first


def test_parked_joining_and_finished_threads_never_get_the_turn():
    """Only runnable threads take turns: not parked, not joining (or idle), not finished."""
    m = FakeMachine()
    a, b, c = m.thread("a", 0), m.thread("b", 1), m.thread("c", 2)
    d = m.thread("d", 50)
    parked(a, lambda: False)
    b.joining = True
    c.finished = True
    assert m.scheduler.turn() is d
    d.finished = True
    assert m.scheduler.turn() is None


def test_the_horizon_is_the_smallest_clock_of_the_runnable_threads_or_none():
    """The device may run up to the smallest runnable clock; with nobody runnable there is no horizon."""
    m = FakeMachine()
    a, b = m.thread("a", 700), m.thread("b", 300)
    parked(b, lambda: False)
    assert m.scheduler.horizon() == 700
    a.finished = True
    assert m.scheduler.horizon() is None


def test_advance_runs_device_events_before_the_horizon_and_not_at_it():
    """The device side is simulated only up to (not including) the horizon."""
    m = FakeMachine()
    m.thread("a", 1000)
    at_horizon, before = copy_until(m, 1000), copy_until(m, 999)
    m.scheduler.advance()
    assert before.done and not at_horizon.done


def test_a_parked_thread_does_not_hold_the_device_back():
    """A parked thread's clock is not part of the horizon: the device runs up to the others' clocks."""
    m = FakeMachine()
    waiter, runner = m.thread("waiter", 0), m.thread("runner", 5000)
    task = copy_until(m, 8000)
    parked(waiter, lambda: task.done)
    early, at_horizon = copy_until(m, 3000), copy_until(m, 5000)
    m.scheduler.advance()
    assert early.done and not task.done and waiter.parked and runner.clock == 5000
    assert not at_horizon.done  # an event at the horizon waits, parked threads or not


def test_a_parked_thread_wakes_with_the_device_time_its_condition_came_true():
    """park returns when done() holds at device time t, with the thread's clock set to t."""
    m = FakeMachine()
    th = m.thread("main", 100)
    task = copy_until(m, 4200)
    assert m.scheduler.park(th, lambda: task.done, "aclrtSynchronizeStream", None) is None
    assert (th.parked, th.clock, m.sim.now) == (False, 4200, 4200)


def test_a_woken_thread_never_goes_back_in_time():
    """A thread whose condition came true before its own clock wakes at its own clock (max)."""
    m = FakeMachine()
    waiter, other = m.thread("waiter", 8000), m.thread("other", 1000)
    task = copy_until(m, 5000)
    parked(waiter, lambda: task.done)
    m.scheduler.advance()
    assert waiter.parked  # the device is held at 1000 by the other thread
    other.clock = 10_000
    m.scheduler.advance()
    assert (waiter.parked, waiter.clock) == (False, 8000)


def test_a_thread_that_wakes_lowers_the_horizon_so_later_device_events_wait_for_it():
    """Once a parked thread wakes at t it is runnable at t: nothing after t is simulated before it runs."""
    m = FakeMachine()
    waiter, other = m.thread("waiter", 0), m.thread("other", 10_000)
    first, later = copy_until(m, 2000), copy_until(m, 4000)
    parked(waiter, lambda: first.done)
    m.scheduler.advance()
    assert (waiter.parked, waiter.clock) == (False, 2000)
    assert not later.done and m.sim.now == 2000 and m.scheduler.turn() is waiter
    assert other.clock == 10_000


def test_a_wait_another_thread_s_call_makes_true_wakes_at_that_call_s_time():
    """wake_ready(t): a parked thread whose condition a host call made true (no device event) goes on at t,
    never before its own clock; one whose condition still fails stays parked."""
    m = FakeMachine()
    flag: list = []
    early, late, other = m.thread("early", 100), m.thread("late", 9000), m.thread("other", 0)
    parked(early, lambda: bool(flag))
    parked(late, lambda: bool(flag))
    parked(other, lambda: False)
    m.scheduler.wake_ready(5000)
    assert early.parked and late.parked
    flag.append(1)
    m.scheduler.wake_ready(5000)
    assert (early.parked, early.clock, late.parked, late.clock, other.parked) == (False, 5000, False, 9000, True)


def test_a_deadline_wakes_a_parked_thread_timed_out_at_the_deadline():
    """With a deadline before the condition holds, park returns "timeout" at the deadline."""
    m = FakeMachine()
    th = m.thread("main", 0)
    task = copy_until(m, 9000)
    assert m.scheduler.park(th, lambda: task.done, "aclrtSynchronizeStreamWithTimeout", 3000) == "timeout"
    assert (th.clock, th.timed_out, task.done) == (3000, True, False)


def test_a_wait_that_nothing_can_complete_is_a_deadlock_message_not_a_hang():
    """No runnable thread and no device work left: the parked thread gets a clear error."""
    m = FakeMachine()
    th = m.thread("main", 0)
    outcome = m.scheduler.park(th, lambda: False, "aclrtSynchronizeEvent", None)
    assert "aclrtSynchronizeEvent can never finish" in outcome and not th.parked


def test_every_thread_parked_on_the_impossible_gets_the_deadlock_error():
    """All parked threads are released with the message, each naming what it waited for."""
    m = FakeMachine()
    a, b = m.thread("a", 0), m.thread("b", 0)
    parked(a, lambda: False, "wait A")
    parked(b, lambda: False, "wait B")
    m.scheduler.advance()
    for th in (a, b):
        assert not th.parked and "'a' (wait A), 'b' (wait B)" in th.wake_error


def test_while_a_thread_has_stepped_aside_no_deadline_fires_and_no_deadlock_is_declared():
    """An idle thread (a notebook between cells) may come back with work: time does not run out for the others."""
    m = FakeMachine()
    main, worker = m.thread("main", 0), m.thread("worker", 0)
    m.scheduler.step_aside(main)
    parked(worker, lambda: False, deadline=500)
    m.scheduler.advance()
    assert worker.parked and not worker.timed_out and worker.wake_error is None


def test_coming_back_from_stepping_aside_resumes_at_the_device_time():
    """A thread that stepped aside is not runnable; it comes back at max(its clock, device time)."""
    m = FakeMachine()
    main, worker = m.thread("main", 100), m.thread("worker", 100)
    m.scheduler.step_aside(main)
    assert m.scheduler.turn() is worker
    assert m.sim.now == 100  # the device caught up with the worker
    task = m.rig.submit(m.rig.stream(), Engine("DMA H2D", 0), at=100, duration=6000)
    parked(worker, lambda: task.done)
    m.scheduler.advance()
    m.scheduler.come_back(main)
    assert main.clock == 6100 and not main.idle and not main.joining


def test_join_makes_the_caller_wait_and_moves_its_clock_to_the_childs_end():
    """A joining thread is not runnable; when the child finishes it goes on at the child's end."""
    m = FakeMachine()
    parent, child = m.thread("parent", 100), m.thread("child", 100)
    m.scheduler.join(parent, [child])
    assert parent.joining and m.scheduler.turn() is child
    child.clock = 7000
    m.scheduler.finish(child)
    assert (parent.joining, parent.clock) == (False, 7000) and m.scheduler.turn() is parent


def test_joining_a_finished_child_returns_at_once_at_the_later_of_the_two_clocks():
    """Join of a thread already ended does not park; the clock moves to its end if that is later."""
    m = FakeMachine()
    parent, child = m.thread("parent", 5000), m.thread("child", 0)
    child.clock, child.finished = 9000, True
    m.scheduler.join(parent, [child])
    assert (parent.joining, parent.clock) == (False, 9000)


def test_join_any_goes_on_when_the_first_child_finishes():
    """Waiting for any one of several threads ends with the first to finish."""
    m = FakeMachine()
    parent, slow, fast = m.thread("parent", 0), m.thread("slow", 0), m.thread("fast", 0)
    m.scheduler.join(parent, [slow, fast], any_=True)
    fast.clock = 300
    m.scheduler.finish(fast)
    assert (parent.joining, parent.clock, parent.joins) == (False, 300, [])
    assert not slow.finished


def test_join_all_waits_for_the_last_child():
    """Waiting for all children ends only when the last one finishes, at the latest end seen."""
    m = FakeMachine()
    parent, a, b = m.thread("parent", 0), m.thread("a", 0), m.thread("b", 0)
    m.scheduler.join(parent, [a, b])
    b.clock = 900
    m.scheduler.finish(b)
    assert parent.joining
    a.clock = 400
    m.scheduler.finish(a)
    assert (parent.joining, parent.clock) == (False, 900)


def test_when_no_thread_is_left_to_submit_the_device_runs_all_its_work():
    """With no runnable thread nothing can change the future: the device side runs to its end."""
    m = FakeMachine()
    main = m.thread("main", 0)
    task = copy_until(m, 9000)
    main.clock = 10
    m.scheduler.finish(main)
    assert task.done and m.sim.now == 9000


def test_the_only_thread_is_solo_while_it_may_run_and_no_other_has_come():
    """Scheduler.solo (what every call reads instead of testing the threads): the one thread, while it
    is neither parked, nor joining, nor set aside, nor finished, and only until a second thread comes."""
    m = FakeMachine()
    s = m.scheduler
    main = m.thread("main", 0)
    assert s.solo is main
    task = copy_until(m, 500)
    seen = []
    assert s.park(main, lambda: seen.append(s.solo) or task.done, "aclrtSynchronizeStream", None) is None
    assert seen[0] is None and s.solo is main and main.clock == 500  # parked: not solo; woken: solo again
    s.step_aside(main)
    assert s.solo is None
    s.come_back(main)
    assert s.solo is main
    worker = m.thread("worker", 0)
    assert s.solo is None
    s.join(main, [worker])
    s.finish(worker)
    assert not main.joining and s.solo is None  # two threads, even with one of them finished
    s.finish(main)
    assert s.solo is None
