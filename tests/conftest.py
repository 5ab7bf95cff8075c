"""Shared fixtures: every test starts on a fresh simulated machine."""

from __future__ import annotations

import numpy as np
import pytest

import sandbox
from sandbox import acl


@pytest.fixture
def machine():
    """A fresh 8-device 910B server with acl initialised (the sandbox's default machine)."""
    sandbox.configure("ascend910b")
    assert acl.init() == 0
    yield sandbox
    sandbox.raise_on_error(False)


@pytest.fixture
def device0(machine):
    """Device 0 set on the calling thread, with one explicit stream."""
    assert acl.rt.set_device(0) == 0
    stream, ret = acl.rt.create_stream()
    assert ret == 0
    return stream


def dev_alloc(nbytes, policy=acl.ACL_MEM_MALLOC_HUGE_FIRST):
    ptr, ret = acl.rt.malloc(nbytes, policy)
    assert ret == 0, acl.get_recent_err_msg()
    return ptr


def pinned(nbytes, dtype=np.uint8):
    """A pinned host buffer and a numpy view of it."""
    ptr, ret = acl.rt.malloc_host(nbytes)
    assert ret == 0
    return ptr, acl.util.ptr_to_numpy(ptr, (nbytes // np.dtype(dtype).itemsize,), dtype)


def tasks_by_id():
    """Task id -> dict(submit, start, end, kind, name, stream, engine, cores) from the trace."""
    from sandbox.core import trace as T

    out = {}
    for r in sandbox.trace():
        if isinstance(r, T.TaskSubmitted):
            out[r.task] = dict(
                submit=r.t,
                kind=r.kind,
                name=r.name,
                stream=r.stream,
                engine=r.engine,
                device=r.device,
                start=None,
                end=None,
                cores=0,
                status=None,
            )
        elif isinstance(r, T.TaskStarted):
            out[r.task].update(start=r.t, cores=r.cores)
        elif isinstance(r, T.TaskFinished):
            out[r.task].update(end=r.t, status=r.status)
    return out


def overlap(a, b):
    return a["start"] < b["end"] and b["start"] < a["end"]
