# %% [markdown]
# # 12x · Dynamic batching and profiling an inference run
#
# **Optional deep dive after notebook 12 · about 20 minutes.** It assumes notebook 12 (loading a
# model, datasets, `execute` and `execute_async`, the copy and compute streams).
#
# A model compiled with several batch sizes lets a program choose, execution by execution,
# between latency and throughput; `acl.prof` records what the run did, as msprof would. The
# exercise puts both together with notebook 12's two streams.
#
# **After this notebook** you can run a dynamic-batch model at a chosen gear, choose a batch size
# from measured latency and throughput, and read a profile's operator summary.

# %% [markdown] lang="zh"
# # 12x · 动态 Batch 与推理运行的性能分析
#
# **选学深入：notebook 12 之后 · 约 20 分钟。** 前提是 notebook 12（加载模型、数据集、`execute` 与 `execute_async`、拷贝 Stream（流）
# 与计算 Stream）。
#
# 用多个 Batch 大小编译的模型，让程序可以逐次执行地在时延与吞吐量之间取舍；`acl.prof` 像 msprof 那样记录一次运行做了什么。
# 练习把这两者和 notebook 12 的两条 Stream 结合起来。
#
# **学完本 notebook**，你能以选定的档位运行动态 Batch 模型，根据测得的时延和吞吐量选择 Batch 大小，并读懂性能分析的算子汇总。

# %% lang="zh"
import sandbox

sandbox.set_language("zh")          # 中文版：评分反馈使用中文

# %%
import csv
import glob
import os
import tempfile

import numpy as np

import sandbox
from sandbox import acl
from sandbox.models import zoo

H2D, D2H = acl.ACL_MEMCPY_HOST_TO_DEVICE, acl.ACL_MEMCPY_DEVICE_TO_HOST
HUGE = acl.ACL_MEM_MALLOC_HUGE_FIRST
FOLDER = tempfile.mkdtemp(prefix="models-")


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

# %% [markdown]
# ## 1 · Dynamic batching: latency against throughput
#
# A model compiled with dynamic batch sizes (ATC's `--dynamic_batch_size`) has an extra input,
# `ascend_mbatch_shape_data` (`acl.mdl.ACL_DYNAMIC_TENSOR_NAME`), that carries the batch an
# execution runs at; `set_dynamic_batch_size` writes it and must name one of the model's gears
# (another batch size returns **145013**, `ACL_ERROR_GE_DYNAMIC_BATCH_SIZE_INVALID`, "invalid dynamic
# batch size" in the aclError list, `docs/zh/api_ref/25-01_aclError.md`). A larger
# batch takes longer per execution but gives more images per second.

# %% [markdown] lang="zh"
# ## 1 · 动态 Batch：时延与吞吐量
#
# 用动态 Batch 编译的模型（ATC 的 `--dynamic_batch_size`）多一个输入 `ascend_mbatch_shape_data`
# （`acl.mdl.ACL_DYNAMIC_TENSOR_NAME`），用来携带一次执行所用的 Batch；`set_dynamic_batch_size` 写入它，并且必须指定模型的某个档位
# （其他 Batch 大小返回 **145013**，`ACL_ERROR_GE_DYNAMIC_BATCH_SIZE_INVALID`，即“aclError 返回码列表”中的“无效的动态分档Batch大小”）。Batch 越大，每次执行越久，但每秒处理的图片更多。

# %%
board()
gears = (1, 2, 4, 8, 16, 32, 64)
path = zoo("resnet50", dynamic_batch=gears).save(os.path.join(FOLDER, "resnet50_dynamic.om"))
mid, _ = acl.mdl.load_from_file(path)
d = acl.mdl.create_desc()
acl.mdl.get_desc(d, mid)
print("gears:", acl.mdl.get_dynamic_batch(d)[0], "| input dims:", acl.mdl.get_input_dims(d, 0)[0]["dims"])
gear_input, _ = acl.mdl.get_input_index_by_name(d, acl.mdl.ACL_DYNAMIC_TENSOR_NAME)
ins, outs = buffers(d)
in_ds, out_ds = dataset(ins), dataset(outs)
print("batch 3 ->", acl.mdl.set_dynamic_batch_size(mid, in_ds, gear_input, 3))
print(f"{'batch':>5} {'latency':>10} {'images/s':>9}")
for b in gears:
    acl.mdl.set_dynamic_batch_size(mid, in_ds, gear_input, b)
    t0 = sandbox.now()
    acl.mdl.execute(mid, in_ds, out_ds)
    latency = sandbox.now() - t0
    print(f"{b:>5} {latency / 1e6:>8.3f} ms {b / latency * 1e9:>9.0f}")

# %% [markdown]
# Batch 8 gives about 2.5 times the images per second of batch 1 for 3.2 times the latency; past
# batch 16 the throughput hardly grows. A server picks the largest batch its latency budget allows.
#
# ## 2 · Profiling the run
#
# `acl.prof` records a stretch of the run between `start` and `stop` and writes what msprof
# writes: a collection folder `PROF_...` whose `mindstudio_profiler_output` holds the timeline
# (`msprof_*.json`, for Perfetto or MindStudio Insight) and the operator summary
# (`op_summary_*.csv`, one row per kernel or model execution, in msprof's columns).

# %% [markdown] lang="zh"
# Batch 8 每秒处理的图片约为 Batch 1 的 2.5 倍，时延是它的 3.2 倍；超过 Batch 16 后吞吐量几乎不再增长。服务端会选择时延预算允许的最大
# Batch。
#
# ## 2 · 对运行做性能分析
#
# `acl.prof` 记录 `start` 与 `stop` 之间的一段运行，并写出 msprof 写出的内容：一个名为 `PROF_...` 的采集目录，其中
# `mindstudio_profiler_output` 存放时间线（`msprof_*.json`，供 Perfetto 或 MindStudio Insight 打开）和算子汇总
# （`op_summary_*.csv`，每个核函数或模型执行一行，采用 msprof 的列）。

# %%
out_dir = tempfile.mkdtemp(prefix="prof-")
print("init ->", acl.prof.init(out_dir))
config = acl.prof.create_config([0], acl.ACL_AICORE_NONE, 0, acl.ACL_PROF_ACL_API | acl.ACL_PROF_TASK_TIME)
print("start ->", acl.prof.start(config))
for b in (1, 8):
    acl.mdl.set_dynamic_batch_size(mid, in_ds, gear_input, b)
    acl.mdl.execute(mid, in_ds, out_ds)
print("stop ->", acl.prof.stop(config), "| destroy ->", acl.prof.destroy_config(config),
      "| finalize ->", acl.prof.finalize())
(summary,) = glob.glob(os.path.join(out_dir, "PROF_*", "mindstudio_profiler_output", "op_summary_*.csv"))
with open(summary, newline="") as f:
    rows = list(csv.DictReader(f))
print("the collection folder:", os.listdir(out_dir)[0][:6] + "...", "| files:",
      sorted(name.split("_")[0] for name in os.listdir(os.path.dirname(summary))))
for row in rows:
    print(row["Op Name"], row["Task Type"], row["Task Duration(us)"], "us")

# %% [markdown]
# ## Exercise
#
# `sandbox.teach.check("12.2", solution)` runs **your** function on a fresh simulated 310P3 with
# new images each time and judges the whole run from the trace: the answer and where it came
# from (the model's execution, from the grader's images), the errors and hazards, and what the
# exercise states. The grader opens the board (`acl.init()` has run, device 0 is set), saves the
# model file and passes its path. A failing line names the tasks it is about, and `grade.show()`
# draws the graded run.
#
# ### Exercise 12.2 · batches of two, the next pair copied while the model runs
#
# *Practises:* a dynamic-batch model at a chosen gear, and the asynchronous-execution picture: the
# input copy of the next batch on a copy stream while the model executes the current one on a
# compute stream, ordered by events.
#
# `solution(images, model_path)` gets 8 images (float16, shape (8, 3, 224, 224)) and the path of a
# ResNet-50 stand-in compiled with the dynamic batch gears 1, 2, 4 and 8. Classify them as four
# executions of **two** images each. Return the 8 rows of probabilities (float32, shape (8, 1000)),
# in the images' order. Graded:
#
# * the answer is what the model computed from the grader's images, read after the host knew it
#   was done;
# * the model executed 4 times, each at batch 2;
# * the input copies on one stream and the executions on another, the compute stream waiting for
#   events recorded on the copy stream;
# * copies and executions overlap: at least half of the time copies could overlap an execution,
#   they do;
# * no hazard (a copy must not overwrite an input an execution still reads).

# %% [markdown] lang="zh"
# ## 练习
#
# `sandbox.teach.check("12.2", solution)` 在一台全新的模拟 310P3 上运行**你的**函数，每次图片都不同，并根据 trace 评判整次运行：
# 答案及其来源（模型的执行，来自评分器的图片）、错误和隐患，以及题目的各项要求。评分器会替你打开开发板（已调用 `acl.init()`，
# 已设置 Device（设备）0），保存好模型文件并传入其路径。未通过的行会列出相关的任务，`grade.show()` 会画出评分运行。
#
# ### 练习 12.2 · 每批两张，模型运行时拷贝下一对
#
# *练习内容：* 以选定档位运行动态 Batch 模型，以及异步执行的图景：下一批的输入拷贝在拷贝 Stream 上进行，同时模型在计算 Stream
# 上执行当前批次，两者用 Event（事件）排序。
#
# `solution(images, model_path)` 得到 8 张图片（float16，形状 (8, 3, 224, 224)），以及一个用动态 Batch 档位 1、2、4、8 编译的
# ResNet-50 替身的路径。把它们分成四次执行来分类，每次**两张**。按图片顺序返回 8 行概率（float32，形状 (8, 1000)）。评判内容：
#
# * 答案是模型根据评分器的图片计算出来的，在 Host（主机）得知执行完成之后读取；
# * 模型执行 4 次，每次 Batch 为 2；
# * 输入拷贝在一条 Stream 上，执行在另一条 Stream 上，计算 Stream 等待在拷贝 Stream 上记录的 Event；
# * 拷贝与执行重叠：在拷贝本可以与执行重叠的时间中，至少一半确实重叠了；
# * 没有隐患（拷贝不能覆盖执行仍在读取的输入，否则就是数据竞争）。

# %% nbgrader={"grade": false, "grade_id": "ex12_2", "locked": false, "schema_version": 3, "solution": true, "task": false}
def solution(images, model_path):
    """Return the probabilities of the 8 images (float32, shape (8, 1000)), run as 4 batches of 2."""
    # TODO: load the model; two slots of datasets (input, gear input; output), each set to batch 2 with
    # set_dynamic_batch_size; a copy stream and a compute stream; per pair: copy in, record an event,
    # make the compute stream wait for it, execute_async, copy the two output rows back.
    # Hint: notebook 12's section 4 ordered one image per execution the same way; section 1 here set the gear.
    ### BEGIN SOLUTION
    pair = 2
    model_id, _ = acl.mdl.load_from_file(model_path)
    desc = acl.mdl.create_desc()
    acl.mdl.get_desc(desc, model_id)
    gear, _ = acl.mdl.get_input_index_by_name(desc, acl.mdl.ACL_DYNAMIC_TENSOR_NAME)
    slots = [buffers(desc) for _ in range(2)]
    sets = [(dataset(ins), dataset(outs)) for ins, outs in slots]
    for ins_ds, _ in sets:
        acl.mdl.set_dynamic_batch_size(model_id, ins_ds, gear, pair)
    one_in, one_out = images[0].nbytes, 1000 * 4
    hin, _ = acl.rt.malloc_host(images.nbytes)
    hout, _ = acl.rt.malloc_host(len(images) * one_out)
    acl.util.ptr_to_numpy(hin, images.shape, np.float16)[:] = images
    copy_s, _ = acl.rt.create_stream()
    compute_s, _ = acl.rt.create_stream()
    loaded = [acl.rt.create_event()[0] for _ in range(2)]
    free = [acl.rt.create_event()[0] for _ in range(2)]
    for b in range(len(images) // pair):
        k = b % 2
        din, dout = slots[k][0][0][0], slots[k][1][0][0]
        if b >= 2:
            acl.rt.stream_wait_event(copy_s, free[k])
        acl.rt.memcpy_async(din, pair * one_in, hin + b * pair * one_in, pair * one_in, H2D, copy_s)
        acl.rt.record_event(loaded[k], copy_s)
        acl.rt.stream_wait_event(compute_s, loaded[k])
        acl.mdl.execute_async(model_id, sets[k][0], sets[k][1], compute_s)
        acl.rt.record_event(free[k], compute_s)
        acl.rt.memcpy_async(hout + b * pair * one_out, pair * one_out, dout, pair * one_out, D2H, compute_s)
    acl.rt.synchronize_stream(compute_s)
    return acl.util.ptr_to_numpy(hout, (len(images), 1000), np.float32).copy()
    ### END SOLUTION

# %% nbgrader={"grade": true, "grade_id": "ex12_2_check", "locked": true, "points": 1, "schema_version": 3, "solution": false, "task": false}
### BEGIN HIDDEN TESTS
assert (grade := sandbox.teach.check("12.2", solution, isolated=True)).passed, str(grade)
### END HIDDEN TESTS
sandbox.teach.check("12.2", solution)

# %% [markdown]
# ## Summary
#
# A dynamic-batch model runs at the gear set before each execution (`set_dynamic_batch_size`,
# one of the compiled sizes); a larger batch trades latency for throughput, and a server picks the
# largest its latency budget allows. `acl.prof` writes the timeline and the operator summary
# msprof would. The official samples' ResNet-50 programs run on the sandbox unchanged with a
# stand-in at their model path.

# %% [markdown] lang="zh"
# ## 小结
#
# 动态 Batch 模型按每次执行前设置的档位运行（`set_dynamic_batch_size`，必须是编译时的某个大小）；Batch 越大，时延越长、吞吐量
# 越高，服务端会选时延预算允许的最大 Batch。`acl.prof` 写出 msprof 会写的时间线和算子汇总。官方样例中的 ResNet-50 程序只要在
# 模型路径上放一个替身，就能在沙箱上原样运行。

# %% [markdown] lang="zh" translates="code"
# en: """A fresh Atlas 300I Pro (Ascend310P3, the chip of the model's published curve): acl up, device 0."""
# zh: """一块全新的 Atlas 300I Pro（Ascend310P3，模型公布曲线所用的芯片）：acl 已初始化，已设置 Device 0。"""
# en: """One device buffer per input and per output, sized as the description says."""
# zh: """每个输入、每个输出各一个 Device 缓冲区，大小按模型描述。"""
# en: """A dataset of data buffers over (device address, size) pairs."""
# zh: """由 (Device 地址, 大小) 对组成的数据缓冲区数据集。"""
# en: "gears:"
# zh: "档位："
# en: "| input dims:"
# zh: "| 输入维度："
# en: f"{'batch':>5} {'latency':>10} {'images/s':>9}"
# zh: f"{'Batch':>5} {'时延':>8} {'图片/秒':>6}"
# en: "the collection folder:"
# zh: "采集目录："
# en: "| files:"
# zh: "| 文件："
# en: """Return the probabilities of the 8 images (float32, shape (8, 1000)), run as 4 batches of 2."""
# zh: """返回 8 张图片的概率（float32，形状 (8, 1000)），分 4 批、每批 2 张运行。"""
# en: # TODO: load the model; two slots of datasets (input, gear input; output), each set to batch 2 with
# zh: # TODO：加载模型；两个数据集槽位（输入、档位输入；输出），各用 set_dynamic_batch_size 设为 Batch 2；
# en: # set_dynamic_batch_size; a copy stream and a compute stream; per pair: copy in, record an event,
# zh: # 一条拷贝 Stream 和一条计算 Stream；每一对图片：拷入，记录一个 Event，
# en: # make the compute stream wait for it, execute_async, copy the two output rows back.
# zh: # 让计算 Stream 等待它，execute_async，拷回两行输出。
# en: # Hint: notebook 12's section 4 ordered one image per execution the same way; section 1 here set the gear.
# zh: # 提示：notebook 12 第 4 节用同样的方式为每次执行一张图片排序；本 notebook 第 1 节设置了档位。
