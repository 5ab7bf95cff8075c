"""Port of example/1_basic_features/memory/10_ipc_memory_withpid (hicann/runtime).

Two processes share 1 MiB of device 0.  Process A allocates it, writes 123 there with a kernel
and exports it (aclrtIpcMemGetExportKey, default flag: pid allow-list on); process B sends its
pid (aclrtDeviceGetBareTgid); A puts it on the allow-list (aclrtIpcMemSetImportPid) and sends
the key; B imports the key (aclrtIpcMemImportByKey), reads the int with a kernel through its own
address and sends a completion flag; both close the key (aclrtIpcMemClose), B first.

run.sh starts proc_a and proc_b and they talk through files; here ``main`` starts them as
simulated processes (``sandbox.spawn_process``) and the files are ``sandbox.write_shared`` /
``read_shared`` values (``_file_ops.py``), polled once a second of virtual time as ReadFile does.
The output is the two programs' lines interleaved in the order the sandbox runs them (how many
"Data writing not yet complete" polls each makes follows from that order); the README shows all
of proc_b's lines before proc_a's, and leaves out the file helpers' lines ("Start writing to ...", "Start reading
from ...", "Data writing not yet complete", "Read data successfully") and two of the programs' own
("Process B: write Process B's pid to the file successfully ...", "Process A: get Process B's pid
successfully ..."): the port prints them all.  The kernels print when they finish, as in
memory/9.  The key and the addresses are the sandbox's fixed ones.  The run.sh comparison ends it.

The sample never waits for its kernels before it passes the key on or frees: A's write kernel
is not known complete when B's read kernel is queued (the files order the hosts, not A's
stream), and B's read is not known complete to A when A frees.  The sandbox reports both
(stream_race, free_in_use): the port keeps the sample's calls, expects exactly those two reports
and keeps them off stderr; they stay in the trace (``sandbox.hazards()``).  B's last aclrtFree of
its imported address, which the sample does not check, returns 100000 after the close unmapped it.
"""

import sys
import warnings

from _file_ops import Tee, info, read_file, write_file
from _kernel_ops import read_do, write_do

import sandbox
from sandbox import acl

DEVICE_ID = 0
SIZE = 1 * 1024 * 1024
BLOCK_DIM = 1
EXPECTED_HAZARDS = ["stream_race", "free_in_use"]


def check(ret, what):
    # CHECK_ERROR: name the call and its code, then end the program
    if ret != acl.ACL_SUCCESS:
        print(f"[ERROR]  Operation failed: {what} returned error code {ret}")
        sys.exit(1)


def proc_a():
    acl.init()
    acl.rt.set_device(DEVICE_ID)
    stream, _ = acl.rt.create_stream()

    # Allocate memory on the device
    dev_ptr, ret = acl.rt.malloc(SIZE, acl.ACL_MEM_MALLOC_HUGE_FIRST)
    check(ret, "aclrtMalloc((void**)&devPtr, size, ACL_MEM_MALLOC_HUGE_FIRST)")
    info(f"Allocate memory on the device {dev_ptr:#x} successfully")

    write_value = 123
    write_do(BLOCK_DIM, stream, dev_ptr, write_value)
    info(f"Write data {write_value} to the device address {dev_ptr:#x}")

    # Export the shareable memory identifier
    len_name = 65
    mem_name, ret = acl.rt.ipc_mem_get_export_key(dev_ptr, SIZE, len_name, 0)
    check(ret, "aclrtIpcMemGetExportKey(devPtr, size, memName, lenName, 0)")
    info(f"Process A: get the shareable memory identifier {mem_name} successfully")

    # Read Process B's pid from the file
    pid = read_file("file/pid.bin", "file/pid.bin.done")
    info(f"Process A: get Process B's pid successfully, Process B's pid = {pid}")

    # Add Process B to the whitelist
    check(acl.rt.ipc_mem_set_import_pid(mem_name, [pid]), "aclrtIpcMemSetImportPid(memName, &pid, 1)")
    info("Process A: add Process B to the whitelist successfully")

    # Transfer the shareable memory identifier to Process B by writing it to the file
    write_file("file/memName.bin", "file/memName.bin.done", mem_name)

    # Read the completion flag from the file
    flag = read_file("file/flag.bin", "file/flag.bin.done")
    info(f"Process A: receive the completion signal from Process B, completion signal = {flag}")

    # Release memory resources
    check(acl.rt.ipc_mem_close(mem_name), "aclrtIpcMemClose(memName)")
    acl.rt.destroy_stream_force(stream)
    acl.rt.free(dev_ptr)
    acl.rt.reset_device_force(DEVICE_ID)
    acl.finalize()


def proc_b():
    acl.init()
    acl.rt.set_device(DEVICE_ID)
    stream, _ = acl.rt.create_stream()

    # Get Process B's pid
    pid, ret = acl.rt.device_get_bare_tgid()
    check(ret, "aclrtDeviceGetBareTgid(&pid)")
    info("Process B: get Process B's pid successfully")

    # Write Process B's pid to the file
    write_file("file/pid.bin", "file/pid.bin.done", pid)
    info(f"Process B: write Process B's pid to the file successfully, Process B's pid = {pid}")

    # Get the shareable memory identifier from the file
    mem_name = read_file("file/memName.bin", "file/memName.bin.done")
    info(f"Process B: get the shareable memory identifier successfully, shareable identifier = {mem_name}")

    # Return a device memory pointer accessible to Process B
    dev_ptr, ret = acl.rt.ipc_mem_import_by_key(mem_name, 0)
    check(ret, "aclrtIpcMemImportByKey(&devPtr, memName, 0)")

    read_do(BLOCK_DIM, stream, dev_ptr)

    # Write the completion flag to the file
    write_file("file/flag.bin", "file/flag.bin.done", 1)
    info("Process B: complete ipc memory sharing")

    # Release memory resources
    check(acl.rt.ipc_mem_close(mem_name), "aclrtIpcMemClose(memName)")
    acl.rt.destroy_stream_force(stream)
    acl.rt.free(dev_ptr)
    acl.rt.reset_device_force(DEVICE_ID)
    acl.finalize()


def main():
    sys.stdout = tee = Tee()
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always", sandbox.HazardWarning)
        # run.sh: ./build/proc_a | tee ... & ./build/proc_b | tee ... &, then wait for both
        proc_a_handle = sandbox.spawn_process(proc_a, name="proc_a")
        proc_b_handle = sandbox.spawn_process(proc_b, name="proc_b")
        proc_a_handle.join()
        proc_b_handle.join()
    kinds = [h.kind for h in sandbox.hazards()]
    if kinds != EXPECTED_HAZARDS or len(caught) != len(kinds):
        for w in caught:
            warnings.showwarning(w.message, w.category, w.filename, w.lineno)
        sys.exit(f"expected the hazard reports {EXPECTED_HAZARDS}, got {kinds}")

    source_value = tee.value_after("Source data")
    destination_value = tee.value_after("Destination data")
    if source_value and source_value == destination_value:
        print(f"[SUCCESS] IPC memory sharing successfully. Values at source and destination are equal: {source_value}")
    else:
        print(
            f"[FAILURE] IPC memory sharing failed. Value at source is {source_value}, "
            f"but value at destination is {destination_value}"
        )
        sys.exit(1)


if __name__ == "__main__":
    main()
