"""The trace log: one append-only list that every view reads.  Calls and task life-cycle
records go in as compact rows (cheap to make, not scanned by the garbage collector) and
come out as the same typed records as everything else."""

import gc

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
