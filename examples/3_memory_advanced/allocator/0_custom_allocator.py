"""Port of example/3_memory_advanced/allocator/0_custom_allocator (hicann/runtime).

A custom allocator is an object and four functions (alloc, free, alloc-advise, get the address
of a block) put into an aclrtAllocatorDesc and registered on a stream; operators (aclnn) that
run on the stream would then take their memory from it.  The sample registers one, reads it
back with aclrtAllocatorGetByStream and calls the functions it got itself: one 256-byte block
filled with 0xAB, one 128-byte block through the advise function, both freed; the allocator
object counts the calls.  Then it unregisters, destroys the descriptor and cleans up.

As in C, the functions are the program's own: calling them is plain Python, not a runtime call
(sandbox/acl/_allocator.py keeps the descriptor and the registration).  A block's memory is
host memory (std::malloc in C), here a numpy array.  The README's last line shows
"descOut=..., allocCount=2, freeCount=2"; the program's format has no commas and prints the
descriptor's address, here the sandbox's handle.
"""

import sys

import numpy as np

from sandbox import acl

DEVICE_ID = 0


def info(text):
    print(f"[INFO]  {text}")


def error(text):
    print(f"[ERROR]  {text}")


def check(ret, what):
    # CHECK_ERROR: name the call and its code, then leave main with -1
    if ret != acl.ACL_SUCCESS:
        error(f"Operation failed: {what} returned error code {ret}")
        sys.exit(255)


def check_not_null(value, name):
    # CHECK_NOT_NULL
    if value is None or (isinstance(value, int) and value == 0):
        error(f"{name} is nullptr")
        sys.exit(255)


class CustomBlock:
    def __init__(self, addr, size):
        self.addr, self.size = addr, size


class CustomAllocatorState:
    def __init__(self):
        self.alloc_count = 0
        self.free_count = 0


def custom_alloc(allocator, size):
    state = allocator
    block = CustomBlock(np.empty(size, dtype=np.uint8), size)
    if state is not None:
        state.alloc_count += 1
    info(f"CustomAlloc size={size}")
    return block


def custom_free(allocator, block):
    state = allocator
    if block is not None:
        block.addr = None  # std::free of the block's memory and of the block
    if state is not None:
        state.free_count += 1
    info("CustomFree invoked")


def custom_alloc_advise(allocator, size, addr):
    info(f"CustomAllocAdvise size={size}")
    return custom_alloc(allocator, size)


def custom_get_addr_from_block(block):
    return None if block is None else block.addr


def main():
    state = CustomAllocatorState()
    check(acl.init(), "aclInit(nullptr)")
    check(acl.rt.set_device(DEVICE_ID), "aclrtSetDevice(deviceId)")
    context, ret = acl.rt.create_context(DEVICE_ID)
    check(ret, "aclrtCreateContext(&context, deviceId)")
    stream, ret = acl.rt.create_stream()
    check(ret, "aclrtCreateStream(&stream)")
    desc = acl.rt.allocator_create_desc()  # pyACL returns the handle alone
    check_not_null(desc, "aclrtAllocatorCreateDesc")
    check(acl.rt.allocator_set_obj_to_desc(desc, state), "aclrtAllocatorSetObjToDesc(desc, &state)")
    check(acl.rt.allocator_set_alloc_func_to_desc(desc, custom_alloc), "aclrtAllocatorSetAllocFuncToDesc")
    check(acl.rt.allocator_set_free_func_to_desc(desc, custom_free), "aclrtAllocatorSetFreeFuncToDesc")
    check(
        acl.rt.allocator_set_alloc_advise_func_to_desc(desc, custom_alloc_advise),
        "aclrtAllocatorSetAllocAdviseFuncToDesc",
    )
    check(
        acl.rt.allocator_set_get_addr_from_block_func_to_desc(desc, custom_get_addr_from_block),
        "aclrtAllocatorSetGetAddrFromBlockFuncToDesc",
    )
    check(acl.rt.allocator_register(stream, desc), "aclrtAllocatorRegister(stream, desc)")

    desc_out, allocator_out, alloc_func, free_func, alloc_advise_func, get_addr_func, ret = (
        acl.rt.allocator_get_by_stream(stream)
    )
    check(ret, "aclrtAllocatorGetByStream")
    check_not_null(alloc_func, "allocFunc")
    check_not_null(free_func, "freeFunc")
    check_not_null(get_addr_func, "getAddrFunc")
    block = alloc_func(allocator_out, 256)
    check_not_null(block, "Custom block")
    addr = get_addr_func(block)
    check_not_null(addr, "Custom block addr")
    addr[:256] = 0xAB
    if alloc_advise_func is not None:
        advised_block = alloc_advise_func(allocator_out, 128, None)
        if advised_block is not None:
            free_func(allocator_out, advised_block)
    free_func(allocator_out, block)
    info(f"Allocator desc queried: descOut={desc_out:#x} allocCount={state.alloc_count} freeCount={state.free_count}")

    check(acl.rt.allocator_unregister(stream), "aclrtAllocatorUnregister(stream)")
    check(acl.rt.allocator_destroy_desc(desc), "aclrtAllocatorDestroyDesc(desc)")
    check(acl.rt.destroy_stream(stream), "aclrtDestroyStream(stream)")
    check(acl.rt.destroy_context(context), "aclrtDestroyContext(context)")
    check(acl.rt.reset_device_force(DEVICE_ID), "aclrtResetDeviceForce(deviceId)")
    check(acl.finalize(), "aclFinalize()")


if __name__ == "__main__":
    main()
