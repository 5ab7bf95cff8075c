"""Port of example/2_advanced_features/notify/0_ipc_notify_withpid (hicann/runtime).

Process A on device 2 and process B on device 3 enable peer access to each other.  A allocates
1 MiB, exports it without an allow-list (ACL_RT_IPC_MEM_EXPORT_FLAG_DISABLE_PID_VALIDATION) and
sends the key; B imports it.  A creates a notify and exports it with the default flag (pid
allow-list on); B sends its pid (aclrtDeviceGetBareTgid), A puts it on the notify's allow-list
(aclrtNotifySetImportPid) and sends the notify's key; B imports the notify
(aclrtNotifyImportByKey).  A queues a wait on the notify (aclrtWaitAndResetNotify) and then a
kernel that reads the int; B sleeps 5 s, writes 123 with a kernel through its imported address
and records the notify.  A's read can only run after B's record, so it reads 123.

run.sh starts proc_a and proc_b and they talk through files; here ``main`` starts them as
simulated processes (``sandbox.spawn_process``) and the files are ``sandbox.write_shared`` /
``read_shared`` values (``_file_ops.py``), polled once a second of virtual time as ReadFile does.
The output is the two programs' lines in the order the sandbox runs them, with the file helpers'
lines ("Start writing to ...", "Start reading from ...", "Data writing not yet complete", "Read
data successfully"), B's kernel's "Source data: 123", A's "get a shareable identifier for IPC
notify sharing successfully ..." and B's "get the shareable identifier for IPC memory sharing
successfully ..." lines, which the README leaves out.  The README's order is the same but for
B's "enable data interaction" line, which comes right after A's here (before A's first key
line).  The kernels print when they finish, as in memory/9.  The keys and addresses are the
sandbox's fixed ones.  The run.sh comparison ends it.
"""

import sys

from _file_ops import Tee, info, read_file, write_file
from _kernel_ops import read_do, write_do

import sandbox
from sandbox import acl

SIZE = 1 * 1024 * 1024
BLOCK_DIM = 1


def error(text):
    print(f"[ERROR]  {text}")


def check(ret, what):
    # CHECK_ERROR: name the call and its code, then end the program
    if ret != acl.ACL_SUCCESS:
        print(f"[ERROR]  Operation failed: {what} returned error code {ret}")
        sys.exit(1)


def proc_a():
    acl.init()
    device_id = 2
    acl.rt.set_device(device_id)
    stream, _ = acl.rt.create_stream()

    peer_device_id = 3
    # Check if data interaction is supported between the target devices
    can_access_peer, ret = acl.rt.device_can_access_peer(device_id, peer_device_id)
    check(ret, "aclrtDeviceCanAccessPeer(&canAccessPeer, deviceId, peerDeviceId)")

    if can_access_peer == 1:
        # Enable data interaction between the target devices
        check(acl.rt.device_enable_peer_access(peer_device_id, 0), "aclrtDeviceEnablePeerAccess(peerDeviceId, 0)")
        info(f"Process A: enable data interaction between device {device_id} and device {peer_device_id}")

        # Allocate memory on the device
        dev_ptr, ret = acl.rt.malloc(SIZE, acl.ACL_MEM_MALLOC_HUGE_FIRST)
        check(ret, "aclrtMalloc((void**)&devPtr, size, ACL_MEM_MALLOC_HUGE_FIRST)")

        # Export a shareable identifier for IPC memory sharing
        len_name = 65
        mem_name, ret = acl.rt.ipc_mem_get_export_key(dev_ptr, SIZE, len_name, 1)
        check(ret, "aclrtIpcMemGetExportKey(devPtr, size, memName, lenName, 1)")
        info(
            "Process A: get a shareable identifier for IPC memory sharing successfully, "
            f"shareable identifier = {mem_name}"
        )

        # Transfer the shareable identifier to Process B by writing it to the file
        write_file("file/memName.bin", "file/memName.bin.done", mem_name)

        # Create notify
        notify, ret = acl.rt.create_notify(0)
        check(ret, "aclrtCreateNotify(&notify, 0)")

        # Export a shareable identifier for IPC notify sharing
        notify_name, ret = acl.rt.notify_get_export_key(notify, len_name, 0)
        check(ret, "aclrtNotifyGetExportKey(notify, notifyName, lenName, 0)")
        info(
            "Process A: get a shareable identifier for IPC notify sharing successfully, "
            f"shareable identifier = {notify_name}"
        )

        # Read Process B's pid from the file
        pid = read_file("file/pid.bin", "file/pid.bin.done")
        info(f"Process A: get Process B's pid successfully, Process B's pid = {pid}")

        # Add Process B to the whitelist
        check(acl.rt.notify_set_import_pid(notify, [pid]), "aclrtNotifySetImportPid(notify, &pid, 1)")
        info("Process A: add Process B to the whitelist successfully")

        # Transfer the shareable identifier to Process B by writing it to the file
        write_file("file/notifyName.bin", "file/notifyName.bin.done", notify_name)

        # Dispatch the waiting task
        check(acl.rt.wait_and_reset_notify(notify, stream, 0), "aclrtWaitAndResetNotify(notify, stream, 0)")

        # If the waiting task really blocks, the kernel reads the value Process B wrote
        read_do(BLOCK_DIM, stream, dev_ptr)

        # Release notify and memory resources
        check(acl.rt.synchronize_stream(stream), "aclrtSynchronizeStream(stream)")
        check(acl.rt.ipc_mem_close(mem_name), "aclrtIpcMemClose(memName)")
        check(acl.rt.free(dev_ptr), "aclrtFree(devPtr)")
        check(acl.rt.destroy_notify(notify), "aclrtDestroyNotify(notify)")
    else:
        error("The target devices do not support data interaction")
    acl.rt.destroy_stream_force(stream)
    acl.rt.reset_device_force(device_id)
    acl.finalize()


def proc_b():
    acl.init()
    device_id = 3
    acl.rt.set_device(device_id)
    stream, _ = acl.rt.create_stream()

    peer_device_id = 2
    # Check if data interaction is supported between the target devices
    can_access_peer, ret = acl.rt.device_can_access_peer(device_id, peer_device_id)
    check(ret, "aclrtDeviceCanAccessPeer(&canAccessPeer, deviceId, peerDeviceId)")

    if can_access_peer == 1:
        # Enable data interaction between the target devices
        check(acl.rt.device_enable_peer_access(peer_device_id, 0), "aclrtDeviceEnablePeerAccess(peerDeviceId, 0)")
        info(f"Process B: enable data interaction between device {device_id} and device {peer_device_id}")

        # Get the shareable key from the file
        mem_name = read_file("file/memName.bin", "file/memName.bin.done")
        info(
            "Process B: get the shareable identifier for IPC memory sharing successfully, "
            f"shareable identifier = {mem_name}"
        )

        # Return a device memory pointer accessible to Process B
        dev_ptr, ret = acl.rt.ipc_mem_import_by_key(mem_name, 0)
        check(ret, "aclrtIpcMemImportByKey(&devPtr, memName, 0)")

        # Get Process B's pid
        pid, ret = acl.rt.device_get_bare_tgid()
        check(ret, "aclrtDeviceGetBareTgid(&pid)")
        info(f"Process B: get Process B's pid successfully, pid = {pid}")

        # Write Process B's pid to the file
        write_file("file/pid.bin", "file/pid.bin.done", pid)

        # Get the shareable key from the file
        notify_name = read_file("file/notifyName.bin", "file/notifyName.bin.done")
        info(
            "Process B: get the shareable identifier for IPC notify sharing successfully, "
            f"shareable identifier = {notify_name}"
        )

        # Get key information and return the notify accessible to Process B
        notify, ret = acl.rt.notify_import_by_key(notify_name, 0)
        check(ret, "aclrtNotifyImportByKey(&notify, notifyName, 0)")

        # Wait a moment to mimic a time-consuming task: usleep(5000000)
        sandbox.host_work(5_000_000 * 1000, "usleep")

        # Launch a task using kernel
        write_value = 123
        write_do(BLOCK_DIM, stream, dev_ptr, write_value)
        info(f"Process B: write data {write_value} to the device memory {dev_ptr:#x}")

        # Record the notify on the stream
        check(acl.rt.record_notify(notify, stream), "aclrtRecordNotify(notify, stream)")

        # Release notify and memory resources
        check(acl.rt.synchronize_stream(stream), "aclrtSynchronizeStream(stream)")
        check(acl.rt.ipc_mem_close(mem_name), "aclrtIpcMemClose(memName)")
        check(acl.rt.destroy_notify(notify), "aclrtDestroyNotify(notify)")
    else:
        error("The target devices do not support data interaction")
    acl.rt.destroy_stream_force(stream)
    acl.rt.reset_device_force(device_id)
    acl.finalize()


def main():
    sys.stdout = tee = Tee()
    # run.sh: ./build/proc_a | tee ... & ./build/proc_b | tee ... &, then wait for both
    proc_a_handle = sandbox.spawn_process(proc_a, name="proc_a")
    proc_b_handle = sandbox.spawn_process(proc_b, name="proc_b")
    proc_a_handle.join()
    proc_b_handle.join()

    # run.sh: "Source data" from proc_b's output, "Destination data" from proc_a's
    source_value = tee.value_after("Source data")
    destination_value = tee.value_after("Destination data")
    if source_value == destination_value:
        print(
            "[SUCCESS] IPC notify for task synchronization is successful. "
            f"Values at source and destination are equal: {source_value}"
        )
    else:
        print(
            "[FAILURE] IPC notify for task synchronization failed. "
            f"Value at source is {source_value}, but value at destination is {destination_value}"
        )


if __name__ == "__main__":
    main()
