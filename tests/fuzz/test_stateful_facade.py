"""Random sequences of facade calls, valid and invalid, must keep the runtime's promises.

A Hypothesis state machine drives acl.* calls on a small machine (two 910B devices, or two
310B boards).  After every step: no Python exception escaped the facade, every call returned
its documented shape with a documented code, a failure left a message, and the allocator,
stream queues and clocks are still consistent.
"""

from __future__ import annotations

import os
import tempfile
import threading
import warnings

import numpy as np
import pytest
from hypothesis import HealthCheck, settings
from hypothesis import strategies as st
from hypothesis.stateful import RuleBasedStateMachine, initialize, invariant, rule

import sandbox
from sandbox import acl
from sandbox.acl._allocator import Allocators
from sandbox.core.features import leaks, notifies
from sandbox.core.errors import ALL_CODES
from sandbox.core.features.ipc import Imported, Ipc
from sandbox.core.machine import current
from sandbox.core.allocator import PAGE_SIZES
from sandbox.core.trace import LeakReport, TaskFinished, TaskStarted
from sandbox.core.features.vmm import VmmState

KNOWN_CODES = frozenset(ALL_CODES.values())
KiB, MiB, GiB = 1 << 10, 1 << 20, 1 << 30


def mostly(valid, invalid, weight: int = 4):
    """``valid`` about ``weight`` times as often as ``invalid`` (one_of would pick them evenly)."""
    return st.sampled_from([True] * weight + [False]).flatmap(lambda good: valid if good else invalid)


# values of the wrong type (or absurd) that a learner might pass for any argument
ODD = st.sampled_from([None, "0", "stream", 1.5, 0.0, float("nan"), True, -1, 2**64, -(2**63), [1], {}])
# most calls go in as built; some get one argument (chosen by index) swapped for an odd value
WRONG = mostly(st.none(), st.tuples(st.integers(0, 7), ODD), 6)
INDEX = st.integers(0, 31)  # into a pool of handles; small values pick the newest ones

DEVICE_IDS = mostly(st.sampled_from([0, 1]), st.sampled_from([-1, 2, 3]), 3)
SIZES = mostly(
    st.one_of(st.sampled_from([64, 256, 4096, MiB + 1, 2 * MiB]), st.integers(1, 4 * MiB)),
    st.sampled_from([0, -1, 1, 31, 33, 3 * GiB, 40 * GiB, 2**40, 2**70]),
    2,
)
POLICIES = mostly(st.integers(0, 2), st.integers(-1, 9), 2)
EVENT_FLAGS = mostly(
    st.sampled_from([1, 8, 9, 0x10, 0x11, 0x49]), st.sampled_from([0, 2, 0x20, 0x21, 0x40, 0x80, 0x100, -1]), 2
)
COUNTS = mostly(
    st.sampled_from([0, 1, 64, 256]), st.one_of(st.sampled_from([4097, 1 << 20, -1]), st.integers(0, 8192)), 3
)
OFFSETS = st.sampled_from([0, 0, 0, 0, 0, 1, 64, 4000])
BLOCK_DIMS = mostly(st.sampled_from([1, 2, 8, 24, 25, 48]), st.sampled_from([0, 65535, 65536, -1]))
MEM_ATTRS = st.integers(-1, 19)
# members of aclrtRandomNumTaskInfo (sandbox/acl/_random.py) a spoiled task info changes
RANDOM_MEMBERS = [
    "dataType",
    "randomNumFuncParaInfo",
    "randomNumFuncParaInfo.funcType",
    "randomNumFuncParaInfo.paramInfo",
    "randomResultAddr",
    "randomCounterAddr",
    "randomSeed",
    "randomNum",
]
# the memcpy kind naming the direction between two pools of pointers
KIND_FOR = {
    ("dev", "dev"): 3,
    ("host", "dev"): 1,
    ("page", "dev"): 1,
    ("dev", "host"): 2,
    ("dev", "page"): 2,
    ("host", "host"): 0,
    ("page", "host"): 0,
    ("host", "page"): 0,
    ("page", "page"): 0,
}


@sandbox.kernel
def bump(x: sandbox.ptr(np.float32), n):
    """Touches only a small prefix, so huge allocations never get materialised on the host."""
    x[:4] += n


@sandbox.kernel(ns=2_000)
def fixed_time(x: sandbox.ptr(np.uint8)):
    x[:1] = 7


class FacadeMachine(RuleBasedStateMachine):
    # -- set-up -------------------------------------------------------------------------------
    @initialize(
        profile=st.sampled_from(["ascend910b", "ascend910b", "ascend310b"]),
        first_device=st.sampled_from([0, 0, 0, 1, None]),
    )
    def start(self, profile, first_device):
        sandbox.configure(profile, device_count=2)
        self.m = current()
        self.pools = {"stream": [], "event": [], "dev": [], "host": [], "page": []}
        self.arrays = []  # pageable numpy buffers, kept alive here
        self.live_dev: dict[int, int] = {}  # ptr -> requested size, as this test believes
        self.mapped: dict[int, int] = {}  # virtual address -> its physical handle (aclrtMapMem)
        self.seen_tasks: dict[int, object] = {}
        self.done_ids: set[int] = set()
        self.last_clock = 0
        self.last_sim = 0
        self.ipc_keys: list[str] = []  # IPC memory keys exported, in order
        self.notify_keys: list[str] = []
        self.ended_pids: list[int] = []  # processes the rules spawned, all joined
        assert self.facade(acl.init) == 0
        for n in (256, 4096):
            arr = np.arange(n, dtype=np.uint8)
            self.arrays.append(arr)
            self.pools["page"].append(acl.util.numpy_to_ptr(arr))
        if first_device is None:
            return
        assert self.facade(acl.rt.set_device, first_device) == 0
        self.create_stream(False, 0, 0)
        self.create_event(acl.ACL_EVENT_SYNC | acl.ACL_EVENT_TIME_LINE)
        self.malloc(64 * KiB, acl.ACL_MEM_MALLOC_HUGE_FIRST)
        self.malloc_host(4096)

    # -- the contract every facade call keeps ---------------------------------------------------
    def ok(self, result, values: int = 0):
        """Check one call's return shape and code; returns ret (or the full tuple for value calls)."""
        if values == 0:
            assert type(result) is int, f"status call returned {result!r}"
            ret = result
        else:
            assert isinstance(result, tuple) and len(result) == values + 1, f"value call returned {result!r}"
            ret = result[-1]
            assert type(ret) is int
        assert ret in KNOWN_CODES, f"undocumented code {ret}"
        msg = acl.get_recent_err_msg()
        if ret != 0:
            assert isinstance(msg, str) and msg.strip(), f"call failed with {ret} but left no message"
        else:
            assert msg == "", f"a successful call left an error message: {msg!r}"
        return result

    def facade(self, fn, *args, values: int = 0, wrong=None):
        """Call ``fn``, with argument ``wrong[0]`` (mod arity) replaced by ``wrong[1]`` if given."""
        if wrong is not None and args:
            args = list(args)
            args[wrong[0] % len(args)] = wrong[1]
            args = tuple(args)
        try:
            with warnings.catch_warnings():  # races in random call sequences are expected; their
                warnings.simplefilter("ignore")  # teaching warnings are not what this test checks
                result = fn(*args)
        except TypeError as exc:
            if not str(exc).startswith("acl.") or wrong is None:  # only a wrong argument may be refused so
                raise AssertionError(f"{getattr(fn, '__name__', fn)}{args!r} raised TypeError: {exc}") from exc
            # pyACL's argument parsing refuses it before the call (None for a pointer): as a failed call
            return (0,) * values + (acl.ACL_ERROR_INVALID_PARAM,) if values else acl.ACL_ERROR_INVALID_PARAM
        except Exception as exc:  # the point of this test: nothing may escape
            raise AssertionError(f"{getattr(fn, '__name__', fn)}{args!r} raised {type(exc).__name__}: {exc}") from exc
        return self.ok(result, values)

    def pick(self, pool: str, index: int, offset: int = 0) -> int:
        """A handle or pointer the test was given: most indexes prefer live ones (newest first),
        every fourth takes any, stale included; for streams, some indexes mean the default stream 0."""
        items = self.pools[pool]
        if pool == "stream" and index % 8 == 3:
            return 0
        if index % 4 != 1:
            live = [h for h in items if self.is_live(pool, h)]
            items = live or items
        if not items:
            return 0 if pool == "stream" else 0x3039
        return items[-1 - (index // 4) % len(items)] + offset

    def is_live(self, pool: str, handle: int) -> bool:
        m = self.m
        if pool == "stream":
            return handle in m.streams
        if pool == "event":
            return handle in m.events
        if pool == "dev":
            return handle in self.live_dev or handle in self.mapped
        buf = m.buffer(handle)
        return buf is not None and not getattr(buf, "freed", False)

    # -- devices --------------------------------------------------------------------------------
    @rule(device=DEVICE_IDS, wrong=WRONG)
    def set_device(self, device, wrong):
        ret = self.facade(acl.rt.set_device, device, wrong=wrong)
        if wrong is None and device in (0, 1):
            assert ret == 0, "setting an existing device failed"

    @rule(device=DEVICE_IDS, force=st.booleans(), wrong=WRONG)
    def reset_device(self, device, force, wrong):
        self.facade(acl.rt.reset_device_force if force else acl.rt.reset_device, device, wrong=wrong)

    @rule()
    def synchronize_device(self):
        self.facade(acl.rt.synchronize_device)

    @rule(attr=MEM_ATTRS, wrong=WRONG)
    def get_mem_info(self, attr, wrong):
        free, total, ret = self.facade(acl.rt.get_mem_info, attr, values=2, wrong=wrong)
        if ret == 0:
            assert type(free) is int and type(total) is int and 0 <= free <= total

    # -- streams --------------------------------------------------------------------------------
    @rule(config=st.booleans(), priority=st.integers(-5, 20), flag=st.integers(0, 64), wrong=WRONG)
    def create_stream(self, config, priority, flag, wrong=None):
        if config:
            handle, ret = self.facade(acl.rt.create_stream_with_config, priority, flag, values=1, wrong=wrong)
        else:
            handle, ret = self.facade(acl.rt.create_stream, values=1)
        if ret == 0:
            assert type(handle) is int and handle != 0
            assert handle not in self.pools["stream"], "a stream handle was handed out twice"
            self.pools["stream"].append(handle)
            prio, pret = self.facade(acl.rt.stream_get_priority, handle, values=1)
            assert pret == 0 and 0 <= prio <= 7
        else:
            assert handle == 0

    @rule(stream=INDEX, wrong=WRONG)
    def destroy_stream(self, stream, wrong):
        self.facade(acl.rt.destroy_stream, self.pick("stream", stream), wrong=wrong)

    @rule(stream=INDEX, wrong=WRONG)
    def stream_get_id_and_flags(self, stream, wrong):
        handle = self.pick("stream", stream)
        sid, ret = self.facade(acl.rt.stream_get_id, handle, values=1, wrong=wrong)
        if ret == 0:
            assert type(sid) is int and sid >= 0
        flags, ret = self.facade(acl.rt.stream_get_flags, handle, values=1, wrong=wrong)
        if ret == 0:
            assert type(flags) is int and flags >= 0

    @rule(attr=st.integers(-1, 4), value=st.integers(-1, 9), size=st.sampled_from([0, 4, 8]), wrong=WRONG)
    def create_stream_v2(self, attr, value, size, wrong):
        config, ret = self.facade(acl.rt.create_stream_config_handle, values=1)
        if ret != 0:
            return
        self.facade(acl.rt.set_stream_config_opt, config, attr, value, size, wrong=wrong)
        handle, ret = self.facade(acl.rt.create_stream_v2, config, values=1)
        if ret == 0:
            self.pools["stream"].append(handle)
        assert self.facade(acl.rt.destroy_stream_config_handle, config) == 0

    @rule(stream=INDEX, wrong=WRONG)
    def destroy_stream_force(self, stream, wrong):
        handle = self.pick("stream", stream)
        ret = self.facade(acl.rt.destroy_stream_force, handle, wrong=wrong)
        if wrong is None and handle == 0:
            assert ret == acl.ACL_ERROR_INVALID_PARAM

    @rule(stream=INDEX, wrong=WRONG)
    def synchronize_stream(self, stream, wrong):
        self.facade(acl.rt.synchronize_stream, self.pick("stream", stream), wrong=wrong)

    @rule(stream=INDEX, timeout=st.sampled_from([-2, -1, 0, 1]), wrong=WRONG)
    def synchronize_stream_with_timeout(self, stream, timeout, wrong):
        self.facade(acl.rt.synchronize_stream_with_timeout, self.pick("stream", stream), timeout, wrong=wrong)

    @rule(stream=INDEX, wrong=WRONG)
    def stream_query(self, stream, wrong):
        status, ret = self.facade(acl.rt.stream_query, self.pick("stream", stream), values=1, wrong=wrong)
        if ret == 0:
            assert status in (acl.ACL_STREAM_STATUS_COMPLETE, acl.ACL_STREAM_STATUS_NOT_READY)

    @rule(stream=INDEX, mode=mostly(st.integers(0, 1), st.sampled_from([-1, 2])), wrong=WRONG)
    def set_failure_mode(self, stream, mode, wrong):
        self.facade(acl.rt.set_stream_failure_mode, self.pick("stream", stream), mode, wrong=wrong)

    # -- events ---------------------------------------------------------------------------------
    @rule(flag=st.one_of(st.none(), EVENT_FLAGS), wrong=WRONG)
    def create_event(self, flag, wrong=None):
        if flag is None:
            handle, ret = self.facade(acl.rt.create_event, values=1)
        else:
            handle, ret = self.facade(acl.rt.create_event_with_flag, flag, values=1, wrong=wrong)
        if ret == 0:
            assert type(handle) is int and handle not in self.pools["event"]
            self.pools["event"].append(handle)

    @rule(event=INDEX, stream=INDEX, wrong=WRONG)
    def record_event(self, event, stream, wrong):
        self.facade(acl.rt.record_event, self.pick("event", event), self.pick("stream", stream), wrong=wrong)

    @rule(event=INDEX, stream=INDEX, wrong=WRONG)
    def reset_event(self, event, stream, wrong):
        self.facade(acl.rt.reset_event, self.pick("event", event), self.pick("stream", stream), wrong=wrong)

    @rule(stream=INDEX, event=INDEX, wrong=WRONG)
    def stream_wait_event(self, stream, event, wrong):
        self.facade(acl.rt.stream_wait_event, self.pick("stream", stream), self.pick("event", event), wrong=wrong)

    @rule(event=INDEX, wrong=WRONG)
    def synchronize_event(self, event, wrong):
        self.facade(acl.rt.synchronize_event, self.pick("event", event), wrong=wrong)

    @rule(event=INDEX, wrong=WRONG)
    def query_then_synchronize_event(self, event, wrong):
        handle = self.pick("event", event)
        status, ret = self.facade(acl.rt.query_event_status, handle, values=1, wrong=wrong)
        if ret == 0:
            assert status in (acl.ACL_EVENT_RECORDED_STATUS_COMPLETE, acl.ACL_EVENT_RECORDED_STATUS_NOT_READY)
        if ret == 0 and status == acl.ACL_EVENT_RECORDED_STATUS_COMPLETE and wrong is None:
            costs = sandbox.profile().host_costs
            before = sandbox.now()
            assert self.facade(acl.rt.synchronize_event, handle) == 0
            assert sandbox.now() - before <= costs.default + costs.synchronize, "synchronizing a completed event waited"

    @rule(event=INDEX, stream=INDEX)
    def record_synchronize_query(self, event, stream):
        """Once the stream a record went to is synchronized, the event is complete."""
        handle, stream = self.pick("event", event), self.pick("stream", stream)
        if self.facade(acl.rt.record_event, handle, stream) != 0:
            return
        if self.facade(acl.rt.synchronize_stream, stream) != 0:
            return  # a stream held for good (a value wait never met) ends in the deadlock report
        status, ret = self.facade(acl.rt.query_event_status, handle, values=1)
        assert ret == 0 and status == acl.ACL_EVENT_RECORDED_STATUS_COMPLETE, (
            "an event recorded on a synchronized stream is not complete"
        )
        self.query_then_synchronize_event(event, None)
        ms, ret = self.facade(acl.rt.event_elapsed_time, handle, handle, values=1)
        if ret == 0:
            assert ms == 0.0

    @rule(event=INDEX, wrong=WRONG)
    def event_get_timestamp(self, event, wrong):
        us, ret = self.facade(acl.rt.event_get_timestamp, self.pick("event", event), values=1, wrong=wrong)
        if ret == 0:
            assert type(us) is int and us >= 0

    @rule(start=INDEX, end=INDEX, wrong=WRONG)
    def event_elapsed_time(self, start, end, wrong):
        ms, ret = self.facade(
            acl.rt.event_elapsed_time, self.pick("event", start), self.pick("event", end), values=1, wrong=wrong
        )
        if ret == 0:
            assert isinstance(ms, float)

    @rule(event=INDEX, wrong=WRONG)
    def destroy_event(self, event, wrong):
        self.facade(acl.rt.destroy_event, self.pick("event", event), wrong=wrong)

    # -- device memory ----------------------------------------------------------------------------
    @rule(size=SIZES, policy=POLICIES, wrong=WRONG)
    def malloc(self, size, policy, wrong=None):
        ptr, ret = self.facade(acl.rt.malloc, size, policy, values=1, wrong=wrong)
        if ret == 0:
            assert type(ptr) is int and ptr not in self.live_dev, "malloc handed out a live address"
            self.live_dev[ptr] = self.m.buffer(ptr).size
            self.pools["dev"].append(ptr)
        else:
            assert ptr == 0

    @rule(
        index=INDEX, offset=st.sampled_from([0, 0, 0, 64, 1]), pool=st.sampled_from(["dev"] * 4 + ["host"]), wrong=WRONG
    )
    def free(self, index, offset, pool, wrong):
        ptr = self.pick(pool, index, offset)
        ret = self.facade(acl.rt.free, ptr, wrong=wrong)
        if wrong is None and ptr in self.live_dev:
            assert ret == 0, "freeing the start of a live allocation failed"
            del self.live_dev[ptr]
        else:
            assert ret != 0, f"freeing {ptr!r}, which is not a live allocation start, succeeded"

    @rule(units=st.integers(1, 2), attr=st.sampled_from([acl.ACL_HBM_MEM_HUGE, acl.ACL_HBM_MEM_NORMAL, 3]))
    def vmm_map(self, units, attr):
        """Physical memory mapped at a reserved range: the range is device memory for the copies."""
        prop = {"handleType": 0, "allocationType": 0, "memAttr": attr, "location": {"id": 0, "type": 1}}
        size = units * 2 * MiB
        handle, ret = self.facade(acl.rt.malloc_physical, size, prop, 0, values=1)
        if ret != 0:
            assert attr == 3 and ret == acl.ACL_ERROR_INVALID_PARAM  # a DDR kind is for host memory
            return
        va, ret = self.facade(acl.rt.reserve_mem_address, size, 0, 0, 0, values=1)
        assert ret == 0 and self.facade(acl.rt.map_mem, va, size, 0, handle, 0) == 0
        self.mapped[va] = handle
        self.pools["dev"].append(va)

    @rule(index=INDEX)
    def vmm_unmap(self, index):
        """Unmap, free and release in order: each succeeds once, and unmapping again is 107000."""
        if not self.mapped:
            return
        va = sorted(self.mapped)[index % len(self.mapped)]
        handle = self.mapped.pop(va)
        assert self.facade(acl.rt.unmap_mem, va) == 0
        assert self.facade(acl.rt.unmap_mem, va) == acl.ACL_ERROR_RT_PARAM_INVALID
        assert self.facade(acl.rt.free_physical, handle) == 0
        assert self.facade(acl.rt.release_mem_address, va) == 0

    @rule(size=mostly(st.sampled_from([1, 64, 256, 4096]), st.sampled_from([0, -1])), wrong=WRONG)
    def malloc_host(self, size, wrong=None):
        ptr, ret = self.facade(acl.rt.malloc_host, size, values=1, wrong=wrong)
        if ret == 0:
            assert type(ptr) is int and ptr % 64 == 0
            self.pools["host"].append(ptr)

    @rule(index=INDEX, offset=st.sampled_from([0, 0, 64]), wrong=WRONG)
    def free_host(self, index, offset, wrong):
        self.facade(acl.rt.free_host, self.pick("host", index, offset), wrong=wrong)

    # -- copies and memsets ---------------------------------------------------------------------
    def pointer(self, data, pool: str) -> int:
        return self.pick(pool, data.draw(INDEX), data.draw(OFFSETS))

    def dest_max(self, data, count: int) -> int:
        return data.draw(mostly(st.just(count), st.sampled_from([count + 100, max(count - 1, 0), 2**40, -1])))

    @rule(
        data=st.data(),
        pools=st.sampled_from(sorted(KIND_FOR)),
        count=COUNTS,
        kind=mostly(st.none(), st.integers(-1, 9)),
        asynchronous=st.booleans(),
        stream=INDEX,
        wrong=WRONG,
    )
    def memcpy(self, data, pools, count, kind, asynchronous, stream, wrong):
        """Mostly a kind that names the pointers' direction (or DEFAULT); sometimes any kind."""
        src_pool, dst_pool = pools
        dst, src = self.pointer(data, dst_pool), self.pointer(data, src_pool)
        if kind is None:
            kind = data.draw(st.sampled_from([KIND_FOR[pools]] * 3 + [acl.ACL_MEMCPY_DEFAULT]))
        dest_max = self.dest_max(data, count)
        if asynchronous:
            self.facade(acl.rt.memcpy_async, dst, dest_max, src, count, kind, self.pick("stream", stream), wrong=wrong)
        else:
            self.facade(acl.rt.memcpy, dst, dest_max, src, count, kind, wrong=wrong)

    @rule(
        data=st.data(),
        pool=st.sampled_from(["dev", "dev", "host", "page"]),
        count=COUNTS,
        value=st.integers(-300, 300),
        asynchronous=st.booleans(),
        stream=INDEX,
        wrong=WRONG,
    )
    def memset(self, data, pool, count, value, asynchronous, stream, wrong):
        ptr = self.pointer(data, pool)
        max_count = self.dest_max(data, count)
        if asynchronous:
            self.facade(acl.rt.memset_async, ptr, max_count, value, count, self.pick("stream", stream), wrong=wrong)
        else:
            self.facade(acl.rt.memset, ptr, max_count, value, count, wrong=wrong)

    # -- kernels --------------------------------------------------------------------------------
    @rule(
        data=st.data(),
        pool=st.sampled_from(["dev", "dev", "dev", "host"]),
        block_dim=BLOCK_DIMS,
        stream=INDEX,
        scalar=mostly(st.one_of(st.integers(-3, 3), st.floats(-2, 2)), st.sampled_from(["x", None])),
        fixed=st.booleans(),
        extra_arg=mostly(st.just(False), st.just(True)),
        wrong=WRONG,
    )
    def launch(self, data, pool, block_dim, stream, scalar, fixed, extra_arg, wrong):
        """``k[block_dim, stream](args)``; a spoiled argument may be the block_dim or the stream."""
        ptr = self.pointer(data, pool)
        stream = self.pick("stream", stream)
        if wrong is not None and wrong[0] % 4 == 0:
            block_dim, wrong = wrong[1], None
        elif wrong is not None and wrong[0] % 4 == 1:
            stream, wrong = wrong[1], None
        if fixed:
            launcher, args = fixed_time[block_dim, stream], ((ptr, 0) if extra_arg else (ptr,))
        else:
            launcher, args = bump[block_dim, stream], ((ptr,) if extra_arg else (ptr, scalar))
        self.facade(launcher, *args, wrong=wrong)

    # -- task exceptions ------------------------------------------------------------------------
    @rule(kind=st.sampled_from(["record", "raise", "none", "wrong"]))
    def set_exception_info_callback(self, kind):
        seen = self.exception_ids = getattr(self, "exception_ids", [])
        fn = {
            "record": lambda info: seen.append(acl.rt.get_error_code_from_exception_info(info)),
            "raise": lambda info: 1 // 0,
            "none": None,
            "wrong": 3,
        }[kind]
        ret = self.facade(acl.rt.set_exception_info_callback, fn)
        assert (ret != 0) == (kind == "wrong")
        # a task fails on the device with a 5xxxxx code, or 107020 when a notify wait runs out of time
        device_codes = [code for code in seen if code != acl.ACL_ERROR_RT_TASK_TIMEOUT]
        assert all(code >= 500000 and code != 0xFFFFFFFF for code in device_codes), "a callback read a bad info"

    @rule(device=DEVICE_IDS)
    def exception_queries(self, device):
        task, ret = self.facade(acl.rt.get_thread_last_task_id, values=1)
        assert ret == 0 and type(task) is int and task >= 0
        info, ret = self.facade(acl.rt.get_error_verbose, device, values=1)
        if ret == 0:
            assert info["errorType"] in (0, 0xFFFF)

    @rule(
        device=DEVICE_IDS,
        res_type=st.sampled_from([0, 1, 1, 2]),
        value=st.sampled_from([1, 8, 0, 99]),
        reset=st.booleans(),
    )
    def res_limits(self, device, res_type, value, reset):
        before, _ = self.facade(acl.rt.get_device_res_limit, device, res_type, values=1)
        ret = self.facade(acl.rt.set_device_res_limit, device, res_type, value)
        after, _ = self.facade(acl.rt.get_device_res_limit, device, res_type, values=1)
        assert after == (value if ret == 0 else before), "a refused limit changed the limit"
        if reset:
            self.facade(acl.rt.reset_device_res_limit, device)
        status, ret = self.facade(acl.rt.query_device_status, device, values=1)
        rate, ret = self.facade(acl.rt.get_device_utilization_rate, device, values=1)
        if ret == 0:
            assert 0 <= rate["cubeUtilization"] <= 100
        self.facade(acl.rt.get_res_in_current_thread, res_type, values=1)
        self.facade(acl.rt.ctx_get_current_default_stream, values=1)

    @rule(
        data=st.data(),
        stream=INDEX,
        count=st.sampled_from([4, 16, 0, 1 << 20]),
        kind=st.sampled_from([10, 10, 11]),
        dtype=st.sampled_from([0, 1, 3, 9]),
    )
    def reduce_async(self, data, stream, count, kind, dtype):
        dst, src = self.pointer(data, "dev"), self.pointer(data, "dev")
        self.facade(acl.rt.reduce_async, dst, src, count, kind, dtype, self.pick("stream", stream), 0)

    @rule(
        data=st.data(),
        stream=INDEX,
        func=st.sampled_from([0, 1, 2, 3, 4]),
        num=st.sampled_from([16, 0, 4096]),
        spoil=mostly(st.none(), st.tuples(st.sampled_from(RANDOM_MEMBERS), ODD)),
        wrong=WRONG,
    )
    def random_num_async(self, data, stream, func, num, spoil, wrong):
        """The task info as built, or with one member (or one member's member) an odd value."""
        union = {0: "dropoutBitmaskInfo", 1: "uniformDisInfo", 4: "uniformDisInfo"}.get(func, "normalDisInfo")
        names = {"dropoutBitmaskInfo": ("dropoutRation",), "uniformDisInfo": ("min", "max")}.get(
            union, ("mean", "stddev")
        )
        info = {
            "dataType": acl.ACL_FLOAT,
            "randomNumFuncParaInfo": {"funcType": func, "paramInfo": {union: dict(zip(names, (0.5, 2.0)))}},
            "randomResultAddr": self.pointer(data, "dev"),
            "randomCounterAddr": self.pointer(data, "dev"),
            "randomSeed": 1,
            "randomNum": num,
        }
        if spoil is not None:
            *path, last = spoil[0].split(".")
            inner = info
            for name in path:
                inner = inner[name] if isinstance(inner.get(name), dict) else {}
            inner[last] = spoil[1]
        self.facade(acl.rt.random_num_async, info, self.pick("stream", stream), None, wrong=wrong)

    @rule(
        data=st.data(),
        stream=INDEX,
        mode=st.sampled_from([0, 1, 2]),
        flag=st.sampled_from([0, 1, 2]),
        size=mostly(st.just(64), st.sampled_from([0, 4, 65])),
        wrong=WRONG,
    )
    def overflow_detection(self, data, stream, mode, flag, size, wrong):
        """Each call may get the spoiled argument; a refused mode or switch changes neither."""
        mode_before, _ = self.facade(acl.rt.get_device_sat_mode, values=1)
        if self.facade(acl.rt.set_device_sat_mode, mode, wrong=wrong) != 0:
            assert self.facade(acl.rt.get_device_sat_mode, values=1)[0] == mode_before, "a refused mode changed it"
        handle = self.pick("stream", stream)
        before, _ = self.facade(acl.rt.get_stream_overflow_switch, handle, values=1)
        if self.facade(acl.rt.set_stream_overflow_switch, handle, flag, wrong=wrong) != 0:
            assert self.facade(acl.rt.get_stream_overflow_switch, handle, values=1)[0] == before, "a refused switch"
        got, ret = self.facade(acl.rt.get_stream_overflow_switch, handle, values=1)
        assert ret != 0 or got in (0, 1)
        self.facade(acl.rt.get_overflow_status, self.pointer(data, "dev"), size, handle, wrong=wrong)
        self.facade(acl.rt.reset_overflow_status, handle, wrong=wrong)

    @rule(stream=INDEX, subscribe=st.booleans(), timeout=st.sampled_from([1, 0, 5]))
    def host_func_subscription(self, stream, subscribe, timeout):
        call = acl.rt.subscribe_host_func if subscribe else acl.rt.unsubscribe_host_func
        self.facade(call, threading.get_ident(), self.pick("stream", stream))
        self.facade(acl.rt.process_host_func, timeout)

    # -- notifies and value waits (core/features/notifies.py) ------------------------------------------------
    @rule(first=INDEX, second=INDEX, record_first=st.booleans(), wrong=WRONG)
    def notify_record_and_wait(self, first, second, record_first, wrong):
        """A notify recorded on one stream and waited for (1 s at most) on another, in either order."""
        notify, ret = self.facade(acl.rt.create_notify, 0, values=1)
        if ret != 0:
            return
        s1, s2 = self.pick("stream", first), self.pick("stream", second)
        calls = [(acl.rt.record_notify, notify, s1), (acl.rt.wait_and_reset_notify, notify, s2, 1)]
        for fn, *args in calls if record_first else calls[::-1]:
            self.facade(fn, *args, wrong=wrong)
        self.facade(acl.rt.synchronize_stream, s2)
        assert self.facade(acl.rt.destroy_notify, notify) == 0

    @rule(ptr=INDEX, stream=INDEX, value=st.sampled_from([0, 1, 2**64 - 1]), flag=st.integers(0, 4), wrong=WRONG)
    def value_write_then_wait(self, ptr, stream, value, flag, wrong):
        dev, s = self.pick("dev", ptr), self.pick("stream", stream)
        self.facade(acl.rt.value_write, dev, value, 0, s, wrong=wrong)
        if self.facade(acl.rt.value_wait, dev, value, flag, s) == 0 and flag in (0, 1):  # GEQ, EQ: met by the write
            self.facade(acl.rt.synchronize_stream, s)

    @rule(stream=INDEX, complete=st.booleans(), destroy_desc=st.booleans(), wrong=WRONG)
    def allocator_register_then_get(self, stream, complete, destroy_desc, wrong):
        desc = acl.rt.allocator_create_desc()  # pyACL returns the handle alone
        assert type(desc) is int and desc != 0 and acl.get_recent_err_msg() == ""
        self.facade(acl.rt.allocator_set_obj_to_desc, desc, {"owner": "test"})
        self.facade(acl.rt.allocator_set_alloc_func_to_desc, desc, bytearray)
        self.facade(acl.rt.allocator_set_free_func_to_desc, desc, max)
        if complete:
            self.facade(acl.rt.allocator_set_get_addr_from_block_func_to_desc, desc, len)
        s = self.pick("stream", stream)
        registered = self.facade(acl.rt.allocator_register, s, desc, wrong=wrong) == 0
        if destroy_desc:
            assert self.facade(acl.rt.allocator_destroy_desc, desc) == 0
        got = self.facade(acl.rt.allocator_get_by_stream, s, values=6)
        if registered:
            assert got[0] == desc and got[-1] == 0

    # -- IPC memory, notifies and events (core/features/ipc.py, core/features/events.py) ----------------------------
    def in_process(self, fn, device: int, finalize: bool):
        """Run ``fn()`` as the main function of a short simulated process (init, set_device, fn,
        maybe finalize), joined at once; an assertion or escape inside it fails the step here."""
        errors, out = [], {}

        def main():
            try:
                self.facade(acl.init)
                self.facade(acl.rt.set_device, device)
                out["value"] = fn()
                if finalize:
                    self.facade(acl.finalize)
            except BaseException as exc:  # noqa: BLE001  # re-raised in the test's thread below
                errors.append(exc)

        with warnings.catch_warnings():  # an importer that never closes leaves a leak warning at its end
            warnings.simplefilter("ignore")
            proc = sandbox.spawn_process(main, name="importer")
            proc.join()
        if errors:
            raise errors[0]
        self.ended_pids.append(proc.pid)
        assert not proc.is_alive()
        return out.get("value"), proc.pid

    def next_pid(self) -> int:
        """The pid the next spawned process gets (pids count up from 1, core/machine.py)."""
        return max(p.pid for p in self.m.processes) + 1

    @rule(
        index=INDEX,
        offset=st.sampled_from([0, 0, 0, 64]),
        size=mostly(st.sampled_from([64, 256, 4096]), st.sampled_from([0, 1 << 40])),
        length=mostly(st.just(65), st.sampled_from([0, 64])),
        flags=mostly(st.sampled_from([0, 1]), st.sampled_from([2, -1])),
        wrong=WRONG,
    )
    def ipc_mem_export(self, index, offset, size, length, flags, wrong):
        self.export_mem(index, offset, size, length, flags, wrong)

    def export_mem(self, index, offset, size, length, flags, wrong=None) -> str:
        """Export part of a live allocation (the size clipped to it, most times); its own process may not import it."""
        live = sorted(self.live_dev)
        ptr = live[-1 - index % len(live)] + offset if live and index % 8 != 7 else self.pick("dev", index, offset)
        if ptr in self.live_dev and size in (64, 256, 4096):
            size = min(size, self.live_dev[ptr])
        key, ret = self.facade(acl.rt.ipc_mem_get_export_key, ptr, size, length, flags, values=1, wrong=wrong)
        if ret == 0:
            assert type(key) is str and key not in self.ipc_keys, "an export key was handed out twice"
            self.ipc_keys.append(key)
            assert self.facade(acl.rt.ipc_mem_import_by_key, key, 0, values=1)[-1] == acl.ACL_ERROR_RT_PARAM_INVALID, (
                "the exporting process imported its own key"
            )
        else:
            assert key == ""
        return key

    def pick_key(self, index: int, kind: str = "mem"):
        keys = self.ipc_keys if kind == "mem" else self.notify_keys
        return keys[-1 - index % len(keys)] if keys and index % 8 != 7 else f"ipc_{kind}_99"

    @rule(
        index=INDEX,
        extra=st.sampled_from([[], [1], [99, 98]]),
        next_only=st.booleans(),
        num=mostly(st.none(), st.sampled_from([0, -1, 5])),
        wrong=WRONG,
    )
    def ipc_mem_set_import_pid(self, index, extra, next_only, num, wrong):
        """Allow the next process to be spawned (or not: then its import is refused with 207006)."""
        pids = ([] if next_only and extra else [self.next_pid()]) + extra
        pids = pids if num is None else pids[: max(num, 0)]  # pyACL passes the list's length as num
        self.facade(acl.rt.ipc_mem_set_import_pid, self.pick_key(index), pids, wrong=wrong)

    def expected_import(self, export, kind: str) -> int:
        """The code an import by the next process should get (core/features/ipc.py's order of checks)."""
        if not (self.m.profile.ipc_supported):
            return acl.ACL_ERROR_RT_FEATURE_NOT_SUPPORT
        if export is None or not export.alive(self.m):
            return acl.ACL_ERROR_RT_PARAM_INVALID
        if export.check_pid and self.next_pid() not in export.pids:
            return acl.ACL_ERROR_RT_NO_PERMISSION
        return 0

    @rule(
        index=INDEX,
        fresh=st.booleans(),
        allow=st.sampled_from([True, True, False]),
        device=st.sampled_from([0, 0, 1]),
        close=st.booleans(),
        finalize=st.booleans(),
        tail=st.sampled_from(["none", "none", "memset", "kernel", "twice"]),
        wrong=WRONG,
    )
    def ipc_mem_import_in_a_process(self, index, fresh, allow, device, close, finalize, tail, wrong):
        """Another process imports a key (a new one, or any): a new address of the exporter's bytes, gone at its end."""
        key = self.export_mem(index, 0, 64, 65, int(not allow)) if fresh or not self.ipc_keys else ""
        key = key or self.pick_key(index)
        export = self.m.feature(Ipc).exports.get(key)
        if allow and export is not None and export.pid == 1 and export.check_pid:
            self.facade(acl.rt.ipc_mem_set_import_pid, key, [self.next_pid()])
        expected = self.expected_import(export, "mem")
        quiet = all(not s.queue for s in self.m.streams.values())  # no task can write the bytes meanwhile

        def importer():
            q, ret = self.facade(acl.rt.ipc_mem_import_by_key, key, 0, values=1, wrong=wrong)
            if wrong is None:
                assert ret == expected or expected == 0 and ret == acl.ACL_ERROR_RT_MEMORY_ALLOCATION, (ret, expected)
            if ret != 0:
                assert q == 0
                return None
            buf = self.m.buffer(q)
            assert isinstance(buf, Imported) and buf.of is export.thing, "an import is not the exported memory"
            n = min(export.size, 64)
            got = np.zeros(n, np.uint8)
            theirs = np.zeros(n, np.uint8)  # (read_into: a dense view would fill a huge buffer on the host)
            if self.facade(acl.rt.memcpy, acl.util.numpy_to_ptr(got), n, q, n, 2) == 0 and quiet:
                export.thing.read_into(0, theirs)
                assert bytes(got) == bytes(theirs), "an import read other bytes"
            mine = ((np.arange(n) + self.m.sim.now) % 256).astype(np.uint8)
            if self.facade(acl.rt.memcpy, q, n, acl.util.numpy_to_ptr(mine), n, 1) == 0 and quiet:
                export.thing.read_into(0, theirs)
                assert bytes(theirs) == bytes(mine), "the exporter did not get an import's write"
            if tail == "twice":  # a second import is a second address; a close closes the first
                q2, ret = self.facade(acl.rt.ipc_mem_import_by_key, key, 0, values=1)
                assert ret != 0 or (q2 != q and isinstance(self.m.buffer(q2), Imported))
                if ret == 0:
                    assert self.facade(acl.rt.ipc_mem_close, key) == 0 and self.m.buffer(q) is None
                    q = q2
            elif tail != "none":  # work queued on the import that the process's end finds unfinished
                s, ret = self.facade(acl.rt.create_stream, values=1)
                if ret == 0 and tail == "memset":
                    self.facade(acl.rt.memset_async, q, n, 0xAB, n, s)
                elif ret == 0:
                    self.facade(bump[1, s], q, 1)
            if close:
                assert self.facade(acl.rt.ipc_mem_close, key) == 0
                assert self.facade(acl.rt.ipc_mem_close, key) == acl.ACL_ERROR_RT_PARAM_INVALID, "closed twice"
            return q

        q, pid = self.in_process(importer, device, finalize)
        if q is not None:
            assert not isinstance(self.m.buffer(q), Imported), "an ended process's import is still mapped"
            reported = [i for r in sandbox.trace() if isinstance(r, LeakReport) and r.pid == pid for i in r.items]
            imports = [i for i in reported if i[0] == "ipc memory"]
            expect = [] if close else [("ipc memory", device, q, export.size, f"aclrtIpcMemImportByKey {key}")]
            assert imports == expect, f"the importer's leak report lists {imports}, not {expect}"

    @rule(index=INDEX, wrong=WRONG)
    def ipc_mem_close_export(self, index, wrong):
        self.facade(acl.rt.ipc_mem_close, self.pick_key(index), wrong=wrong)

    @rule(flag=st.sampled_from([0, 0, 2, 1]), wrong=WRONG)
    def notify_export(self, flag, wrong):
        self.export_notify(flag, wrong)

    def export_notify(self, flag, wrong=None) -> str:
        notify, ret = self.facade(acl.rt.create_notify, 0, values=1)
        if ret != 0:
            return ""
        key, ret = self.facade(acl.rt.notify_get_export_key, notify, 65, flag, values=1, wrong=wrong)
        if ret == 0:
            assert type(key) is str and key not in self.notify_keys
            self.notify_keys.append(key)
        return key

    @rule(index=INDEX, extra=st.sampled_from([[], [1]]), num=mostly(st.none(), st.sampled_from([0, 5])), wrong=WRONG)
    def notify_set_import_pid(self, index, extra, num, wrong=None):
        export = self.m.feature(Ipc).exports.get(self.pick_key(index, "notify"))
        pids = [self.next_pid(), *extra]
        notify = export.thing if export else self.pick("dev", index)  # (a pointer is no notify handle)
        self.facade(acl.rt.notify_set_import_pid, notify, pids if num is None else pids[:num], wrong=wrong)

    @rule(
        index=INDEX,
        fresh=st.booleans(),
        allow=st.sampled_from([True, True, False]),
        device=st.sampled_from([0, 0, 1]),
        stream=INDEX,
        destroy=st.booleans(),
        waits_here=st.booleans(),
        finalize=st.booleans(),
        wrong=WRONG,
    )
    def notify_import_in_a_process(self, index, fresh, allow, device, stream, destroy, waits_here, finalize, wrong):
        """Another process imports a notify and records it, the exporter then waiting for it; or the
        exporter records it first and the importer waits (for 1 s at most) for it."""
        key = self.export_notify(0) if fresh or not self.notify_keys else ""
        key = key or self.pick_key(index, "notify")
        export = self.m.feature(Ipc).exports.get(key)
        if allow and export is not None and export.pid == 1 and export.check_pid:
            self.facade(acl.rt.notify_set_import_pid, export.thing, [self.next_pid()])
        expected = self.expected_import(export, "notify")

        def importer():
            n, ret = self.facade(acl.rt.notify_import_by_key, key, 0, values=1, wrong=wrong)
            if wrong is None:
                assert ret == expected, (ret, expected)
            if ret != 0:
                return None
            s, ret = self.facade(acl.rt.create_stream, values=1)
            call = (acl.rt.wait_and_reset_notify, n, s, 1) if waits_here else (acl.rt.record_notify, n, s)
            recorded = ret == 0 and self.facade(*call) == 0
            recorded = recorded and self.facade(acl.rt.synchronize_stream, s) == 0 and not waits_here
            if destroy:
                assert self.facade(acl.rt.destroy_notify, n) == 0
                assert export.thing in notifies.state(self.m).notifies, "destroying an import destroyed the exporter's"
            elif recorded and self.facade(acl.rt.reset_device, device) == 0:  # its context's end frees it
                assert n not in notifies.state(self.m).notifies, "an imported notify outlived the importer's context"
                self.facade(acl.rt.set_device, device)
            return n, recorded

        s = self.pick("stream", stream)
        if waits_here and export is not None:
            self.facade(acl.rt.record_notify, export.thing, s)
        got, _ = self.in_process(importer, device, finalize)
        if got is None:
            return
        n, recorded = got
        assert n not in notifies.state(self.m).notifies, "an ended process's imported notify is still alive"
        if recorded and self.facade(acl.rt.wait_and_reset_notify, export.thing, s, 1) == 0:
            self.facade(acl.rt.synchronize_stream, s)

    @rule(
        index=INDEX,
        ipc=st.booleans(),
        where=st.sampled_from(["self", "process", "process"]),
        device=st.sampled_from([0, 1]),
        act=st.sampled_from(["record", "record", "unsynchronized", "wait"]),
        finalize=st.booleans(),
        wrong=WRONG,
    )
    def ipc_event_share(self, index, ipc, where, device, act, finalize, wrong):
        """An IPC event's handle, opened by its own process or another, which records it (and
        synchronizes, or ends with the record queued) or waits for it; a synchronized record there
        completes it here, and nothing the other process left behind hangs a wait here."""
        if ipc:
            self.create_event_ex(acl.ACL_EVENT_IPC)
        get_wrong, open_wrong = (wrong, None) if index % 2 else (None, wrong)  # (one call gets a spoiled argument)
        handle, ret = self.facade(acl.rt.ipc_get_event_handle, self.pick("event", index), values=1, wrong=get_wrong)
        if ret != 0:
            assert handle is None
            return
        assert type(handle) is bytes and len(handle) == acl.ACL_IPC_EVENT_HANDLE_SIZE
        if where == "self":
            event, ret = self.facade(acl.rt.ipc_open_event_handle, handle, values=1, wrong=open_wrong)
            if ret == 0:
                self.pools["event"].append(event)
            return

        def opener():
            event, ret = self.facade(acl.rt.ipc_open_event_handle, handle, values=1, wrong=open_wrong)
            if ret != 0:
                return None
            s, ret = self.facade(acl.rt.create_stream, values=1)
            if ret != 0 or act == "wait":
                if ret == 0 and self.facade(acl.rt.stream_wait_event, s, event) == 0:
                    self.facade(acl.rt.synchronize_stream, s)
                return event, False
            done = self.facade(acl.rt.record_event, event, s) == 0
            return event, done and act == "record" and self.facade(acl.rt.synchronize_stream, s) == 0

        source = self.pick("event", index)
        got, _ = self.in_process(opener, device, finalize)
        if got is not None:
            assert got[0] not in self.m.events, "an ended process's opened event is still alive"
        if got is not None and got[1] and source in self.m.events:
            status, ret = self.facade(acl.rt.query_event_status, source, values=1)
            assert ret == 0 and status == acl.ACL_EVENT_RECORDED_STATUS_COMPLETE, "a record in another process was lost"
        elif got is not None and source in self.m.events:
            self.facade(acl.rt.synchronize_event, source)  # complete, or a code: never a hang

    def create_event_ex(self, flag):
        handle, ret = self.facade(acl.rt.create_event_ex_with_flag, flag, values=1)
        if ret == 0:
            self.pools["event"].append(handle)

    # -- profiling (core/features/profiling.py) --------------------------------------------------------------
    @rule(
        data_types=st.sampled_from([acl.ACL_PROF_TASK_TIME | acl.ACL_PROF_MSPROFTX, acl.ACL_PROF_ACL_API, 0, 0x401]),
        stream=INDEX,
        wrong=WRONG,
    )
    def profile_a_synchronize(self, data_types, stream, wrong):
        """A collection around a synchronize: every profiling call keeps its codes, and a started
        collection is written once, into one folder (in a directory of its own, removed afterwards)."""
        with tempfile.TemporaryDirectory() as out:
            assert self.facade(acl.prof.init, out) == 0
            config = acl.prof.create_config([0], 0, 0, data_types)  # pyACL returns the handle alone
            assert type(config) is int and config != 0 and acl.get_recent_err_msg() == ""
            started = self.facade(acl.prof.start, config, wrong=wrong)
            self.facade(acl.rt.synchronize_stream, self.pick("stream", stream))
            stopped = self.facade(acl.prof.stop, config)
            assert self.facade(acl.prof.finalize) == 0
            assert self.facade(acl.prof.destroy_config, config) == 0
            written = [name for name in os.listdir(out) if name.startswith("PROF_")]
            assert len(written) == (started == 0)  # by the stop, or else by the finalize
            assert stopped in (0, acl.ACL_ERROR_PROF_MODULES_UNSUPPORTED, acl.ACL_ERROR_INVALID_PROFILING_CONFIG)
            if data_types == 0x401:  # a bit outside the supported set
                assert started in (acl.ACL_ERROR_PROF_MODULES_UNSUPPORTED, acl.ACL_ERROR_INVALID_PARAM)

    # -- invariants -----------------------------------------------------------------------------
    @invariant()
    def ended_processes_hold_nothing(self):
        """A process's end closes what it imported and exported and frees the rest (core/features/ipc.py)."""
        ipc = self.m.feature_in_use(Ipc)
        for pid in self.ended_pids:
            assert leaks.items(self.m, pid) == (), f"ended process {pid} still holds {leaks.items(self.m, pid)}"
            assert not any(i[1] == pid for i in (ipc.imports if ipc else ())), f"ended process {pid} kept an import"

    @invariant()
    def leak_report_lists_the_live_ipc_exports(self):
        """The main process's IPC memory in the leak report is exactly its open exports of live memory."""
        ipc = self.m.feature_in_use(Ipc)
        exports = ipc.exports.items() if ipc else ()
        alive = sorted(k for k, e in exports if e.size and e.pid == 1 and not e.closed and not e.thing.freed)
        listed = sorted(d.split()[-1] for p, kind, *_, d in sandbox.leak_report(1).items if kind == "ipc memory")
        assert listed == alive

    @invariant()
    def allocator_registrations_belong_to_live_streams(self):
        for handle in self.m.feature(Allocators).registered:
            assert handle in self.m.streams and self.m.streams[handle].alive, "a registration outlived its stream"

    @invariant()
    def allocator_is_consistent(self):
        for dev in self.m.devices:
            mem = dev.memory
            lo, hi = mem.base, mem.base + mem.size
            free_total, prev_end = 0, None
            for start, length in mem.free_ranges:
                assert length > 0, "empty free range"
                assert lo <= start and start + length <= hi, "free range outside the device"
                if prev_end is not None:
                    assert start > prev_end, "free ranges unsorted, overlapping or not coalesced"
                prev_end = start + length
                free_total += length
            blocks = []
            for ptr, alloc in mem.allocations.items():
                assert ptr == alloc.ptr == alloc.block and not alloc.freed
                assert ptr % 64 == 0, f"allocation {ptr:#x} is not 64-byte aligned"
                assert alloc.reserved % PAGE_SIZES[alloc.page] == 0, "reserved size not whole pages"
                assert alloc.reserved >= alloc.size > 0
                assert lo <= ptr and ptr + alloc.reserved <= hi
                blocks.append((ptr, ptr + alloc.reserved))
                assert self.m.buffer(ptr) is alloc and self.m.buffer(ptr + alloc.size - 1) is alloc
            vm = self.m.feature_in_use(VmmState)  # physical allocations (aclrtMallocPhysical) take memory too
            held = {id(x.phys): x.phys for x in ([*vm.handles.values(), *vm.mappings.values()] if vm else [])}
            physical = [(p.ptr, p.ptr + p.size) for p in held.values() if p.device == dev.index]
            total = free_total + sum(a.reserved for a in mem.allocations.values()) + sum(e - s for s, e in physical)
            assert total == mem.size
            spans = sorted(blocks + physical + [(s, s + n) for s, n in mem.free_ranges])
            for (_, end), (start, _) in zip(spans, spans[1:]):
                assert end <= start, "allocations overlap each other or free memory"

    @invariant()
    def allocations_match_the_model(self):
        live = {p: a.size for d in self.m.devices for p, a in d.memory.allocations.items()}
        assert live == self.live_dev

    @invariant()
    def stream_queues_hold_unfinished_tasks_in_order(self):
        for stream in self.m.streams.values():
            ids = [t.id for t in stream.queue]
            assert ids == sorted(ids) and len(set(ids)) == len(ids), "stream queue out of submission order"
            for task in stream.queue:
                assert not task.done, f"finished {task!r} still queued"
                self.seen_tasks.setdefault(task.id, task)
        for tid, task in self.seen_tasks.items():
            if task.done:
                self.done_ids.add(tid)
        for tid in self.done_ids:
            assert self.seen_tasks[tid].done, f"task {tid} became unfinished again"

    @invariant()
    def time_only_moves_forward(self):
        clock = sandbox.now()
        assert type(clock) is int
        assert clock >= self.last_clock, f"the thread's clock went back from {self.last_clock} to {clock}"
        sim_now = self.m.sim.now
        assert type(sim_now) is int and sim_now >= self.last_sim, "device time went backwards"
        assert sim_now <= clock, "the device side ran ahead of the only host thread"
        self.last_clock, self.last_sim = clock, sim_now


FacadeMachine.TestCase.settings = settings(
    max_examples=100,
    stateful_step_count=50,
    deadline=None,
    derandomize=True,
    database=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)
test_random_facade_call_sequences_keep_the_runtime_consistent = FacadeMachine.TestCase


# -- rules the state machine once broke, reduced to one call sequence each -------------------------
@pytest.fixture
def stream0():
    sandbox.configure("ascend910b", device_count=2)
    assert acl.init() == 0
    assert acl.rt.set_device(0) == 0
    stream, ret = acl.rt.create_stream()
    assert ret == 0
    return stream


def test_a_record_after_a_reset_is_not_undone_by_the_reset(stream0):
    event, ret = acl.rt.create_event_with_flag(acl.ACL_EVENT_SYNC)
    assert ret == 0
    assert acl.rt.reset_event(event, stream0) == 0
    assert acl.rt.record_event(event, stream0) == 0
    assert acl.rt.synchronize_stream(stream0) == 0
    assert acl.rt.query_event_status(event) == (acl.ACL_EVENT_RECORDED_STATUS_COMPLETE, 0)


@pytest.mark.parametrize("stream", [[1], {}])
def test_a_kernel_launch_on_an_unhashable_stream_returns_a_code(stream0, stream):
    ptr, ret = acl.rt.malloc(1024, acl.ACL_MEM_MALLOC_HUGE_FIRST)
    assert ret == 0
    assert bump[1, stream](ptr, 1) == acl.ACL_ERROR_INVALID_PARAM
    assert acl.get_recent_err_msg()


def test_a_negative_kernel_time_never_runs_device_time_backwards(stream0):
    @sandbox.kernel(ns=-10_000_000)
    def backwards(x: sandbox.ptr(np.uint8)):
        pass

    ptr, ret = acl.rt.malloc(1024, acl.ACL_MEM_MALLOC_HUGE_FIRST)
    assert ret == 0
    ret = backwards[1, stream0](ptr)
    assert ret in KNOWN_CODES
    acl.rt.synchronize_stream(stream0)
    started = {r.task: r.t for r in sandbox.trace() if isinstance(r, TaskStarted)}
    for r in sandbox.trace():
        if isinstance(r, TaskFinished):
            assert r.t >= started[r.task], f"task {r.task} finished {started[r.task] - r.t} ns before it started"


@pytest.mark.parametrize(
    "spec",
    [{"ns": float("nan")}, {"flops": float("inf")}, {"ns": lambda x: 1 // 0}, {"bytes": "many"}],
    ids=["ns-nan", "flops-inf", "ns-raises", "bytes-str"],
)
def test_a_kernel_cost_that_is_not_a_time_fails_with_a_code(stream0, spec):
    @sandbox.kernel(**spec)
    def costly(x: sandbox.ptr(np.uint8)):
        pass

    ptr, ret = acl.rt.malloc(1024, acl.ACL_MEM_MALLOC_HUGE_FIRST)
    assert ret == 0
    try:
        rets = [costly[1, stream0](ptr), acl.rt.synchronize_stream(stream0)]
    except Exception as exc:
        pytest.fail(f"{type(exc).__name__} escaped the facade: {exc}")
    assert all(r in KNOWN_CODES for r in rets) and any(rets)
