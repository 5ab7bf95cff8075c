"""Port of example/5_performance/profiling/2_subscribe_model (hicann/runtime).

Model subscription: the runtime writes a record per operator of each execution of a subscribed model into a
pipe the program made, and a thread of the program reads the pipe and decodes the records.  After device 0 and a
stream, the sample makes a pipe, a subscribe config (aclprofCreateSubscribeConfig: time info on, no AI Core
metrics, the pipe's write end) and subscribes model 0 (aclprofModelSubscribe).  A thread reads the pipe ten
records' worth at a time (aclprofGetOpDescSize) until it ends, and takes each record apart: aclprofGetOpNum, then
per operator aclprofGetModelId, aclprofGetOpTypeLen and GetOpType, GetOpNameLen and GetOpName, GetOpStart,
GetOpEnd and GetOpDuration.  The main thread prints "Running", lets the model run, prints "Stopped",
unsubscribes (aclprofModelUnSubscribe: the runtime closes the pipe's write end, so the thread's read ends), joins
the thread, closes the read end, destroys the config and releases the stream, the device and acl.  Like the
sample, the port does not check the return codes.

Where the port differs: the sample has no model.  It registers model id 0 on device 0 with
MsprofSetDeviceIdByGeModelIdx, an internal msprof call that stands in for aclmdlLoadFromFile, and sleeps three
seconds where aclmdlExecute would run, so its thread receives no record.  The port loads a stand-in model
(``sandbox.models.zoo("tiny_mlp")``, saved in a temporary directory) with aclmdlLoadFromFile, makes its input and
output datasets, and executes it three times (aclmdlExecute): each execution writes one record (a stand-in is one
operator, named and typed by the model's name).  The sample's thread prints nothing of what it decodes; the port
prints a line per record, which the README does not show.  The model is unloaded after the unsubscribe, where the
sample's comments put the release of the model before "Stopped": after aclmdlUnload the unsubscribe fails with
100011 (ACL_ERROR_INVALID_MODEL_ID) and the pipe stays open, so the thread's read would never end.
"""

import os
import tempfile
import threading

from sandbox import acl
from sandbox.models import zoo

EXECUTIONS = 3  # aclmdlExecute calls, where the sample sleeps


def info(text):
    print(f"[INFO]  {text}")


def get_model_info(data, length):
    """Read the subscription's records in the program's memory (getModelInfo)."""
    op_info = acl.util.bytes_to_ptr(data)
    # the number of operator records
    op_number, _ = acl.prof.get_op_num(op_info, length)
    # each operator's record
    for i in range(op_number):
        # the id of the operator's model
        model_id = acl.prof.get_model_id(op_info, length, i)
        # the length of the operator's type, then the type
        op_type_len, _ = acl.prof.get_op_type_len(op_info, length, i)
        op_type, _ = acl.prof.get_op_type(op_info, length, i, op_type_len)
        # the length of the operator's name, then the name
        op_name_len, _ = acl.prof.get_op_name_len(op_info, length, i)
        op_name, _ = acl.prof.get_op_name(op_info, length, i, op_name_len)
        # when the operator started and ended, and its duration
        op_start = acl.prof.get_op_start(op_info, length, i)
        op_end = acl.prof.get_op_end(op_info, length, i)
        op_duration = acl.prof.get_op_duration(op_info, length, i)
        # the port prints the record (the sample prints nothing of it)
        info(
            f"model {model_id} op {op_name} (type {op_type}): start {op_start} ns, end {op_end} ns, "
            f"duration {op_duration} ns"
        )


def prof_data_read(fd):
    """Read the pipe into the program's memory (profDataRead)."""
    # how many records one read takes
    n = 10
    # the size of one record, in bytes
    buffer_size, _ = acl.prof.get_op_desc_size()
    readbuf_len = buffer_size * n
    # read the pipe: up to readbuf_len bytes, maybe fewer; an empty pipe blocks until data comes
    data = os.read(fd, readbuf_len)
    while len(data) > 0:
        get_model_info(data, len(data))
        data = os.read(fd, readbuf_len)


def dataset(sizes):
    """A dataset of device buffers of these sizes."""
    result = acl.mdl.create_dataset()
    for size in sizes:
        buffer, _ = acl.rt.malloc(size, acl.ACL_MEM_MALLOC_HUGE_FIRST)
        acl.mdl.add_dataset_buffer(result, acl.create_data_buffer(buffer, size))
    return result


def destroy_dataset(data):
    for i in range(acl.mdl.get_dataset_num_buffers(data)):
        buffer = acl.mdl.get_dataset_buffer(data, i)
        acl.rt.free(acl.get_data_buffer_addr(buffer))
        acl.destroy_data_buffer(buffer)
    acl.mdl.destroy_dataset(data)


def main(workdir):
    info("-------- Start --------")
    # aclInit
    acl.init()
    # runtime resources
    device_id_list = [0]  # set to the device ids of the environment
    acl.rt.set_device(device_id_list[0])
    stream, _ = acl.rt.create_stream()
    # Load the model (aclmdlLoadFromFile): a successful load returns the id that names the model.  The sample
    # registers model id 0 with MsprofSetDeviceIdByGeModelIdx instead; the port loads a stand-in.
    model_path = zoo("tiny_mlp").save(os.path.join(workdir, "tiny_mlp.om"))
    model_id, _ = acl.mdl.load_from_file(model_path)

    # aclmdlDataset data describing the model's input and output
    model_desc = acl.mdl.create_desc()
    acl.mdl.get_desc(model_desc, model_id)
    inputs = dataset(acl.mdl.get_input_size_by_index(model_desc, i) for i in range(acl.mdl.get_num_inputs(model_desc)))
    outputs = dataset(
        acl.mdl.get_output_size_by_index(model_desc, i) for i in range(acl.mdl.get_num_outputs(model_desc))
    )

    # the pipe the subscription's data is written into and read from: sub_fd[0] reads, sub_fd[1] writes
    sub_fd = os.pipe()
    # the subscribe config, and the subscription of the model by its id
    config = acl.prof.create_subscribe_config(1, acl.ACL_AICORE_NONE, sub_fd[1])
    acl.prof.model_subscribe(model_id, config)

    # a thread reads the pipe and decodes its data
    sub_thread = threading.Thread(target=prof_data_read, args=(sub_fd[0],))
    sub_thread.start()

    # Execute the model (aclmdlExecute), where the sample sleeps 3 s
    info("Running ......")
    for _ in range(EXECUTIONS):
        acl.mdl.execute(model_id, inputs, outputs)

    # Process the inference result

    info("Stopped ......")
    # unsubscribe, and release what the subscription used
    acl.prof.model_unsubscribe(model_id)
    sub_thread.join()
    # close the pipe's read end
    os.close(sub_fd[0])
    # release the config
    acl.prof.destroy_subscribe_config(config)

    # Release the model's input/output descriptions and memory, and unload the model (after the unsubscribe: see
    # the module docstring)
    destroy_dataset(inputs)
    destroy_dataset(outputs)
    acl.mdl.destroy_desc(model_desc)
    acl.mdl.unload(model_id)

    # release the runtime resources
    acl.rt.destroy_stream(stream)
    acl.rt.reset_device_force(device_id_list[0])
    acl.finalize()
    info("-------- End --------")
    return 0


if __name__ == "__main__":
    with tempfile.TemporaryDirectory() as workdir:
        raise SystemExit(main(workdir))
