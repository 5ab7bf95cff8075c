"""Port of example/2_advanced_features/ipcevent/1_ipcevent_multi_device (hicann/runtime).

One producer on device 0 and CONSUMER_NUM consumers, consumer i on device i, share one event.
The producer creates it with ACL_EVENT_IPC, records and synchronizes it, and exports its handle.
Each consumer opens the handle on its own device (the opened event belongs to the consumer's
current context, so its stream on device i can wait for a record made on device 0), waits for
it on its stream, works one second, records the event itself, and leaves a done flag; the
producer cleans up once every flag is there.

run.sh first runs precheck (aclrtGetDeviceCount: at least CONSUMER_NUM + 1 devices, else a
[SKIP]), then starts proc_a and the proc_b consumers together; the handle and the flags pass
through files.  The port runs the precheck, the producer and each consumer as simulated
processes (sandbox.spawn_process), and the files are ``sandbox.write_shared`` / ``read_shared``
values (``_file_ops.py``: polled once a virtual second, as the programs poll).  The README's output leaves out lines the programs print
(the precheck's device count, "waiting for ...", "read event handle", "IPC event handle written
to ...", "doing some work...", "completion flag created"); the port prints every line, in the
one order the sandbox's turn gives (the order of the processes' virtual clocks), where the
README shows the consumer's lines before the producer's.
"""

import sys

from _file_ops import POLL_NS, exists, read_file, remove_file, wait_for, write_file

import sandbox
from sandbox import acl

EVENT_HANDLE_FILE = "./event_handle.bin"
MAX_CONSUMER_NUM = 8
CONSUMER_NUM = 1  # run.sh: producer on device 0, consumer i on device i
WORK_NS = 1_000_000_000  # usleep(1000000): one second

logs = {}  # what each process printed (run.sh tees them into producer.log, consumer_i.log)
exit_codes = {}


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


def precheck(required_device_count):
    check(acl.init(), "aclInit(nullptr)")
    device_count, ret = acl.rt.get_device_count()
    acl.finalize()
    if ret != acl.ACL_SUCCESS:
        error(f"Operation failed: aclrtGetDeviceCount returned error code {ret}")
        exit_codes["precheck"] = 1
        return
    info("precheck", f"Available device count: {device_count}, required device count: {required_device_count}")
    if device_count < required_device_count:
        info(
            "precheck",
            f"[SKIP] Need at least {required_device_count} devices, but only {device_count} device(s) are available.",
        )
        exit_codes["precheck"] = 2
        return
    exit_codes["precheck"] = 0


def wait_for_consumers(expected_count):
    # Every consumer leaves ./consumer_<i>.done; poll once a second, 30 s at most
    flags = [f"./consumer_{i}.done" for i in range(1, expected_count + 1)]
    elapsed, timeout_sec = 0, 30
    completed = 0
    while completed < expected_count and elapsed < timeout_sec:
        completed = sum(exists(flag) for flag in flags)
        if completed < expected_count:
            sandbox.host_work(POLL_NS, "sleep(1)")
            elapsed += 1
    if completed == expected_count:
        info("producer", f"All {expected_count} consumers have finished.")
        return 0
    error(f"Timeout waiting for consumers. Only {completed} of {expected_count} finished.")
    return -1


def proc_a(consumer_num):
    if consumer_num <= 0 or consumer_num > MAX_CONSUMER_NUM:
        error(f"Invalid consumer number (1~{MAX_CONSUMER_NUM})")
        sys.exit(1)
    check(acl.init(), "aclInit(nullptr)")
    device_id = 0
    check(acl.rt.set_device(device_id), "aclrtSetDevice(deviceId)")
    stream, ret = acl.rt.create_stream()
    check(ret, "aclrtCreateStream(&stream)")

    # 1. An event that other processes can open
    ipc_event, ret = acl.rt.create_event_ex_with_flag(acl.ACL_EVENT_IPC)
    check(ret, "aclrtCreateEventExWithFlag(&ipcEvent, ACL_EVENT_IPC)")
    info("producer", f"Producer: IPC event created on device {device_id}")

    # 2. Record it (the producer's own work is done) and wait for it
    check(acl.rt.record_event(ipc_event, stream), "aclrtRecordEvent(ipcEvent, stream)")
    check(acl.rt.synchronize_event(ipc_event), "aclrtSynchronizeEvent(ipcEvent)")

    # 3. Its status must be complete now
    status, ret = acl.rt.query_event_status(ipc_event)
    check(ret, "aclrtQueryEventStatus(ipcEvent, &status)")
    if status != acl.ACL_EVENT_RECORDED_STATUS_COMPLETE:
        error(f"Event status error: expected 1, got {status}")
        sys.exit(1)
    info("producer", f"Producer: event status = {status} (1=completed)")

    # 4. Export the handle: its bytes go to the file
    handle, ret = acl.rt.ipc_get_event_handle(ipc_event)
    check(ret, "aclrtIpcGetEventHandle(ipcEvent, &handle)")
    write_file(EVENT_HANDLE_FILE, handle)
    info("producer", f"Producer: IPC event handle written to {EVENT_HANDLE_FILE}")

    # 5. Wait for every consumer
    info("producer", f"Producer: waiting for {consumer_num} consumer(s) to finish...")
    if wait_for_consumers(consumer_num) != 0:
        sys.exit(1)

    # 6. Clean up
    check(acl.rt.destroy_event(ipc_event), "aclrtDestroyEvent(ipcEvent)")
    acl.rt.destroy_stream(stream)
    acl.rt.reset_device(device_id)
    acl.finalize()
    remove_file(EVENT_HANDLE_FILE)
    for i in range(1, consumer_num + 1):
        remove_file(f"./consumer_{i}.done")
    info("producer", "Producer: finished successfully.")


def proc_b(device_id, consumer_id):
    check(acl.init(), "aclInit(nullptr)")
    check(acl.rt.set_device(device_id), "aclrtSetDevice(deviceId)")
    stream, ret = acl.rt.create_stream()
    check(ret, "aclrtCreateStream(&stream)")

    # 1. Wait for the producer's handle file
    info(consumer_id, f"Consumer {consumer_id} (device {device_id}): waiting for event handle file...")
    if not wait_for(EVENT_HANDLE_FILE):
        error(f"Consumer {consumer_id}: timeout waiting for {EVENT_HANDLE_FILE}")
        sys.exit(1)

    # 2. Read the handle's bytes
    handle = read_file(EVENT_HANDLE_FILE)
    info(consumer_id, f"Consumer {consumer_id}: read event handle")

    # 3. Open the event: it belongs to this process's current context, on device_id
    ipc_event, ret = acl.rt.ipc_open_event_handle(handle)
    check(ret, "aclrtIpcOpenEventHandle(handle, &ipcEvent)")
    info(consumer_id, f"Consumer {consumer_id}: IPC event opened on device {device_id}")

    # 4. This device's stream waits for the producer's record on device 0
    check(acl.rt.stream_wait_event(stream, ipc_event), "aclrtStreamWaitEvent(stream, ipcEvent)")
    check(acl.rt.synchronize_stream(stream), "aclrtSynchronizeStream(stream)")
    info(consumer_id, f"Consumer {consumer_id}: event received, stream synchronized")

    # 5. The consumer's own work
    info(consumer_id, f"Consumer {consumer_id}: doing some work...")
    sandbox.host_work(WORK_NS, "usleep")

    # 6. Record the event (for the sample's sake: nobody waits for it any more)
    check(acl.rt.record_event(ipc_event, stream), "aclrtRecordEvent(ipcEvent, stream)")
    check(acl.rt.synchronize_event(ipc_event), "aclrtSynchronizeEvent(ipcEvent)")

    # 7. Its status must be complete
    status, ret = acl.rt.query_event_status(ipc_event)
    check(ret, "aclrtQueryEventStatus(ipcEvent, &status)")
    info(consumer_id, f"Consumer {consumer_id}: event status = {status} (1=completed)")
    if status != acl.ACL_EVENT_RECORDED_STATUS_COMPLETE:
        error(f"Consumer {consumer_id}: event status error")
        sys.exit(1)

    # 8. The flag file tells the producer
    write_file(f"./consumer_{consumer_id}.done", b"done")
    info(consumer_id, f"Consumer {consumer_id}: completion flag created")

    # 9. Clean up
    check(acl.rt.destroy_event(ipc_event), "aclrtDestroyEvent(ipcEvent)")
    acl.rt.destroy_stream(stream)
    acl.rt.reset_device(device_id)
    acl.finalize()
    info(consumer_id, f"Consumer {consumer_id} (device {device_id}) finished successfully.")


def main():
    # run.sh: the precheck first (exit 2 means too few devices: skip, not fail)
    sandbox.spawn_process(precheck, CONSUMER_NUM + 1, name="precheck").join()
    if exit_codes.get("precheck") == 2:
        return
    if exit_codes.get("precheck") != 0:
        print("[ERROR] Device count precheck failed.")
        sys.exit(1)

    print(f"[INFO] Starting producer on device 0, waiting for {CONSUMER_NUM} consumer(s)...")
    producer = sandbox.spawn_process(proc_a, CONSUMER_NUM, name="proc_a")
    consumers = []
    for i in range(1, CONSUMER_NUM + 1):
        print(f"[INFO] Starting consumer {i} on device {i}")
        consumers.append(sandbox.spawn_process(proc_b, i, i, name=f"proc_b {i}"))
    producer.join()
    for consumer in consumers:
        consumer.join()

    if "finished successfully" in " ".join(logs.get("producer", [])):
        print("[SUCCESS] IPC event multi-device synchronization works correctly.")
    else:
        print("[FAILURE] IPC event multi-device synchronization test failed.")
        sys.exit(1)


if __name__ == "__main__":
    main()
