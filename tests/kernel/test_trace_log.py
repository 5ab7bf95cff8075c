"""The trace log: one append-only list that every view reads.  Calls and task life-cycle
records go in as compact rows (cheap to make, not scanned by the garbage collector) and
come out as the same typed records as everything else."""

import gc
import tracemalloc

import numpy as np

import sandbox
from sandbox import acl
from sandbox.core import trace as tr


def _program():
    sandbox.configure("ascend910b", device_count=1)
    acl.init()
    acl.rt.set_device(0)
    stream, _ = acl.rt.create_stream()
    dev, _ = acl.rt.malloc(4096, acl.ACL_MEM_MALLOC_HUGE_FIRST)
    host, _ = acl.rt.malloc_host(4096)
    acl.rt.memcpy_async(dev, 4096, host, 4096, acl.ACL_MEMCPY_HOST_TO_DEVICE, stream)
    acl.rt.synchronize_stream(stream)


def test_trace_log_reads_compact_rows_as_typed_records():
    _program()
    log = sandbox.trace()
    records = list(log)
    assert len(records) == len(log) and not any(isinstance(r, tuple) for r in records)
    copy = next(r for r in log.of(tr.TaskSubmitted) if r.name == "MEMCPY_ASYNC")
    assert (copy.kind, copy.nbytes, copy.engine) == ("memcpy", 4096, "DMA H2D")
    started = next(r for r in log.of(tr.TaskStarted) if r.task == copy.task)
    finished = next(r for r in log.of(tr.TaskFinished) if r.task == copy.task)
    assert copy.t <= started.t < finished.t and finished.status == 0
    call = next(r for r in log.of(tr.ApiCall) if r.name == "aclrtMemcpyAsync")
    assert call.tasks == (copy.task,) and dict(call.args)["count"] == 4096
    assert log.records[0] is records[0] and log.records is log.records  # built once, then kept


def test_trace_log_rows_stay_rows_until_read_and_are_not_scanned_by_gc():
    _program()
    log = sandbox.trace()
    _ = log.records  # build what is there now
    acl.rt.get_device()  # one more call: one more row
    row = log._items[-1]
    assert type(row) is tuple and row[0] == tr.API_CALL
    gc.collect()
    assert not gc.is_tracked(row)
    assert isinstance(log.records[-1], tr.ApiCall) and log.records[-1].name == "aclrtGetDevice"


def test_trace_log_built_from_records_keeps_them():
    _program()
    records = sandbox.trace().records
    copy = tr.TraceLog(records[:5])
    assert len(copy) == 5 and copy.records == records[:5]


def _copies(n: int):
    """n copies on one stream, an event record every 50, then a synchronize."""
    sandbox.configure("ascend910b", device_count=1)
    acl.init()
    acl.rt.set_device(0)
    stream, _ = acl.rt.create_stream()
    dev, _ = acl.rt.malloc(4096, acl.ACL_MEM_MALLOC_HUGE_FIRST)
    host, _ = acl.rt.malloc_host(4096)
    for i in range(n):
        acl.rt.memcpy_async(dev, 4096, host, 4096 - i % 7, acl.ACL_MEMCPY_HOST_TO_DEVICE, stream)
        if i % 50 == 0:
            acl.rt.record_event(acl.rt.create_event()[0], stream)
    acl.rt.memcpy_async(dev, 4096, host, 4096, acl.ACL_MEMCPY_HOST_TO_DEVICE, stream)
    acl.rt.synchronize_stream(stream)
    return sandbox.trace()


def test_a_long_log_reads_back_the_same_records_as_one_never_packed(monkeypatch):
    monkeypatch.setattr(tr, "_CHUNK", 10**9)
    plain = list(_copies(600))
    monkeypatch.setattr(tr, "_CHUNK", 64)
    log = _copies(600)
    assert log._packed and len(log) == len(plain)  # packed while it ran ...
    assert log.records == plain and list(map(type, log.records)) == list(map(type, plain))  # ... read the same


def test_a_long_log_costs_under_250_bytes_a_task(monkeypatch):
    monkeypatch.setattr(tr, "_CHUNK", 256)
    gc.collect()
    tracemalloc.start()
    base = tracemalloc.get_traced_memory()[0]
    log = _copies(3000)
    gc.collect()
    held = tracemalloc.get_traced_memory()[0] - base
    tracemalloc.stop()
    n_tasks = sum(1 for r in log.of(tr.TaskSubmitted))
    assert held / n_tasks < 250, held / n_tasks


def test_an_argument_that_is_not_a_plain_value_stays_the_object_the_call_was_given(monkeypatch):
    monkeypatch.setattr(tr, "_CHUNK", 64)

    class Size:  # refused (100000), and shown in the call's record as it was given
        pass

    sizes = [np.int64(64), Size()] * 50
    sandbox.configure("ascend910b", device_count=1)
    acl.init()
    acl.rt.set_device(0)
    for size in sizes:
        acl.rt.malloc(size, acl.ACL_MEM_MALLOC_HUGE_FIRST)
    shown = [dict(r.args)["size"] for r in sandbox.trace().of(tr.ApiCall) if r.name == "aclrtMalloc"]
    assert len(shown) == len(sizes) and all(s is given for s, given in zip(shown, sizes))


def test_memory_records_carry_the_number_of_the_call_that_made_them():
    _program()
    acl.rt.free(acl.rt.malloc(64, acl.ACL_MEM_MALLOC_HUGE_FIRST)[0])
    log = sandbox.trace()
    seq = {c.seq: c.name for c in log.of(tr.ApiCall)}
    assert [seq[r.api_seq] for r in log.of(tr.MemAllocated)] == ["aclrtMalloc", "aclrtMallocHost", "aclrtMalloc"]
    assert [seq[r.api_seq] for r in log.of(tr.MemFreed)] == ["aclrtFree"]


def test_a_blocking_call_records_what_it_waited_for():
    sandbox.configure("ascend910b", device_count=1)
    acl.init()
    acl.rt.set_device(0)
    stream, _ = acl.rt.create_stream()
    dev, _ = acl.rt.malloc(1 << 20, acl.ACL_MEM_MALLOC_HUGE_FIRST)
    host, _ = acl.rt.malloc_host(1 << 20)
    event, _ = acl.rt.create_event()

    def busy():
        acl.rt.memcpy_async(dev, 1 << 20, host, 1 << 20, acl.ACL_MEMCPY_HOST_TO_DEVICE, stream)

    busy()
    acl.rt.synchronize_stream(stream)
    busy()
    acl.rt.record_event(event, stream)
    acl.rt.synchronize_event(event)
    busy()
    acl.rt.synchronize_device()
    acl.rt.memcpy(host, 1 << 20, dev, 1 << 20, acl.ACL_MEMCPY_DEVICE_TO_HOST)
    acl.rt.synchronize_stream(stream)  # nothing left to wait for: it does not block
    calls = [c for c in sandbox.trace().of(tr.ApiCall) if c.name.startswith(("aclrtSynchronize", "aclrtMemcpy"))]
    copy = next(r.task for r in sandbox.trace().of(tr.TaskSubmitted) if r.name == "MEMCPY")
    assert [(c.name, c.waited_for) for c in calls if c.name != "aclrtMemcpyAsync"] == [
        ("aclrtSynchronizeStream", ("stream", stream)),
        ("aclrtSynchronizeEvent", ("event", event)),
        ("aclrtSynchronizeDevice", ("device", 0)),
        ("aclrtMemcpy", ("task", copy)),
        ("aclrtSynchronizeStream", ()),
    ]
    assert all(c.blocked_from is not None for c in calls[:-1] if c.waited_for)
