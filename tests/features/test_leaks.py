"""Leak reports (core/features/leaks.py): what a process never released, at finalize and on demand."""

from __future__ import annotations

import warnings

import pytest

import sandbox
from sandbox import acl
from sandbox.core import trace as T


def test_a_clean_program_has_an_empty_report_and_no_warning_at_finalize(machine):
    acl.rt.set_device(0)
    s, _ = acl.rt.create_stream()
    ev, _ = acl.rt.create_event()
    p, _ = acl.rt.malloc(4096, 0)
    h, _ = acl.rt.malloc_host(4096)
    acl.rt.free(p)
    acl.rt.free_host(h)
    acl.rt.destroy_event(ev)
    acl.rt.destroy_stream(s)
    acl.rt.reset_device(0)
    assert not sandbox.leak_report()
    with warnings.catch_warnings():
        warnings.simplefilter("error", sandbox.LeakWarning)
        assert acl.finalize() == 0
    assert list(sandbox.trace().of(T.LeakReport)) == []


def test_the_report_lists_allocations_pinned_memory_streams_events_and_explicit_contexts(machine):
    acl.rt.set_device(0)
    s, _ = acl.rt.create_stream()
    ev, _ = acl.rt.create_event()
    p, _ = acl.rt.malloc(4096, 0)
    h, _ = acl.rt.malloc_host(100)
    ctx, _ = acl.rt.create_context(1)
    report = sandbox.leak_report()
    kinds = [item[1] for item in report.items]
    assert kinds == ["allocation", "pinned", "stream", "event", "context"]
    text = str(report)
    for word in (
        "aclrtFree",
        "aclrtFreeHost",
        "aclrtDestroyStream",
        "aclrtDestroyEvent",
        "aclrtDestroyContext",
        f"{p:#x}",
        "Stream 1 on device 0",
    ):
        assert word in text
    assert str(sandbox.leak_report()) == text  # the same text every time


def test_an_undestroyed_notify_is_a_leak_listed_after_the_events_and_a_destroyed_one_is_not(machine):
    acl.rt.set_device(0)
    ev, _ = acl.rt.create_event()
    kept, _ = acl.rt.create_notify(acl.ACL_NOTIFY_DEFAULT)
    gone, _ = acl.rt.create_notify(acl.ACL_NOTIFY_DEVICE_USE_ONLY)
    assert acl.rt.destroy_notify(gone) == 0
    report = sandbox.leak_report()
    assert [(item[1], item[3]) for item in report.items] == [("event", ev), ("notify", kept)]
    assert (
        f"  notifies (1; release with aclrtDestroyNotify):\n    notify {kept:#x} on device 0 (aclrtCreateNotify)"
        in str(report)
    )
    with pytest.warns(sandbox.LeakWarning, match="aclrtDestroyNotify"):
        acl.finalize()


def test_a_notify_of_a_process_that_ends_without_destroying_it_is_in_its_leak_report(machine):
    def worker():
        acl.init()
        acl.rt.set_device(0)
        acl.rt.create_notify(acl.ACL_NOTIFY_DEFAULT)

    with pytest.warns(sandbox.LeakWarning, match="notifies"):
        sandbox.spawn_process(worker, name="leaky").join()
    (record,) = sandbox.trace().of(T.LeakReport)
    assert [item[0] for item in record.items] == ["notify"]


def test_finalize_warns_with_the_report_computed_before_it_releases_anything(machine):
    acl.rt.set_device(0)
    acl.rt.create_stream()
    acl.rt.malloc(4096, 0)
    with pytest.warns(sandbox.LeakWarning, match="did not release 2 resources at aclFinalize"):
        assert acl.finalize() == 0
    (rec,) = sandbox.trace().of(T.LeakReport)
    assert rec.when == "aclFinalize" and [i[0] for i in rec.items] == ["allocation", "stream"]


def test_default_contexts_and_streams_are_not_leaks(machine):
    acl.rt.set_device(0)
    assert not sandbox.leak_report()


def test_a_pool_never_destroyed_is_a_leak(machine):
    acl.rt.set_device(0)
    s, _ = acl.rt.create_stream()
    pool, _ = acl.rt.mem_pool_create({"allocType": 0, "handleType": 0, "location": {"id": 0, "type": 1}, "maxSize": 0})
    acl.rt.mem_pool_malloc_async(64, pool, s)
    acl.rt.destroy_stream(s)
    report = sandbox.leak_report()
    assert [i[1] for i in report.items] == ["allocation", "pool"]
    assert "aclrtMemPoolDestroy" in str(report)


def test_a_process_ending_without_finalize_reports_its_leaks(machine):
    def worker():
        acl.init()
        acl.rt.set_device(0)
        acl.rt.malloc(4096, 0)

    with pytest.warns(sandbox.LeakWarning, match="at process end"):
        sandbox.spawn_process(worker, name="leaky").join()
    (rec,) = sandbox.trace().of(T.LeakReport)
    assert rec.pid == 2 and rec.when == "process end"


def test_an_undestroyed_ex_event_is_named_after_the_call_that_made_it(machine):
    acl.rt.set_device(0)
    ev, _ = acl.rt.create_event_ex_with_flag(acl.ACL_EVENT_SYNC)
    (item,) = sandbox.leak_report().items
    assert item[1] == "event" and item[3] == ev and item[-1] == "aclrtCreateEventExWithFlag"
    assert acl.rt.destroy_event(ev) == 0
