"""Virtual memory management and shareable handles (core/features/vmm.py, acl/_vmm_props.py): one rule per test."""

from __future__ import annotations

import warnings

import numpy as np
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import sandbox
from sandbox import acl
from sandbox.core import trace as T

MiB = 1 << 20
GRAN = 2 * MiB


def prop(attr=acl.ACL_HBM_MEM_HUGE, device=0, **over):
    p = {
        "handleType": acl.ACL_MEM_HANDLE_TYPE_NONE,
        "allocationType": acl.ACL_MEM_ALLOCATION_TYPE_PINNED,
        "location": {"type": acl.ACL_MEM_LOCATION_TYPE_DEVICE, "id": device},
        "memAttr": attr,
    }
    p.update(over)
    return p


def rw(device=0):
    return {"flags": acl.ACL_RT_MEM_ACCESS_FLAGS_READWRITE, "location": {"type": 1, "id": device}}


def physical(size=GRAN, **kw):
    handle, ret = acl.rt.malloc_physical(size, prop(**kw), 0)
    assert ret == 0, acl.get_recent_err_msg()
    return handle


def reserve(size=GRAN):
    va, ret = acl.rt.reserve_mem_address(size, 0, 0, 0)
    assert ret == 0, acl.get_recent_err_msg()
    return va


def mapped(size=GRAN):
    handle, va = physical(size), reserve(size)
    assert acl.rt.map_mem(va, size, 0, handle, 0) == 0, acl.get_recent_err_msg()
    return handle, va


def read_int(va):
    host, _ = acl.rt.malloc_host(4)
    assert acl.rt.memcpy(host, 4, va, 4, acl.ACL_MEMCPY_DEVICE_TO_HOST) == 0, acl.get_recent_err_msg()
    value = int(acl.util.ptr_to_numpy(host, (1,), np.int32)[0])
    acl.rt.free_host(host)
    return value


def live_blocks(device=0):
    alive = {}
    for r in sandbox.trace().records:
        if isinstance(r, T.MemAllocated) and r.device == device:
            alive[r.ptr] = r
        elif isinstance(r, T.MemFreed) and r.device == device:
            alive.pop(r.ptr, None)
    return alive


# -- granularity and physical allocations -------------------------------------------------------------------
def test_granularity_is_2_mib_and_1_gib_for_the_huge1g_attributes(device0):
    assert acl.rt.mem_get_allocation_granularity(prop(acl.ACL_HBM_MEM_NORMAL), 0) == (GRAN, 0)
    assert acl.rt.mem_get_allocation_granularity(prop(acl.ACL_MEM_HUGE), 1) == (GRAN, 0)
    assert acl.rt.mem_get_allocation_granularity(prop(acl.ACL_HBM_MEM_HUGE1G), 0) == (1 << 30, 0)


def test_an_unknown_granularity_option_is_107000(device0):
    assert acl.rt.mem_get_allocation_granularity(prop(), 0xFFFF) == (0, 107000)


def test_the_acl_layer_refuses_ddr_attributes_for_device_memory_with_100000(device0):
    assert acl.rt.malloc_physical(GRAN, prop(acl.ACL_DDR_MEM_HUGE), 0) == (0, 100000)
    assert acl.rt.mem_get_allocation_granularity(prop(acl.ACL_DDR_MEM_NORMAL), 0) == (0, 100000)


def test_malloc_physical_checks_handle_type_allocation_type_and_flags_with_100000(device0):
    assert acl.rt.malloc_physical(GRAN, prop(handleType=acl.ACL_MEM_HANDLE_TYPE_POSIX), 0)[1] == 100000
    assert acl.rt.malloc_physical(GRAN, prop(allocationType=1), 0)[1] == 100000
    assert acl.rt.malloc_physical(GRAN, prop(), 1)[1] == 100000
    assert acl.rt.malloc_physical(0, prop(), 0)[1] == 100000


def test_host_physical_memory_is_not_modelled_207000(device0):
    p = prop(location={"type": acl.ACL_MEM_LOCATION_TYPE_HOST, "id": 0})
    assert acl.rt.malloc_physical(GRAN, p, 0)[1] == 207000


def test_a_physical_allocation_on_a_device_that_does_not_exist_is_107001(device0):
    assert acl.rt.malloc_physical(GRAN, prop(device=99), 0)[1] == 107001


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(size=st.integers(1, 9 * GRAN))
def test_a_physical_allocation_takes_its_size_rounded_up_to_the_granularity(device0, size):
    before = acl.rt.get_mem_info(acl.ACL_HBM_MEM)[0]
    handle = physical(size)
    taken = -(-size // GRAN) * GRAN
    assert before - acl.rt.get_mem_info(acl.ACL_HBM_MEM)[0] == taken
    block = live_blocks()[max(live_blocks())]
    assert (block.size, block.reserved, block.policy) == (size, taken, "aclrtMallocPhysical")
    assert acl.rt.free_physical(handle) == 0
    assert acl.rt.get_mem_info(acl.ACL_HBM_MEM)[0] == before


def test_1_gib_pages_where_the_chip_has_none_are_207000():
    sandbox.configure("ascend310p")
    acl.init()
    acl.rt.set_device(0)
    assert acl.rt.malloc_physical(1 << 30, prop(acl.ACL_HBM_MEM_HUGE1G), 0)[1] == 207000


def test_freeing_a_handle_twice_is_107017(device0):
    handle = physical()
    assert acl.rt.free_physical(handle) == 0
    assert acl.rt.free_physical(handle) == 107017


# -- reservations and mappings ------------------------------------------------------------------------------
def test_reserve_takes_alignment_0_and_flags_0_or_1(device0):
    assert acl.rt.reserve_mem_address(GRAN, 4096, 0, 0) == (0, 107000)
    assert acl.rt.reserve_mem_address(GRAN, 0, 0, 2) == (0, 100000)
    assert acl.rt.reserve_mem_address(GRAN, 0, 0x6000_0000_0000, 0) == (0, 207000)
    va, ret = acl.rt.reserve_mem_address(GRAN, 0, 0, 1)
    assert ret == 0 and va % GRAN == 0


def test_a_reserved_range_has_no_bytes_behind_it(device0):
    va = reserve()
    assert acl.rt.memset(va, 16, 1, 16) == 107000


def test_mapped_addresses_reach_the_physical_bytes(device0):
    _, va = mapped()
    assert acl.rt.memset(va + 4, 8, 0x2A, 4) == 0
    assert read_int(va + 4) == 0x2A2A2A2A


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(units=st.integers(1, 3), size=st.integers(1, 4 * GRAN), offset=st.integers(0, 3 * GRAN))
def test_map_mem_takes_the_whole_allocation_at_a_granularity_aligned_address(device0, units, size, offset):
    handle, va = physical(units * GRAN), reserve(4 * GRAN)
    ret = acl.rt.map_mem(va + offset, size, 0, handle, 0)
    fits = size == units * GRAN and offset % GRAN == 0 and offset + size <= 4 * GRAN
    assert ret == (0 if fits else 107000), acl.get_recent_err_msg()
    if fits:
        assert acl.rt.unmap_mem(va + offset) == 0
    assert acl.rt.free_physical(handle) == 0
    assert acl.rt.release_mem_address(va) == 0


def test_map_mem_with_an_offset_is_107000(device0):
    handle, va = physical(), reserve()
    assert acl.rt.map_mem(va, GRAN, GRAN, handle, 0) == 107000


def test_mapping_over_a_mapped_range_is_107000(device0):
    handle, va = mapped()
    other = physical()
    assert acl.rt.map_mem(va, GRAN, 0, other, 0) == 107000
    assert acl.rt.map_mem(va, GRAN, 0, handle, 0) == 107000


def test_unmapping_what_is_not_mapped_is_107000(device0):
    va = reserve()
    assert acl.rt.unmap_mem(va) == 107000
    _, va = mapped()
    assert acl.rt.unmap_mem(va + 4096) == 107000
    assert acl.rt.unmap_mem(0) == 100000


def test_releasing_a_range_still_mapped_is_107000_and_changes_nothing(device0):
    _, va = mapped()
    assert acl.rt.release_mem_address(va) == 107000
    assert acl.rt.memset(va, 4, 7, 4) == 0
    assert acl.rt.unmap_mem(va) == 0
    assert acl.rt.release_mem_address(va) == 0
    assert acl.rt.release_mem_address(va) == 107000


def test_freeing_a_mapped_handle_keeps_the_bytes_until_the_last_unmap(device0):
    handle, va = mapped()
    assert acl.rt.memset(va, 4, 5, 4) == 0
    before = len(live_blocks())
    assert acl.rt.free_physical(handle) == 0
    assert len(live_blocks()) == before and read_int(va) == 0x05050505
    assert acl.rt.map_mem(va, GRAN, 0, handle, 0) == 107017  # the handle itself is gone
    assert acl.rt.unmap_mem(va) == 0
    assert len(live_blocks()) == before - 1


def test_access_works_after_map_mem_before_any_mem_set_access(device0):
    _, va = mapped()
    assert acl.rt.memset(va, 4, 9, 4) == 0 and read_int(va) == 0x09090909


def test_mem_set_access_needs_a_mapping_start_and_its_size(device0):
    _, va = mapped()
    assert acl.rt.mem_set_access(va, GRAN, rw(), 1) == 0
    assert acl.rt.mem_set_access(va, GRAN // 2, rw(), 1) == 107000
    assert acl.rt.mem_set_access(va + 4096, GRAN, rw(), 1) == 107000
    assert acl.rt.mem_set_access(va, GRAN, {"flags": 2, "location": {"type": 1, "id": 0}}, 1) == 107000
    assert acl.rt.mem_set_access(va, GRAN, {"flags": 3, "location": {"type": 0, "id": 0}}, 1) == 107000
    assert acl.rt.mem_set_access(va, GRAN, [rw(), rw(1)], 3) == 100000


def test_kernels_through_a_mapping_write_the_physical_bytes(device0):
    @sandbox.kernel(ns=1000, writes=("dst",))
    def put(dst: sandbox.ptr(np.int32, count=2)):
        dst[:2] = (11, 22)

    _, va = mapped()
    put[1, device0](va)
    assert acl.rt.synchronize_stream(device0) == 0
    assert read_int(va + 4) == 22


def test_two_mappings_of_one_allocation_in_one_process_see_the_same_bytes(device0):
    handle, va = mapped()
    second = reserve()
    assert acl.rt.map_mem(second, GRAN, 0, handle, 0) == 0
    assert acl.rt.memset(va, 4, 3, 4) == 0
    assert read_int(second) == 0x03030303


# -- shareable handles between processes ---------------------------------------------------------------------
def _share(flags, child_body):
    """Process A (this one) exports an allocation holding 77; the child runs child_body(shareable)."""
    handle, va = mapped()
    assert acl.rt.memset(va, 4, 77, 1) == 0
    shareable, ret = acl.rt.mem_export_to_shareable_handle(handle, acl.ACL_MEM_HANDLE_TYPE_NONE, flags)
    assert ret == 0, acl.get_recent_err_msg()
    seen = {}

    def child():
        acl.init()
        acl.rt.set_device(0)
        seen.update(child_body(shareable))
        acl.rt.reset_device(0)
        acl.finalize()

    sandbox.spawn_process(child, name="B").join()
    return handle, va, shareable, seen


def test_shareable_handles_are_a_counter_from_1(device0):
    values = []
    for _ in range(3):
        h = physical()
        values.append(acl.rt.mem_export_to_shareable_handle(h, 0, 1))
    assert values == [(1, 0), (2, 0), (3, 0)]


def test_an_imported_handle_maps_the_same_bytes_in_another_process(device0):
    def body(shareable):
        handle, ret = acl.rt.mem_import_from_shareable_handle(shareable, 0)
        va = reserve()
        assert acl.rt.map_mem(va, GRAN, 0, handle, 0) == 0
        got = read_int(va) & 0xFF
        assert acl.rt.memset(va + 8, 4, 1, 4) == 0
        assert acl.rt.unmap_mem(va) == 0 and acl.rt.free_physical(handle) == 0
        assert acl.rt.release_mem_address(va) == 0
        return {"ret": ret, "got": got}

    _, va, _, seen = _share(acl.ACL_RT_VMM_EXPORT_FLAG_DISABLE_PID_VALIDATION, body)
    assert seen == {"ret": 0, "got": 77}
    assert read_int(va + 8) == 0x01010101


def test_importing_without_being_on_the_pid_list_is_207006(device0):
    _, _, shareable, seen = _share(0, lambda s: {"import": acl.rt.mem_import_from_shareable_handle(s, 0)})
    assert seen["import"] == (0, 207006)
    assert acl.rt.mem_set_pid_to_shareable_handle(shareable, [2]) == 0
    got = {}

    def again():
        acl.init()
        acl.rt.set_device(0)
        got["import"] = acl.rt.mem_import_from_shareable_handle(shareable, 0)

    sandbox.spawn_process(again, name="C").join()  # pid 3: still not on the list
    assert got["import"] == (0, 207006)


def test_a_process_on_the_pid_list_imports(device0):
    handle, va = mapped()
    shareable, _ = acl.rt.mem_export_to_shareable_handle(handle, 0, 0)
    assert acl.rt.mem_set_pid_to_shareable_handle(shareable, [2, 5]) == 0
    got = {}

    def child():
        acl.init()
        acl.rt.set_device(0)
        got["import"] = acl.rt.mem_import_from_shareable_handle(shareable, 0)
        acl.rt.free_physical(got["import"][0])

    sandbox.spawn_process(child, name="B").join()
    assert got["import"][1] == 0


def test_importing_in_the_exporting_process_is_207000(device0):
    handle = physical()
    shareable, _ = acl.rt.mem_export_to_shareable_handle(handle, 0, 1)
    assert acl.rt.mem_import_from_shareable_handle(shareable, 0) == (0, 207000)


def test_only_the_exporter_sets_the_pid_list_207006(device0):
    handle = physical()
    shareable, _ = acl.rt.mem_export_to_shareable_handle(handle, 0, 0)
    got = {}

    def child():
        acl.init()
        got["set"] = acl.rt.mem_set_pid_to_shareable_handle(shareable, [2])

    sandbox.spawn_process(child, name="B").join()
    assert got["set"] == 207006


def test_a_handle_is_exported_once_and_imported_handles_not_at_all_107000(device0):
    handle = physical()
    assert acl.rt.mem_export_to_shareable_handle(handle, 0, 0)[1] == 0
    assert acl.rt.mem_export_to_shareable_handle(handle, 0, 0) == (0, 107000)
    assert acl.rt.mem_export_to_shareable_handle(physical(), 0, 2) == (0, 107000)
    assert acl.rt.mem_export_to_shareable_handle(physical(), acl.ACL_MEM_HANDLE_TYPE_POSIX, 0) == (0, 100000)


def test_the_shareable_handle_ends_when_the_exporter_frees_its_handle(device0):
    handle = physical()
    shareable, _ = acl.rt.mem_export_to_shareable_handle(handle, 0, 1)
    assert acl.rt.free_physical(handle) == 0
    got = {}

    def child():
        acl.init()
        acl.rt.set_device(0)
        got["import"] = acl.rt.mem_import_from_shareable_handle(shareable, 0)

    sandbox.spawn_process(child, name="B").join()
    assert got["import"] == (0, 107000)


def test_import_needs_a_current_context_107002(device0):
    handle = physical()
    shareable, _ = acl.rt.mem_export_to_shareable_handle(handle, 0, 1)
    got = {}

    def child():
        acl.init()
        got["import"] = acl.rt.mem_import_from_shareable_handle(shareable, 0)

    sandbox.spawn_process(child, name="B").join()
    assert got["import"] == (0, 107002)


def test_another_process_cannot_use_a_handle_it_did_not_get_107017(device0):
    handle = physical()
    got = {}

    def child():
        acl.init()
        got["free"] = acl.rt.free_physical(handle)

    sandbox.spawn_process(child, name="B").join()
    assert got["free"] == 107017


# -- hazards through two mappings -------------------------------------------------------------------------------
def test_accesses_through_two_mappings_of_one_allocation_are_one_memory_to_the_hazard_checks(device0):
    handle, va = mapped()
    second = reserve()
    acl.rt.map_mem(second, GRAN, 0, handle, 0)
    other, _ = acl.rt.create_stream()
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        acl.rt.memset_async(va, 64, 1, 64, device0)
        acl.rt.memset_async(second, 64, 2, 64, other)
    assert [h.kind for h in sandbox.hazards()] == ["stream_race"]
    assert any(issubclass(w.category, sandbox.HazardWarning) for w in caught)


def test_the_last_unmap_is_checked_like_a_free(device0):
    _, va = mapped()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        acl.rt.memset_async(va, 64, 1, 64, device0)
        acl.rt.unmap_mem(va)
    assert [h.kind for h in sandbox.hazards()] == ["free_in_use"]


# -- releases, leaks, Jupyter habits ----------------------------------------------------------------------------
def test_a_process_ending_with_mappings_releases_them_and_reports_them_as_leaks(machine):
    def child():
        acl.init()
        acl.rt.set_device(0)
        mapped()
        reserve()

    before = acl.rt.get_mem_info(acl.ACL_HBM_MEM)[0] if acl.rt.set_device(0) == 0 else None
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        sandbox.spawn_process(child, name="B").join()
    leaks = [r for r in sandbox.trace().records if isinstance(r, T.LeakReport)]
    kinds = sorted(item[0] for item in leaks[0].items)
    assert kinds == ["mapping", "physical", "reservation", "reservation"]
    text = str(leaks[0].message)
    assert "release with aclrtUnmapMem" in text and "release with aclrtFreePhysical" in text
    assert any(issubclass(w.category, sandbox.LeakWarning) for w in caught)
    assert acl.rt.get_mem_info(acl.ACL_HBM_MEM)[0] == before
    assert not sandbox.leak_report(2)


def test_rerunning_a_cell_that_maps_again_gets_a_new_range_and_the_same_kind_of_error(device0):
    cell = "handle, _ = acl.rt.malloc_physical(GRAN, prop(), 0)\nva, _ = acl.rt.reserve_mem_address(GRAN, 0, 0, 0)\n"
    cell += "ret = acl.rt.map_mem(va, GRAN, 0, handle, 0)\nagain = acl.rt.map_mem(va, GRAN, 0, handle, 0)\n"
    seen = []
    for _ in range(2):
        scope = {"acl": acl, "GRAN": GRAN, "prop": prop}
        exec(cell, scope)
        seen.append((scope["va"], scope["ret"], scope["again"]))
    assert seen[0][1:] == seen[1][1:] == (0, 107000)
    assert seen[0][0] != seen[1][0]
    kinds = [item[1] for item in sandbox.leak_report(1).items if item[1] != "stream"]
    assert sorted(kinds) == ["mapping"] * 2 + ["physical"] * 2 + ["reservation"] * 2  # until the cell cleans up


def test_the_same_program_gives_the_same_addresses_and_handles(machine):
    def run():
        sandbox.configure()
        acl.init()
        acl.rt.set_device(0)
        handle, va = mapped()
        return handle, va, acl.rt.mem_export_to_shareable_handle(handle, 0, 1)

    assert run() == run()


def test_a_shared_value_orders_what_its_writer_knew_complete_before_the_readers_unmap(machine):
    """memory/7 and 8's flag file: B's blocking copy through its mapping is done before B writes the
    flag (sandbox.write_shared), so A's unmap after reading it (read_shared) is no free in use; a
    flag the runtime never sees, polled from a plain Python dict, orders nothing and is flagged."""

    def run(through_shared):
        sandbox.configure()
        acl.init()
        acl.rt.set_device(0)
        plain: dict[str, int] = {}
        handle, va = mapped()
        shareable, _ = acl.rt.mem_export_to_shareable_handle(handle, 0, 1)

        def b():
            acl.init()
            acl.rt.set_device(0)
            mine, _ = acl.rt.mem_import_from_shareable_handle(shareable, 0)
            vb = reserve()
            acl.rt.map_mem(vb, GRAN, 0, mine, 0)
            read_int(vb)  # a blocking copy: B knows it is done
            acl.rt.unmap_mem(vb)
            acl.rt.free_physical(mine)
            acl.rt.release_mem_address(vb)
            if through_shared:
                sandbox.write_shared("file/flag.bin.done", 1)
            else:
                plain["file/flag.bin.done"] = 1

        sandbox.spawn_process(b, name="B")
        read = sandbox.read_shared if through_shared else plain.get
        for _ in range(60):  # the samples' ReadFile: poll once a second; no join
            if read("file/flag.bin.done") == 1:
                break
            sandbox.host_work(10**9, "usleep")
        assert read("file/flag.bin.done") == 1
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            acl.rt.unmap_mem(va)
        return [h.kind for h in sandbox.hazards()]

    try:
        assert run(through_shared=True) == []
        assert run(through_shared=False) == ["free_in_use"]
    finally:
        sandbox.configure()
