"""The seam between the machine and its features: task specifications, declared kinds, trace
row builders, and hooks that only features in use register (core/hooks.py, core/tasks.py)."""

from __future__ import annotations

import ast
import dataclasses
import inspect
from pathlib import Path

import sandbox
from sandbox import acl
from sandbox.core import trace as tr
from sandbox.core.current_machine import current
from sandbox.core.features.faults import FaultState
from sandbox.core.hooks import Hooks
from sandbox.core.features.pools import PoolState
from sandbox.core.tasks import KINDS, SPEC_FIELDS, Task

CORE = Path(__file__).resolve().parents[2] / "sandbox" / "core"


def test_every_task_kind_the_core_submits_is_declared_in_tasks_kinds():
    kinds = set()
    for path in CORE.rglob("*.py"):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if (
                isinstance(node, ast.Call)
                and isinstance(node.func, ast.Attribute)
                and node.func.attr == "new"
                and getattr(node.func.value, "id", "") == "Task"
                and node.args
            ):
                first = node.args[0]
                if isinstance(first, ast.Constant):
                    kinds.add(first.value)
                elif path.name == "notifies.py":  # Waits.wait: the kind each wait passes it
                    kinds.update(("notify_wait", "value_wait"))
                else:  # callbacks: Job.kind, "callback" or "host_func"
                    kinds.update(("callback", "host_func"))
    assert kinds and kinds <= set(KINDS), sorted(kinds - set(KINDS))
    assert set(KINDS) <= kinds | {"callback", "host_func"}


def test_every_kind_in_the_trace_is_a_declared_kind(device0):
    dev, _ = acl.rt.malloc(4096, acl.ACL_MEM_MALLOC_HUGE_FIRST)
    host, _ = acl.rt.malloc_host(4096)
    acl.rt.memcpy_async(dev, 4096, host, 4096, acl.ACL_MEMCPY_HOST_TO_DEVICE, device0)
    acl.rt.memset_async(dev, 4096, 0, 4096, device0)
    event, _ = acl.rt.create_event()
    acl.rt.record_event(event, device0)
    acl.rt.stream_wait_event(device0, event)
    acl.rt.synchronize_stream(device0)
    kinds = {r.kind for r in sandbox.trace().of(tr.TaskSubmitted)}
    assert kinds and kinds <= set(KINDS)


def test_row_builders_take_their_records_fields_in_order():
    for builder, record in ((tr.task_started_row, tr.TaskStarted), (tr.task_finished_row, tr.TaskFinished)):
        assert list(inspect.signature(builder).parameters) == [f.name for f in dataclasses.fields(record)]
        row = builder(*range(len(dataclasses.fields(record))))
        assert tr.ROW_TYPES[row[0]](*row[1:]) == record(*range(len(dataclasses.fields(record))))
    source = (CORE / "trace.py").read_text(encoding="utf-8")  # (the file: a compiled build has no source to inspect)
    builder = next(
        n for n in ast.parse(source).body if isinstance(n, ast.FunctionDef) and n.name == "task_submitted_row"
    )
    comments = [
        line.rsplit("#", 1)[1].strip()
        for line in source.splitlines()[builder.lineno - 1 : builder.end_lineno]
        if line.strip().endswith(tuple(f.name for f in dataclasses.fields(tr.TaskSubmitted))) and "#" in line
    ]
    assert comments == [f.name for f in dataclasses.fields(tr.TaskSubmitted)]


def test_a_submitted_row_reads_back_as_its_record(device0):
    dev, _ = acl.rt.malloc(64, acl.ACL_MEM_MALLOC_HUGE_FIRST)
    acl.rt.memset_async(dev, 64, 1, 64, device0)
    record = [r for r in sandbox.trace().of(tr.TaskSubmitted)][-1]
    assert (record.kind, record.name, record.engine, record.nbytes, record.prev_task, record.waits_on) == (
        "memset",
        "MEMSET_ASYNC",
        "DMA D2D",
        64,
        0,
        0,
    )
    assert record.stream == device0 and record.tid == 1 and record.api_seq > 0


def test_a_task_is_specified_by_name_and_copied_for_a_replay():
    spec = Task.new("kernel", "k", block_dim=4)
    assert (spec.engine, spec.duration, spec.effect, spec.waits_on, spec.access) == (None, 0, None, None, ())
    again = spec.copy(block_dim=8)
    assert again.block_dim == 8 and spec.block_dim == 4 and not hasattr(again, "id")
    assert SPEC_FIELDS == (
        "kind",
        "name",
        "engine",
        "duration",
        "effect",
        "waits_on",
        "nbytes",
        "block_dim",
        "event",
        "detail",
        "access",
        "core_limit",
    )
    if hasattr(Task, "__slots__"):  # plain Python: a task's first fields (a compiled Task keeps no __slots__)
        assert Task.__slots__[: len(SPEC_FIELDS)] == SPEC_FIELDS


def test_a_machine_that_uses_no_feature_has_no_hook(device0):
    m = current()
    dev, _ = acl.rt.malloc(64, acl.ACL_MEM_MALLOC_HUGE_FIRST)
    acl.rt.memset_async(dev, 64, 1, 64, device0)
    acl.rt.synchronize_stream(device0)
    names = [name for name in dir(Hooks) if not name.startswith("_") and not callable(getattr(Hooks, name))]
    hooks = {name: len(getattr(m.hooks, name)) for name in names}  # (dir: a compiled Hooks keeps no __slots__)
    assert hooks == {
        "intercept": 0,
        "submitted": 0,
        "before_sync": 0,
        "after_sync": 0,
        "task_fault": 0,
        "task_finished": 0,
        "process_ending": 0,
        "stream_state": 0,
        "address": 0,
        "thread_ended": 0,
    }
    assert m.feature_in_use(PoolState) is None and m.feature_in_use(FaultState) is None


def test_features_register_their_hooks_on_first_use_and_capture_only_while_active(device0):
    m = current()
    sandbox.inject_fault("kernel_trap")
    assert len(m.hooks.task_fault) == 1
    pool_props = {
        "allocType": acl.ACL_MEM_ALLOCATION_TYPE_PINNED,
        "handleType": 0,
        "location": {"id": 0, "type": acl.ACL_MEM_LOCATION_TYPE_DEVICE},
        "maxSize": 0,
    }
    _, ret = acl.rt.mem_pool_create(pool_props)
    assert ret == 0 and len(m.hooks.after_sync) == 1 and len(m.hooks.process_ending) == 1
    assert acl.mdl.ri_capture_begin(device0, acl.ACL_MODEL_RI_CAPTURE_MODE_GLOBAL) == 0
    assert len(m.hooks.intercept) == 1 and len(m.hooks.before_sync) == 1
    assert acl.rt.synchronize_stream(device0) == acl.ACL_ERROR_RT_STREAM_CAPTURED  # refused by the hook
    acl.mdl.ri_capture_end(device0)
    assert m.hooks.intercept == [] and m.hooks.before_sync == []
