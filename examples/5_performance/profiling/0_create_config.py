"""Port of example/5_performance/profiling/0_create_config (hicann/runtime).

The official sample sets up device 0 and a stream, then profiles through the acl API: aclprofInit
with the result path ``./output``, aclprofCreateConfig for device 0 with the AI Core metrics
ACL_AICORE_ARITHMETIC_UTILIZATION and eight data types (ACL_API, TASK_TIME, AICORE_METRICS, AICPU,
L2CACHE, HCCL_TRACE, MSPROFTX, RUNTIME_API), aclprofSetConfig of the hardware memory sampling
frequency to 15 Hz, aclprofStart, then (where a program would load and execute its model; the
sample leaves that as comments, and so does the port) aclprofStop, aclprofDestroyConfig and
aclprofFinalize, and releases the stream, the device and acl.  Like the sample, the port does not
check the return codes.

The stop writes the collection msprof writes, ``output/PROF_000001_<time>_<pid><letters>/
mindstudio_profiler_output/`` with ``msprof_<time>.json``, ``op_summary_<time>.csv`` and
``op_statistic_<time>.csv`` (sandbox/export/msprof.py); with no work between start and stop, the
op summary has its header only.

Where the port differs: ``./output`` is made in a temporary directory instead of the working
directory, so running the port leaves no file behind.
"""

import os
import tempfile

from sandbox import acl


def info(text):
    print(f"[INFO]  {text}")


def main(workdir):
    info("-------- Start --------")
    # Initialise
    device_id_list = [0]  # set to the device ids of the environment
    # Apply for runtime resources
    acl.init()
    acl.rt.set_device(device_id_list[0])
    stream, _ = acl.rt.create_stream()

    # Profiling initialisation: the result path (aclprofSetConfig could set it instead)
    acl_prof_path = os.path.join(workdir, "output")  # "./output" in the sample
    acl.prof.init(acl_prof_path)
    info("profiling init done")
    # Profiling configuration
    config = acl.prof.create_config(
        device_id_list,
        acl.ACL_AICORE_ARITHMETIC_UTILIZATION,
        0,
        acl.ACL_PROF_ACL_API
        | acl.ACL_PROF_TASK_TIME
        | acl.ACL_PROF_AICORE_METRICS
        | acl.ACL_PROF_AICPU
        | acl.ACL_PROF_L2CACHE
        | acl.ACL_PROF_HCCL_TRACE
        | acl.ACL_PROF_MSPROFTX
        | acl.ACL_PROF_RUNTIME_API,
    )
    mem_freq = "15"
    ret = acl.prof.set_config(acl.ACL_PROF_SYS_HARDWARE_MEM_FREQ, mem_freq)
    if ret != acl.ACL_SUCCESS:
        print(f"[ERROR]  profiling set config error: {ret}")
        return -1
    info("profiling set config done")

    acl.prof.start(config)
    info("profiling start")
    # Load the model: a successful load returns the id that names the model
    # Create aclmdlDataset data to describe the model's input and output
    # Execute the model: ret = aclmdlExecute(modelId, input, output)
    # Process the inference result
    # Release the input/output descriptions and memory, unload the model
    info("model running ....")

    # Stop profiling, release the config, release the profiling component
    acl.prof.stop(config)
    acl.prof.destroy_config(config)
    acl.prof.finalize()
    info("profiling stop and finalize done")

    # Release the runtime resources
    acl.rt.destroy_stream(stream)
    acl.rt.reset_device_force(device_id_list[0])
    acl.finalize()
    info("-------- End --------")
    return 0


if __name__ == "__main__":
    with tempfile.TemporaryDirectory() as workdir:
        raise SystemExit(0 if main(workdir) == 0 else 1)
