"""The allocator (core/allocator.py): alignment, padding, page policies, reuse, lazy backing, the profiles' pages,
get_mem_info."""

from __future__ import annotations

import subprocess
import sys
import textwrap

import pytest

import sandbox
from sandbox import acl
from sandbox.core import trace as T
from conftest import dev_alloc, pinned

KiB, MiB, GiB = 1 << 10, 1 << 20, 1 << 30


def allocation(ptr):
    return [r for r in sandbox.trace() if isinstance(r, T.MemAllocated) and r.ptr == ptr][-1]


def _on(profile):
    sandbox.configure(profile)
    assert acl.init() == 0 and acl.rt.set_device(0) == 0


@pytest.mark.parametrize("size", [1, 31, 32, 33, 1000, 4096, 123457, 3 * MiB + 5])
def test_allocations_start_64_byte_aligned(device0, size):
    assert dev_alloc(size) % 64 == 0


@pytest.mark.parametrize(
    "size, reserved",
    [
        (1, 4 * KiB),
        (4096 - 32, 4 * KiB),
        (4096 - 31, 8 * KiB),
        (MiB, MiB + 4 * KiB),
        (MiB + 1, 2 * MiB),
        (2 * MiB - 32, 2 * MiB),
        (2 * MiB - 31, 4 * MiB),
    ],
)
def test_huge_first_pads_align_up_32_plus_32_then_rounds_to_pages(device0, size, reserved):
    rec = allocation(dev_alloc(size, acl.ACL_MEM_MALLOC_HUGE_FIRST))
    assert rec.reserved == reserved
    assert rec.page == ("normal" if size <= MiB else "huge")


def test_huge_only_takes_a_whole_2mib_page_even_for_1kib(device0):
    rec = allocation(dev_alloc(KiB, acl.ACL_MEM_MALLOC_HUGE_ONLY))
    assert (rec.page, rec.reserved, rec.ptr % (2 * MiB)) == ("huge", 2 * MiB, 0)


def test_normal_only_never_uses_huge_pages(device0):
    rec = allocation(dev_alloc(8 * MiB, acl.ACL_MEM_MALLOC_NORMAL_ONLY))
    assert rec.page == "normal" and rec.reserved == 8 * MiB + 4 * KiB


def test_p2p_policies_are_accepted_on_910b(device0):
    for policy in (
        acl.ACL_MEM_MALLOC_HUGE_FIRST_P2P,
        acl.ACL_MEM_MALLOC_HUGE_ONLY_P2P,
        acl.ACL_MEM_MALLOC_NORMAL_ONLY_P2P,
    ):
        assert acl.rt.malloc(10, policy)[1] == 0


def test_huge1g_rounds_to_1gib_without_padding(device0):
    rec = allocation(dev_alloc(GiB, acl.ACL_MEM_MALLOC_HUGE1G_ONLY))
    assert (rec.page, rec.reserved) == ("huge1g", GiB)


def test_an_unknown_policy_value_means_huge_from_2mib_up(device0):
    assert allocation(dev_alloc(2 * MiB, 99)).page == "huge"
    assert allocation(dev_alloc(MiB, 99)).page == "normal"


def test_huge_first_falls_back_to_normal_pages_when_no_huge_page_is_free():
    sandbox.configure(sandbox.get_profile("ascend910b").with_(memory_bytes=8 * MiB), device_count=1)
    acl.init()
    acl.rt.set_device(0)
    normal = acl.ACL_MEM_MALLOC_NORMAL_ONLY
    pages = [dev_alloc(2 * MiB - 64, normal) for _ in range(4)]  # each fills one 2 MiB page
    acl.rt.free(pages[0])
    acl.rt.free(pages[2])
    dev_alloc(64, normal)  # 4 KiB at the start of page 0
    dev_alloc(2 * MiB - 4 * KiB - 64, normal)  # the rest of page 0
    dev_alloc(64, normal)  # 4 KiB at the start of page 2
    assert acl.rt.malloc(MiB + 4 * KiB, acl.ACL_MEM_MALLOC_HUGE_ONLY) == (0, acl.ACL_ERROR_RT_MEMORY_ALLOCATION)
    assert allocation(dev_alloc(MiB + 4 * KiB, acl.ACL_MEM_MALLOC_HUGE_FIRST)).page == "normal"


def test_out_of_memory_returns_207001_and_a_message(device0):
    free, total = acl.rt.get_mem_info(acl.ACL_HBM_MEM)[:2]
    assert acl.rt.malloc(total + 1, 0) == (0, acl.ACL_ERROR_RT_MEMORY_ALLOCATION)
    assert "out of device memory" in acl.get_recent_err_msg()


def test_get_mem_info_reports_free_and_total_of_the_current_device(device0):
    free0, total, ret = acl.rt.get_mem_info(acl.ACL_HBM_MEM)
    assert ret == 0 and free0 == total == sandbox.profile().memory_bytes
    ptr = dev_alloc(3 * MiB)
    assert acl.rt.get_mem_info(acl.ACL_HBM_MEM)[0] == free0 - 4 * MiB
    acl.rt.free(ptr)
    assert acl.rt.get_mem_info(acl.ACL_HBM_MEM)[0] == free0
    assert acl.rt.get_mem_info(acl.ACL_DDR_MEM) == (0, 0, 0)  # HBM device: no DDR


def test_get_mem_info_hbm_falls_back_to_ddr_on_ddr_devices():
    sandbox.configure("ascend310p")
    acl.init()
    acl.rt.set_device(0)
    assert acl.rt.get_mem_info(acl.ACL_HBM_MEM) == acl.rt.get_mem_info(acl.ACL_DDR_MEM)
    assert acl.rt.get_mem_info(acl.ACL_DDR_MEM)[1] == sandbox.profile().memory_bytes


def test_freed_space_is_reused_and_coalesced(device0):
    a, b, _ = dev_alloc(2 * MiB - 64), dev_alloc(2 * MiB - 64), dev_alloc(2 * MiB - 64)
    acl.rt.free(a)
    acl.rt.free(b)
    assert dev_alloc(4 * MiB - 64) == a


def test_malloc_of_zero_bytes_is_invalid(device0):
    assert acl.rt.malloc(0, 0) == (0, acl.ACL_ERROR_INVALID_PARAM)
    assert acl.rt.malloc_host(0) == (0, acl.ACL_ERROR_INVALID_PARAM)


def test_pinned_host_memory_is_64_byte_aligned_and_readable(device0):
    ptr, view = pinned(100)
    assert ptr % 64 == 0 and view.shape == (100,)


def test_60_gib_on_a_64_gib_device_costs_no_host_memory_until_written():
    script = textwrap.dedent("""
        import sandbox
        from sandbox import acl
        def rss():
            return int([l for l in open('/proc/self/status') if l.startswith('VmRSS')][0].split()[1]) * 1024
        acl.init()
        before = rss()
        for d in range(8):
            acl.rt.set_device(d)
            ptr, ret = acl.rt.malloc(60 << 30, acl.ACL_MEM_MALLOC_HUGE_FIRST)
            assert ret == 0
        acl.rt.memset(ptr, 4096, 1, 4096)          # touching a little costs a little
        print(rss() - before)
    """)
    grown = int(
        subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, check=True).stdout.split()[-1]
    )
    assert grown < 64 * MiB


@pytest.mark.parametrize("policy", [acl.ACL_MEM_MALLOC_HUGE1G_ONLY, acl.ACL_MEM_MALLOC_HUGE1G_ONLY_P2P])
def test_a_profile_without_huge1g_pages_refuses_huge1g_policies_with_207000(policy):
    """1 GiB-page policies need huge1g_pages_supported (RT-API 25-02: A2/A3 only)."""
    _on(sandbox.get_profile("ascend910b").with_(huge1g_pages_supported=False))
    assert acl.rt.malloc(GiB, policy) == (0, acl.ACL_ERROR_RT_FEATURE_NOT_SUPPORT)
    assert "1 GiB pages are not supported on Ascend910B2" in acl.get_recent_err_msg()
    assert acl.rt.get_mem_info(acl.ACL_HBM_MEM_HUGE1G) == (0, 0, 0)


@pytest.mark.parametrize("profile", ["ascend310p", "ascend310b"])
def test_the_builtin_profiles_without_huge1g_pages_refuse_them_with_207000(profile):
    """Only the A2 profile has 1 GiB pages (RT-API 25-02 aclrtMemAttr)."""
    _on(profile)
    assert acl.rt.malloc(GiB, acl.ACL_MEM_MALLOC_HUGE1G_ONLY) == (0, acl.ACL_ERROR_RT_FEATURE_NOT_SUPPORT)
    assert acl.rt.get_mem_info(acl.ACL_MEM_HUGE1G) == (0, 0, 0)


def test_a_custom_profile_with_huge1g_pages_allocates_them():
    """The flag, not the name, decides: a 310P given huge1g_pages_supported takes 1 GiB pages."""
    _on(sandbox.get_profile("ascend310p").with_(huge1g_pages_supported=True))
    rec = allocation(dev_alloc(GiB, acl.ACL_MEM_MALLOC_HUGE1G_ONLY))
    assert (rec.page, rec.reserved) == ("huge1g", GiB)
    free, total, ret = acl.rt.get_mem_info(acl.ACL_MEM_HUGE1G)
    assert ret == 0 and total == sandbox.profile().memory_bytes and free > 0


def test_a_renamed_910b_profile_keeps_its_features():
    """Features follow the profile's flags: renaming the 910B changes none of them."""
    _on(sandbox.get_profile("ascend910b").with_(name="lab-910b"))
    assert acl.rt.malloc(GiB, acl.ACL_MEM_MALLOC_HUGE1G_ONLY)[1] == 0
    pool, ret = acl.rt.mem_pool_create(
        {
            "allocType": acl.ACL_MEM_ALLOCATION_TYPE_PINNED,
            "handleType": acl.ACL_MEM_HANDLE_TYPE_NONE,
            "maxSize": 0,
            "location": {"id": 0, "type": acl.ACL_MEM_LOCATION_TYPE_DEVICE},
        }
    )
    assert ret == 0 and pool != 0
    stream, _ = acl.rt.create_stream()
    assert acl.mdl.ri_capture_begin(stream, acl.ACL_MODEL_RI_CAPTURE_MODE_GLOBAL) == 0


def test_p2p_and_huge1g_policy_groups_are_the_runtimes_enum_values():
    """The policy groups the checks use name the real aclrtMemMallocPolicy values (3, 4, 5, 7 and 6, 7)."""
    from sandbox.core import constants as C

    assert C.MALLOC_P2P_POLICIES == (3, 4, 5, 7)
    assert C.MALLOC_HUGE1G_POLICIES == (6, 7)


def test_malloc_align32_reserves_align_up_32_without_the_32_bytes_of_padding(device0):
    def reserved(alloc):
        ptr, ret = alloc(4080, acl.ACL_MEM_MALLOC_NORMAL_ONLY)
        assert ret == 0
        return next(r.reserved for r in sandbox.trace().records if type(r).__name__ == "MemAllocated" and r.ptr == ptr)

    assert reserved(acl.rt.malloc_align32) == 4096  # ALIGN_UP(4080, 32) = 4096: one page
    assert reserved(acl.rt.malloc) == 8192  # 4096 + 32 of padding: two pages
    assert reserved(acl.rt.malloc_cached) == 8192  # aclrtMalloc's padding (memory.cpp:389-420)
