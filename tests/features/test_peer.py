"""Peer access between devices, the peer-link topologies and cross-device copies (RT-DG 05)."""

from __future__ import annotations

import math

import numpy as np
import pytest

import sandbox
from sandbox import acl
from sandbox.core.features import peer
from sandbox.core import trace as T
from sandbox.core.machine import current
from sandbox.core.objects import HostThread
from conftest import dev_alloc, overlap, pinned, tasks_by_id

# copies without peer access fail by design here; the hazard report they also make is tested
# in tests/kernel/test_hazards.py
pytestmark = pytest.mark.filterwarnings("ignore:a copy from device:sandbox.core.hazards.HazardWarning")

MiB = 1 << 20
P2P = acl.ACL_MEM_MALLOC_HUGE_FIRST_P2P
D2D = acl.ACL_MEMCPY_DEVICE_TO_DEVICE


def fresh(profile, device_count=None):
    sandbox.configure(profile, device_count)
    assert acl.init() == 0


def enable(device, peer_device):
    assert acl.rt.set_device(device) == 0
    assert acl.rt.device_enable_peer_access(peer_device, 0) == 0, acl.get_recent_err_msg()


def filled(device, nbytes, value, policy=P2P):
    """A buffer on ``device`` (P2P policy unless told) holding ``value`` in every byte."""
    assert acl.rt.set_device(device) == 0
    ptr = dev_alloc(nbytes, policy)
    assert acl.rt.memset(ptr, nbytes, value, nbytes) == 0
    return ptr


def read_back(device, ptr, nbytes):
    assert acl.rt.set_device(device) == 0
    host, view = pinned(nbytes)
    assert acl.rt.memcpy(host, nbytes, ptr, nbytes, acl.ACL_MEMCPY_DEVICE_TO_HOST) == 0
    return view.copy()


def peer_copies():
    return [t for t in tasks_by_id().values() if t["engine"].startswith("Peer link")]


def solo_time(nbytes):
    p = sandbox.profile()
    return p.peer_latency_ns + math.ceil(nbytes / (p.peer_bandwidth / 1e9))


# -- queries -----------------------------------------------------------------------------------------
@pytest.mark.parametrize("profile", ["910b", "310p"])
def test_can_access_peer_answers_1_for_every_pair_without_a_current_device(profile):
    fresh(profile)
    n = len(current().devices)
    for a in range(n):
        for b in range(n):
            if a != b:
                assert acl.rt.device_can_access_peer(a, b) == (1, 0)


def test_can_access_peer_with_device_equal_to_peer_is_invalid_param(machine):
    assert acl.rt.device_can_access_peer(3, 3) == (0, acl.ACL_ERROR_INVALID_PARAM)
    assert "cannot be equal" in acl.get_recent_err_msg()


def test_can_access_peer_with_an_unknown_device_is_invalid_device_id(machine):
    assert acl.rt.device_can_access_peer(0, 8) == (0, acl.ACL_ERROR_RT_INVALID_DEVICEID)


def test_peer_access_status_starts_at_0(machine):
    assert acl.rt.device_peer_access_status(0, 1) == (0, 0)


# -- enable / disable ------------------------------------------------------------------------------------
def test_enable_is_one_directional_from_the_current_device(machine):
    enable(0, 1)
    assert acl.rt.device_peer_access_status(0, 1) == (1, 0)
    assert acl.rt.device_peer_access_status(1, 0) == (0, 0)
    enable(1, 0)
    assert acl.rt.device_peer_access_status(1, 0) == (1, 0)


def test_enable_flags_must_be_0(machine):
    acl.rt.set_device(0)
    assert acl.rt.device_enable_peer_access(1, 1) == acl.ACL_ERROR_FEATURE_UNSUPPORTED == 200006
    assert acl.rt.device_peer_access_status(0, 1) == (0, 0)


def test_enable_or_disable_with_peer_equal_to_current_device_is_invalid_param(machine):
    acl.rt.set_device(2)
    assert acl.rt.device_enable_peer_access(2, 0) == acl.ACL_ERROR_INVALID_PARAM == 100000
    assert acl.rt.device_disable_peer_access(2) == acl.ACL_ERROR_INVALID_PARAM


def test_enable_needs_a_current_device(machine):
    assert acl.rt.device_enable_peer_access(1, 0) == acl.ACL_ERROR_RT_CONTEXT_NULL


def test_enable_with_an_unknown_peer_is_invalid_device_id(machine):
    acl.rt.set_device(0)
    assert acl.rt.device_enable_peer_access(9, 0) == acl.ACL_ERROR_RT_INVALID_DEVICEID


def test_enable_twice_succeeds_and_changes_nothing(machine):
    enable(0, 1)
    assert acl.rt.device_enable_peer_access(1, 0) == 0
    changes = list(sandbox.trace().of(T.PeerAccessChanged))
    assert [(c.device, c.peer, c.enabled, c.changed) for c in changes] == [(0, 1, True, True), (0, 1, True, False)]
    assert acl.rt.device_peer_access_status(0, 1) == (1, 0)


def test_disable_when_not_enabled_succeeds_and_changes_nothing(machine):
    acl.rt.set_device(0)
    assert acl.rt.device_disable_peer_access(1) == 0
    (change,) = sandbox.trace().of(T.PeerAccessChanged)
    assert (change.enabled, change.changed) == (False, False)


def test_disable_closes_the_direction_for_later_copies(machine):
    src, dst = filled(0, 4096, 1), filled(1, 4096, 0)
    enable(0, 1)
    assert acl.rt.memcpy(dst, 4096, src, 4096, D2D) == 0
    assert acl.rt.device_disable_peer_access(1) == 0
    assert acl.rt.device_peer_access_status(0, 1) == (0, 0)
    assert acl.rt.memcpy(dst, 4096, src, 4096, D2D) == acl.ACL_ERROR_RT_PARAM_INVALID


def test_peer_access_is_kept_per_process(machine):
    enable(0, 1)
    m = current()
    other = m.new_process("other")
    th = HostThread(99, "other main", other, m.sim.now, -1)
    assert peer.access_status(m, m.current_thread(), 0, 1) == 1
    assert peer.access_status(m, th, 0, 1) == 0


# -- 310B ------------------------------------------------------------------------------------------------
def test_peer_access_is_not_supported_on_310b():
    fresh("310b", 2)
    assert acl.rt.device_can_access_peer(0, 1) == (0, acl.ACL_ERROR_RT_FEATURE_NOT_SUPPORT)
    assert "not supported on Ascend310B1" in acl.get_recent_err_msg()
    acl.rt.set_device(0)
    assert acl.rt.device_enable_peer_access(1, 0) == acl.ACL_ERROR_RT_FEATURE_NOT_SUPPORT
    assert acl.rt.device_disable_peer_access(1) == acl.ACL_ERROR_RT_FEATURE_NOT_SUPPORT


def test_a_cross_device_copy_on_310b_says_p2p_is_not_supported():
    fresh("310b", 2)
    plain = acl.ACL_MEM_MALLOC_HUGE_FIRST
    src, dst = filled(0, 4096, 7, plain), filled(1, 4096, 0, plain)
    assert acl.rt.memcpy(dst, 4096, src, 4096, D2D) == acl.ACL_ERROR_RT_FEATURE_NOT_SUPPORT
    assert "peer-to-peer copies are not supported on Ascend310B1" in acl.get_recent_err_msg()


def test_p2p_policies_are_accepted_on_910b_and_rejected_on_310b():
    fresh("910b")
    acl.rt.set_device(0)
    for policy in (3, 4, 5, 7):
        ptr, ret = acl.rt.malloc(4096, policy)
        assert ret == 0 and ptr
    fresh("310b")
    acl.rt.set_device(0)
    for policy in (3, 4, 5, 7):
        assert acl.rt.malloc(4096, policy) == (0, acl.ACL_ERROR_RT_FEATURE_NOT_SUPPORT)


# -- copies ---------------------------------------------------------------------------------------------
def test_copy_without_peer_access_fails_with_107000_naming_the_direction(machine):
    src, dst = filled(0, 4096, 5), filled(1, 4096, 0)
    assert acl.rt.memcpy(dst, 4096, src, 4096, D2D) == acl.ACL_ERROR_RT_PARAM_INVALID == 107000
    msg = acl.get_recent_err_msg()
    assert "needs peer access 0 -> 1" in msg and "aclrtDeviceEnablePeerAccess(1, 0)" in msg
    assert not read_back(1, dst, 4096).any()


def test_copy_with_only_the_opposite_direction_enabled_fails(machine):
    src, dst = filled(0, 4096, 5), filled(1, 4096, 0)
    enable(1, 0)
    assert acl.rt.memcpy(dst, 4096, src, 4096, D2D) == acl.ACL_ERROR_RT_PARAM_INVALID
    assert "only the opposite direction 1 -> 0 is enabled" in acl.get_recent_err_msg()


def test_peer_copy_moves_the_bytes_and_takes_the_link_time(machine):
    n = 64 * MiB
    src, dst = filled(0, n, 0x5A), filled(1, n, 0)
    enable(0, 1)
    stream, _ = acl.rt.create_stream()
    assert acl.rt.memcpy_async(dst, n, src, n, D2D, stream) == 0
    assert acl.rt.synchronize_stream(stream) == 0
    (copy,) = peer_copies()
    assert copy["engine"] == "Peer link 0->1"
    assert copy["end"] - copy["start"] == solo_time(n)
    (submitted,) = [r for r in sandbox.trace().of(T.TaskSubmitted) if r.engine.startswith("Peer")]
    detail = dict(submitted.detail)
    assert (detail["direction"], detail["src_device"], detail["dst_device"]) == ("device to device", 0, 1)
    assert detail["p2p_buffers"] is True
    assert (read_back(1, dst, n) == 0x5A).all()


def test_async_peer_copy_must_go_on_a_stream_of_the_source_or_destination_device(machine):
    src, dst = filled(0, 4096, 1), filled(1, 4096, 0)
    enable(0, 1)
    acl.rt.set_device(2)
    stream, _ = acl.rt.create_stream()
    assert acl.rt.memcpy_async(dst, 4096, src, 4096, D2D, stream) == acl.ACL_ERROR_RT_PARAM_INVALID
    assert "must go on a stream of one of those devices" in acl.get_recent_err_msg()
    acl.rt.set_device(1)
    stream1, _ = acl.rt.create_stream()
    assert acl.rt.memcpy_async(dst, 4096, src, 4096, D2D, stream1) == 0


def test_peer_copies_need_no_64_byte_alignment(machine):
    src, dst = filled(0, 4096, 3), filled(1, 4096, 0)
    enable(0, 1)
    stream, _ = acl.rt.create_stream()
    assert acl.rt.memcpy_async(dst + 1, 100, src + 3, 100, D2D, stream) == 0
    assert acl.rt.synchronize_stream(stream) == 0
    back = read_back(1, dst, 4096)
    assert back[0] == 0 and (back[1:101] == 3).all() and back[101] == 0


def _two_copies(pairs, n, profile="910b"):
    """Start one async copy per (src, dst) pair at (almost) the same time; return their tasks."""
    fresh(profile)
    buffers = [(filled(a, n, 1), filled(b, n, 0)) for a, b in pairs]
    for a, b in sorted(set(pairs)):
        enable(a, b)
    streams = []
    for a, _ in pairs:
        acl.rt.set_device(a)
        streams.append(acl.rt.create_stream()[0])
    for (a, _), (src, dst), stream in zip(pairs, buffers, streams):
        acl.rt.set_device(a)
        assert acl.rt.memcpy_async(dst, n, src, n, D2D, stream) == 0
    for (a, _), stream in zip(pairs, streams):
        acl.rt.set_device(a)
        assert acl.rt.synchronize_stream(stream) == 0
    copies = peer_copies()
    assert len(copies) == len(pairs)
    return copies


def test_two_concurrent_copies_on_one_link_each_take_about_twice_as_long():
    n = 64 * MiB
    first, second = _two_copies([(0, 1), (0, 1)], n)
    assert overlap(first, second)
    for copy in (first, second):
        assert 1.95 < (copy["end"] - copy["start"]) / solo_time(n) < 2.05


def test_the_two_directions_of_a_link_do_not_slow_each_other():
    n = 64 * MiB
    for copy in _two_copies([(0, 1), (1, 0)], n):
        assert copy["end"] - copy["start"] == solo_time(n)


def test_copies_on_different_links_do_not_slow_each_other():
    n = 64 * MiB
    for copy in _two_copies([(0, 1), (2, 3)], n):
        assert copy["end"] - copy["start"] == solo_time(n)


def test_on_pcie_copies_out_of_one_card_share_its_switch_port():
    n = 16 * MiB
    for copy in _two_copies([(0, 1), (0, 2)], n, profile="310p"):
        assert 1.95 < (copy["end"] - copy["start"]) / solo_time(n) < 2.05
    for copy in _two_copies([(0, 1), (2, 3)], n, profile="310p"):
        assert copy["end"] - copy["start"] == solo_time(n)


def test_link_shares_are_max_min_fair():
    """0->1 and 0->2 share card 0's port; 0->2, 3->2 and 1->2 share card 2's port.  Card 2's
    port is the bottleneck (a third each); 0->1 then gets what is left of card 0's port."""
    fresh("310p")
    st = peer.state(current())
    tasks = [type("T", (), {"id": i})() for i in range(4)]
    for task, (a, b) in zip(tasks, [(0, 1), (0, 2), (3, 2), (1, 2)]):
        st.fabric.begin(task, st.path(a, b).links, 1 << 30, 0, 0)
    port = sandbox.profile().peer_bandwidth / 1e9
    rates = [st.fabric.rate_of(t) for t in tasks]
    assert rates[1:] == pytest.approx([port / 3] * 3)
    assert rates[0] == pytest.approx(port - port / 3)


def test_a_copy_joining_later_slows_the_running_one_only_while_both_run(machine):
    n = 64 * MiB
    src, dst = filled(0, n, 1), filled(1, n, 0)
    src2, dst2 = filled(0, n // 4, 2), filled(1, n // 4, 0)
    enable(0, 1)
    s1, _ = acl.rt.create_stream()
    s2, _ = acl.rt.create_stream()
    acl.rt.memcpy_async(dst, n, src, n, D2D, s1)
    acl.rt.memcpy_async(dst2, n // 4, src2, n // 4, D2D, s2)
    acl.rt.synchronize_device()
    big, small = sorted(peer_copies(), key=lambda c: -(c["end"] - c["start"]))
    # the small copy spends its whole life at half rate; the big one loses that much time
    assert (small["end"] - small["start"]) / solo_time(n // 4) == pytest.approx(2, rel=0.02)
    extra = (big["end"] - big["start"]) - solo_time(n)
    assert extra == pytest.approx(solo_time(n // 4) - sandbox.profile().peer_latency_ns, rel=0.02)
    assert (read_back(1, dst, n) == 1).all() and (read_back(1, dst2, n // 4) == 2).all()


# -- topology -------------------------------------------------------------------------------------------
def test_devices_topo_reports_hccs_on_910b_pix_on_310p_and_nothing_on_310b():
    fresh("910b")
    assert acl.rt.get_devices_topo(0, 7) == (acl.ACL_RT_DEVS_TOPOLOGY_HCCS, 0)
    assert acl.rt.get_devices_topo(0, 8) == (0, acl.ACL_ERROR_RT_INVALID_DEVICEID)
    fresh("310p")
    assert acl.rt.get_devices_topo(1, 3) == (acl.ACL_RT_DEVS_TOPOLOGY_PIX, 0)
    fresh("310b")
    assert acl.rt.get_devices_topo(0, 0) == (0, 0)


# -- the guide's P2P sample (RT-DG 05) ------------------------------------------------------------------------------------
def test_seed_p2p_sample_runs_end_to_end_and_the_bytes_arrive():
    sandbox.configure("910b")
    assert acl.init() == 0
    can_access_peer, ret = acl.rt.device_can_access_peer(0, 1)
    assert (can_access_peer, ret) == (1, 0)
    assert acl.rt.set_device(0) == 0
    assert acl.rt.device_enable_peer_access(1, 0) == 0
    dev0_mem, ret = acl.rt.malloc(10, acl.ACL_MEM_MALLOC_HUGE_FIRST_P2P)
    assert ret == 0
    payload = np.arange(10, dtype=np.uint8) + 40  # the sample leaves it unset
    assert acl.rt.memcpy(dev0_mem, 10, acl.util.numpy_to_ptr(payload), 10, acl.ACL_MEMCPY_HOST_TO_DEVICE) == 0
    assert acl.rt.set_device(1) == 0
    assert acl.rt.device_enable_peer_access(0, 0) == 0
    dev1_mem, ret = acl.rt.malloc(10, acl.ACL_MEM_MALLOC_HUGE_FIRST_P2P)
    assert ret == 0
    assert acl.rt.memcpy(dev1_mem, 10, dev0_mem, 10, acl.ACL_MEMCPY_DEVICE_TO_DEVICE) == 0
    arrived = np.zeros(10, dtype=np.uint8)
    assert acl.rt.memcpy(acl.util.numpy_to_ptr(arrived), 10, dev1_mem, 10, acl.ACL_MEMCPY_DEVICE_TO_HOST) == 0
    assert (arrived == payload).all()
    assert acl.rt.device_disable_peer_access(0) == 0
    assert acl.rt.free(dev1_mem) == 0
    assert acl.rt.reset_device(1) == 0
    assert acl.rt.set_device(0) == 0
    assert acl.rt.device_disable_peer_access(1) == 0
    assert acl.rt.free(dev0_mem) == 0
    assert acl.rt.reset_device_force(0) == 0
    assert acl.finalize() == 0
    (copy,) = peer_copies()
    assert copy["engine"] == "Peer link 0->1" and copy["device"] == 1 and copy["status"] == 0
    assert [(c.device, c.peer, c.enabled) for c in sandbox.trace().of(T.PeerAccessChanged)] == [
        (0, 1, True),
        (1, 0, True),
        (1, 0, False),
        (0, 1, False),
    ]
