"""IPC notifies between simulated processes (core/features/ipc.py, core/features/notifies.py): export keys, pid
allow-lists, imported handles of the same flag, and the hazard clocks across the processes."""

import warnings

import numpy as np
import pytest

import sandbox
from sandbox import acl

from conftest import dev_alloc

pytestmark = pytest.mark.filterwarnings("ignore::sandbox.LeakWarning")
NO_PID_CHECK = 2  # ACL_RT_NOTIFY_EXPORT_FLAG_DISABLE_PID_VALIDATION


def start(fn, device=0, name="B", out=None):
    """Start ``fn()`` in a new simulated process with acl.init and ``device`` set."""
    out = {} if out is None else out

    def main():
        acl.init()
        acl.rt.set_device(device)
        out["value"] = fn()

    return sandbox.spawn_process(main, name=name)


def in_process(fn, device=0, name="B"):
    out = {}
    start(fn, device, name, out).join()
    return out["value"]


def wait_for(name):
    while (value := sandbox.read_shared(name)) is None:
        sandbox.host_work(100_000, "usleep")
    return value


def exported_notify(flags=NO_PID_CHECK):
    notify, ret = acl.rt.create_notify(0)
    assert ret == 0
    key, ret = acl.rt.notify_get_export_key(notify, 65, flags)
    assert ret == 0, acl.get_recent_err_msg()
    return notify, key


@sandbox.kernel(ns=10_000)
def store(x: sandbox.ptr(np.int32, count=1), value: int):
    x[0] = value


def test_an_imported_notify_is_the_same_flag_a_record_in_one_process_releases_a_wait_in_the_other(device0):
    notify, key = exported_notify()
    assert acl.rt.wait_and_reset_notify(notify, device0, 0) == 0

    def b():
        imported, ret = acl.rt.notify_import_by_key(key, 0)
        sandbox.host_work(1_000_000_000, "usleep")
        acl.rt.record_notify(imported, 0)
        return ret, acl.rt.synchronize_device()

    p = start(b, out=(out := {}))
    assert acl.rt.synchronize_stream(device0) == 0
    assert sandbox.now() > 1_000_000_000  # released by B's record, a second later
    p.join()
    assert out["value"] == (0, 0)


def test_notify_keys_count_up_and_are_the_same_on_every_run(device0):
    assert [exported_notify()[1] for _ in range(2)] == ["ipc_notify_1", "ipc_notify_2"]


def test_with_the_default_flag_only_a_pid_on_the_notify_allow_list_imports_else_207006(device0):
    notify, key = exported_notify(flags=0)
    assert in_process(lambda: acl.rt.notify_import_by_key(key, 0)) == (0, acl.ACL_ERROR_RT_NO_PERMISSION)
    assert acl.rt.notify_set_import_pid(notify, [3]) == 0
    handle, ret = in_process(lambda: acl.rt.notify_import_by_key(key, 0))
    assert ret == 0 and handle not in (0, notify)


def test_disable_pid_validation_lets_any_process_import_and_refuses_an_allow_list_with_207006(device0):
    notify, key = exported_notify(flags=NO_PID_CHECK)
    assert in_process(lambda: acl.rt.notify_import_by_key(key, 0))[1] == 0
    assert acl.rt.notify_set_import_pid(notify, [2]) == acl.ACL_ERROR_RT_NO_PERMISSION


def test_an_allow_list_of_a_notify_without_a_key_is_107000_and_num_0_too(device0):
    notify, _ = acl.rt.create_notify(0)
    assert acl.rt.notify_set_import_pid(notify, [2]) == acl.ACL_ERROR_RT_PARAM_INVALID
    exported, _ = exported_notify(flags=0)
    assert acl.rt.notify_set_import_pid(exported, []) == acl.ACL_ERROR_RT_PARAM_INVALID


def test_a_null_notify_or_pid_list_or_key_is_the_acl_layers_100000(device0):
    assert acl.rt.notify_get_export_key(0, 65, 0) == ("", acl.ACL_ERROR_INVALID_PARAM)
    assert acl.rt.notify_set_import_pid(0, [2]) == acl.ACL_ERROR_INVALID_PARAM
    notify, _ = exported_notify(flags=0)
    assert acl.rt.notify_set_import_pid(notify, None) == acl.ACL_ERROR_INVALID_PARAM
    assert acl.rt.notify_import_by_key(None, 0) == (0, acl.ACL_ERROR_INVALID_PARAM)


@pytest.mark.parametrize("length, flags", [(0, 0), (64, 0), (65, 1), (65, 3)])
def test_export_refuses_a_zero_or_short_len_and_flags_other_than_0_or_2_with_107000(device0, length, flags):
    notify, _ = acl.rt.create_notify(0)
    assert acl.rt.notify_get_export_key(notify, length, flags) == ("", acl.ACL_ERROR_RT_PARAM_INVALID)


def test_a_notify_is_exported_once_and_only_by_its_creator_107000(device0):
    notify, key = exported_notify()
    assert acl.rt.notify_get_export_key(notify, 65, 0)[1] == acl.ACL_ERROR_RT_PARAM_INVALID

    def b():
        imported, _ = acl.rt.notify_import_by_key(key, 0)
        return acl.rt.notify_get_export_key(imported, 65, 0)[1]

    assert in_process(b) == acl.ACL_ERROR_RT_PARAM_INVALID


def test_an_unknown_key_or_the_exporters_own_import_is_107000(device0):
    notify, key = exported_notify()
    assert acl.rt.notify_import_by_key(key, 0) == (0, acl.ACL_ERROR_RT_PARAM_INVALID)
    assert in_process(lambda: acl.rt.notify_import_by_key("ipc_notify_7", 0)) == (0, acl.ACL_ERROR_RT_PARAM_INVALID)
    assert in_process(lambda: acl.rt.notify_import_by_key("ipc_mem_1", 0)) == (0, acl.ACL_ERROR_RT_PARAM_INVALID)


def test_import_flags_above_3_are_107000_and_download_to_device_is_207000(device0):
    notify, key = exported_notify()
    assert in_process(lambda: acl.rt.notify_import_by_key(key, 4)) == (0, acl.ACL_ERROR_RT_PARAM_INVALID)
    assert in_process(lambda: acl.rt.notify_import_by_key(key, 1)) == (0, acl.ACL_ERROR_RT_FEATURE_NOT_SUPPORT)
    assert in_process(lambda: acl.rt.notify_import_by_key(key, 2))[1] == 0  # ENABLE_PEER_ACCESS


def test_once_the_exporter_destroys_its_notify_the_key_dies_but_imported_handles_keep_the_flag(device0):
    notify, key = exported_notify()

    def b():
        imported, _ = acl.rt.notify_import_by_key(key, 0)
        sandbox.write_shared("imported", 1)
        wait_for("destroyed")
        acl.rt.record_notify(imported, 0)
        acl.rt.wait_and_reset_notify(imported, 0, 1)
        return acl.rt.synchronize_device(), acl.rt.destroy_notify(imported)

    p = start(b, out=(out := {}))
    wait_for("imported")
    assert acl.rt.destroy_notify(notify) == 0
    sandbox.write_shared("destroyed", 1)
    p.join()
    assert out["value"] == (0, 0)
    assert in_process(lambda: acl.rt.notify_import_by_key(key, 0)) == (0, acl.ACL_ERROR_RT_PARAM_INVALID)


def test_a_process_that_ends_without_destroying_its_imported_notify_has_the_handle_released(device0):
    notify, key = exported_notify()
    handle, ret = in_process(lambda: acl.rt.notify_import_by_key(key, 0))
    assert ret == 0
    assert acl.rt.record_notify(handle, device0) == acl.ACL_ERROR_INVALID_PARAM  # gone with its process
    assert acl.rt.record_notify(notify, device0) == 0  # the exporter's own handle lives on


def test_an_imported_notify_is_made_in_the_importers_context_on_its_device_and_dies_with_it(device0):
    notify, key = exported_notify()

    def b():
        imported, ret = acl.rt.notify_import_by_key(key, 0)
        assert ret == 0
        listed = [i for i in sandbox.leak_report(acl.rt.device_get_bare_tgid()[0]).items if i[1] == "notify"]
        assert acl.rt.reset_device(1) == 0 and acl.rt.set_device(1) == 0
        return listed, acl.rt.destroy_notify(imported)

    listed, destroyed = in_process(b, device=1)
    assert [i[2] for i in listed] == [1]  # the importer's device, as ApiImpl::IpcOpenNotify makes it
    assert destroyed == acl.ACL_ERROR_INVALID_PARAM  # its context's end freed it, as it frees the notifies made there
    assert acl.rt.record_notify(notify, device0) == 0  # the exporter's notify lives on


def test_the_key_of_a_process_that_ended_no_longer_imports(machine):
    def a():
        sandbox.write_shared("key", exported_notify()[1])

    in_process(a, name="A")
    key = sandbox.read_shared("key")
    assert in_process(lambda: acl.rt.notify_import_by_key(key, 0)) == (0, acl.ACL_ERROR_RT_PARAM_INVALID)


def test_a_record_in_another_process_orders_its_earlier_work_before_the_work_behind_the_wait(device0):
    """The IPC notify samples: A waits, then reads; B, later, writes, then records."""
    notify, key = exported_notify()
    ptr = dev_alloc(1 << 20)
    mem_key, _ = acl.rt.ipc_mem_get_export_key(ptr, 1 << 20, 65, 1)
    acl.rt.wait_and_reset_notify(notify, device0, 0)
    store[1, device0](ptr, 1)  # behind the wait: after B's record

    def b():
        imported, _ = acl.rt.notify_import_by_key(key, 0)
        q, _ = acl.rt.ipc_mem_import_by_key(mem_key, 0)
        s, _ = acl.rt.create_stream()
        store[1, s](q, 2)
        acl.rt.record_notify(imported, s)
        return acl.rt.synchronize_stream(s)

    with warnings.catch_warnings():
        warnings.simplefilter("error", sandbox.HazardWarning)
        assert in_process(b) == 0
        assert acl.rt.synchronize_stream(device0) == 0
        assert acl.rt.free(ptr) == 0  # A knows B's store is done: it came before A's store
    assert sandbox.hazards() == []


def test_work_in_another_process_that_its_record_does_not_order_is_still_a_race(device0):
    notify, key = exported_notify()
    ptr = dev_alloc(1 << 20)
    mem_key, _ = acl.rt.ipc_mem_get_export_key(ptr, 1 << 20, 65, 1)
    acl.rt.wait_and_reset_notify(notify, device0, 0)
    store[1, device0](ptr, 1)

    def b():
        imported, _ = acl.rt.notify_import_by_key(key, 0)
        q, _ = acl.rt.ipc_mem_import_by_key(mem_key, 0)
        s, _ = acl.rt.create_stream()
        acl.rt.record_notify(imported, s)
        store[1, s](q, 2)  # after the record: nothing orders it with A's store
        return acl.rt.synchronize_stream(s)

    with pytest.warns(sandbox.HazardWarning, match="kernel store"):
        in_process(b)
    acl.rt.synchronize_stream(device0)
    assert "stream_race" in [h.kind for h in sandbox.hazards()]


def test_a_chip_without_ipc_refuses_notify_keys_with_207000():
    sandbox.configure("ascend310b")
    acl.init()
    acl.rt.set_device(0)
    notify, _ = acl.rt.create_notify(0)
    assert acl.rt.notify_get_export_key(notify, 65, 0) == ("", acl.ACL_ERROR_RT_FEATURE_NOT_SUPPORT)
    assert acl.rt.notify_import_by_key("ipc_notify_1", 0) == (0, acl.ACL_ERROR_RT_FEATURE_NOT_SUPPORT)
