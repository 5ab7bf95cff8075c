# %% [markdown]
# # 12 · Inference: running an offline model with the runtime
#
# **Time:** about 40 minutes · **Required** · **Assumes** notebooks 01 to 03 (the five steps,
# asynchronous calls, streams and events). Optional deep dive afterwards:
# [12x_batching_profiling](12x_batching_profiling.ipynb) (dynamic batching, profiling).
#
# Nearly every pyACL program on a board does one thing: load an offline model, describe its
# inputs and outputs, wrap device buffers in datasets, execute the model, read the outputs.
# This notebook does that with ResNet-50, first blocking, then asynchronously, watches how busy
# the device is meanwhile, and puts the next batch's copy under the model's execution.
#
# A board runs a compiled `.om` file made by ATC; the sandbox cannot. It runs **stand-in**
# models: a numpy function with the same inputs, outputs and timing (`sandbox.models`, names
# the sandbox offers beyond pyACL). `zoo("resnet50")` has the interface of the model the
# official pyACL ResNet-50 sample loads (input `data`, float16, 1x3x224x224; output `prob`,
# 1000 class probabilities) and the batch-latency curve ModelZoo published for an Ascend310P3;
# what it computes is a stand-in's, not ResNet-50's.
#
# | what | C | Python |
# |---|---|---|
# | load a model file | `aclmdlLoadFromFile(path, &id)` | `model_id, ret = acl.mdl.load_from_file(path)` |
# | its description | `aclmdlCreateDesc`, `aclmdlGetDesc` | `desc = acl.mdl.create_desc()`, `acl.mdl.get_desc(desc, model_id)` |
# | a dataset of buffers | `aclmdlCreateDataset`, `aclCreateDataBuffer`, `aclmdlAddDatasetBuffer` | `acl.mdl.create_dataset()`, `acl.create_data_buffer(ptr, size)`, `acl.mdl.add_dataset_buffer(ds, buf)` |
# | run it | `aclmdlExecute` / `aclmdlExecuteAsync` | `acl.mdl.execute(id, inputs, outputs)` / `acl.mdl.execute_async(id, inputs, outputs, stream)` |
# | how busy the device is | `aclrtGetDeviceUtilizationRate(deviceId, &info)` | `info, ret = acl.rt.get_device_utilization_rate(device_id)` |
#
# **After this notebook** you can run a model blocking and asynchronously, say where the model's
# time goes in each, read the device's utilisation, and overlap the next batch's input copy with
# the current execution.

# %% [markdown] lang="zh"
# # 12 · 推理：用 runtime 运行离线模型
#
# **时间**：约 40 分钟 · **必修** · **前提**：notebook 01 到 03（五个步骤、异步调用、Stream（流）与 Event（事件））。之后可选学深入：
# [12x_batching_profiling](12x_batching_profiling.ipynb)（动态 Batch、性能分析）。
#
# 开发板上几乎每个 pyACL 程序都在做同一件事：加载离线模型，查询输入输出的描述，把 Device（设备）缓冲区包装成数据集，执行模型，
# 读取输出。本 notebook 用 ResNet-50 来做：先阻塞执行，再异步执行，同时观察 Device 有多忙，然后让下一批数据的拷贝与模型执行重叠。
#
# 开发板运行的是 ATC 编译出的 `.om` 文件，沙箱做不到。它运行的是**替身**模型：一个输入、输出和耗时都相同的 numpy 函数
# （`sandbox.models`，沙箱在 pyACL 之外提供的名字）。`zoo("resnet50")` 具有官方 pyACL ResNet-50 样例所加载模型的接口
# （输入 `data`，float16，1x3x224x224；输出 `prob`，1000 个类别的概率），以及 ModelZoo 为 Ascend310P3 公布的 Batch-时延曲线；
# 它算出来的是替身的结果，不是 ResNet-50 的。
#
# | 什么 | C | Python |
# |---|---|---|
# | 加载模型文件 | `aclmdlLoadFromFile(path, &id)` | `model_id, ret = acl.mdl.load_from_file(path)` |
# | 模型描述 | `aclmdlCreateDesc`、`aclmdlGetDesc` | `desc = acl.mdl.create_desc()`、`acl.mdl.get_desc(desc, model_id)` |
# | 缓冲区组成的数据集 | `aclmdlCreateDataset`、`aclCreateDataBuffer`、`aclmdlAddDatasetBuffer` | `acl.mdl.create_dataset()`、`acl.create_data_buffer(ptr, size)`、`acl.mdl.add_dataset_buffer(ds, buf)` |
# | 执行 | `aclmdlExecute` / `aclmdlExecuteAsync` | `acl.mdl.execute(id, inputs, outputs)` / `acl.mdl.execute_async(id, inputs, outputs, stream)` |
# | Device 有多忙 | `aclrtGetDeviceUtilizationRate(deviceId, &info)` | `info, ret = acl.rt.get_device_utilization_rate(device_id)` |
#
# **学完本 notebook**，你能阻塞地和异步地运行模型，说清两种方式下模型的时间花在哪里，读懂 Device 的利用率，并让下一批输入的
# 拷贝与当前执行重叠。

# %% lang="zh"
import sandbox

sandbox.set_language("zh")          # 中文版：评分反馈使用中文

# %%
import os
import tempfile

import numpy as np

import sandbox
from sandbox import acl, teach
from sandbox.models import zoo

H2D, D2H = acl.ACL_MEMCPY_HOST_TO_DEVICE, acl.ACL_MEMCPY_DEVICE_TO_HOST
HUGE = acl.ACL_MEM_MALLOC_HUGE_FIRST
FOLDER = tempfile.mkdtemp(prefix="models-")
RESNET50 = zoo("resnet50").save(os.path.join(FOLDER, "resnet50.om"))  # where a board keeps its .om


def board():
    """A fresh Atlas 300I Pro (Ascend310P3, the chip of the model's published curve): acl up, device 0."""
    sandbox.configure("ascend310p", device_count=1)
    acl.init()
    acl.rt.set_device(0)


def buffers(desc):
    """One device buffer per input and per output, sized as the description says."""
    ins = [acl.mdl.get_input_size_by_index(desc, i) for i in range(acl.mdl.get_num_inputs(desc))]
    outs = [acl.mdl.get_output_size_by_index(desc, i) for i in range(acl.mdl.get_num_outputs(desc))]
    return [(acl.rt.malloc(n, HUGE)[0], n) for n in ins], [(acl.rt.malloc(n, HUGE)[0], n) for n in outs]


def dataset(pairs):
    """A dataset of data buffers over (device address, size) pairs."""
    ds = acl.mdl.create_dataset()
    for ptr, size in pairs:
        acl.mdl.add_dataset_buffer(ds, acl.create_data_buffer(ptr, size))
    return ds


rng = np.random.default_rng(12)
images = rng.random((8, 1, 3, 224, 224)).astype(np.float16)   # 8 preprocessed images, one per batch
print("the model file:", os.path.basename(RESNET50), os.path.getsize(RESNET50), "bytes (a stand-in's description)")

# %% [markdown]
# ## 1 · Load a model and read its description
#
# `load_from_file` needs `aclInit` and a current device: it allocates the model's weight and
# work memory there (ResNet-50's 25.6 million parameters in float16 take about 49 MiB; the
# stand-in's work memory, some 6 MiB more, is the sandbox's estimate). The description tells a
# program everything it needs to build buffers: how many inputs and outputs, their names, dims,
# data types, formats and sizes in bytes.

# %% [markdown] lang="zh"
# ## 1 · 加载模型并读取它的描述
#
# `load_from_file` 需要 `aclInit` 和一个当前 Device：它在那里为模型的权重和工作内存分配空间（ResNet-50 的 2560 万个参数以
# float16 存放，约占 49 MiB；替身的工作内存另需约 6 MiB，这是沙箱的估计）。描述告诉程序构建缓冲区所需的一切：输入和输出的个数，
# 它们的名字、维度、数据类型、格式和字节数。

# %%
board()
free_before = acl.rt.get_mem_info(acl.ACL_HBM_MEM)[0]
model_id, ret = acl.mdl.load_from_file(RESNET50)
print("load_from_file ->", model_id, ret, "| device memory taken:",
      (free_before - acl.rt.get_mem_info(acl.ACL_HBM_MEM)[0]) // 2**20, "MiB")
desc = acl.mdl.create_desc()
print("get_desc ->", acl.mdl.get_desc(desc, model_id))
for i in range(acl.mdl.get_num_inputs(desc)):
    dims, _ = acl.mdl.get_input_dims(desc, i)
    print("input ", i, dims["name"], dims["dims"], "type", acl.mdl.get_input_data_type(desc, i),
          "format", acl.mdl.get_input_format(desc, i), acl.mdl.get_input_size_by_index(desc, i), "bytes")
for i in range(acl.mdl.get_num_outputs(desc)):
    dims, _ = acl.mdl.get_output_dims(desc, i)
    print("output", i, dims["name"], dims["dims"], "type", acl.mdl.get_output_data_type(desc, i),
          acl.mdl.get_output_size_by_index(desc, i), "bytes")
print("ACL_FLOAT16 =", acl.ACL_FLOAT16, "| ACL_FLOAT =", acl.ACL_FLOAT, "| ACL_FORMAT_NCHW =", acl.mdl.ACL_FORMAT_NCHW)

# %% [markdown]
# A compiled `.om` is refused: the sandbox has no model compiler. The code, **207000**
# (`ACL_ERROR_RT_FEATURE_NOT_SUPPORT`), is the sandbox's choice (a board loads the file), and the
# message says how to make a stand-in. A path that does not exist gets what a board returns,
# **145002** (`ACL_ERROR_GE_EXEC_MODEL_PATH_INVALID`, "invalid model path" in the API reference's
# aclError list, `docs/zh/api_ref/25-01_aclError.md`).

# %% [markdown] lang="zh"
# 编译好的 `.om` 会被拒绝：沙箱没有模型编译器。返回码 **207000**（`ACL_ERROR_RT_FEATURE_NOT_SUPPORT`）是沙箱的选择（开发板会
# 正常加载这个文件），错误信息会说明如何制作替身。不存在的路径得到的是开发板也会返回的 **145002**
# （`ACL_ERROR_GE_EXEC_MODEL_PATH_INVALID`，API 参考“aclError 返回码列表”中的“无效的模型路径”，`docs/zh/api_ref/25-01_aclError.md`）。

# %%
compiled = os.path.join(FOLDER, "compiled.om")
with open(compiled, "wb") as f:
    f.write(bytes(1024))                        # not a stand-in: as an ATC output would be to the sandbox
print(acl.mdl.load_from_file(compiled), acl.get_recent_err_msg().split(": ", 2)[-1])
print(acl.mdl.load_from_file(os.path.join(FOLDER, "missing.om")))

# %% [markdown]
# ## 2 · Datasets, and a blocking execution
#
# A model reads its inputs from, and writes its outputs to, device memory that the program
# allocates and lists in two **datasets** (`aclmdlDataset`), one data buffer per input or output,
# in the description's order. `execute` blocks the host until the outputs are there.
#
# **Predict, then run.** `aclmdlExecute` blocks. How long does the host wait for one image on
# this 310P3, and does the wait include copying the probabilities back to the host?

# %% [markdown] lang="zh"
# ## 2 · 数据集，以及一次阻塞执行
#
# 模型从程序分配的 Device 内存读取输入、向其写入输出，这些内存列在两个**数据集**（`aclmdlDataset`）中，每个输入或输出一个数据
# 缓冲区，顺序与描述一致。`execute` 会阻塞 Host（主机），直到输出就绪。
#
# **先预测，再运行。** `aclmdlExecute` 是阻塞的。在这台 310P3 上，Host 为一张图片要等多久？这段等待包括把概率拷回 Host 吗？

# %%
(inputs,), (outputs,) = buffers(desc)
in_ds, out_ds = dataset([inputs]), dataset([outputs])
image = np.ascontiguousarray(images[0])
acl.rt.memcpy(inputs[0], inputs[1], acl.util.numpy_to_ptr(image), image.nbytes, H2D)
t0 = sandbox.now()
print("execute ->", acl.mdl.execute(model_id, in_ds, out_ds), "| the host waited",
      (sandbox.now() - t0) / 1e3, "us")
host, _ = acl.rt.malloc_host(outputs[1])
acl.rt.memcpy(host, outputs[1], outputs[0], outputs[1], D2H)
prob = acl.util.ptr_to_numpy(host, (1, 1000), np.float32)
print("top 5 classes:", np.argsort(prob[0])[::-1][:5].tolist(), "| probabilities sum to", round(float(prob.sum()), 3))

# %% [markdown]
# The host waited about 0.67 ms: the model's own time for one image on a 310P3 (1503.92 images
# per second at batch 1 in ModelZoo's table), plus the submission and the wake-up. It does not
# include the copy back: the outputs are in device memory, and the program copies them itself
# (the `memcpy` after it). The classes mean nothing: the stand-in's arithmetic is not ResNet-50's.
#
# **Predict, then run.** `execute_async` returns as soon as the execution is queued. How long will
# the host take for the call below, and where does the 0.67 ms go?

# %% [markdown] lang="zh"
# Host 大约等了 0.67 ms：这是模型在 310P3 上处理一张图片的时间（ModelZoo 表中 Batch 1 为每秒 1503.92 张），加上下发和唤醒。
# 这段等待不包括拷回：输出留在 Device 内存里，由程序自己拷回（后面那次 `memcpy`）。类别没有意义：替身的运算不是 ResNet-50 的。
#
# **先预测，再运行。** `execute_async` 在执行放入队列后立即返回。下面这次调用会花 Host 多少时间？那 0.67 ms 到哪里去了？

# %%
stream, _ = acl.rt.create_stream()
t0 = sandbox.now()
acl.mdl.execute_async(model_id, in_ds, out_ds, stream)
print("execute_async returned after", (sandbox.now() - t0) / 1e3, "us")
t1 = sandbox.now()
acl.rt.synchronize_stream(stream)
print("synchronize_stream waited", (sandbox.now() - t1) / 1e3, "us")
sandbox.gantt(window=(t0 - 20_000, sandbox.now() + 20_000))

# %% [markdown]
# The call returned in microseconds and the model's time moved into `synchronize_stream`: the
# host was free while the AI Cores worked, which is what a program uses to prepare the next
# batch.
#
# ## 3 · How busy is the device? Utilisation
#
# `aclrtGetDeviceUtilizationRate` reads, for one device, the utilisation of its cube and vector
# units, of its AI CPU and of its memory, in percent (*aclrtGetDeviceUtilizationRate* in
# `docs/zh/api_ref/04_device_management.md`; the struct *aclrtUtilizationInfo* in
# `25-04_Structs.md`). The reference says a vector figure of -1 means the device has no vector
# units, memory utilisation is -1 in this version, and the figures mean nothing while profiling
# runs. What the sandbox models (its choice: the reference does not say how the figures are
# sampled): the share of the device's AI Cores busy at the moment of the call, as both the cube
# and the vector figure; AI CPU 0 (no AI CPU work is modelled); memory -1.
#
# **Predict, then run.** The cell queues one execution and polls the utilisation until the
# stream is done, printing each change. What does it read right after `execute_async` returns,
# while the model runs, and after?
# %% [markdown] lang="zh"
# 调用在几微秒内就返回了，模型的时间挪到了 `synchronize_stream` 里：AI Core 工作的时候 Host 是空闲的，程序正好用这段时间准备下一批数据。
#
# ## 3 · Device 有多忙？利用率
#
# `aclrtGetDeviceUtilizationRate` 读取一个 Device 上 Cube、Vector、AI CPU 和内存的利用率，单位为百分比（`docs/zh/api_ref/04_device_management.md`
# 中的 aclrtGetDeviceUtilizationRate；结构体 aclrtUtilizationInfo 见 `25-04_Structs.md`）。参考文档说明：Vector 利用率为 -1 表示
# 没有 Vector；当前版本不支持查询内存利用率，返回 -1；开启 Profiling 时查询结果没有实际意义。沙箱的模型（沙箱的选择：文档没有说明
# 利用率如何采样）：调用那一刻 Device 上忙碌的 AI Core 所占的比例，同时作为 Cube 和 Vector 利用率；AI CPU 为 0（不模拟 AI CPU
# 任务）；内存为 -1。
#
# **先预测，再运行。** 下面的单元格放入一次执行，然后轮询利用率直到 Stream 完成，每次数值变化时打印一行。`execute_async`
# 刚返回时、模型运行时、运行结束后，分别读到什么？

# %%
acl.mdl.execute_async(model_id, in_ds, out_ds, stream)
t0, last = sandbox.now(), None
while True:
    done = acl.rt.stream_query(stream)[0] == acl.ACL_STREAM_STATUS_COMPLETE
    info, _ = acl.rt.get_device_utilization_rate(0)
    figures = (info["cubeUtilization"], info["vectorUtilization"], info["aicpuUtilization"], info["memoryUtilization"])
    if figures != last:
        print(f"{(sandbox.now() - t0) / 1e3:7.1f} us  cube {figures[0]:>3}%  vector {figures[1]:>3}%  "
              f"AI CPU {figures[2]}%  memory {figures[3]}")
        last = figures
    if done:
        break

# %% [markdown]
# From the first poll, microseconds after the call, every AI Core was busy (100%: the execution
# takes them all, cube and vector alike in the sandbox), until the execution ended about 0.67 ms
# later and the figures fell to 0; AI CPU and memory stayed 0 and -1. A monitor that samples
# once a second sees an average of such bursts: 100% means the cores had work at that moment,
# not that the program is as fast as it can be.

# %% [markdown] lang="zh"
# 从调用后几微秒的第一次轮询起，所有 AI Core 都在忙（100%：这次执行占满了全部核，在沙箱里 Cube 和 Vector 一样），约 0.67 ms 后
# 执行结束，数值回到 0；AI CPU 和内存一直是 0 和 -1。每秒采样一次的监控看到的是这些忙闲的平均：100% 只说明那一刻核上有任务，
# 并不说明程序已经快到了极限。

# %% [markdown]
# ## 4 · The next batch's copy under the model's execution
#
# A community article on CANN asynchronous execution (not official documentation) draws the
# picture: as soon as the first batch's input copy is done the AI Cores start inferring it, and
# meanwhile the DMA engine copies the second batch's input. With
# one stream, each copy waits for the previous execution; with a copy stream and a compute stream,
# ordered by events, the copy of batch n+1 runs while the model works on batch n. Two input
# buffers alternate, so a copy never overwrites what an execution still reads.

# %% [markdown] lang="zh"
# ## 4 · 下一批的拷贝与模型执行重叠
#
# 一篇介绍 CANN 异步执行的社区文章（不是官方文档）描绘了这样的图景：第一轮数据拷贝完成后 AI Core 立即启动推理计算，同时 DMA
# 引擎开始拷贝第二轮输入数据。只用一条 Stream 时，
# 每次拷贝都要等待上一次执行；用一条拷贝 Stream 和一条计算 Stream，并用 Event 排序，批次 n+1 的拷贝就在模型处理批次 n 时进行。
# 两个输入缓冲区交替使用，因此拷贝永远不会覆盖执行仍在读取的数据。

# %%
def run_batches(two_streams: bool):
    """Classify the 8 images, one per execution; returns (probabilities, total virtual time in ns)."""
    board()
    mid, _ = acl.mdl.load_from_file(RESNET50)
    d = acl.mdl.create_desc()
    acl.mdl.get_desc(d, mid)
    slots = [buffers(d) for _ in range(2)]
    sets = [(dataset(ins), dataset(outs)) for ins, outs in slots]
    n_in, n_out = slots[0][0][0][1], slots[0][1][0][1]
    hin, _ = acl.rt.malloc_host(images.nbytes)
    hout, _ = acl.rt.malloc_host(len(images) * n_out)
    acl.util.ptr_to_numpy(hin, images.shape, np.float16)[:] = images
    copy_s, _ = acl.rt.create_stream()
    compute_s = acl.rt.create_stream()[0] if two_streams else copy_s
    loaded = [acl.rt.create_event()[0] for _ in range(2)]
    free = [acl.rt.create_event()[0] for _ in range(2)]
    start = sandbox.now()
    for b in range(len(images)):
        k = b % 2
        (din, _), (dout, _) = slots[k][0][0], slots[k][1][0]
        if two_streams and b >= 2:
            acl.rt.stream_wait_event(copy_s, free[k])       # the slot's last execution has read it
        acl.rt.memcpy_async(din, n_in, hin + b * n_in, n_in, H2D, copy_s)
        if two_streams:
            acl.rt.record_event(loaded[k], copy_s)
            acl.rt.stream_wait_event(compute_s, loaded[k])
        acl.mdl.execute_async(mid, sets[k][0], sets[k][1], compute_s)
        if two_streams:
            acl.rt.record_event(free[k], compute_s)
        acl.rt.memcpy_async(hout + b * n_out, n_out, dout, n_out, D2H, compute_s)
    acl.rt.synchronize_stream(compute_s)
    total = sandbox.now() - start
    return acl.util.ptr_to_numpy(hout, (len(images), 1000), np.float32).copy(), total


one, t_one = run_batches(False)
two, t_two = run_batches(True)
print(f"one stream: {t_one / 1e6:.3f} ms | copy and compute streams: {t_two / 1e6:.3f} ms | same answers:",
      np.array_equal(one, two))
print(sandbox.summary())
sandbox.gantt()

# %% [markdown]
# The copy of one image (301,056 bytes over the host link at 24 GB/s, the sandbox's figure for
# this profile) takes
# about 13 us against 665 us of the model: here the overlap hides only the copies, a few percent.
# Measure before you pipeline: with large inputs and a fast model (many small images, a light
# network) the copies are the bottleneck and the same structure pays much more.

# %% [markdown] lang="zh"
# 一张图片的拷贝（301,056 字节，以沙箱为该配置设定的 24 GB/s 经过 Host 链路）约 13 us，而模型要 665 us：这里重叠只藏住了拷贝，几个百分点。
# 先测量，再做流水线：输入大而模型快时（大量小图、轻量网络），拷贝才是瓶颈，同样的结构收益会大得多。

# %% [markdown]
# ## Exercise
#
# `sandbox.teach.check("12.1", solution)` runs **your** function on a fresh simulated 310P3 with
# new images each time and judges the whole run from the trace: the answer and where it came from
# (the model's execution, from the grader's images), the errors and hazards, and what the exercise
# states. The grader opens the board (`acl.init()` has run, device 0 is set), saves the model file
# and passes its path. A failing line names the tasks it is about; `grade.show()` draws the run.
#
# ### Exercise 12.1 · classify a batch
#
# *Practises:* loading a model, describing it, building the datasets, a blocking execution.
#
# `solution(images, model_path)` gets 4 preprocessed images (float16, shape (4, 3, 224, 224)) and
# the path of a ResNet-50 stand-in compiled for batch 4. Return the model's output, the class
# probabilities (float32, shape (4, 1000)). Graded:
#
# * the answer is what the model computed from the grader's images, copied back from the device
#   after the host knew the execution was done;
# * the model executed exactly once, at batch 4.

# %% [markdown] lang="zh"
# ## 练习
#
# `sandbox.teach.check("12.1", solution)` 在一台全新的模拟 310P3 上运行**你的**函数，每次图片都不同，并根据 trace 评判整次运行：
# 答案及其来源（模型的执行，来自评分器的图片）、错误和隐患，以及题目的各项要求。评分器会替你打开开发板（已调用 `acl.init()`，
# 已设置 Device 0），保存好模型文件并传入其路径。未通过的行会列出相关的任务，`grade.show()` 会画出评分运行。
#
# ### 练习 12.1 · 为一个批次分类
#
# *练习内容：* 加载模型、查询描述、构建数据集、一次阻塞执行。
#
# `solution(images, model_path)` 得到 4 张预处理好的图片（float16，形状 (4, 3, 224, 224)），以及一个为 Batch 4 编译的 ResNet-50
# 替身的路径。返回模型的输出，即类别概率（float32，形状 (4, 1000)）。评判内容：
#
# * 答案是模型根据评分器的图片计算出来的，在 Host 得知执行完成之后从 Device 拷回；
# * 模型恰好执行一次，Batch 为 4。

# %% nbgrader={"grade": false, "grade_id": "ex12_1", "locked": false, "schema_version": 3, "solution": true, "task": false}
def solution(images, model_path):
    """Return the model's class probabilities for the 4 images (float32, shape (4, 1000))."""
    # TODO: load the model, describe it, allocate its input and output on the device, build the two
    # datasets, copy the images in, execute, copy the output back.
    # Hint: acl.mdl.load_from_file, create_desc/get_desc, get_input_size_by_index, buffers() and dataset() above.
    ### BEGIN SOLUTION
    model_id, _ = acl.mdl.load_from_file(model_path)
    desc = acl.mdl.create_desc()
    acl.mdl.get_desc(desc, model_id)
    (inp,), (out,) = buffers(desc)
    data = np.ascontiguousarray(images)
    acl.rt.memcpy(inp[0], inp[1], acl.util.numpy_to_ptr(data), data.nbytes, H2D)
    acl.mdl.execute(model_id, dataset([inp]), dataset([out]))
    result = np.empty((4, 1000), np.float32)
    acl.rt.memcpy(acl.util.numpy_to_ptr(result), result.nbytes, out[0], out[1], D2H)
    acl.mdl.unload(model_id)
    return result
    ### END SOLUTION

# %% nbgrader={"grade": true, "grade_id": "ex12_1_check", "locked": true, "points": 1, "schema_version": 3, "solution": false, "task": false}
### BEGIN HIDDEN TESTS
assert (grade := sandbox.teach.check("12.1", solution, isolated=True)).passed, str(grade)
### END HIDDEN TESTS
sandbox.teach.check("12.1", solution)

# %% [markdown]
# ## Concept check
#
# Four questions; each wrong choice is a mistake programs really make.

# %% [markdown] lang="zh"
# ## 概念检查
#
# 四道题；每个错误选项都是程序里真实会犯的错。

# %%
teach.questions("12.concepts")

# %% nbgrader={"grade": false, "grade_id": "concepts", "locked": false, "schema_version": 3, "solution": true, "task": false}
def concepts():
    """Your answers: {question number: letter}."""
    ### BEGIN SOLUTION
    return {1: "c", 2: "a", 3: "b", 4: "b"}
    ### END SOLUTION

# %% nbgrader={"grade": true, "grade_id": "concepts_check", "locked": true, "points": 4, "schema_version": 3, "solution": false, "task": false}
teach.check("12.concepts", concepts)
### BEGIN HIDDEN TESTS
teach.check("12.concepts", concepts, isolated=True).score * 4
### END HIDDEN TESTS

# %% [markdown]
# ## Summary
#
# A model is loaded once, described, and run on datasets of device buffers; `execute` waits for
# the outputs in device memory, `execute_async` queues one task on the AI Cores that streams and
# events order like a kernel, and its time shows up in the synchronize. Utilisation reads how
# busy the AI Cores are at that moment. The next batch's copy fits under the current execution
# on a second stream, worth it when the copies are large against the model. The optional deep
# dive [12x_batching_profiling](12x_batching_profiling.ipynb) runs a dynamic-batch model at
# several gears and profiles the run as msprof would.

# %% [markdown] lang="zh"
# ## 小结
#
# 模型加载一次、查询描述，然后在由 Device 缓冲区组成的数据集上运行；`execute` 等到输出写进 Device 内存才返回，`execute_async`
# 则在 AI Core 上放入一个任务，它像核函数一样由 Stream 和 Event 排序，它的时间体现在之后的同步里。利用率读的是 AI Core 在那一刻
# 有多忙。下一批的拷贝可以放在第二条 Stream 上，与当前执行重叠；拷贝相对模型越大，越值得这样做。选学深入
# [12x_batching_profiling](12x_batching_profiling.ipynb) 以多个档位运行动态 Batch 模型，并像 msprof 那样对运行做性能分析。

# %% [markdown] lang="zh" translates="code"
# en: # where a board keeps its .om
# zh: # 开发板存放 .om 的地方
# en: """A fresh Atlas 300I Pro (Ascend310P3, the chip of the model's published curve): acl up, device 0."""
# zh: """一块全新的 Atlas 300I Pro（Ascend310P3，模型公布曲线所用的芯片）：acl 已初始化，已设置 Device 0。"""
# en: """One device buffer per input and per output, sized as the description says."""
# zh: """每个输入、每个输出各一个 Device 缓冲区，大小按模型描述。"""
# en: """A dataset of data buffers over (device address, size) pairs."""
# zh: """由 (Device 地址, 大小) 对组成的数据缓冲区数据集。"""
# en: # 8 preprocessed images, one per batch
# zh: # 8 张预处理好的图片，每批一张
# en: "the model file:"
# zh: "模型文件："
# en: "bytes (a stand-in's description)"
# zh: "字节（替身的描述）"
# en: "| device memory taken:"
# zh: "| 占用的 Device 内存："
# en: # not a stand-in: as an ATC output would be to the sandbox
# zh: # 不是替身：对沙箱来说就像一个 ATC 输出
# en: "| the host waited"
# zh: "| Host 等待了"
# en: "top 5 classes:"
# zh: "前 5 个类别："
# en: "| probabilities sum to"
# zh: "| 概率之和为"
# en: "execute_async returned after"
# zh: "execute_async 返回用时"
# en: "synchronize_stream waited"
# zh: "synchronize_stream 等待了"
# en: us  cube {figures[0]:>3}%  vector {figures[1]:>3}%  "
# zh: us  Cube {figures[0]:>3}%  Vector {figures[1]:>3}%  "
# en: f"AI CPU {figures[2]}%  memory {figures[3]}"
# zh: f"AI CPU {figures[2]}%  内存 {figures[3]}"
# en: """Classify the 8 images, one per execution; returns (probabilities, total virtual time in ns)."""
# zh: """为 8 张图片分类，每次执行一张；返回（概率，总虚拟时间，单位 ns）。"""
# en: # the slot's last execution has read it
# zh: # 该槽位上一次执行已读完它
# en: f"one stream: {t_one / 1e6:.3f} ms | copy and compute streams: {t_two / 1e6:.3f} ms | same answers:"
# zh: f"一条 Stream：{t_one / 1e6:.3f} ms | 拷贝 Stream 加计算 Stream：{t_two / 1e6:.3f} ms | 结果相同："
# en: """Return the model's class probabilities for the 4 images (float32, shape (4, 1000))."""
# zh: """返回模型对这 4 张图片算出的类别概率（float32，形状 (4, 1000)）。"""
# en: # TODO: load the model, describe it, allocate its input and output on the device, build the two
# zh: # TODO：加载模型，查询描述，在 Device 上为输入和输出分配内存，构建两个
# en: # datasets, copy the images in, execute, copy the output back.
# zh: # 数据集，拷入图片，执行，拷回输出。
# en: # Hint: acl.mdl.load_from_file, create_desc/get_desc, get_input_size_by_index, buffers() and dataset() above.
# zh: # 提示：acl.mdl.load_from_file、create_desc/get_desc、get_input_size_by_index，以及上面的 buffers() 和 dataset()。
