"""Peer access between devices, and the links that peer copies run on.

Rules (RT-API 04 aclrtDeviceCanAccessPeer / EnablePeerAccess / DisablePeerAccess, RT-SRC
acl memory.cpp and api_impl_device_topology.cc, RT-FAQ P2P, RT-DG 05):

* Enabling is one-directional and device-level: aclrtDeviceEnablePeerAccess(peer, 0) on a
  thread whose current device is ``a`` opens the direction a -> peer only; the other
  direction needs its own call with the other device current.
* ``flags`` is reserved and must be 0 (200006 ACL_ERROR_FEATURE_UNSUPPORTED, checked first);
  ``peer`` equal to the current device, or ``dev == peer`` in the queries, is 100000.
* Peer access is not supported on the 310B (pyACL page; the runtime answers 207000
  ACL_ERROR_RT_FEATURE_NOT_SUPPORT for that chip) nor when the program runs on the device
  (offline / ACL_DEVICE run mode).
* The docs allow it only between threads of one process, so the enabled directions are
  kept per process: another process sees nothing enabled.
* CanAccessPeer and PeerAccessStatus need no current context (the guide's sample queries before any
  SetDevice); Enable/Disable act on the current device, so they need one (107002).

Choices where the docs are silent (documented, and tested):

* Enabling a direction that is already enabled, and disabling one that is not, succeed
  without changing anything.  Neither the ACL nor the runtime error tables has an
  "already enabled" / "not enabled" code (CUDA has both), and the runtime passes the call
  straight to the driver's device-level switch.  The trace still records the call, with
  ``changed`` False.
* Resetting a device does not close the directions opened from it; they last until
  disabled or until the process ends.
* aclrtGetDevicesTopo with both ids equal answers the machine's link type (the runtime
  maps a device's own HCCS_SW answer to HCCS, so it does answer for that case).

Topology (``Profile.peer_link``):

* "hccs": every pair of devices has its own HCCS link (8 x 910B full mesh, T-CHIAO),
  ``peer_bandwidth`` per direction.  Each direction is a separate link, so 0->1 and 1->0
  copies do not slow each other; copies in the same direction share it fairly.
* "pcie": every card hangs off one PCIe switch through its own x16 port.  A copy a -> b
  crosses a's port out of the card and b's port into the card (``peer_bandwidth`` per port
  and direction); the switch itself is taken as non-blocking.  So 0->1 and 2->3 run at full
  speed together, while 0->1 and 0->2 share card 0's uplink.
* "none": no peer links (a single 310B board).
"""
from __future__ import annotations

from .. import constants as C, hazards
from ..engines import Link, LinkFabric, SharedLink
from ..errors import (ACL_ERROR_FEATURE_UNSUPPORTED, ACL_ERROR_INVALID_PARAM, ACL_ERROR_RT_FEATURE_NOT_SUPPORT,
                     ACL_ERROR_RT_PARAM_INVALID, fail)
from ..trace import PeerAccessChanged

TOPOLOGY_BITS = {"hccs": C.ACL_RT_DEVS_TOPOLOGY_HCCS, "pcie": C.ACL_RT_DEVS_TOPOLOGY_PIX, "none": 0}


class PeerState:
    """One machine's peer links and, per process, the enabled directions."""

    def __init__(self, m):
        self.profile = m.profile
        self.fabric = LinkFabric()
        self.enabled: set[tuple[int, int, int]] = set()     # (pid, source device, peer device)
        self._paths: dict[tuple[int, int], SharedLink] = {}
        self._links: dict[str, Link] = {}

    def _link(self, name: str) -> Link:
        return self._links.setdefault(name, Link(name, self.profile.peer_bandwidth))

    def path(self, src: int, dst: int) -> SharedLink:
        """The engine that copies from ``src`` to ``dst`` run on (created on first use)."""
        engine = self._paths.get((src, dst))
        if engine is None:
            if self.profile.peer_link == "hccs":
                links = [self._link(f"HCCS {src}->{dst}")]
            else:
                links = [self._link(f"PCIe port {src} out"), self._link(f"PCIe port {dst} in")]
            engine = SharedLink(f"Peer link {src}->{dst}", src, self.fabric, links, self.profile.peer_latency_ns)
            self._paths[(src, dst)] = engine
        return engine


def state(m) -> PeerState:
    """The machine's peer state (made on first use, so a machine without peers pays nothing)."""
    return m.feature(PeerState)


def _not_supported(m, what: str) -> None:
    p = m.profile
    if not p.p2p_supported or p.peer_link == "none":
        fail(ACL_ERROR_RT_FEATURE_NOT_SUPPORT,
             f"{what}: peer-to-peer access between devices is not supported on {p.soc_name}")
    if p.run_mode == C.ACL_DEVICE:
        fail(ACL_ERROR_RT_FEATURE_NOT_SUPPORT,
             f"{what}: peer-to-peer access is not supported when the program runs on the device (ACL_DEVICE)")


def _pair(m, device: int, peer: int, what: str, names=("deviceId", "peerDeviceId")) -> None:
    if device == peer:
        fail(ACL_ERROR_INVALID_PARAM, f"{what}: {names[0]} {device} cannot be equal to {names[1]} {peer}")
    m.device(device)
    m.device(peer)


# -- queries -------------------------------------------------------------------------------------
def can_access_peer(m, th, device: int, peer: int) -> int:
    _pair(m, device, peer, "aclrtDeviceCanAccessPeer")
    _not_supported(m, "aclrtDeviceCanAccessPeer")
    return 1        # full-mesh HCCS and a shared PCIe switch both connect every pair


def access_status(m, th, device: int, peer: int) -> int:
    """1 if this process has enabled the direction device -> peer, else 0."""
    _pair(m, device, peer, "aclrtDevicePeerAccessStatus")
    _not_supported(m, "aclrtDevicePeerAccessStatus")
    return int((th.process.pid, device, peer) in state(m).enabled)


def devices_topo(m, th, device: int, other: int) -> int:
    """aclrtGetDevicesTopo: the ACL_RT_DEVS_TOPOLOGY_* bits of the link between two devices."""
    m.device(device)
    m.device(other)
    return TOPOLOGY_BITS.get(m.profile.peer_link, 0)


# -- enable / disable --------------------------------------------------------------------------------
def enable(m, th, peer: int, flags: int) -> None:
    if flags != 0:
        fail(ACL_ERROR_FEATURE_UNSUPPORTED, f"aclrtDeviceEnablePeerAccess: flags is reserved and must be 0, got {flags}")
    _set(m, th, peer, True, "aclrtDeviceEnablePeerAccess")


def disable(m, th, peer: int) -> None:
    _set(m, th, peer, False, "aclrtDeviceDisablePeerAccess")


def _set(m, th, peer: int, on: bool, api: str) -> None:
    device = m.current_context(th).device
    _pair(m, device, peer, api, names=("the current device", "peerDeviceId"))
    _not_supported(m, api)
    key = (th.process.pid, device, peer)
    enabled = state(m).enabled
    changed = (key in enabled) != on
    if on:
        enabled.add(key)
    else:
        enabled.discard(key)
    m.log.append(PeerAccessChanged(th.clock, th.tid, th.process.pid, device, peer, on, changed))


# -- copies ------------------------------------------------------------------------------------------
def copy_path(m, th, src: int, dst: int) -> SharedLink:
    """The link a copy from device ``src`` to device ``dst`` runs on, if this process may use it.

    The copy needs the direction src -> dst enabled (aclrtDeviceEnablePeerAccess(dst) with
    ``src`` current): the data flows from the source's device to the destination's, which
    is the direction the docs name ("Device 0 到 Device 1 方向的数据交互").  The exact code of
    the real failure is not documented; we answer 107000 ACL_ERROR_RT_PARAM_INVALID, the code
    the runtime gives every other copy whose addresses it cannot use, with a message naming
    the call that fixes it.
    """
    p = m.profile
    if not p.p2p_supported or p.peer_link == "none":
        fail(ACL_ERROR_RT_FEATURE_NOT_SUPPORT,
             f"copying from device {src} to device {dst}: peer-to-peer copies are not supported on {p.soc_name}")
    if (th.process.pid, src, dst) not in state(m).enabled:
        hazards.peer_copy_denied(m, th, src, dst)
        other = ("" if (th.process.pid, dst, src) not in state(m).enabled else
                 f" (only the opposite direction {dst} -> {src} is enabled; access is one-directional)")
        fail(ACL_ERROR_RT_PARAM_INVALID,
             f"copying from device {src} to device {dst} needs peer access {src} -> {dst}{other}: call "
             f"aclrtSetDevice({src}) then aclrtDeviceEnablePeerAccess({dst}, 0) first "
             f"(check with aclrtDeviceCanAccessPeer({src}, {dst}))")
    return state(m).path(src, dst)
