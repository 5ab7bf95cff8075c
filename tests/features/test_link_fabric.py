"""Peer links on their own (core/engines.py Link, LinkFabric, SharedLink): start-up latency,
max-min fair shares, finish times that move as copies come and go.  The fabric is driven
directly (begin/wake/end return the (task, time) moves), then through a Simulator."""

from __future__ import annotations

from types import SimpleNamespace

import pytest

from sandbox.core.engines import Link, LinkFabric, SharedLink
from sandbox.core.trace import TaskFinished

from sim_rig import Rig

GB = 1e9  # 1 GB/s = 1 byte per ns: times below are byte counts


def copies(n):
    return [SimpleNamespace(id=i + 1) for i in range(n)]


def test_a_links_capacity_is_its_bandwidth_in_bytes_per_ns():
    """Link bandwidth is given in bytes/s and kept in bytes/ns."""
    assert Link("HCCS 0->1", 56e9).capacity == 56.0


def test_a_lone_copy_spends_its_latency_then_drains_at_the_full_bandwidth():
    """A copy first spends its fixed start-up latency, then drains its bytes at the link's rate."""
    fabric, link, (a,) = LinkFabric(), Link("L", GB), copies(1)
    assert fabric.begin(a, [link], 1000, 100, 0) == [(a, 100)]  # the end of its start-up
    assert fabric.wake(a, 100) == [(a, 1100)]  # then 1000 bytes at 1 byte/ns


def test_a_copys_first_event_ends_its_start_up_and_its_next_event_is_its_finish():
    """due() is False at the end of the start-up latency and True at the finish."""
    fabric, link, (a,) = LinkFabric(), Link("L", GB), copies(1)
    fabric.begin(a, [link], 1000, 100, 0)
    assert not fabric.due(a, 100)
    fabric.wake(a, 100)
    assert fabric.due(a, 1100)


def test_a_copy_in_its_start_up_uses_no_bandwidth():
    """During its latency a copy takes no share: the copy already draining keeps the whole link."""
    fabric, link, (a, b) = LinkFabric(), Link("L", GB), copies(2)
    fabric.begin(a, [link], 1000, 0, 0)
    assert fabric.begin(b, [link], 1000, 500, 200) == [(b, 700)]  # a's finish does not move
    assert (fabric.rate_of(a), fabric.rate_of(b)) == (1.0, 0.0)


def test_two_draining_copies_on_one_link_get_half_the_bandwidth_each():
    """Copies on the same link share it equally."""
    fabric, link, (a, b) = LinkFabric(), Link("L", GB), copies(2)
    fabric.begin(a, [link], 1000, 0, 0)
    assert fabric.begin(b, [link], 1000, 0, 0) == [(a, 2000), (b, 2000)]
    assert fabric.rate_of(a) == fabric.rate_of(b) == 0.5


def test_copies_on_different_links_do_not_share():
    """A copy's rate depends only on the copies on the links it crosses."""
    fabric, (a, b) = LinkFabric(), copies(2)
    fabric.begin(a, [Link("0->1", GB)], 1000, 0, 0)
    assert fabric.begin(b, [Link("1->0", GB)], 1000, 0, 0) == [(b, 1000)]
    assert fabric.rate_of(a) == fabric.rate_of(b) == 1.0


def test_shares_are_max_min_fair_the_bottleneck_is_split_first_and_the_rest_shared_again():
    """The most contended link is split equally; its copies are fixed there, the others share what is left."""
    fabric, (a, b, c) = LinkFabric(), copies(3)
    wide, narrow = Link("wide", 3 * GB), Link("narrow", 1 * GB)
    fabric.begin(a, [wide], 10_000, 0, 0)
    fabric.begin(b, [wide, narrow], 10_000, 0, 0)
    fabric.begin(c, [narrow], 10_000, 0, 0)
    assert [fabric.rate_of(t) for t in (a, b, c)] == pytest.approx([2.5, 0.5, 0.5])


def test_a_copy_joining_later_moves_the_running_copys_finish_later():
    """When a copy starts draining, the copies whose share drops get later finish times, in start order."""
    fabric, link, (a, b) = LinkFabric(), Link("L", GB), copies(2)
    fabric.begin(a, [link], 1000, 0, 0)  # alone: would end at 1000
    moves = fabric.begin(b, [link], 1000, 0, 400)  # a has 600 bytes left, at 0.5
    assert moves == [(a, 1600), (b, 2400)]


def test_when_a_copy_ends_the_others_speed_up_and_their_finish_moves_earlier():
    """A copy's end frees its share: the remaining copies' finish times move forward."""
    fabric, link, (a, b) = LinkFabric(), Link("L", GB), copies(2)
    fabric.begin(a, [link], 1000, 0, 0)
    fabric.begin(b, [link], 1000, 0, 400)
    assert fabric.end(a, 1600) == [(b, 2000)]  # 400 bytes left, now at 1 byte/ns
    assert fabric.rate_of(a) == 0.0 and fabric.rate_of(b) == 1.0


def test_a_copy_whose_share_does_not_change_keeps_its_finish():
    """Only copies whose rate changed are moved."""
    fabric, (a, b, c) = LinkFabric(), copies(3)
    one, two = Link("one", GB), Link("two", GB)
    fabric.begin(a, [one], 1000, 0, 0)
    fabric.begin(b, [two], 1000, 0, 0)
    assert fabric.begin(c, [two], 1000, 0, 0) == [(b, 2000), (c, 2000)]


def test_an_unchanged_share_keeps_its_finish_to_the_ns_with_no_rounding_drift():
    """A copy whose rate did not change is not recomputed, so float rounding never moves its finish."""
    fabric, (a, b) = LinkFabric(), copies(2)
    assert fabric.begin(a, [Link("slow", 0.3 * GB)], 3, 0, 0) == [(a, 10)]
    assert fabric.begin(b, [Link("other", GB)], 1000, 0, 1) == [(b, 1001)]  # recomputing a would give 11


def test_finish_times_are_whole_nanoseconds_rounded_up():
    """Times are integer ns: a fractional finish is rounded up, never down."""
    fabric, (a,) = LinkFabric(), copies(1)
    assert fabric.begin(a, [Link("L", 3 * GB)], 10, 0, 0) == [(a, 4)]  # 10 bytes at 3 bytes/ns


# -- through the simulator -------------------------------------------------------------------------
def test_copies_on_a_shared_link_never_queue_they_start_at_once_and_share():
    """A SharedLink has room for every copy: they start together and split the bandwidth."""
    rig, fabric = Rig(), LinkFabric()
    path = SharedLink("Peer link 0->1", 0, fabric, [Link("HCCS 0->1", GB)], latency_ns=100)
    a = rig.submit(rig.stream(), path, at=0, nbytes=1000)
    b = rig.submit(rig.stream(), path, at=0, nbytes=1000)
    rig.run()
    assert (rig.start(a), rig.start(b)) == (0, 0)
    assert (a.end_t, b.end_t) == (2100, 2100)  # 100 start-up, then 2000 bytes at 1


def test_a_moved_finish_supersedes_the_older_one_and_the_copy_finishes_once():
    """A rescheduled finish bumps the task's version; its older finish event is skipped."""
    rig, fabric = Rig(), LinkFabric()
    path = SharedLink("Peer link 0->1", 0, fabric, [Link("HCCS 0->1", GB)], latency_ns=100)
    a = rig.submit(rig.stream(), path, at=0, nbytes=1000)  # alone: would finish at 1100
    rig.run(500)
    b = rig.submit(rig.stream(), path, at=500, nbytes=1000)  # drains from 600: a has 500 left
    rig.run()
    assert rig.finished(a) == [1600] and rig.finished(b) == [2100]
    assert len(list(rig.log.of(TaskFinished))) == 2 and a.version >= 1


def test_paths_through_one_port_share_it_and_opposite_directions_do_not():
    """Copies share a Link object they both cross (a PCIe port); each direction is a Link of its own."""
    rig, fabric = Rig(), LinkFabric()
    out0, in1, in2, out1, in0 = (
        Link(n, GB) for n in ("port 0 out", "port 1 in", "port 2 in", "port 1 out", "port 0 in")
    )
    to1 = SharedLink("0->1", 0, fabric, [out0, in1], 0)
    to2 = SharedLink("0->2", 0, fabric, [out0, in2], 0)
    back = SharedLink("1->0", 1, fabric, [out1, in0], 0)
    a = rig.submit(rig.stream(), to1, at=0, nbytes=1000)
    b = rig.submit(rig.stream(), to2, at=0, nbytes=1000)
    c = rig.submit(rig.stream(), back, at=0, nbytes=1000)
    rig.run()
    assert (a.end_t, b.end_t, c.end_t) == (2000, 2000, 1000)


def test_a_shared_link_copy_counts_as_running_until_it_ends():
    """The simulator counts copies on shared links as running tasks, from start to finish."""
    rig, fabric = Rig(), LinkFabric()
    path = SharedLink("Peer link 0->1", 0, fabric, [Link("HCCS 0->1", GB)], latency_ns=0)
    rig.submit(rig.stream(), path, at=0, nbytes=1000)
    rig.run(999)
    assert rig.sim.running_tasks == 1
    rig.run()
    assert rig.sim.running_tasks == 0 and fabric.flows == []
