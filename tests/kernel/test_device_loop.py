"""The device-side simulator on its own (core/device_loop.py, core/tasks.py): a Simulator, streams,
tasks and engines, no acl.  Each test is one small scenario: this task starts then, that one
waits until this one is done."""

from __future__ import annotations

from sandbox.core.engines import CorePool, Engine
from sandbox.core.errors import ACL_ERROR_RT_AICORE_EXCEPTION, ACL_ERROR_RT_AICORE_TIMEOUT
from sandbox.core.trace import TaskFinished, TaskStarted

from sim_rig import Rig


def test_a_task_on_an_idle_engine_starts_when_submitted_and_ends_its_duration_later():
    """A ready task with its engine free starts at once; its duration is fixed when it starts."""
    rig, dma = Rig(), Engine("DMA H2D", 0)
    task = rig.submit(rig.stream(), dma, at=100, duration=1000)
    rig.run()
    assert (task.ready_t, rig.start(task), task.end_t, task.done) == (100, 100, 1100, True)
    assert (rig.started(task), rig.finished(task)) == ([100], [1100])


def test_a_streams_tasks_run_in_order_even_on_different_engines():
    """A task is ready only when every earlier task of its stream is done (tasks.py rule 2)."""
    rig = Rig()
    s = rig.stream()
    first = rig.submit(s, Engine("DMA H2D", 0), at=0, duration=1000)
    second = rig.submit(s, Engine("DMA D2H", 0), at=0, duration=500)
    rig.run()
    assert (first.end_t, rig.start(second), second.end_t) == (1000, 1000, 1500)


def test_a_task_submitted_after_its_predecessor_finished_starts_at_its_submission():
    """A task is ready only once the host has submitted it (tasks.py rule 1)."""
    rig = Rig()
    s = rig.stream()
    rig.submit(s, Engine("DMA H2D", 0), at=0, duration=1000)
    late = rig.submit(s, Engine("DMA H2D", 0), at=5000, duration=10)
    rig.run()
    assert rig.start(late) == 5000


def test_events_before_the_horizon_run_and_events_at_the_horizon_wait():
    """run_before(h) processes events strictly before h; an event at h waits for the host to pass h."""
    rig = Rig()
    task = rig.submit(rig.stream(), Engine("DMA H2D", 0), at=0, duration=1000)
    rig.run(1000)
    assert not task.done and rig.finished(task) == [] and rig.sim.next_time == 1000
    rig.run(1001)
    assert task.done and rig.finished(task) == [1000]


def test_the_device_clock_moves_to_the_horizon_only_when_no_event_is_left():
    """With nothing pending the device is idle up to the horizon; with an event pending it stays at the last one."""
    rig = Rig()
    rig.run(500)
    assert rig.sim.now == 500
    rig.submit(rig.stream(), Engine("DMA H2D", 0), at=600, duration=1000)
    rig.run(900)
    assert rig.sim.now == 600  # the start at 600 ran, the finish at 1600 is pending


def test_a_task_submitted_behind_the_device_clock_arrives_at_the_device_clock_not_in_the_past():
    """A later submission can never change the past: it arrives at max(submit time, now)."""
    rig = Rig()
    rig.run(1000)
    task = rig.submit(rig.stream(), Engine("DMA H2D", 0), at=400, duration=10)
    rig.run()
    assert (task.ready_t, rig.start(task)) == (1000, 1000)


def test_tasks_of_different_streams_queue_for_one_engine_and_run_one_at_a_time():
    """A single-lane engine runs one task at a time; a running task is never preempted."""
    rig, dma = Rig(), Engine("DMA H2D", 0)
    a = rig.submit(rig.stream(), dma, at=0, duration=1000)
    b = rig.submit(rig.stream(), dma, at=10, duration=1000)
    rig.run()
    assert (rig.start(a), b.ready_t, rig.start(b), b.end_t) == (0, 10, 1000, 2000)


def test_a_waiting_task_of_a_higher_priority_stream_goes_first():
    """Waiting tasks start in order of stream priority (smaller value first), then ready time."""
    rig, dma = Rig(), Engine("DMA H2D", 0)
    rig.submit(rig.stream(), dma, at=0, duration=1000)
    low = rig.submit(rig.stream(priority=5), dma, at=10, duration=100)
    high = rig.submit(rig.stream(priority=0), dma, at=20, duration=100)
    rig.run()
    assert (rig.start(high), rig.start(low)) == (1000, 1100)


def test_waiting_tasks_of_equal_priority_and_ready_time_start_in_submission_order():
    """Ties of (priority, ready time) go to the task submitted first."""
    rig, dma = Rig(), Engine("DMA H2D", 0)
    rig.submit(rig.stream(), dma, at=0, duration=1000)
    x = rig.submit(rig.stream(), dma, at=10, duration=100)
    y = rig.submit(rig.stream(), dma, at=10, duration=100)
    rig.run()
    assert (rig.start(x), rig.start(y)) == (1000, 1100)


def test_a_task_waiting_on_an_event_becomes_ready_when_the_recorded_task_is_done():
    """A task is ready only when the snapshot it waits on is done (tasks.py rule 3)."""
    rig = Rig()
    recorded = rig.submit(rig.stream(), Engine("DMA H2D", 0), at=0, duration=3000)
    waiter = rig.submit(rig.stream(), Engine("DMA D2H", 0), at=0, duration=10, waits_on=recorded)
    rig.run()
    assert (waiter.ready_t, rig.start(waiter)) == (3000, 3000)


def test_waiting_on_a_task_already_done_does_not_delay():
    """An event wait on a finished snapshot is satisfied at once."""
    rig = Rig()
    recorded = rig.submit(rig.stream(), Engine("DMA H2D", 0), at=0, duration=1000)
    rig.run(2000)
    waiter = rig.submit(rig.stream(), Engine("DMA D2H", 0), at=2000, duration=10, waits_on=recorded)
    rig.run()
    assert rig.start(waiter) == 2000


def test_kernels_take_min_of_block_dim_and_cores_and_share_the_pool_when_it_has_room():
    """A kernel of block_dim b takes min(b, cores) cores; its duration is a function of them."""
    rig, pool = Rig(), CorePool("AI Core", 0, 8)
    per_core = lambda cores: 1000 * cores  # noqa: E731 - the duration function of the cores given
    a = rig.submit(rig.stream(), pool, at=0, duration=per_core, block_dim=3)
    b = rig.submit(rig.stream(), pool, at=0, duration=per_core, block_dim=5)
    wide = rig.submit(rig.stream(), pool, at=0, duration=per_core, block_dim=20)
    rig.run()
    assert (a.cores, b.cores, wide.cores) == (3, 5, 8)
    assert (rig.start(a), rig.start(b), a.end_t, b.end_t) == (0, 0, 3000, 5000)
    assert (rig.start(wide), wide.end_t) == (5000, 13000)
    assert [r.cores for r in rig.log.of(TaskStarted)] == [3, 5, 8]


def test_a_waiting_kernel_is_not_overtaken_by_a_smaller_one_that_would_fit():
    """Waiting kernels start in order: no backfilling of free cores by a later, smaller kernel."""
    rig, pool = Rig(), CorePool("AI Core", 0, 8)
    rig.submit(rig.stream(), pool, at=0, duration=1000, block_dim=6)
    big = rig.submit(rig.stream(), pool, at=10, duration=1000, block_dim=4)
    small = rig.submit(rig.stream(), pool, at=20, duration=1000, block_dim=2)
    rig.run()
    assert (rig.start(big), rig.start(small)) == (1000, 1000)


def test_a_task_without_an_engine_starts_and_finishes_the_moment_it_is_ready():
    """Engine-less tasks (event records, waits) take no time and no engine."""
    rig = Rig()
    s = rig.stream()
    rig.submit(s, Engine("DMA H2D", 0), at=0, duration=700)
    marker = rig.submit(s, None, at=100)
    rig.run()
    assert (rig.started(marker), rig.finished(marker)) == ([700], [700])


def test_engine_less_tasks_arriving_together_finish_in_the_order_of_their_finish_events():
    """Two records arriving at one time on idle streams: both start before either finishes (each
    FINISH is queued behind the other's arrival), as when every FINISH went through the heap."""
    rig = Rig()
    a = rig.submit(rig.stream(), None, at=300)
    b = rig.submit(rig.stream(), None, at=300)
    alone = rig.submit(rig.stream(), None, at=900)
    rig.run()
    rows = [(type(r).__name__, r.task) for r in rig.log.records if isinstance(r, (TaskStarted, TaskFinished))]
    assert rows == [
        ("TaskStarted", a.id),
        ("TaskStarted", b.id),
        ("TaskFinished", a.id),
        ("TaskFinished", b.id),
        ("TaskStarted", alone.id),
        ("TaskFinished", alone.id),
    ]
    assert (rig.finished(alone), rig.sim.next_time) == ([900], None)


def test_a_tasks_effect_runs_at_its_completion_time():
    """The data effect happens when the task finishes, not when it is submitted or starts."""
    rig, seen = Rig(), []
    rig.submit(rig.stream(), Engine("DMA H2D", 0), at=100, duration=1000, effect=lambda: seen.append(rig.sim.now))
    rig.run(1100)
    assert seen == []
    rig.run()
    assert seen == [1100]


def test_an_effect_that_returns_a_code_fails_the_task_and_its_stream_keeps_the_error():
    """A failing effect sets the task's status and the stream's pending error, with its message."""
    rig = Rig()
    s = rig.stream()
    task = rig.submit(
        s, Engine("DMA H2D", 0), at=0, duration=10, effect=lambda: (ACL_ERROR_RT_AICORE_EXCEPTION, "boom")
    )
    rig.run()
    assert task.status == s.pending_error == ACL_ERROR_RT_AICORE_EXCEPTION
    assert "boom" in s.pending_message
    assert [(r.task, r.status) for r in rig.log.of(TaskFinished)] == [(task.id, ACL_ERROR_RT_AICORE_EXCEPTION)]


def test_after_a_failure_under_stop_on_failure_later_tasks_are_discarded_without_their_engine():
    """Stop-on-failure: the context's later tasks end at once with the failure's code, using no engine."""
    rig, dma = Rig(), Engine("DMA H2D", 0)
    s = rig.stream()
    s.failure_mode = 1  # ACL_STOP_ON_FAILURE
    rig.submit(s, dma, at=0, duration=100, effect=lambda: ACL_ERROR_RT_AICORE_EXCEPTION)
    ran = []
    later = rig.submit(s, dma, at=0, duration=5000, effect=lambda: ran.append(1))
    rig.run()
    assert (later.status, rig.start(later), later.end_t, later.engine) == (
        ACL_ERROR_RT_AICORE_EXCEPTION,
        100,
        100,
        None,
    )
    assert ran == [] and rig.sim.running_tasks == 0


def test_an_injected_fault_fails_the_task_instead_of_its_effect():
    """The task_fault hook (core/features/faults.py) decides first: a faulted task's data effect does not happen."""
    rig, ran = Rig(), []
    task = rig.submit(rig.stream(), Engine("DMA H2D", 0), at=0, duration=10, effect=lambda: ran.append(1))
    rig.hooks.add("task_fault", lambda t: (ACL_ERROR_RT_AICORE_TIMEOUT, "injected") if t is task else None)
    rig.run()
    assert task.status == ACL_ERROR_RT_AICORE_TIMEOUT and ran == []


def test_the_finish_hook_sees_every_task_once_with_its_status_after_its_effect():
    """The task_finished hook runs once per task, after the effect, before the task counts as done."""
    rig, seen = Rig(), []
    s = rig.stream()
    a = rig.submit(s, Engine("DMA H2D", 0), at=0, duration=10, effect=lambda: seen.append("effect"))
    b = rig.submit(s, None, at=0, effect=lambda: 7)
    rig.hooks.add("task_finished", lambda task, status: seen.append((task.id, status, task.done)))
    rig.run()
    assert seen == ["effect", (a.id, 0, False), (b.id, 7, False)]
