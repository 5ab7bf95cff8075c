"""The public entry points: each works on a given log or on the current machine's log."""

from __future__ import annotations

import json

import pytest

import sandbox
from sandbox import acl
from sandbox.export.validate import validate_chrome_trace
from sandbox.viz.picture import Picture
from sandbox.viz.samples import two_stream_log
from sandbox.widgets import api
from sandbox.widgets.dashboard import Dashboard


@pytest.fixture
def machine():
    sandbox.configure("ascend910b", device_count=1)
    acl.init()
    acl.rt.set_device(0)
    stream, _ = acl.rt.create_stream()
    dev, _ = acl.rt.malloc(1 << 20, acl.ACL_MEM_MALLOC_HUGE_FIRST)
    host, _ = acl.rt.malloc_host(1 << 20)
    acl.rt.memcpy_async(dev, 1 << 20, host, 1 << 20, acl.ACL_MEMCPY_HOST_TO_DEVICE, stream)
    acl.rt.synchronize_stream(stream)
    return sandbox.trace()


def test_show_defaults_to_the_current_machine(machine):
    d = api.show()
    assert isinstance(d, Dashboard) and d.t == d.t_range[1]
    assert ": 1 task, total" in repr(d)


def test_gantt_is_a_picture_with_the_timeline_summary(machine):
    p = api.gantt(view="physical")
    assert isinstance(p, Picture) and p.text.startswith("Timeline (physical view)")
    assert "NPU 0 DMA H2D" in p.text


def test_memory_map_and_queues_default_to_the_end_of_the_log(machine):
    assert "1 block," in api.memory_map().text
    assert "1 finished" in api.queues().text


def test_views_take_an_explicit_log_and_time():
    log = two_stream_log()
    assert api.queues(100000, log).text.startswith("Stream queues at 100.000 µs")
    assert api.memory_map(19000, log).text.startswith("Device memory at 19.000 µs")
    assert repr(api.summary(log)).startswith("Ascend910B (Ascend910B1)")


def test_export_trace_of_the_current_machine_is_valid(machine, tmp_path):
    path = api.export_trace(tmp_path / "t.json")
    assert validate_chrome_trace(json.loads(open(path).read())) == []


def test_step_through_defaults_to_the_current_machine():
    sandbox.configure("ascend910b", device_count=1)
    st = api.step_through([acl.init, lambda: acl.rt.set_device(0)])
    assert st.run() == 2
    assert any(getattr(r, "name", "") == "aclrtSetDevice" for r in sandbox.trace())
