"""Port of example/5_performance/profiling/1_msproftx (hicann/runtime).

msproftx: marks and ranges a program puts on its own timeline.  After device 0 and a stream, the
sample initialises profiling (``./output``), makes a config for device 0 with ACL_API, TASK_TIME and
MSPROFTX (the last turns msproftx on at aclprofStart), sets the hardware memory sampling frequency
and starts.  Then, between the two step timestamps of one step info (aclprofGetStepTimestamp START
and END on the stream), it makes five stamps, each with its message (aclprofCreateStamp,
aclprofSetStampTraceMessage), and uses them: a mark (model_load_mark); a push of the outer range
(forward_pass_push); a non-nested range (preprocess_range, aclprofRangeStart/RangeStop) around a
sleep of one second; a nested push/pop (operator_dispatch_push) around another second; three more
seconds of "model execution"; a mark (model_exec_mark); the pop of the outer range.  It destroys the
step info and the stamps, stops, and releases everything, each call checked (CHECK_ERROR).

The stop writes ``output/PROF_000001_<time>_<pid><letters>/mindstudio_profiler_output/``
(sandbox/export/msprof.py): in ``msprof_<time>.json`` the two marks are instants and the three
ranges async slices on the main thread's row, as in msprof's timeline.

Where the port differs: ``sleep(1)`` and ``sleep(3)`` take virtual time (``sandbox.host_work``), so
the port runs at once; ``./output`` is made in a temporary directory instead of the working
directory, so running the port leaves no file behind.
"""

import os
import tempfile

import sandbox
from sandbox import acl

SECOND = 1_000_000_000  # ns


def info(text):
    print(f"[INFO]  {text}")


def error(text):
    print(f"[ERROR]  {text}")


class Failed(Exception):
    """CHECK_ERROR returned -1."""


def check(ret, what):
    # CHECK_ERROR (example/utils.h): name the call and its code, then return -1
    if ret != acl.ACL_SUCCESS:
        error(f"Operation failed: {what} returned error code {ret}")
        raise Failed(what)


def sleep(seconds):
    sandbox.host_work(seconds * SECOND, "sleep")


def create_stamp_with_message(message):
    stamp = acl.prof.create_stamp()
    if stamp == 0:
        error(f"aclprofCreateStamp failed for message {message}")
        return 0
    ret = acl.prof.set_stamp_trace_message(stamp, message, len(message))
    if ret != acl.ACL_SUCCESS:
        error(f"aclprofSetStampTraceMessage({message}) failed with error code {ret}")
        acl.prof.destroy_stamp(stamp)
        return 0
    return stamp


def check_ptr(ptr, name):
    if ptr == 0:
        error(f"{name} is nullptr")
        return False
    return True


class StampSet:
    load_mark = outer_range_push = inner_range_push = preprocess_range = exec_mark = 0


def create_stamp_set(stamps):
    stamps.load_mark = create_stamp_with_message("model_load_mark")
    stamps.outer_range_push = create_stamp_with_message("forward_pass_push")
    stamps.inner_range_push = create_stamp_with_message("operator_dispatch_push")
    stamps.preprocess_range = create_stamp_with_message("preprocess_range")
    stamps.exec_mark = create_stamp_with_message("model_exec_mark")

    if not check_ptr(stamps.load_mark, "load stamp"):
        return -1
    if not check_ptr(stamps.outer_range_push, "outer push stamp"):
        return -1
    if not check_ptr(stamps.inner_range_push, "inner push stamp"):
        return -1
    if not check_ptr(stamps.preprocess_range, "range stamp"):
        return -1
    if not check_ptr(stamps.exec_mark, "exec mark stamp"):
        return -1
    return 0


def destroy_stamp_set(stamps):
    acl.prof.destroy_stamp(stamps.load_mark)
    acl.prof.destroy_stamp(stamps.outer_range_push)
    acl.prof.destroy_stamp(stamps.inner_range_push)
    acl.prof.destroy_stamp(stamps.preprocess_range)
    acl.prof.destroy_stamp(stamps.exec_mark)


def run_trace_flow(stream):
    step_info = acl.prof.create_step_info()
    if not check_ptr(step_info, "aclprofCreateStepInfo"):
        return -1
    check(
        acl.prof.get_step_timestamp(step_info, acl.ACL_STEP_START, stream),
        "aclprofGetStepTimestamp(stepInfo, ACL_STEP_START, stream)",
    )

    stamps = StampSet()
    if create_stamp_set(stamps) != 0:
        acl.prof.destroy_step_info(step_info)
        return -1

    check(acl.prof.mark(stamps.load_mark), "aclprofMark(stamps.loadMark)")
    check(acl.prof.push(stamps.outer_range_push), "aclprofPush(stamps.outerRangePush)")

    preprocess_range_id, ret = acl.prof.range_start(stamps.preprocess_range)
    check(ret, "aclprofRangeStart(stamps.preprocessRange, &preprocessRangeId)")
    info("Preprocess range start")
    sleep(1)
    check(acl.prof.range_stop(preprocess_range_id), "aclprofRangeStop(preprocessRangeId)")
    info("Preprocess range stop")

    check(acl.prof.push(stamps.inner_range_push), "aclprofPush(stamps.innerRangePush)")
    info("Nested operator dispatch range start")
    sleep(1)
    check(acl.prof.pop(), "aclprofPop()")
    info("Nested operator dispatch range stop")

    info("Model execute start")
    sleep(3)
    info("Model execute end")
    check(acl.prof.mark(stamps.exec_mark), "aclprofMark(stamps.execMark)")
    check(acl.prof.pop(), "aclprofPop()")

    check(
        acl.prof.get_step_timestamp(step_info, acl.ACL_STEP_END, stream),
        "aclprofGetStepTimestamp(stepInfo, ACL_STEP_END, stream)",
    )
    acl.prof.destroy_step_info(step_info)
    destroy_stamp_set(stamps)
    return 0


def run_msproftx_sample(workdir):
    info("-------- Start --------")
    device_id_list = [0]

    check(acl.init(), "aclInit(nullptr)")
    check(acl.rt.set_device(device_id_list[0]), "aclrtSetDevice(deviceIdList[0])")
    stream, ret = acl.rt.create_stream()
    check(ret, "aclrtCreateStream(&stream)")

    acl_prof_path = os.path.join(workdir, "output")  # "./output" in the sample
    check(acl.prof.init(acl_prof_path), "aclprofInit(aclProfPath.c_str(), aclProfPath.length())")

    config = acl.prof.create_config(
        device_id_list,
        acl.ACL_AICORE_ARITHMETIC_UTILIZATION,
        0,
        acl.ACL_PROF_ACL_API | acl.ACL_PROF_TASK_TIME | acl.ACL_PROF_MSPROFTX,
    )
    if not check_ptr(config, "aclprofCreateConfig"):
        return -1

    mem_freq = "15"
    check(
        acl.prof.set_config(acl.ACL_PROF_SYS_HARDWARE_MEM_FREQ, mem_freq),
        "aclprofSetConfig(ACL_PROF_SYS_HARDWARE_MEM_FREQ, memFreq.c_str(), memFreq.length())",
    )
    check(acl.prof.start(config), "aclprofStart(config)")

    if run_trace_flow(stream) != 0:
        return -1

    check(acl.prof.stop(config), "aclprofStop(config)")
    check(acl.prof.destroy_config(config), "aclprofDestroyConfig(config)")
    check(acl.prof.finalize(), "aclprofFinalize()")
    check(acl.rt.destroy_stream(stream), "aclrtDestroyStream(stream)")
    check(acl.rt.reset_device_force(device_id_list[0]), "aclrtResetDeviceForce(deviceIdList[0])")
    check(acl.finalize(), "aclFinalize()")
    info("-------- End --------")
    return 0


def main():
    with tempfile.TemporaryDirectory() as workdir:
        try:
            return run_msproftx_sample(workdir)
        except Failed:
            return -1


if __name__ == "__main__":
    raise SystemExit(0 if main() == 0 else 1)
