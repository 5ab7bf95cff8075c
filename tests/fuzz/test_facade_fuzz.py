"""Every facade function, called with random valid and invalid arguments: nothing escapes.

The Hypothesis state machine (test_stateful_facade.py) checks the core calls deeply; this
sweep is broad instead: every public function of acl.rt, acl.mdl, acl.util, acl.media and acl.prof,
including callbacks, graphs and pools, with handles it was given back, plain ints and wrong types
(in a temporary working directory: a profiling start creates its result path).
Each call must return, or raise what pyACL's own argument parsing raises (a TypeError or
ValueError naming the ``acl.`` function: None for a pointer, a wrong argument count), and every
non-zero code must be a documented one (or the msproftx calls' -1, PROFILING_FAILED).
"""

from __future__ import annotations

import inspect
import random
import threading
import warnings

import numpy as np
import pytest

import sandbox
from sandbox import acl
from sandbox.acl import _binding
from sandbox.core.errors import ALL_CODES

KNOWN = set(ALL_CODES.values())
_UNMODELLED = "sandbox.acl._unmodelled"
SKIP = {"start_thread", "stop_thread"}  # they start real threads that wait for work
WRONG = [None, "x", 1.5, 2**70, [1], {}, True, -1]


def facade_functions():
    found = []
    for module in (acl.rt, acl.mdl, acl.util, acl.media, acl.prof):
        for name, fn in inspect.getmembers(module, inspect.isfunction):
            # (the refusals of calls the sandbox does not model, acl/_unmodelled.py, are swept as well)
            if not name.startswith("_") and fn.__module__ in (module.__name__, _UNMODELLED) and name not in SKIP:
                found.append((f"{module.__name__.split('.')[-1]}.{name}", fn))
    return found


def make_args(rng, name, fn, handles):
    def one():
        r = rng.random()
        if r < 0.5 and handles:
            return rng.choice(handles)
        if r < 0.75:
            return rng.choice([0, 1, 2, 3, 4, 7, 64, 4096, 1 << 20])
        return rng.choice(WRONG)

    fact = _binding.FACTS.get(name)
    params = inspect.signature(fn).parameters
    count = fact.args[1] if fact is not None and fn.__module__ == _UNMODELLED else len(params)
    args = [one() for _ in range(count)]
    if name == "rt.launch_callback":
        args[0] = rng.choice([lambda data: None, None, 3])
    elif name == "rt.launch_host_func":
        args[1] = rng.choice([lambda data: None, None, 3])
    elif name in ("rt.subscribe_report", "rt.subscribe_host_func"):
        args[0] = rng.choice([threading.get_ident(), 5, None])
    elif name in ("rt.process_report", "rt.process_host_func"):
        args = [rng.choice([1, 0, 5, "x"])]  # never -1: nothing would ever arrive
    elif name == "rt.mem_pool_create":
        args = [
            rng.choice([{}, None, {"allocType": 0, "handleType": 0, "location": {"id": 0, "type": 1}, "maxSize": 0}])
        ]
    elif name == "rt.wait_and_reset_notify":  # the edges of its uint32 seconds
        args[2] = rng.choice([0, 1, 2**32 - 1, 2**32, -1, None])
    elif name in ("rt.value_write", "rt.value_wait"):  # flags and values at the edges of their ranges
        args[1:3] = [rng.choice([0, 1, 2**64 - 1, 2**64, -1]), rng.choice([0, 1, 3, 4])]
    elif name == "rt.reg_stream_state_callback":  # (stream stop/abort and Ex events take random handles as they are)
        args[0] = rng.choice(["fuzz", "other", None, 3])
        args[1] = rng.choice([lambda s, state, a: None, lambda s, state, a: 1 / 0, None, 3])
    elif name == "util.numpy_to_ptr":
        args = [rng.choice([np.zeros(64, np.uint8), "x", None])]
    return args


@pytest.mark.parametrize("seed", range(8))
def test_no_python_exception_escapes_any_facade_function(seed, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    rng = random.Random(seed)
    functions = facade_functions()
    assert len(functions) > 60
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # hazard and leak warnings are expected here
        for _ in range(8):
            sandbox.configure(rng.choice(["ascend910b", "ascend310b", "ascend310p"]), device_count=2)
            acl.init()
            acl.rt.set_device(0)
            handles = []
            for _ in range(120):
                name, fn = rng.choice(functions)
                args = make_args(rng, name, fn, handles)
                try:
                    out = fn(*args)
                except (TypeError, ValueError) as exc:
                    if not str(exc).startswith("acl."):  # not the binding's argument parsing
                        pytest.fail(f"acl.{name}{tuple(args)!r} raised {type(exc).__name__}: {exc}")
                    continue
                except Exception as exc:
                    pytest.fail(f"acl.{name}{tuple(args)!r} raised {type(exc).__name__}: {exc}")
                values = out if isinstance(out, tuple) else (out,)
                fact = _binding.FACTS.get(name)
                if fact is not None and fact.code is None:
                    pass  # pyACL returns no code here (a bare handle or size)
                elif isinstance(out, tuple) or isinstance(out, int):
                    ret = values[-1] if fact is None else values[fact.code]
                    if (
                        isinstance(ret, int)
                        and not isinstance(ret, bool)
                        and name.split(".")[0] != "util"
                        and not name.endswith("_from_exception_info")
                        and not name.endswith("_data_type")  # an aclDataType (-1: undefined), not a code
                    ):  # a uint32 value, no code
                        tx = name.startswith("prof.") and ret == -1  # msproftx's PROFILING_FAILED
                        assert ret == 0 or ret in KNOWN or tx, f"acl.{name} returned undocumented {ret}"
                for v in values:
                    if isinstance(v, int) and not isinstance(v, bool) and v > 1000 and len(handles) < 40:
                        handles.append(v)
