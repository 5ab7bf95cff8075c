"""The step-through helper: one runtime step per click, the dashboard following the log."""

from __future__ import annotations

import pytest

import sandbox
from sandbox import acl
from sandbox.widgets.stepper import StepThrough

N = 1 << 16


def copy_program():
    acl.init()
    acl.rt.set_device(0)
    yield "open device"
    stream, _ = acl.rt.create_stream()
    dev, _ = acl.rt.malloc(N * 4, acl.ACL_MEM_MALLOC_HUGE_FIRST)
    host, _ = acl.rt.malloc_host(N * 4)
    yield "allocate"
    acl.rt.memcpy_async(dev, N * 4, host, N * 4, acl.ACL_MEMCPY_HOST_TO_DEVICE, stream)
    yield "copy in"
    acl.rt.synchronize_stream(stream)
    yield "synchronize"


@pytest.fixture
def stepper():
    sandbox.configure("ascend910b", device_count=1)
    return StepThrough(copy_program, sandbox.trace)


def memory_text(st):
    return st.dashboard.memory_text()


def test_each_step_runs_up_to_the_next_yield(stepper):
    assert stepper.step() == "open device"
    assert len(sandbox.trace().records) and not any(r.__class__.__name__ == "MemAllocated" for r in sandbox.trace())
    assert stepper.step() == "allocate"
    assert sum(r.__class__.__name__ == "MemAllocated" for r in sandbox.trace()) == 2


def test_panels_update_after_each_step(stepper):
    stepper.step()
    assert "0 blocks" in memory_text(stepper)
    stepper.step()
    assert "1 block," in memory_text(stepper)
    stepper.step()
    assert "MEMCPY_ASYNC" in stepper.dashboard.queues_text()


def test_status_names_the_last_step(stepper):
    assert stepper.status.value == "0 steps run"
    stepper.step()
    stepper.step()
    assert stepper.status.value == "2 steps run: allocate"


def test_run_finishes_the_program_and_disables_the_buttons(stepper):
    assert stepper.run() == 4
    assert stepper.finished and stepper.step() is None
    assert stepper.next_button.disabled and stepper.rest_button.disabled
    assert stepper.done_steps == ["open device", "allocate", "copy in", "synchronize"]
    assert stepper.next_button.tooltip == "the program has run to its end: no step left"


def test_next_button_runs_one_step(stepper):
    stepper.next_button.click()
    assert stepper.done_steps == ["open device"]


def test_a_list_of_callables_is_a_program():
    sandbox.configure("ascend910b", device_count=1)

    def open_device():
        acl.init()
        acl.rt.set_device(0)

    st = StepThrough([open_device, lambda: acl.rt.malloc(4096, acl.ACL_MEM_MALLOC_HUGE_FIRST)], sandbox.trace)
    assert st.step() == "open_device"
    assert st.step() == "step 2"
    assert "1 block," in memory_text(st)


def test_an_error_in_a_clicked_step_shows_in_the_status():
    sandbox.configure("ascend910b", device_count=1)

    def broken():
        acl.init()
        yield "init"
        raise RuntimeError("bad step")

    st = StepThrough(broken, sandbox.trace)
    st.next_button.click()
    st.next_button.click()
    assert st.status.value == "stopped by RuntimeError: bad step: init"
    assert st.finished


def test_repr_is_stable_text(stepper):
    stepper.step()
    assert repr(stepper).startswith("StepThrough(1 step run: open device); Dashboard at ")


def test_a_non_program_is_refused():
    with pytest.raises(TypeError):
        StepThrough([1, 2], sandbox.trace)
