"""Arguments of the wrong kind: a code and a message, never a traceback, never an address.

Regression tests for: messages that embedded object addresses (so traces differed run to
run), numpy arrays where a pointer or size is expected, and the argument gaps of kernels,
sandbox.host_work, sandbox.configure and acl.util.
"""

from __future__ import annotations

import inspect
import os
import re
import subprocess
import sys
import textwrap
import threading
import warnings

import numpy as np
import pytest

import sandbox
from sandbox import acl
from sandbox.core.errors import AclError, describe
from sandbox.core.features.kernels import MAX_KERNEL_NS
from callback_server import Server

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
ADDRESS = re.compile(r"0x[0-9a-fA-F]{6,}")
INVALID = acl.ACL_ERROR_INVALID_PARAM


# -- messages name objects without addresses -----------------------------------------------------
MESSAGES_SCRIPT = textwrap.dedent(r"""
    import sys
    sys.path.insert(0, sys.argv[1])
    import numpy as np
    import sandbox
    from sandbox import acl

    def on_done(data):
        pass

    class Foo:
        def method(self):
            pass

    out = []
    def note(ret):
        out.append(f"{ret} | {acl.get_recent_err_msg()}")

    sandbox.configure()
    acl.init()
    acl.rt.set_device(0)
    s, _ = acl.rt.create_stream()
    note(acl.rt.launch_host_func(on_done, s, None))           # the arguments swapped
    note(acl.rt.malloc(object(), 0)[1])
    note(acl.rt.launch_callback(Foo(), None, 0, s))
    note(acl.rt.set_device(lambda: 0))
    note(acl.rt.get_last_error(Foo().method))
    note(acl.rt.free([on_done]))
    note(acl.rt.memset(np.array([1, 2, 3]), 8, 0, 8))
    note(acl.rt.mem_pool_create({"allocType": object(), "location": {"id": 0, "type": 1}})[1])
    note(acl.util.stop_thread(Foo()))
    acl.util.ptr_to_numpy(acl.rt.malloc_host(64)[0], 4, Foo)
    note("util")
    for bad in (lambda: sandbox.inject_fault(object()), lambda: sandbox.configure(Foo())):
        try:
            bad()
        except ValueError as exc:
            out.append(str(exc))
    print("\n".join(out))
""")


def test_messages_name_function_and_object_arguments_without_addresses_alike_in_every_process():
    runs = []
    for seed in ("1", "2"):
        env = {**os.environ, "PYTHONHASHSEED": seed}
        done = subprocess.run(
            [sys.executable, "-c", MESSAGES_SCRIPT, ROOT], capture_output=True, text=True, env=env, timeout=120
        )
        assert done.returncode == 0, done.stderr
        runs.append(done.stdout)
    assert runs[0] == runs[1]
    text = runs[0]
    assert not ADDRESS.search(text), text
    assert " at 0x" not in text and "object at" not in text
    for expected in (
        "stream must be an int, got function on_done",
        "size must be an int, got an object",
        "fn must be callable, got a Foo object",
        "got function <lambda>",
        "got method Foo.method",
        "got a list of 1 item",
        "an ndarray of shape (3,) and dtype int64",
        "class Foo",
        "unknown profile a Foo object",
    ):
        assert expected in text, (expected, text)


def test_describe_keeps_plain_values_readable_and_names_other_objects_by_type():
    def on_done(data):
        pass

    assert [describe(v) for v in (None, True, 7, 1.5, "x", [1, 2], {"a": 1})] == [
        "None",
        "True",
        "7",
        "1.5",
        "'x'",
        "a list [1, 2]",
        "a dict {'a': 1}",
    ]
    assert describe(on_done) == "function on_done"
    assert describe(np.zeros(3)) == "an ndarray of shape (3,) and dtype float64"
    assert describe(np.int64(5)) == "numpy.int64 5"
    assert describe(object()) == "an object"
    assert describe({1, 2}) == "a set of 2 items"  # a set's order follows hashes: not shown
    assert describe(10**5000) == f"an int of {(10**5000).bit_length()} bits"  # no 5000-digit message
    assert describe("y" * 500).endswith("(500 characters)")
    for value in (object(), on_done, [object()], lambda: 0, threading.Lock(), np.array([object()])):
        assert not ADDRESS.search(describe(value))


# -- numpy arrays and numpy integers --------------------------------------------------------------
def test_numpy_arrays_where_a_pointer_or_size_is_expected_return_invalid_param(device0):
    ptr, _ = acl.rt.malloc(64, 0)
    host, _ = acl.rt.malloc_host(64)
    arr = np.array([1, 2])
    calls = {
        "free": lambda: acl.rt.free(arr),
        "free_host": lambda: acl.rt.free_host(arr),
        "memcpy": lambda: acl.rt.memcpy(arr, 64, host, 64, acl.ACL_MEMCPY_HOST_TO_DEVICE),
        "memcpy src": lambda: acl.rt.memcpy(ptr, 64, arr, 64, acl.ACL_MEMCPY_HOST_TO_DEVICE),
        "memcpy_async": lambda: acl.rt.memcpy_async(arr, 64, host, 64, acl.ACL_MEMCPY_HOST_TO_DEVICE, device0),
        "memset": lambda: acl.rt.memset(arr, 64, 0, 64),
        "memset_async": lambda: acl.rt.memset_async(arr, 64, 0, 64, device0),
        "memset count": lambda: acl.rt.memset(ptr, 64, 0, arr),
        "mem_pool_free_async": lambda: acl.rt.mem_pool_free_async(arr, device0),
        "get_last_error": lambda: acl.rt.get_last_error(arr),
        "peek_at_last_error": lambda: acl.rt.peek_at_last_error(np.array([])),
    }
    for name, fn in calls.items():
        assert fn() == INVALID, name
        assert "an ndarray of shape" in acl.get_recent_err_msg(), name


def _facade_functions():
    found = []
    for module in (acl, acl.rt, acl.mdl, acl.util):
        for name, fn in inspect.getmembers(module, inspect.isfunction):
            if (
                not name.startswith("_")
                and fn.__module__ == module.__name__
                and name not in ("start_thread", "stop_thread", "finalize")
            ):
                found.append((f"{module.__name__}.{name}", fn))
    return found


def test_every_facade_function_given_a_numpy_array_in_any_position_returns_or_refuses_as_pyacl_parsing_does():
    functions = _facade_functions()
    assert len(functions) > 70
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for name, fn in functions:
            params = list(inspect.signature(fn).parameters)
            for pos in range(len(params)):
                for bad in (np.array([1, 2]), np.array([]), np.array(3.5)):
                    sandbox.configure("ascend910b", device_count=2)
                    acl.init()
                    acl.rt.set_device(0)
                    s, _ = acl.rt.create_stream()
                    p, _ = acl.rt.malloc(64, 0)
                    args = [
                        p if "ptr" in pname or pname in ("dst", "src") else s if "stream" in pname else 1
                        for pname in params
                    ]
                    if name.endswith(("launch_host_func", "launch_callback")):
                        args[1 if name.endswith("host_func") else 0] = lambda data: None
                    args[pos] = bad
                    try:
                        fn(*args)
                    except (TypeError, ValueError) as exc:  # the binding's own refusal (acl.util.bytes_to_ptr)
                        if not str(exc).startswith("acl."):
                            pytest.fail(f"{name} with {describe(bad)} as {params[pos]} raised {exc!r}")
                    except Exception as exc:  # noqa: BLE001 - what the test is about
                        pytest.fail(f"{name} with {describe(bad)} as {params[pos]} raised {type(exc).__name__}: {exc}")


def test_a_numpy_integer_scalar_is_a_valid_int(device0):
    i = np.int64
    assert acl.rt.set_device(i(0)) == 0
    s, ret = acl.rt.create_stream_with_config(np.int8(0), i(0))
    assert ret == 0
    dev, ret = acl.rt.malloc(i(64), np.int32(0))
    assert ret == 0
    host, ret = acl.rt.malloc_host(np.uint32(64))
    assert ret == 0
    acl.util.ptr_to_numpy(host, (16,), np.float32)[:] = 2.0
    assert acl.rt.memcpy(i(dev), i(64), np.uint64(host), i(64), i(acl.ACL_MEMCPY_HOST_TO_DEVICE)) == 0
    assert acl.rt.memset_async(i(dev), i(64), i(0), i(32), i(s)) == 0
    assert acl.rt.memcpy_async(np.uint64(host), 64, i(dev), 64, acl.ACL_MEMCPY_DEVICE_TO_HOST, s) == 0
    assert acl.rt.synchronize_stream(i(s)) == 0
    view = acl.util.ptr_to_numpy(i(host), i(16), np.float32)
    assert list(view[:9]) == [0.0] * 8 + [2.0]

    @sandbox.kernel(ns=1000)
    def scale(x: sandbox.ptr(np.float32), n):
        x[:n] *= 3

    assert scale[i(2), i(s)](i(dev), i(16)) == 0
    assert acl.rt.get_last_error(i(0)) == 0
    pool, ret = acl.rt.mem_pool_create(
        {
            "allocType": i(acl.ACL_MEM_ALLOCATION_TYPE_PINNED),
            "handleType": i(0),
            "location": {"id": i(0), "type": i(acl.ACL_MEM_LOCATION_TYPE_DEVICE)},
            "maxSize": i(0),
        }
    )
    assert ret == 0, acl.get_recent_err_msg()
    block, ret = acl.rt.mem_pool_malloc_async(i(64), i(pool), i(s))
    assert ret == 0
    assert acl.rt.mem_pool_free_async(i(block), i(s)) == 0
    server = Server()
    assert acl.rt.subscribe_report(i(server.thread.ident), s) == 0
    assert acl.rt.unsubscribe_report(i(server.thread.ident), s) == 0
    server.join()
    assert sandbox.inject_fault("dma_error", device=i(0), after=i(1)) >= 1
    assert acl.rt.synchronize_stream(s) == 0
    assert acl.rt.free(i(dev)) == 0 and acl.rt.free_host(i(host)) == 0


# -- other argument gaps ----------------------------------------------------------------------------
def test_numpy_to_ptr_of_an_array_of_python_objects_returns_invalid_param(machine):
    assert acl.util.numpy_to_ptr(np.array([object()])) == 0
    assert "holds Python objects" in acl.get_recent_err_msg()
    sandbox.raise_on_error(True)
    with pytest.raises(AclError) as caught:
        acl.util.numpy_to_ptr(np.array([1, "x", None], dtype=object))
    assert caught.value.code == INVALID


def test_ptr_to_numpy_with_a_shape_numpy_cannot_make_returns_invalid_param(device0):
    host, _ = acl.rt.malloc_host(64)
    for shape in ((0, 2**70), (1,) * 100):
        assert acl.util.ptr_to_numpy(host, shape, np.uint8) is None
        assert "numpy cannot make an array of shape" in acl.get_recent_err_msg()
    assert acl.util.ptr_to_numpy(host, (0, 5), np.uint8).shape == (0, 5)  # empty views still work
    sandbox.raise_on_error(True)
    with pytest.raises(AclError) as caught:
        acl.util.ptr_to_numpy(host, (1,) * 100, np.uint8)
    assert caught.value.code == INVALID


def test_a_kernel_launch_configuration_other_than_block_dim_and_stream_returns_invalid_param(device0):
    @sandbox.kernel(ns=1000)
    def k(x: sandbox.ptr(np.float32)):
        x[:] = 1

    ptr, _ = acl.rt.malloc(64, 0)
    tasks_before = len(list(sandbox.trace()))
    for config in ((), (1, device0, 5), (1, device0, 0, 0)):
        assert k[config](ptr) == INVALID
        assert "a launch is k[block_dim] or k[block_dim, stream]" in acl.get_recent_err_msg()
    assert not [r for r in list(sandbox.trace())[tasks_before:] if type(r).__name__ == "TaskSubmitted"]
    assert k[1, device0](ptr) == 0 and k[(1, device0)](ptr) == 0 and acl.rt.synchronize_stream(device0) == 0
    assert k[2](ptr) == 0 and k[(1,)](ptr) == 0 and acl.rt.synchronize_device() == 0


def test_constant_kernel_cost_figures_that_are_not_numbers_up_to_an_hour_fail_the_launch(device0):
    ptr, _ = acl.rt.malloc(64, 0)
    t0 = sandbox.now()
    for figures in (
        dict(ns=1e300),
        dict(ns=MAX_KERNEL_NS + 1),
        dict(ns=10**400),
        dict(ns=True),
        dict(flops="10"),
        dict(bytes=float("inf")),
        dict(flops=-1),
        dict(bytes=[64]),
    ):
        k = sandbox.kernel(lambda x: None, name="k", **figures)  # declaring it is fine ...
        assert k[1, device0](ptr) == INVALID, figures  # ... launching it is not
        assert "kernel k" in acl.get_recent_err_msg()
    assert sandbox.kernel(lambda x: None, ns=MAX_KERNEL_NS)[1, device0](ptr) == 0  # an hour is allowed
    assert acl.rt.synchronize_stream(device0) == 0
    assert sandbox.now() - t0 <= MAX_KERNEL_NS + 10**9


def test_a_launch_whose_figures_are_not_numbers_or_would_take_over_an_hour_returns_invalid_param(device0):
    ptr, _ = acl.rt.malloc(64, 0)
    t0 = sandbox.now()
    kernels = [
        sandbox.kernel(lambda x: None, name="flops", flops=1e308),
        sandbox.kernel(lambda x: None, name="bytes", bytes=1e300),
        sandbox.kernel(lambda x: None, name="ns_bool", ns=lambda x: True),
        sandbox.kernel(lambda x: None, name="ns_str", ns=lambda x: "10"),
        sandbox.kernel(lambda x: None, name="ns_long", ns=lambda x: 2 * MAX_KERNEL_NS),
    ]
    for k in kernels:
        assert k[1, device0](ptr) == INVALID, k.name
        assert f"kernel {k.name}" in acl.get_recent_err_msg()
    assert acl.rt.synchronize_stream(device0) == 0
    assert sandbox.now() - t0 < 10**9  # virtual time never jumped
    assert max(r.t for r in sandbox.trace() if hasattr(r, "t")) < 10**12


def test_host_work_longer_than_an_hour_returns_invalid_param_inside_a_callback_too(device0):
    t0 = sandbox.now()
    assert sandbox.host_work(2**80) == INVALID
    assert "one hour" in acl.get_recent_err_msg()
    assert sandbox.now() - t0 < 10**9
    rets = []
    server = Server()
    acl.rt.subscribe_report(server.thread.ident, device0)
    acl.rt.launch_callback(lambda data: rets.append(sandbox.host_work(2**80)), None, acl.ACL_CALLBACK_BLOCK, device0)
    assert acl.rt.synchronize_stream(device0) == 0
    server.join()
    assert rets == [INVALID]
    assert sandbox.now() - t0 < 10**10
    assert sandbox.host_work(3_000_000) == 0  # a sane duration still works


def test_configure_refuses_a_device_count_that_is_not_an_int():
    for count in (1.5, True, "2", [2]):
        with pytest.raises(TypeError, match="device_count must be an int"):
            sandbox.configure(device_count=count)
    sandbox.configure(device_count=np.int64(2))
    assert acl.init() == 0
    assert acl.rt.get_device_count() == (2, 0)


def test_a_block_dim_of_0_or_above_65535_is_the_runtimes_107000(device0):
    @sandbox.kernel(ns=1000)
    def k(x: "uint8*"):
        pass

    buf, _ = acl.rt.malloc(64, 0)
    assert k[0, device0](buf) == acl.ACL_ERROR_RT_PARAM_INVALID == 107000
    assert k[65536, device0](buf) == 107000
    assert "65535" in acl.get_recent_err_msg()
    assert k[65535, device0](buf) == 0


def test_an_int_whose_conversion_raises_is_the_callers_100000_with_its_call_record(device0):
    class Hostile(int):
        def __int__(self):
            raise RuntimeError("no")

    before = len(sandbox.trace().records)
    assert acl.rt.malloc(Hostile(64), 0) == (0, INVALID)
    assert "whose int() raised RuntimeError" in acl.get_recent_err_msg()
    names = [type(r).__name__ for r in sandbox.trace().records[before:]]
    assert names[-2:] == ["ErrorRaised", "ApiCall"]  # refused as a call, its record written
    other = threading.Thread(target=lambda: acl.rt.set_device(0))
    other.start()
    other.join()  # the turn goes on to another thread as after any call
