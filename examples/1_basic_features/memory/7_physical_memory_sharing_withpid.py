"""Port of example/1_basic_features/memory/7_physical_memory_sharing_withpid (hicann/runtime).

Process A allocates physical memory (aclrtMallocPhysical, size rounded up to the granularity),
maps it at a reserved address, writes 123 there with a kernel and exports the allocation as a
shareable handle.  Process B sends its pid (aclrtDeviceGetBareTgid); A puts it on the handle's
allow-list (aclrtMemSetPidToShareableHandle) and sends the handle; B imports it, maps it at an
address of its own and copies the int back to the host: 123, the bytes A's kernel wrote.  B's
completion flag tells A to unmap and free.

run.sh starts proc_a and proc_b as two programs; here they are two simulated processes of one
script (``sandbox.spawn_process``), A started first, and the pid, handle and flag files are
``sandbox.write_shared`` / ``read_shared`` values (``_file_ops.py``, as in memory/10): the polling
sleeps in virtual time, writing a file takes a little host time, and a read teaches the reader
what the writer's host knew complete when it wrote.  Differences from the official sample:

* Process A synchronizes its stream before it hands the handle over (the one call the port adds).
  The sample does not: nothing orders A's kernel before B's copy (the kernel launch is
  asynchronous and the file hand-over is host-side), and the sandbox's hazard check reports that
  race.  On hardware the kernel has long finished by then; the synchronize makes it a rule.
* The two programs print to one terminal, in the order the sandbox's turn gives (the README shows
  each program's output alone); their lines interleave, and each program prints the lines its
  code prints that the README leaves out (granularity, aligned size, file reads and writes, the
  warnings of the polling).  The kernel prints "Source data: 123" when it finishes, which A's added
  synchronize brings about just before the hand-over: where the README shows the kernel's printf.
* The addresses, pids (A is 2, B is 3: the script itself is process 1) and the shareable handle
  are the sandbox's fixed ones; the last line is run.sh's verdict.
"""

import sys

import sandbox
from sandbox import acl

from _file_ops import error, info, read_file, write_file
from _kernel_ops import write_do

RESULTS = {}


def check(ret, what):
    # CHECK_ERROR: name the call and its code, then end the program
    if ret != acl.ACL_SUCCESS:
        error(f"Operation failed: {what} returned error code {ret}")
        sys.exit(1)


def physical_prop():
    return {
        "handleType": acl.ACL_MEM_HANDLE_TYPE_NONE,
        "allocationType": acl.ACL_MEM_ALLOCATION_TYPE_PINNED,
        "location": {"type": acl.ACL_MEM_LOCATION_TYPE_DEVICE, "id": 0},
        "memAttr": acl.ACL_HBM_MEM_NORMAL,
    }


def access_desc(device_id):
    return {
        "flags": acl.ACL_RT_MEM_ACCESS_FLAGS_READWRITE,
        "location": {"type": acl.ACL_MEM_LOCATION_TYPE_DEVICE, "id": device_id},
    }


def proc_a():
    acl.init()
    device_id = 0
    acl.rt.set_device(device_id)
    stream, _ = acl.rt.create_stream()

    # Get memory allocation granularity
    data_size = 1024 * 4
    prop = physical_prop()
    granularity, ret = acl.rt.mem_get_allocation_granularity(prop, acl.ACL_RT_MEM_ALLOC_GRANULARITY_MINIMUM)
    check(ret, "aclrtMemGetAllocationGranularity(&prop, ACL_RT_MEM_ALLOC_GRANULARITY_MINIMUM, &granularity)")
    info(f"Process A: get memory allocation granularity successfully, granularity = {granularity}")

    # Allocate physical memory in whole granules
    aligned_size = (data_size + granularity - 1) // granularity * granularity
    info(f"Process A: aligned size = {aligned_size}")
    handle, ret = acl.rt.malloc_physical(aligned_size, prop, 0)
    check(ret, "aclrtMallocPhysical(&handle, alignedSize, &prop, 0)")
    info("Process A: allocate physical memory successfully")

    # Reserve virtual memory
    vir_ptr, ret = acl.rt.reserve_mem_address(granularity, 0, 0, 0)
    check(ret, "aclrtReserveMemAddress(&virPtr, granularity, 0, nullptr, 0)")
    info("Process A: reserve virtual memory successfully")

    # Map virtual memory to physical memory
    check(acl.rt.map_mem(vir_ptr, granularity, 0, handle, 0), "aclrtMapMem(virPtr, granularity, 0, handle, 0)")
    info("Process A: map virtual memory address to physical memory handle")

    # Set memory access permissions
    check(
        acl.rt.mem_set_access(vir_ptr, granularity, access_desc(device_id), 1),
        "aclrtMemSetAccess(virPtr, granularity, &accessDesc, 1)",
    )
    info("Process A: set memory access permissions successfully")

    # Write the value to the virtual memory
    write_value = 123
    write_do(1, stream, vir_ptr, write_value)
    RESULTS["source"] = write_value
    info(f"Write data {write_value} to the virtual address {vir_ptr:#x}")

    # Export a shareable handle
    shareable_handle, ret = acl.rt.mem_export_to_shareable_handle(handle, acl.ACL_MEM_HANDLE_TYPE_NONE, 0)
    check(ret, "aclrtMemExportToShareableHandle(handle, ACL_MEM_HANDLE_TYPE_NONE, 0, &shareableHandle)")
    info(f"Process A: export a shareable handle successfully, shareable handle = {shareable_handle}")

    # Read Process B's pid from the file
    pid = read_file("file/pid.bin", "file/pid.bin.done")
    info(f"Process A: get Process B's pid successfully, Process B's pid = {pid}")

    # Add Process B to the whitelist
    check(
        acl.rt.mem_set_pid_to_shareable_handle(shareable_handle, [pid]),
        "aclrtMemSetPidToShareableHandle(shareableHandle, &pid, 1)",
    )
    info("Process A: add Process B to the whitelist successfully")

    # Not in the official sample: the kernel's write is complete before the handle leaves this process
    check(acl.rt.synchronize_stream(stream), "aclrtSynchronizeStream(stream)")

    # Transfer the shareable handle to Process B by writing it to the file
    write_file("file/handle.bin", "file/handle.bin.done", shareable_handle)

    # Read the completion flag from the file
    flag = read_file("file/flag.bin", "file/flag.bin.done")
    info(f"Process A: receive the completion signal from Process B, completion signal = {flag}")

    # Unmap virtual memory from physical memory
    check(acl.rt.unmap_mem(vir_ptr), "aclrtUnmapMem(virPtr)")
    info("Process A: unmap virtual memory from physical memory")

    # Release the virtual and physical memory
    check(acl.rt.release_mem_address(vir_ptr), "aclrtReleaseMemAddress(virPtr)")
    check(acl.rt.free_physical(handle), "aclrtFreePhysical(handle)")
    info("Process A: release the virtual and physical memory successfully")

    acl.rt.destroy_stream_force(stream)
    acl.rt.reset_device_force(device_id)
    acl.finalize()


def proc_b():
    acl.init()
    device_id = 0
    acl.rt.set_device(device_id)
    stream, _ = acl.rt.create_stream()

    # Get Process B's pid
    pid, ret = acl.rt.device_get_bare_tgid()
    check(ret, "aclrtDeviceGetBareTgid(&pid)")
    info("Process B: get Process B's pid successfully")

    # Write Process B's pid to the file
    write_file("file/pid.bin", "file/pid.bin.done", pid)
    info(f"Process B: write Process B's pid to the file successfully, Process B's pid = {pid}")

    # Get the shareable handle from the file
    shareable_handle = read_file("file/handle.bin", "file/handle.bin.done")
    info(f"Process B: get a shareable handle successfully, shareable handle = {shareable_handle}")

    handle, ret = acl.rt.mem_import_from_shareable_handle(shareable_handle, device_id)
    check(ret, "aclrtMemImportFromShareableHandle(shareableHandle, deviceId, &handle)")

    # Get memory allocation granularity
    prop = physical_prop()
    granularity, ret = acl.rt.mem_get_allocation_granularity(prop, acl.ACL_RT_MEM_ALLOC_GRANULARITY_MINIMUM)
    check(ret, "aclrtMemGetAllocationGranularity(&prop, ACL_RT_MEM_ALLOC_GRANULARITY_MINIMUM, &granularity)")
    info(f"Process B: get memory allocation granularity successfully, granularity = {granularity}")

    # Reserve virtual memory
    vir_ptr, ret = acl.rt.reserve_mem_address(granularity, 0, 0, 0)
    check(ret, "aclrtReserveMemAddress(&virPtr, granularity, 0, nullptr, 0)")
    info("Process B: reserve virtual memory successfully")

    # Map virtual memory to physical memory
    check(acl.rt.map_mem(vir_ptr, granularity, 0, handle, 0), "aclrtMapMem(virPtr, granularity, 0, handle, 0)")
    info("Process B: map virtual memory address to physical memory handle")

    # Set memory access permissions
    check(
        acl.rt.mem_set_access(vir_ptr, granularity, access_desc(device_id), 1),
        "aclrtMemSetAccess(virPtr, granularity, &accessDesc, 1)",
    )
    info("Process B: set memory access permissions successfully")

    # Copy memory from device to host
    host_ptr, ret = acl.rt.malloc_host(granularity)
    check(ret, "aclrtMallocHost(&hostPtrA, granularity)")
    check(
        acl.rt.memcpy(host_ptr, granularity, vir_ptr, granularity, acl.ACL_MEMCPY_DEVICE_TO_HOST),
        "aclrtMemcpy(hostPtrA, granularity, virPtr, granularity, ACL_MEMCPY_DEVICE_TO_HOST)",
    )
    info(f"Process B: copy memory from device address {vir_ptr:#x} to host address {host_ptr:#x}")

    # Read the value at address hostPtrA
    read_value = int.from_bytes(acl.util.ptr_to_bytes(host_ptr, 4), "little", signed=True)
    RESULTS["destination"] = read_value
    info(f"Destination data: {read_value}")

    # Unmap virtual memory from physical memory
    check(acl.rt.unmap_mem(vir_ptr), "aclrtUnmapMem(virPtr)")
    info("Process B: unmap virtual memory from physical memory")

    # Write the completion flag to the file
    write_file("file/flag.bin", "file/flag.bin.done", 1)
    info("Process B: complete physical memory sharing")

    # Release the virtual and physical memory
    check(acl.rt.release_mem_address(vir_ptr), "aclrtReleaseMemAddress(virPtr)")
    check(acl.rt.free_physical(handle), "aclrtFreePhysical(handle)")
    info("Process B: release the virtual and physical memory successfully")

    acl.rt.destroy_stream_force(stream)
    acl.rt.free_host(host_ptr)
    acl.rt.reset_device_force(device_id)
    acl.finalize()


def main():
    # run.sh: start both programs, wait for both, compare what they printed
    proc_a_handle = sandbox.spawn_process(proc_a, name="proc_a")
    proc_b_handle = sandbox.spawn_process(proc_b, name="proc_b")
    proc_a_handle.join()
    proc_b_handle.join()
    source, destination = RESULTS.get("source"), RESULTS.get("destination")
    if source is not None and source == destination:
        print(f"[SUCCESS] Memory sharing successfully. Values at source and destination are equal: {source}")
    else:
        print(
            f"[FAILURE] Memory sharing failed. Value at source is {source}, but value at destination is {destination}"
        )


if __name__ == "__main__":
    main()
