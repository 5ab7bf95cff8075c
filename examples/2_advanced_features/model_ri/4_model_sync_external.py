"""Port of example/2_advanced_features/model_ri/4_model_sync_external (hicann/runtime).

A captured graph (a model run instance) and work outside it order each other through an event
made by aclrtCreateEventExWithFlag(ACL_EVENT_SYNC), in three scenarios:

1. the graph waits for the event (aclrtStreamWaitEventWithFlag, ACL_EVENT_WAIT_EXTERNAL) and an
   eager stream records it: each launch's wait waits for the record made before that launch;
2. the graph records it (aclrtRecordEventWithFlag, ACL_EVENT_RECORD_EXTERNAL) and an eager stream
   waits for it: the wait, issued after the launch, waits for the replayed record;
3. one graph records it, another waits for it.

The captured work is a device-to-device aclrtMemcpyAsync, so the port has no kernel.  The
README shows no sample output; the port prints what the program prints.
"""

import sys

import numpy as np

from sandbox import acl


def info(text):
    print(f"[INFO]  {text}")


def check(ret, what):
    # CHECK_ERROR: name the call and its code, then stop
    if ret != acl.ACL_SUCCESS:
        print(f"[ERROR]  Operation failed: {what} returned error code {ret}")
        sys.exit(1)


def check_result(actual, expected):
    for i, (a, e) in enumerate(zip(actual, expected)):
        if a != e:
            print(f"[ERROR]  Check result failed at index {i}: actual={a}, expected={e}")
            return False
    info("Check result success.")
    return True


def scenario1_stream_record_graph_wait_external():
    info("=== Scenario 1: Stream Record + Graph Wait External ===")
    host_src = np.arange(1, 9, dtype=np.int32)
    host_dst = np.zeros(8, dtype=np.int32)
    size = host_src.nbytes

    graph_stream, ret = acl.rt.create_stream()
    check(ret, "aclrtCreateStream(&graphStream)")
    external_stream, ret = acl.rt.create_stream()
    check(ret, "aclrtCreateStream(&externalStream)")
    event, ret = acl.rt.create_event_ex_with_flag(acl.ACL_EVENT_SYNC)
    check(ret, "aclrtCreateEventExWithFlag(&event, ACL_EVENT_SYNC)")
    src_device, ret = acl.rt.malloc(size, acl.ACL_MEM_MALLOC_HUGE_FIRST)
    check(ret, "aclrtMalloc(&srcDevice, size, ACL_MEM_MALLOC_HUGE_FIRST)")
    dst_device, ret = acl.rt.malloc(size, acl.ACL_MEM_MALLOC_HUGE_FIRST)
    check(ret, "aclrtMalloc(&dstDevice, size, ACL_MEM_MALLOC_HUGE_FIRST)")

    check(acl.mdl.ri_capture_begin(graph_stream, acl.ACL_MODEL_RI_CAPTURE_MODE_RELAXED), "aclmdlRICaptureBegin(...)")
    check(
        acl.rt.stream_wait_event_with_flag(graph_stream, event, 0, acl.ACL_EVENT_WAIT_EXTERNAL),
        "aclrtStreamWaitEventWithFlag(graphStream, event, 0U, ACL_EVENT_WAIT_EXTERNAL)",
    )
    check(
        acl.rt.memcpy_async(dst_device, size, src_device, size, acl.ACL_MEMCPY_DEVICE_TO_DEVICE, graph_stream),
        "aclrtMemcpyAsync(...)",
    )
    model_ri, ret = acl.mdl.ri_capture_end(graph_stream)
    check(ret, "aclmdlRICaptureEnd(graphStream, &modelRI)")

    src_ptr = acl.util.numpy_to_ptr(host_src)
    check(acl.rt.memcpy(src_device, size, src_ptr, size, acl.ACL_MEMCPY_HOST_TO_DEVICE), "aclrtMemcpy(...)")
    check(acl.rt.record_event(event, external_stream), "aclrtRecordEvent(event, externalStream)")

    check(acl.mdl.ri_execute_async(model_ri, graph_stream), "aclmdlRIExecuteAsync(modelRI, graphStream)")
    check(acl.rt.synchronize_stream(graph_stream), "aclrtSynchronizeStream(graphStream)")

    dst_ptr = acl.util.numpy_to_ptr(host_dst)
    check(acl.rt.memcpy(dst_ptr, size, dst_device, size, acl.ACL_MEMCPY_DEVICE_TO_HOST), "aclrtMemcpy(...)")
    if not check_result(host_dst, host_src):
        return -1

    check(acl.mdl.ri_destroy(model_ri), "aclmdlRIDestroy(modelRI)")
    check(acl.rt.destroy_event(event), "aclrtDestroyEvent(event)")
    check(acl.rt.free(src_device), "aclrtFree(srcDevice)")
    check(acl.rt.free(dst_device), "aclrtFree(dstDevice)")
    check(acl.rt.destroy_stream(graph_stream), "aclrtDestroyStream(graphStream)")
    check(acl.rt.destroy_stream(external_stream), "aclrtDestroyStream(externalStream)")
    return 0


def scenario2_graph_record_external_stream_wait():
    info("=== Scenario 2: Graph Record External + Stream Wait ===")
    host_src = np.arange(1, 9, dtype=np.int32)
    host_dst = np.zeros(8, dtype=np.int32)
    size = host_src.nbytes

    graph_stream, ret = acl.rt.create_stream()
    check(ret, "aclrtCreateStream(&graphStream)")
    external_stream, ret = acl.rt.create_stream()
    check(ret, "aclrtCreateStream(&externalStream)")
    event, ret = acl.rt.create_event_ex_with_flag(acl.ACL_EVENT_SYNC)
    check(ret, "aclrtCreateEventExWithFlag(&event, ACL_EVENT_SYNC)")
    src_device, ret = acl.rt.malloc(size, acl.ACL_MEM_MALLOC_HUGE_FIRST)
    check(ret, "aclrtMalloc(&srcDevice, size, ACL_MEM_MALLOC_HUGE_FIRST)")
    dst_device, ret = acl.rt.malloc(size, acl.ACL_MEM_MALLOC_HUGE_FIRST)
    check(ret, "aclrtMalloc(&dstDevice, size, ACL_MEM_MALLOC_HUGE_FIRST)")

    src_ptr = acl.util.numpy_to_ptr(host_src)
    check(acl.rt.memcpy(src_device, size, src_ptr, size, acl.ACL_MEMCPY_HOST_TO_DEVICE), "aclrtMemcpy(...)")

    check(acl.mdl.ri_capture_begin(graph_stream, acl.ACL_MODEL_RI_CAPTURE_MODE_RELAXED), "aclmdlRICaptureBegin(...)")
    check(
        acl.rt.memcpy_async(dst_device, size, src_device, size, acl.ACL_MEMCPY_DEVICE_TO_DEVICE, graph_stream),
        "aclrtMemcpyAsync(...)",
    )
    check(
        acl.rt.record_event_with_flag(event, graph_stream, acl.ACL_EVENT_RECORD_EXTERNAL),
        "aclrtRecordEventWithFlag(event, graphStream, ACL_EVENT_RECORD_EXTERNAL)",
    )
    model_ri, ret = acl.mdl.ri_capture_end(graph_stream)
    check(ret, "aclmdlRICaptureEnd(graphStream, &modelRI)")

    check(acl.mdl.ri_execute_async(model_ri, graph_stream), "aclmdlRIExecuteAsync(modelRI, graphStream)")

    check(acl.rt.stream_wait_event(external_stream, event), "aclrtStreamWaitEvent(externalStream, event)")
    dst_ptr = acl.util.numpy_to_ptr(host_dst)
    check(
        acl.rt.memcpy_async(dst_ptr, size, dst_device, size, acl.ACL_MEMCPY_DEVICE_TO_HOST, external_stream),
        "aclrtMemcpyAsync(...)",
    )
    check(acl.rt.synchronize_stream(external_stream), "aclrtSynchronizeStream(externalStream)")

    if not check_result(host_dst, host_src):
        return -1

    check(acl.mdl.ri_destroy(model_ri), "aclmdlRIDestroy(modelRI)")
    check(acl.rt.destroy_event(event), "aclrtDestroyEvent(event)")
    check(acl.rt.free(src_device), "aclrtFree(srcDevice)")
    check(acl.rt.free(dst_device), "aclrtFree(dstDevice)")
    check(acl.rt.destroy_stream(graph_stream), "aclrtDestroyStream(graphStream)")
    check(acl.rt.destroy_stream(external_stream), "aclrtDestroyStream(externalStream)")
    return 0


def scenario3_graph1_record_graph2_wait_external():
    info("=== Scenario 3: Graph1 Record External + Graph2 Wait External ===")
    host_src = np.arange(1, 9, dtype=np.int32)
    host_dst = np.zeros(8, dtype=np.int32)
    size = host_src.nbytes

    graph_stream1, ret = acl.rt.create_stream()
    check(ret, "aclrtCreateStream(&graphStream1)")
    graph_stream2, ret = acl.rt.create_stream()
    check(ret, "aclrtCreateStream(&graphStream2)")
    event, ret = acl.rt.create_event_ex_with_flag(acl.ACL_EVENT_SYNC)
    check(ret, "aclrtCreateEventExWithFlag(&event, ACL_EVENT_SYNC)")
    src_device, ret = acl.rt.malloc(size, acl.ACL_MEM_MALLOC_HUGE_FIRST)
    check(ret, "aclrtMalloc(&srcDevice, size, ACL_MEM_MALLOC_HUGE_FIRST)")
    mid_device, ret = acl.rt.malloc(size, acl.ACL_MEM_MALLOC_HUGE_FIRST)
    check(ret, "aclrtMalloc(&midDevice, size, ACL_MEM_MALLOC_HUGE_FIRST)")
    dst_device, ret = acl.rt.malloc(size, acl.ACL_MEM_MALLOC_HUGE_FIRST)
    check(ret, "aclrtMalloc(&dstDevice, size, ACL_MEM_MALLOC_HUGE_FIRST)")

    src_ptr = acl.util.numpy_to_ptr(host_src)
    check(acl.rt.memcpy(src_device, size, src_ptr, size, acl.ACL_MEMCPY_HOST_TO_DEVICE), "aclrtMemcpy(...)")

    check(acl.mdl.ri_capture_begin(graph_stream1, acl.ACL_MODEL_RI_CAPTURE_MODE_RELAXED), "aclmdlRICaptureBegin(...)")
    check(
        acl.rt.memcpy_async(mid_device, size, src_device, size, acl.ACL_MEMCPY_DEVICE_TO_DEVICE, graph_stream1),
        "aclrtMemcpyAsync(...)",
    )
    check(
        acl.rt.record_event_with_flag(event, graph_stream1, acl.ACL_EVENT_RECORD_EXTERNAL),
        "aclrtRecordEventWithFlag(event, graphStream1, ACL_EVENT_RECORD_EXTERNAL)",
    )
    model_ri1, ret = acl.mdl.ri_capture_end(graph_stream1)
    check(ret, "aclmdlRICaptureEnd(graphStream1, &modelRI1)")

    check(acl.mdl.ri_capture_begin(graph_stream2, acl.ACL_MODEL_RI_CAPTURE_MODE_RELAXED), "aclmdlRICaptureBegin(...)")
    check(
        acl.rt.stream_wait_event_with_flag(graph_stream2, event, 0, acl.ACL_EVENT_WAIT_EXTERNAL),
        "aclrtStreamWaitEventWithFlag(graphStream2, event, 0U, ACL_EVENT_WAIT_EXTERNAL)",
    )
    check(
        acl.rt.memcpy_async(dst_device, size, mid_device, size, acl.ACL_MEMCPY_DEVICE_TO_DEVICE, graph_stream2),
        "aclrtMemcpyAsync(...)",
    )
    model_ri2, ret = acl.mdl.ri_capture_end(graph_stream2)
    check(ret, "aclmdlRICaptureEnd(graphStream2, &modelRI2)")

    check(acl.mdl.ri_execute_async(model_ri1, graph_stream1), "aclmdlRIExecuteAsync(modelRI1, graphStream1)")
    check(acl.mdl.ri_execute_async(model_ri2, graph_stream2), "aclmdlRIExecuteAsync(modelRI2, graphStream2)")
    check(acl.rt.synchronize_stream(graph_stream2), "aclrtSynchronizeStream(graphStream2)")

    dst_ptr = acl.util.numpy_to_ptr(host_dst)
    check(acl.rt.memcpy(dst_ptr, size, dst_device, size, acl.ACL_MEMCPY_DEVICE_TO_HOST), "aclrtMemcpy(...)")
    if not check_result(host_dst, host_src):
        return -1

    check(acl.mdl.ri_destroy(model_ri1), "aclmdlRIDestroy(modelRI1)")
    check(acl.mdl.ri_destroy(model_ri2), "aclmdlRIDestroy(modelRI2)")
    check(acl.rt.destroy_event(event), "aclrtDestroyEvent(event)")
    check(acl.rt.free(src_device), "aclrtFree(srcDevice)")
    check(acl.rt.free(mid_device), "aclrtFree(midDevice)")
    check(acl.rt.free(dst_device), "aclrtFree(dstDevice)")
    check(acl.rt.destroy_stream(graph_stream1), "aclrtDestroyStream(graphStream1)")
    check(acl.rt.destroy_stream(graph_stream2), "aclrtDestroyStream(graphStream2)")
    return 0


def main():
    check(acl.init(), "aclInit(NULL)")
    check(acl.rt.set_device(0), "aclrtSetDevice(0)")
    context, ret = acl.rt.create_context(0)
    check(ret, "aclrtCreateContext(&context, 0)")

    check(scenario1_stream_record_graph_wait_external(), "Scenario1StreamRecordGraphWaitExternal()")
    check(scenario2_graph_record_external_stream_wait(), "Scenario2GraphRecordExternalStreamWait()")
    check(scenario3_graph1_record_graph2_wait_external(), "Scenario3Graph1RecordGraph2WaitExternal()")

    check(acl.rt.destroy_context(context), "aclrtDestroyContext(context)")
    check(acl.rt.reset_device_force(0), "aclrtResetDeviceForce(0)")
    check(acl.finalize(), "aclFinalize()")


if __name__ == "__main__":
    main()
