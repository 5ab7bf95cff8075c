"""Port of example/2_advanced_features/ipcevent/0_ipcevent (hicann/runtime).

Two processes on device 0 share one event.  Process A (the producer) creates it with
ACL_EVENT_IPC, records it and synchronizes, checks that its status is complete, and hands its
IPC handle (aclrtIpcGetEventHandle, 64 bytes) to process B.  Process B (the consumer) opens the
handle (aclrtIpcOpenEventHandle), makes its own stream wait for the event, does two seconds of
work, records the event itself, and tells A it is done.  A cleans up once B's flag is there.

The sample's run.sh starts proc_a and proc_b together and they pass the handle and the flag
through files; the port runs both in one program, each as a simulated process
(sandbox.spawn_process), and the files are ``sandbox.write_shared`` / ``read_shared`` values
(``_file_ops.py``: polled once a virtual second, as the sample polls).  The README's output lists A's lines, then B's; the program also
prints lines the README leaves out ("waiting for ...", "read event handle", "doing some
work...", "event recorded", "completion flag created").  The port prints every line, in the one
order the sandbox's turn gives: the order of the processes' virtual clocks.
"""

import sys

from _file_ops import read_file, remove_file, wait_for, write_file

import sandbox
from sandbox import acl

EVENT_HANDLE_FILE = "./event_handle.bin"
DONE_FILE = "./consumer_done.flag"
WORK_NS = 2_000_000_000  # usleep(2000000): two seconds

logs = {}  # what each process printed (run.sh tees them into proc_a.log, proc_b.log)


def info(proc, text):
    logs.setdefault(proc, []).append(text)
    print(f"[INFO]  {text}")


def error(text):
    print(f"[ERROR]  {text}")


def check(ret, what):
    # CHECK_ERROR: name the call and its code, then end the process
    if ret != acl.ACL_SUCCESS:
        error(f"Operation failed: {what} returned error code {ret}")
        sys.exit(1)


def proc_a():
    check(acl.init(), "aclInit(nullptr)")
    device_id = 0
    check(acl.rt.set_device(device_id), "aclrtSetDevice(deviceId)")
    stream, ret = acl.rt.create_stream()
    check(ret, "aclrtCreateStream(&stream)")

    # 1. An event that other processes can open
    ipc_event, ret = acl.rt.create_event_ex_with_flag(acl.ACL_EVENT_IPC)
    check(ret, "aclrtCreateEventExWithFlag(&ipcEvent, ACL_EVENT_IPC)")
    info("a", "Process A: IPC event created")

    # 2. Record it (the producer's own work is done) and wait for it
    check(acl.rt.record_event(ipc_event, stream), "aclrtRecordEvent(ipcEvent, stream)")
    check(acl.rt.synchronize_event(ipc_event), "aclrtSynchronizeEvent(ipcEvent)")
    info("a", "Process A: event recorded and synchronized")

    # 3. Its status must be complete now
    status, ret = acl.rt.query_event_status(ipc_event)
    check(ret, "aclrtQueryEventStatus(ipcEvent, &status)")
    if status != acl.ACL_EVENT_RECORDED_STATUS_COMPLETE:
        error(f"Event status error: expected 1, got {status}")
        sys.exit(1)
    info("a", f"Process A: event status = {status} (1=completed)")

    # 4. Export the handle: its bytes go to the file
    handle, ret = acl.rt.ipc_get_event_handle(ipc_event)
    check(ret, "aclrtIpcGetEventHandle(ipcEvent, &handle)")
    write_file(EVENT_HANDLE_FILE, handle)
    info("a", f"Process A: IPC event handle written to {EVENT_HANDLE_FILE}")

    # 5. Wait for the consumer's flag
    info("a", "Process A: waiting for consumer to finish...")
    if not wait_for(DONE_FILE):
        error("Timeout waiting for consumer")
        sys.exit(1)
    info("a", "Process A: consumer finished")

    # 6. Clean up
    check(acl.rt.destroy_event(ipc_event), "aclrtDestroyEvent(ipcEvent)")
    acl.rt.destroy_stream(stream)
    acl.rt.reset_device(device_id)
    acl.finalize()
    remove_file(EVENT_HANDLE_FILE)
    remove_file(DONE_FILE)
    info("a", "Process A: cleanup completed")


def proc_b():
    check(acl.init(), "aclInit(nullptr)")
    device_id = 0
    check(acl.rt.set_device(device_id), "aclrtSetDevice(deviceId)")
    stream, ret = acl.rt.create_stream()
    check(ret, "aclrtCreateStream(&stream)")

    # 1. Wait for the producer's handle file
    info("b", "Process B: waiting for event handle file...")
    if not wait_for(EVENT_HANDLE_FILE):
        error(f"Timeout waiting for {EVENT_HANDLE_FILE}")
        sys.exit(1)

    # 2. Read the handle's bytes
    handle = read_file(EVENT_HANDLE_FILE)
    info("b", "Process B: read event handle")

    # 3. Open the event in this process
    ipc_event, ret = acl.rt.ipc_open_event_handle(handle)
    check(ret, "aclrtIpcOpenEventHandle(handle, &ipcEvent)")
    info("b", "Process B: IPC event opened")

    # 4. This process's stream waits for the producer's record
    check(acl.rt.stream_wait_event(stream, ipc_event), "aclrtStreamWaitEvent(stream, ipcEvent)")
    check(acl.rt.synchronize_stream(stream), "aclrtSynchronizeStream(stream)")
    info("b", "Process B: event received, stream synchronized")

    # 5. The consumer's own work
    info("b", "Process B: doing some work...")
    sandbox.host_work(WORK_NS, "usleep")

    # 6. Record the event from this process, to tell the producer
    check(acl.rt.record_event(ipc_event, stream), "aclrtRecordEvent(ipcEvent, stream)")
    check(acl.rt.synchronize_event(ipc_event), "aclrtSynchronizeEvent(ipcEvent)")
    info("b", "Process B: event recorded")

    # 7. Its status must be complete
    status, ret = acl.rt.query_event_status(ipc_event)
    check(ret, "aclrtQueryEventStatus(ipcEvent, &status)")
    info("b", f"Process B: event status = {status} (1=completed)")
    if status != acl.ACL_EVENT_RECORDED_STATUS_COMPLETE:
        error("Event status error")
        sys.exit(1)

    # 8. The flag file tells the producer
    write_file(DONE_FILE, b"done")
    info("b", "Process B: completion flag created")

    # 9. Clean up
    check(acl.rt.destroy_event(ipc_event), "aclrtDestroyEvent(ipcEvent)")
    acl.rt.destroy_stream(stream)
    acl.rt.reset_device(device_id)
    acl.finalize()
    info("b", "Process B: cleanup completed")


def main():
    # run.sh: both programs at once, then the producer's log decides
    process_a = sandbox.spawn_process(proc_a, name="proc_a")
    process_b = sandbox.spawn_process(proc_b, name="proc_b")
    process_a.join()
    process_b.join()
    if "cleanup completed" in " ".join(logs.get("a", [])):
        print("[SUCCESS] IPC event synchronization works correctly.")
    else:
        print("[FAILURE] IPC event synchronization test failed.")
        sys.exit(1)


if __name__ == "__main__":
    main()
