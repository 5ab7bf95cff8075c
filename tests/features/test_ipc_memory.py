"""IPC memory between simulated processes (core/features/ipc.py): export keys, pid allow-lists, imports,
close in the importer and the exporter, and what a process's end releases."""

import warnings

import numpy as np
import pytest

import sandbox
from sandbox import acl
from sandbox.core import trace as T

from conftest import dev_alloc

pytestmark = pytest.mark.filterwarnings("ignore::sandbox.LeakWarning")  # most importers here never close
MiB = 1 << 20
H2D, D2H = acl.ACL_MEMCPY_HOST_TO_DEVICE, acl.ACL_MEMCPY_DEVICE_TO_HOST
NO_PID_CHECK = 1  # ACL_RT_IPC_MEM_EXPORT_FLAG_DISABLE_PID_VALIDATION


def start(fn, device=0, name="B", finalize=True, out=None):
    """Start ``fn()`` in a new simulated process with acl.init and ``device`` set."""
    out = {} if out is None else out

    def main():
        acl.init()
        acl.rt.set_device(device)
        out["value"] = fn()
        if finalize:
            acl.rt.reset_device(device)
            acl.finalize()

    return sandbox.spawn_process(main, name=name)


def in_process(fn, device=0, name="B", finalize=True):
    """Run ``fn()`` in a new simulated process (``start``) to its end; its result."""
    out = {}
    start(fn, device, name, finalize, out).join()
    return out["value"]


def put(ptr, values):
    a = np.asarray(values, np.int32)
    assert acl.rt.memcpy(ptr, a.nbytes, acl.util.numpy_to_ptr(a), a.nbytes, H2D) == 0


def get(ptr, n=4):
    a = np.zeros(n, np.int32)
    assert acl.rt.memcpy(acl.util.numpy_to_ptr(a), a.nbytes, ptr, a.nbytes, D2H) == 0
    return a.tolist()


def exported(size=MiB, flags=NO_PID_CHECK):
    ptr = dev_alloc(size)
    key, ret = acl.rt.ipc_mem_get_export_key(ptr, size, 65, flags)
    assert ret == 0, acl.get_recent_err_msg()
    return ptr, key


def test_an_import_is_a_second_address_of_the_same_bytes_both_ways(device0):
    ptr, key = exported()
    put(ptr, [1, 2, 3, 4])

    def b():
        q, ret = acl.rt.ipc_mem_import_by_key(key, 0)
        seen = get(q)
        put(q, [5, 6, 7, 8])
        return q, ret, seen

    q, ret, seen = in_process(b)
    assert ret == 0 and q != ptr and seen == [1, 2, 3, 4]
    assert get(ptr) == [5, 6, 7, 8]


def test_keys_count_up_per_kind_and_are_the_same_on_every_run(device0):
    keys = [exported()[1] for _ in range(3)]
    assert keys == ["ipc_mem_1", "ipc_mem_2", "ipc_mem_3"]


def test_with_the_default_flag_only_a_pid_on_the_allow_list_imports_else_207006(device0):
    ptr, key = exported(flags=0)
    assert in_process(lambda: acl.rt.ipc_mem_import_by_key(key, 0)) == (0, acl.ACL_ERROR_RT_NO_PERMISSION)
    assert acl.rt.ipc_mem_set_import_pid(key, [3]) == 0  # the next process started is pid 3
    q, ret = in_process(lambda: acl.rt.ipc_mem_import_by_key(key, 0))
    assert ret == 0 and q != 0


def test_disable_pid_validation_lets_any_process_import_and_takes_no_allow_list(device0):
    ptr, key = exported(flags=NO_PID_CHECK)
    assert in_process(lambda: acl.rt.ipc_mem_import_by_key(key, 0))[1] == 0
    assert acl.rt.ipc_mem_set_import_pid(key, [2]) == acl.ACL_ERROR_RT_NO_PERMISSION


def test_only_the_exporting_process_sets_the_allow_list_else_207006(device0):
    ptr, key = exported(flags=0)
    assert in_process(lambda: acl.rt.ipc_mem_set_import_pid(key, [2])) == acl.ACL_ERROR_RT_NO_PERMISSION


def test_an_allow_list_needs_at_least_one_pid_107000_and_a_list_100000(device0):
    ptr, key = exported(flags=0)
    assert acl.rt.ipc_mem_set_import_pid(key, []) == acl.ACL_ERROR_RT_PARAM_INVALID
    assert acl.rt.ipc_mem_set_import_pid(key, None) == acl.ACL_ERROR_INVALID_PARAM


def test_an_unknown_key_is_107000_for_import_allow_list_and_close(device0):
    assert in_process(lambda: acl.rt.ipc_mem_import_by_key("ipc_mem_9", 0)) == (0, acl.ACL_ERROR_RT_PARAM_INVALID)
    assert acl.rt.ipc_mem_set_import_pid("nope", [2]) == acl.ACL_ERROR_RT_PARAM_INVALID
    assert acl.rt.ipc_mem_close("nope") == acl.ACL_ERROR_RT_PARAM_INVALID


def test_a_null_key_or_dev_ptr_is_the_acl_layers_100000(device0):
    assert acl.rt.ipc_mem_import_by_key(None, 0) == (0, acl.ACL_ERROR_INVALID_PARAM)
    assert acl.rt.ipc_mem_close(None) == acl.ACL_ERROR_INVALID_PARAM
    assert acl.rt.ipc_mem_get_export_key(0, MiB, 65, 0) == ("", acl.ACL_ERROR_INVALID_PARAM)


def test_the_exporting_process_cannot_import_its_own_key_107000(device0):
    ptr, key = exported()
    assert acl.rt.ipc_mem_import_by_key(key, 0) == (0, acl.ACL_ERROR_RT_PARAM_INVALID)


@pytest.mark.parametrize("size, length, flags", [(0, 65, 0), (MiB, 0, 0), (MiB, 64, 0), (MiB, 65, 2), (2 * MiB, 65, 0)])
def test_export_refuses_a_zero_size_or_len_a_short_len_an_unknown_flag_or_a_size_past_the_end_107000(
    device0, size, length, flags
):
    ptr = dev_alloc(MiB)
    assert acl.rt.ipc_mem_get_export_key(ptr, size, length, flags) == ("", acl.ACL_ERROR_RT_PARAM_INVALID)


def test_export_needs_the_start_of_an_allocation_of_the_calling_process(device0):
    ptr, key = exported()
    assert acl.rt.ipc_mem_get_export_key(ptr + 64, 64, 65, 0)[1] == acl.ACL_ERROR_RT_PARAM_INVALID

    def b():
        q, _ = acl.rt.ipc_mem_import_by_key(key, 0)
        return acl.rt.ipc_mem_get_export_key(q, MiB, 65, 0)[1], acl.rt.ipc_mem_get_export_key(ptr, MiB, 65, 0)[1]

    assert in_process(b) == (acl.ACL_ERROR_RT_PARAM_INVALID, acl.ACL_ERROR_RT_PARAM_INVALID)


def test_import_flags_above_enable_peer_access_are_107000(device0):
    ptr, key = exported()
    assert in_process(lambda: acl.rt.ipc_mem_import_by_key(key, 2)) == (0, acl.ACL_ERROR_RT_PARAM_INVALID)


def test_closing_twice_is_107000_in_the_importer_and_in_the_exporter(device0):
    ptr, key = exported()
    assert in_process(
        lambda: (acl.rt.ipc_mem_import_by_key(key, 0)[1], acl.rt.ipc_mem_close(key), acl.rt.ipc_mem_close(key))
    ) == (0, 0, acl.ACL_ERROR_RT_PARAM_INVALID)
    assert acl.rt.ipc_mem_close(key) == 0
    assert acl.rt.ipc_mem_close(key) == acl.ACL_ERROR_RT_PARAM_INVALID


def test_a_process_may_import_a_key_twice_and_close_takes_the_first_import(device0):
    ptr, key = exported()

    def b():
        q1, _ = acl.rt.ipc_mem_import_by_key(key, 0)
        q2, _ = acl.rt.ipc_mem_import_by_key(key, 0)
        assert q1 != q2
        assert acl.rt.ipc_mem_close(key) == 0
        return acl.rt.memset(q1, 4, 0, 4), acl.rt.memset(q2, 4, 9, 4)

    assert in_process(b) == (acl.ACL_ERROR_RT_PARAM_INVALID, 0)  # q1 is unmapped, q2 still maps the bytes
    assert get(ptr, 1) == [0x09090909]


def test_after_the_exporter_closes_no_process_imports_but_imports_made_stay_valid(device0):
    ptr, key = exported()
    seen = {}

    def b():
        q, _ = acl.rt.ipc_mem_import_by_key(key, 0)
        sandbox.write_shared("imported", 1)
        while sandbox.read_shared("closed") is None:
            sandbox.host_work(100_000)
        seen["after"] = get(q, 1)

    p = start(b)
    while sandbox.read_shared("imported") is None:
        sandbox.host_work(100_000)
    put(ptr, [42])
    assert acl.rt.ipc_mem_close(key) == 0
    sandbox.write_shared("closed", 1)
    p.join()
    assert seen["after"] == [42]
    assert in_process(lambda: acl.rt.ipc_mem_import_by_key(key, 0)) == (0, acl.ACL_ERROR_RT_PARAM_INVALID)


def test_an_import_whose_exporter_freed_the_memory_keeps_its_bytes_and_the_key_dies(device0):
    ptr, key = exported()
    put(ptr, [7])
    seen = {}

    def b():
        q, _ = acl.rt.ipc_mem_import_by_key(key, 0)
        sandbox.write_shared("imported", 1)
        while sandbox.read_shared("freed") is None:
            sandbox.host_work(100_000)
        seen["value"] = get(q, 1)

    p = start(b)
    while sandbox.read_shared("imported") is None:
        sandbox.host_work(100_000)
    assert acl.rt.free(ptr) == 0
    sandbox.write_shared("freed", 1)
    p.join()
    assert seen["value"] == [7]
    assert in_process(lambda: acl.rt.ipc_mem_import_by_key(key, 0)) == (0, acl.ACL_ERROR_RT_PARAM_INVALID)


def test_an_import_whose_exporter_ended_without_closing_keeps_working_and_the_exporter_leaked_its_key(machine):
    def a():
        ptr, key = exported()
        put(ptr, [11])
        sandbox.write_shared("key", key)  # and end: no close, no free, no finalize

    with pytest.warns(sandbox.LeakWarning, match="IPC shared memory"):
        in_process(a, name="A", finalize=False)
    key = sandbox.read_shared("key")
    assert in_process(lambda: acl.rt.ipc_mem_import_by_key(key, 0)) == (0, acl.ACL_ERROR_RT_PARAM_INVALID)
    leak = next(r for r in sandbox.trace().records if isinstance(r, T.LeakReport))
    assert [i[0] for i in leak.items] == ["allocation", "ipc memory"]


def test_a_process_that_ends_without_closing_has_its_imports_unmapped_and_reported_as_leaks(device0):
    ptr, key = exported()
    with pytest.warns(sandbox.LeakWarning, match=r"release with aclrtIpcMemClose"):
        q = in_process(lambda: acl.rt.ipc_mem_import_by_key(key, 0)[0], finalize=False)
    freed = [r for r in sandbox.trace().records if isinstance(r, T.MemFreed) and r.ptr == q]
    assert len(freed) == 1 and freed[0].api_seq == 0  # released at process end, by no call
    assert acl.rt.ipc_mem_close(key) == 0  # the exporter closes as usual
    assert acl.rt.free(ptr) == 0


def test_the_leak_report_lists_an_unclosed_export_and_import_with_aclrtIpcMemClose_as_the_fix(device0):
    ptr, key = exported()
    text = str(sandbox.leak_report())
    assert "IPC shared memory (1; release with aclrtIpcMemClose)" in text and f"aclrtIpcMemGetExportKey {key}" in text
    acl.rt.ipc_mem_close(key)
    assert "IPC shared memory" not in str(sandbox.leak_report())


def test_aclrtFree_of_an_imported_address_is_207002_release_it_with_close(device0):
    ptr, key = exported()

    def b():
        q, _ = acl.rt.ipc_mem_import_by_key(key, 0)
        return acl.rt.free(q), acl.get_recent_err_msg(), acl.rt.ipc_mem_close(key), acl.rt.free(q)

    ret, msg, closed, again = in_process(b)
    assert ret == acl.ACL_ERROR_RT_MEMORY_FREE and "aclrtIpcMemClose" in msg
    assert closed == 0 and again == acl.ACL_ERROR_INVALID_PARAM  # the sample's free after close: unmapped


def test_the_trace_shows_an_import_as_memory_of_the_importing_process_on_its_device(device0):
    ptr, key = exported()
    q = in_process(lambda: acl.rt.ipc_mem_import_by_key(key, 0)[0], device=1)
    rec = next(r for r in sandbox.trace().records if isinstance(r, T.MemAllocated) and r.ptr == q)
    assert (rec.pid, rec.device, rec.size, rec.policy) == (2, 1, MiB, f"IPC import of {key}")


def test_the_hazard_checks_see_an_import_and_its_memory_as_one_buffer(device0):
    ptr, key = exported()
    put(ptr, [0])

    @sandbox.kernel(ns=10_000)
    def bump(x: sandbox.ptr(np.int32, count=1)):
        x[0] += 1

    bump[1, device0](ptr)  # queued, not synchronized: the other process cannot know it is done

    def b():
        q, _ = acl.rt.ipc_mem_import_by_key(key, 0)
        s, _ = acl.rt.create_stream()
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            bump[1, s](q)
        return [str(w.message) for w in caught]

    (message,) = in_process(b)
    assert message.count("(kernel bump)") == 2 and [h.kind for h in sandbox.hazards()] == ["stream_race"]


def test_a_shared_value_teaches_the_reader_what_the_writer_had_synchronized_and_nothing_more(device0):
    ptr, key = exported()

    @sandbox.kernel(ns=10_000)
    def touch(x: sandbox.ptr(np.int32, count=1)):
        x[0] += 1

    touch[1, device0](ptr)
    acl.rt.synchronize_stream(device0)
    sandbox.write_shared("key", key)  # after the synchronize: the reader knows the kernel is done

    def b():
        q, _ = acl.rt.ipc_mem_import_by_key(sandbox.read_shared("key"), 0)
        touch[1, 0](q)
        acl.rt.synchronize_device()

    in_process(b)
    assert sandbox.hazards() == []
    touch[1, device0](ptr)  # this one the next reader was not told about
    sandbox.write_shared("key2", key)
    with pytest.warns(sandbox.HazardWarning):
        in_process(lambda: touch[1, 0](acl.rt.ipc_mem_import_by_key(sandbox.read_shared("key2"), 0)[0]))


def test_a_chip_without_ipc_refuses_every_ipc_memory_call_with_207000():
    sandbox.configure("ascend310b")
    acl.init()
    acl.rt.set_device(0)
    ptr = dev_alloc(MiB)
    assert acl.rt.ipc_mem_get_export_key(ptr, MiB, 65, 0) == ("", acl.ACL_ERROR_RT_FEATURE_NOT_SUPPORT)
    assert acl.rt.ipc_mem_close("ipc_mem_1") == acl.ACL_ERROR_RT_FEATURE_NOT_SUPPORT


def test_ipc_calls_out_of_order_fail_and_change_nothing(device0):
    assert acl.rt.ipc_mem_set_import_pid("ipc_mem_1", [2]) == acl.ACL_ERROR_RT_PARAM_INVALID  # before export
    ptr, key = exported(flags=0)
    before = len(sandbox.trace().records)
    assert in_process(lambda: acl.rt.ipc_mem_import_by_key(key, 0)[1]) == acl.ACL_ERROR_RT_NO_PERMISSION
    assert not [r for r in sandbox.trace().records[before:] if isinstance(r, T.MemAllocated)]
    assert acl.rt.ipc_mem_set_import_pid(key, [3]) == 0  # the allow-list after a refused import
    assert in_process(lambda: acl.rt.ipc_mem_import_by_key(key, 0)[1]) == 0


def test_an_import_needs_a_current_context_107002(device0):
    ptr, key = exported()

    def b():
        acl.rt.reset_device(0)
        return acl.rt.ipc_mem_import_by_key(key, 0)

    assert in_process(b, finalize=False) == (0, acl.ACL_ERROR_RT_CONTEXT_NULL)


def test_an_import_after_the_importer_reset_its_device_is_no_use_after_reset(device0):
    ptr, key = exported()

    def b():
        acl.rt.reset_device(0)
        acl.rt.set_device(0)
        q, _ = acl.rt.ipc_mem_import_by_key(key, 0)
        get(q)

    in_process(b)
    assert sandbox.hazards() == []
