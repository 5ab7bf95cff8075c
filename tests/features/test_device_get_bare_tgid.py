"""aclrtDeviceGetBareTgid: the calling process's id, the one IPC allow-lists take."""

import sandbox
from sandbox import acl


def test_bare_tgid_is_the_calling_process_pid_as_the_trace_numbers_it(machine):
    seen = {}

    def child():
        acl.init()
        seen["child"] = acl.rt.device_get_bare_tgid()
        acl.finalize()

    sandbox.spawn_process(child, name="B").join()
    assert acl.rt.device_get_bare_tgid() == (1, 0)
    assert seen["child"] == (2, 0)
    started = {r.name: r.pid for r in sandbox.trace().records if type(r).__name__ == "ProcessStarted"}
    assert started["B"] == 2


def test_bare_tgid_works_before_acl_init_as_runtime_calls_do():
    sandbox.configure("ascend910b")
    assert acl.rt.device_get_bare_tgid() == (1, 0)
