"""Port of example/1_basic_features/device/2_device_P2P (hicann/runtime).

Device 0 and device 1 open peer access to each other, device 0's buffer is filled with one
byte value, copied to device 1, then to the host, and the first byte is checked.

The C sample fills with ``rand() % 256``; glibc's first ``rand()`` (seed 1) is 1804289383,
so the value is 103, the one its README prints.  The port uses that value.
"""

import sys

from sandbox import acl

UINT8_DATA_LEN = 256
FIRST_GLIBC_RAND = 1804289383


def info(text):
    print(f"[INFO]  {text}")


def error(text):
    print(f"[ERROR]  {text}")


def check(ret, what):
    # the sample's CHECK_ERROR: name the call and its code, then stop
    if ret != acl.ACL_SUCCESS:
        error(f"Operation failed: {what} returned error code {ret}")
        sys.exit(1)


def main():
    info("Start to run device_P2P sample.")
    check(acl.init(), "aclInit")

    device_count, ret = acl.rt.get_device_count()
    check(ret, "aclrtGetDeviceCount")
    if device_count < 2:
        info(f"[SKIP] Need at least 2 visible devices for P2P, but got {device_count}.")
        check(acl.finalize(), "aclFinalize")
        return

    check(acl.rt.set_device(0), "aclrtSetDevice(0)")

    # Can device 0 exchange data directly with device 1?
    can_access_peer, ret = acl.rt.device_can_access_peer(0, 1)
    check(ret, "aclrtDeviceCanAccessPeer")

    if can_access_peer == 1:
        # Open the direction device 0 -> device 1 (the current device is 0).
        check(acl.rt.device_enable_peer_access(1, 0), "aclrtDeviceEnablePeerAccess(1)")

        mem_size = 10
        dev0, ret = acl.rt.malloc(mem_size, acl.ACL_MEM_MALLOC_HUGE_FIRST_P2P)
        check(ret, "aclrtMalloc(dev0)")
        rand_value = FIRST_GLIBC_RAND % UINT8_DATA_LEN
        # Fill device 0's buffer with that byte.
        check(acl.rt.memset(dev0, mem_size, rand_value, mem_size), "aclrtMemset(dev0)")

        # Now work on device 1, and open the direction device 1 -> device 0.
        check(acl.rt.set_device(1), "aclrtSetDevice(1)")
        check(acl.rt.device_enable_peer_access(0, 0), "aclrtDeviceEnablePeerAccess(0)")

        dev1, ret = acl.rt.malloc(mem_size, acl.ACL_MEM_MALLOC_HUGE_FIRST_P2P)
        check(ret, "aclrtMalloc(dev1)")
        check(acl.rt.memset(dev1, mem_size, 0, mem_size), "aclrtMemset(dev1)")

        # The copy between the two devices.
        check(acl.rt.memcpy(dev1, mem_size, dev0, mem_size, acl.ACL_MEMCPY_DEVICE_TO_DEVICE), "aclrtMemcpy(D2D)")
        info("Device 0 to device 1 memcpy success.")

        host, ret = acl.rt.malloc_host(mem_size)
        check(ret, "aclrtMallocHost")
        check(acl.rt.memset(host, mem_size, 0, mem_size), "aclrtMemset(host)")

        check(acl.rt.memcpy(host, mem_size, dev1, mem_size, acl.ACL_MEMCPY_DEVICE_TO_HOST), "aclrtMemcpy(D2H)")
        info("Device 1 to host memcpy success.")

        # The first byte must be the value written on device 0.
        first = acl.util.ptr_to_bytes(host, 1)[0]
        if first == rand_value:
            info(f"The data read from the memory is {first}, verify success!")

        check(acl.rt.synchronize_device(), "aclrtSynchronizeDevice")

        # Close device 1's direction, release its memory, reset it.
        check(acl.rt.device_disable_peer_access(0), "aclrtDeviceDisablePeerAccess(0)")
        check(acl.rt.free_host(host), "aclrtFreeHost")
        check(acl.rt.free(dev1), "aclrtFree(dev1)")
        check(acl.rt.reset_device_force(1), "aclrtResetDeviceForce(1)")

        # Back on device 0: the same for its side.
        check(acl.rt.set_device(0), "aclrtSetDevice(0)")
        check(acl.rt.device_disable_peer_access(1), "aclrtDeviceDisablePeerAccess(1)")
        check(acl.rt.free(dev0), "aclrtFree(dev0)")
        check(acl.rt.reset_device_force(0), "aclrtResetDeviceForce(0)")
    else:
        error("The device does not support peer access feature.")

    check(acl.finalize(), "aclFinalize")
    info("Run the device_P2P sample successfully.")


if __name__ == "__main__":
    main()
