# %% [markdown]
# # 08 · ACL Graph: capture stream work once, replay it with one call
#
# Every `Async` call and every kernel launch costs the host a few microseconds: on the 910B
# profile a launch is 8.6 µs of host time. When the kernels are big that does not matter. When a
# step of a program is many **small** kernels (a few µs each on the device), the host cannot
# queue them as fast as the device runs them: the device waits between kernels, and the host
# spends its time launching.
#
# ACL Graph (the runtime overview, seed 004, lists it among the advanced features) records the
# tasks issued to a stream into a **model run instance** (`aclmdlRI`) instead of running them,
# and then replays all of them with **one** host call, as often as needed.
#
# The seed says the runtime "optimises the execution order" of the graph to maximise
# parallelism. The runtime's documentation describes no such reordering: a replay runs the
# captured tasks in the order each stream issued them, with the event waits that were captured
# between streams (and one launch of a graph after another). The parallelism in a graph is the
# parallelism you captured; what a replay saves is host time, as this notebook measures.
#
# | step | C (AscendCL) | Python (this sandbox) |
# |---|---|---|
# | start recording a stream | `aclmdlRICaptureBegin(stream, ACL_MODEL_RI_CAPTURE_MODE_GLOBAL)` | `acl.mdl.ri_capture_begin(stream, acl.ACL_MODEL_RI_CAPTURE_MODE_GLOBAL)` |
# | issue work as usual (recorded, not run) | `aclrtMemcpyAsync`, kernel launches, `aclrtRecordEvent` ... | the same calls |
# | is it capturing? | `aclmdlRICaptureGetInfo(stream, &status, &ri)` | `status, ri, ret = acl.mdl.ri_capture_get_info(stream)` |
# | stop recording | `aclmdlRICaptureEnd(stream, &ri)` | `ri, ret = acl.mdl.ri_capture_end(stream)` |
# | replay every recorded task | `aclmdlRIExecuteAsync(ri, stream)` | `acl.mdl.ri_execute_async(ri, stream)` |
# | free it | `aclmdlRIDestroy(ri)` | `acl.mdl.ri_destroy(ri)` |
#
# No pyACL binding of these calls is published (Python users reach them through torch_npu's
# `NPUGraph`); the sandbox names them by pyACL's rule, under `acl.mdl`.
# ACL Graph runs on the A2/A3 boards (and 310P), **not on the 310B**, so this notebook uses the
# 910B profile.
#
# **After this notebook** you can capture a step of work into a graph, replay it, feed it new
# data through its captured buffers, capture two streams into one graph, and say when a graph
# pays and when a fused kernel is the better answer. **It assumes** notebooks 01 to 04.
#
# pyACL has no binding of the ACL Graph calls (`aclmdlRI*`): the `acl.mdl.ri_*` calls below
# are the sandbox's, named by pyACL's rule. On a board, graphs are captured from C or C++ (or by a
# framework); the rules and the timings this notebook shows are the runtime's either way.

# %% [markdown] lang="zh"
# # 08 · ACL Graph：捕获一次流任务，一次调用重放
#
# 每个 `Async` 调用和每次核函数下发都要花费 Host 几微秒：在 910B 配置上，一次下发是 8.6 µs 的 Host 时间。核函数很大时
# 这无关紧要。当程序的一步由许多**小**核函数组成（每个在设备上只有几微秒）时，Host 放入队列的速度赶不上设备运行它们的
# 速度：设备在核函数之间等待，而 Host 把时间都花在下发上。
#
# ACL Graph（运行时概览，种子 004，把它列为高级特性之一）把下发到流上的任务记录到一个**模型运行实例**（`aclmdlRI`）中，
# 而不是运行它们，然后用**一次** Host 调用重放全部任务，需要多少次就重放多少次。
#
# 种子说运行时会“自动优化执行顺序”以最大化并行度。运行时文档并没有描述这样的重排：重放按每条流下发任务的顺序运行捕获的
# 任务，带着流之间被捕获的事件等待（一个图的多次启动依次进行）。图中的并行就是你捕获进去的并行；重放节省的是 Host 时间，
# 正如本 notebook 所测量的。
#
# | 步骤 | C（AscendCL） | Python（本沙箱） |
# |---|---|---|
# | 开始记录一条流 | `aclmdlRICaptureBegin(stream, ACL_MODEL_RI_CAPTURE_MODE_GLOBAL)` | `acl.mdl.ri_capture_begin(stream, acl.ACL_MODEL_RI_CAPTURE_MODE_GLOBAL)` |
# | 照常下发任务（被记录，不运行） | `aclrtMemcpyAsync`、核函数下发、`aclrtRecordEvent` …… | 同样的调用 |
# | 是否在捕获？ | `aclmdlRICaptureGetInfo(stream, &status, &ri)` | `status, ri, ret = acl.mdl.ri_capture_get_info(stream)` |
# | 停止记录 | `aclmdlRICaptureEnd(stream, &ri)` | `ri, ret = acl.mdl.ri_capture_end(stream)` |
# | 重放所有记录的任务 | `aclmdlRIExecuteAsync(ri, stream)` | `acl.mdl.ri_execute_async(ri, stream)` |
# | 释放 | `aclmdlRIDestroy(ri)` | `acl.mdl.ri_destroy(ri)` |
#
# 这些调用没有公开的 pyACL 绑定（Python 用户通过 torch_npu 的 `NPUGraph` 使用它们）；沙箱按 pyACL 的命名规则把它们放在
# `acl.mdl` 下。ACL Graph 运行在 A2/A3 板卡（以及 310P）上，**不支持 310B**，所以本 notebook 使用 910B 配置。
#
# **学完本 notebook**，你能把一步任务捕获为图并重放，通过捕获时的缓冲区给它输入新数据，把两条流捕获进一个图，并说明
# 什么时候图划算、什么时候融合核函数是更好的答案。**前提**：notebook 01 到 04。
#
# pyACL 没有绑定 ACL Graph 的调用（`aclmdlRI*`）：下面的 `acl.mdl.ri_*` 是沙箱按 pyACL 的命名规则提供的。
# 在板卡上，图由 C 或 C++（或框架）来捕获；本 notebook 展示的规则和时间在两种情况下都是运行时的。

# %% lang="zh"
import sandbox

sandbox.set_language("zh")          # 中文版：评分反馈使用中文

# %%
import json
import os
import tempfile

import numpy as np

import sandbox
from sandbox import acl, teach
from sandbox.core import trace as T     # record types of sandbox.trace(), to count what happened

GLOBAL = acl.ACL_MODEL_RI_CAPTURE_MODE_GLOBAL
THREAD_LOCAL = acl.ACL_MODEL_RI_CAPTURE_MODE_THREAD_LOCAL
RELAXED = acl.ACL_MODEL_RI_CAPTURE_MODE_RELAXED
H2D, D2H = acl.ACL_MEMCPY_HOST_TO_DEVICE, acl.ACL_MEMCPY_DEVICE_TO_HOST
STATUS = {acl.ACL_MODEL_RI_CAPTURE_STATUS_NONE: "NONE", acl.ACL_MODEL_RI_CAPTURE_STATUS_ACTIVE: "ACTIVE",
          acl.ACL_MODEL_RI_CAPTURE_STATUS_INVALIDATED: "INVALIDATED"}
N = 1024                    # float32 elements the kernels touch
K = 32                      # small kernels in one step


@sandbox.kernel(ns=1_000)   # a small kernel: 1 µs of work (+ the device's per-kernel start)
def step(x: "float32*", n: int):
    x[:n] = x[:n] * 0.5 + 1


def board(profile="ascend910b"):
    """A fresh board: acl initialised, device 0 set, a created stream, a zeroed device buffer."""
    sandbox.configure(profile)
    acl.init()
    acl.rt.set_device(0)
    stream, _ = acl.rt.create_stream()
    buf, _ = acl.rt.malloc(4 * N, acl.ACL_MEM_MALLOC_HUGE_FIRST)
    acl.rt.memset(buf, 4 * N, 0, 4 * N)
    return stream, buf


def read(buf):
    """The device buffer's first values, copied back (blocking)."""
    host = np.zeros(N, np.float32)
    acl.rt.memcpy(acl.util.numpy_to_ptr(host), 4 * N, buf, 4 * N, D2H)
    return host


def expected(steps):
    """What `steps` applications of step() make of zeros."""
    x = np.zeros(N, np.float32)
    for _ in range(steps):
        x = x * np.float32(0.5) + np.float32(1)
    return x


p = sandbox.get_profile("ascend910b")
print(f"{p.soc_name}: a kernel launch costs the host {p.host_costs.kernel_launch / 1e3} µs, "
      f"each kernel starts in {p.kernel_start_ns / 1e3} µs on the device")

# %% [markdown]
# ## How the official model-RI sample goes
#
# The runtime repository's `example/2_advanced_features/model_ri/0_simple_model` builds
# `out = (self + other × alpha) × other` from two library operators, in short:
#
# 1. initialise, open device 0, make a context; create the tensors and the two operators'
#    workspaces; create a stream and pinned host memory for one input;
# 2. **begin capture** on the stream in GLOBAL mode;
# 3. queue an async host-to-device copy of the pinned input (a "safe" call: it is recorded);
# 4. switch the thread to RELAXED with `aclmdlRICaptureThreadExchangeMode`, do a **blocking**
#    copy of the other input (not recorded: it runs at once), and switch back;
# 5. queue the add and the mul operators (recorded); **end capture** to get the `aclmdlRI`;
#    print it as JSON with `aclmdlRIDebugJsonPrint`;
# 6. four times: execute the instance asynchronously, synchronise the stream, copy the result
#    back and print it;
# 7. destroy the instance, the stream, tensors, buffers, context; reset and finalise.
#
# We follow the same path on small kernels of our own, then measure what it saves.

# %% [markdown] lang="zh"
# ## 官方 model-RI 示例的流程
#
# 运行时仓库的 `example/2_advanced_features/model_ri/0_simple_model` 用两个库算子构建 `out = (self + other × alpha) × other`，
# 简述如下：
#
# 1. 初始化，打开设备 0，创建上下文；创建张量和两个算子的工作空间；创建一条流，并为其中一个输入申请锁页 Host 内存；
# 2. 以 GLOBAL 模式在流上**开始捕获**；
# 3. 放入锁页输入的异步 Host 到设备拷贝（一个“安全”的调用：它被记录）；
# 4. 用 `aclmdlRICaptureThreadExchangeMode` 把线程切换为 RELAXED，对另一个输入做一次**阻塞**拷贝（不被记录：它立即运行），
#    再切换回来；
# 5. 放入加法和乘法算子（被记录）；**结束捕获**得到 `aclmdlRI`；用 `aclmdlRIDebugJsonPrint` 以 JSON 打印它；
# 6. 重复四次：异步执行该实例，同步流，把结果拷回并打印；
# 7. 销毁实例、流、张量、缓冲区、上下文；复位并去初始化。
#
# 我们在自己的小核函数上走同样的路径，然后测量它节省了什么。

# %% [markdown]
# ## Capture: recorded, not run
#
# Between begin and end, kernel launches return 0 but reach no queue: the trace gets a
# `TaskCaptured` record for each, the device does nothing, the data does not change.

# %% [markdown] lang="zh"
# ## 捕获：被记录，不运行
#
# 在开始与结束之间，核函数下发返回 0，但不会进入任何队列：trace 为每次下发记下一条 `TaskCaptured` 记录，设备什么也不做，
# 数据也不改变。

# %%
stream, buf = board()
print("aclmdlRICaptureBegin ->", acl.mdl.ri_capture_begin(stream, GLOBAL))   # C: aclmdlRICaptureBegin(stream, ACL_MODEL_RI_CAPTURE_MODE_GLOBAL);
rets = {step[1, stream](buf, N) for _ in range(K)}
status, _ri, ret = acl.mdl.ri_capture_get_info(stream)                        # C: aclmdlRICaptureGetInfo(stream, &status, &ri);
print(f"{K} launches returned {rets}; capture status: {STATUS[status]}")
ri, ret = acl.mdl.ri_capture_end(stream)                                      # C: aclmdlRICaptureEnd(stream, &modelRI);
print("aclmdlRICaptureEnd ->", ret)
captured = len(list(sandbox.trace().of(T.TaskCaptured)))
submitted = sum(1 for r in sandbox.trace().of(T.TaskSubmitted) if r.kind == "kernel")
print(f"tasks recorded: {captured}, kernels sent to the device: {submitted}")
print("data after capture:", read(buf)[:3])

# %% [markdown]
# `aclmdlRIDebugJsonPrint` writes what the instance holds: its streams and each task's type.

# %% [markdown] lang="zh"
# `aclmdlRIDebugJsonPrint` 写出实例包含的内容：它的流和每个任务的类型。

# %%
path = os.path.join(tempfile.mkdtemp(), "model_ri.json")
print("aclmdlRIDebugJsonPrint ->", acl.mdl.ri_debug_json_print(ri, path, 0))
with open(path, encoding="utf-8") as f:
    doc = json.load(f)
print(f"model {doc['model_id']} on device {doc['device_id']}, streams {doc['streams']}, "
      f"{len(doc['tasks'])} tasks; the first two: {doc['tasks'][:2]}")

# %% [markdown]
# ## Replay: one call, every task
#
# `aclmdlRIExecuteAsync` submits all 32 recorded kernels onto the stream for a single host call.
# It is asynchronous like any `Async` call: synchronise before reading.

# %% [markdown] lang="zh"
# ## 重放：一次调用，全部任务
#
# `aclmdlRIExecuteAsync` 用一次 Host 调用把全部 32 个记录的核函数提交到流上。它与任何 `Async` 调用一样是异步的：读取之前先同步。

# %%
calls_before = len(list(sandbox.trace().of(T.ApiCall)))
print("aclmdlRIExecuteAsync ->", acl.mdl.ri_execute_async(ri, stream))         # C: aclmdlRIExecuteAsync(modelRI, stream);
print("aclrtSynchronizeStream ->", acl.rt.synchronize_stream(stream))
print("host calls for the replay and its synchronize:", len(list(sandbox.trace().of(T.ApiCall))) - calls_before)
teach.check_equal(read(buf), expected(K), what=f"data after one replay ({K} steps)")

# %% [markdown]
# ## Eager vs replayed
#
# The same 32 kernels, once launched one by one ("eager") and once replayed from a graph
# captured beforehand. Between the marks `start` and `end` we count the host calls, the time,
# and the largest gap between two kernels on the device.

# %% [markdown] lang="zh"
# ## 逐个下发与重放
#
# 同样的 32 个核函数，一次逐个下发（“eager”），一次从事先捕获的图重放。在标记 `start` 和 `end` 之间，我们统计 Host 调用
# 次数、时间，以及设备上两个核函数之间的最大间隙。

# %%
results = {}


def kernel_gaps():
    starts = {r.task: r.t for r in sandbox.trace().of(T.TaskStarted)}
    ends = {r.task: r.t for r in sandbox.trace().of(T.TaskFinished)}
    ks = [r.task for r in sandbox.trace().of(T.TaskSubmitted) if r.kind == "kernel"][-K:]
    return max(starts[b] - ends[a] for a, b in zip(ks, ks[1:]))


def run(mode, replays=1):
    stream, buf = board()
    if mode == "graph":
        acl.mdl.ri_capture_begin(stream, GLOBAL)
        for _ in range(K):
            step[1, stream](buf, N)
        ri, _ = acl.mdl.ri_capture_end(stream)
    teach.mark("start")
    for _ in range(replays):
        if mode == "graph":
            acl.mdl.ri_execute_async(ri, stream)
        else:
            for _ in range(K):
                step[1, stream](buf, N)
    acl.rt.synchronize_stream(stream)
    teach.mark("end")
    calls = teach.check_host_calls(at_most=10**9, start="start", end="end").value
    lo, hi = teach.window(start="start", end="end")
    results[(mode, replays)] = (calls, hi - lo, kernel_gaps())
    ok = np.allclose(read(buf), expected(K * replays))
    print(f"{mode:>6} x{replays:<4}: {calls:5d} host calls, {(hi - lo) / 1e3:8.1f} µs start to end, "
          f"largest gap between kernels {kernel_gaps() / 1e3:.1f} µs, data correct: {ok}")


run("eager")
eager_gantt = sandbox.gantt()
run("graph")

# %% [markdown]
# Eager: the host row is solid with launches (32 of them, one after another); each kernel (4 µs on the device: 1 µs of
# work and the 3 µs start) finishes before the host has queued the next one (8.6 µs), so the
# stream runs at the host's pace, with gaps.

# %% [markdown] lang="zh"
# 逐个下发：Host 那一行被下发填满（32 次，一个接一个）；每个核函数（在设备上 4 µs：1 µs 工作加 3 µs 启动）在 Host 放入下一个
# （8.6 µs）之前就已完成，所以流按 Host 的节奏运行，中间有间隙。

# %%
eager_gantt

# %% [markdown]
# Replayed: the first ~290 µs are the **capture** — the host records the 32 launches, paying
# each launch's cost, while the device does nothing. Then, after the mark, one
# `aclmdlRIExecuteAsync` (too short to see at the left end of the red synchronize) and the 32
# kernels run back to back: one solid bar on the stream. The capture only pays off when the
# instance is replayed, which is the point of the next section.

# %% [markdown] lang="zh"
# 重放：最初约 290 µs 是**捕获**——Host 记录 32 次下发，为每次下发付出代价，而设备什么也不做。然后，在标记之后，一次
# `aclmdlRIExecuteAsync`（在红色同步的左端，短得看不见），32 个核函数紧挨着运行：流上一根实心条。只有重放实例时捕获才划算，
# 这正是下一节的内容。

# %%
sandbox.gantt()

# %% [markdown]
# ## Replaying many times
#
# Capture pays the launch cost once (each captured launch still costs its 8.6 µs when it is
# recorded); every replay after that is one call. A training or inference loop that runs the
# same step thousands of times is where that pays.

# %% [markdown] lang="zh"
# ## 多次重放
#
# 捕获只付出一次下发代价（每次被捕获的下发在记录时仍花费 8.6 µs）；之后每次重放都只是一次调用。把同一步运行成千上万次的
# 训练或推理循环，正是它划算的地方。

# %%
for n in (10, 100):
    run("eager", n)
    run("graph", n)
(ec, et, _), (gc, gt, _) = results[("eager", 100)], results[("graph", 100)]
print(f"100 steps: {ec / gc:.0f}x fewer host calls, {et / gt:.2f}x shorter")

# %% [markdown]
# ## The rules, and what breaking them returns
#
# **Synchronising during capture** is refused in every mode. A synchronize or query of the
# capturing stream returns 107027 (`ACL_ERROR_RT_STREAM_CAPTURED`), one of an event recorded in the
# capture 107028 (`ACL_ERROR_RT_EVENT_CAPTURED`): the runtime checks that first and leaves the
# capture as it is (hicann/runtime `src/runtime/api/impl/api_error.cc`, `StreamSynchronize` and
# `EventSynchronize`), so the capture goes on. A device synchronize is refused with 107041
# (`ACL_ERROR_RT_CAPTURE_MODE_BLOCK_ASYNC`) and *invalidates* the capture, so ending it then fails
# with 507903 and nothing is kept: the runtime's device synchronize has no such check, and this is
# the sandbox's choice (the wait would include the capturing stream, which never completes).

# %% [markdown] lang="zh"
# ## 规则，以及违反它们时返回什么
#
# **在捕获期间同步**在任何模式下都会被拒绝。对正在捕获的 Stream 做同步或查询返回 107027（`ACL_ERROR_RT_STREAM_CAPTURED`），
# 对捕获中记录的 Event 做同步返回 107028（`ACL_ERROR_RT_EVENT_CAPTURED`）：运行时首先检查这一点，并保持捕获不变
# （hicann/runtime `src/runtime/api/impl/api_error.cc` 中的 `StreamSynchronize` 与 `EventSynchronize`），所以捕获会继续。
# Device 同步以 107041（`ACL_ERROR_RT_CAPTURE_MODE_BLOCK_ASYNC`）被拒绝，并使捕获*失效*，之后结束捕获会以 507903 失败，
# 什么都没有保留：运行时的 Device 同步并没有这项检查，这是沙箱的选择（这次等待包含正在捕获、永远不会完成的 Stream）。

# %%
stream, buf = board()
acl.mdl.ri_capture_begin(stream, GLOBAL)
step[1, stream](buf, N)
print("aclrtSynchronizeStream during capture ->", acl.rt.synchronize_stream(stream))
print("status now:", STATUS[acl.mdl.ri_capture_get_info(stream)[0]])
print("aclrtSynchronizeDevice during capture ->", acl.rt.synchronize_device())
print("status now:", STATUS[acl.mdl.ri_capture_get_info(stream)[0]])
print("aclmdlRICaptureEnd ->", acl.mdl.ri_capture_end(stream)[1])
print(acl.get_recent_err_msg())

# %% [markdown]
# **The default stream** cannot be captured, nor used while a capture is active in its
# context: 107031 (`ACL_ERROR_RT_STREAM_CAPTURE_IMPLICIT`). Capture a stream you created.

# %% [markdown] lang="zh"
# **默认流**不能被捕获，在其上下文中有捕获进行时也不能使用：107031（`ACL_ERROR_RT_STREAM_CAPTURE_IMPLICIT`）。请捕获你自己创建的流。

# %%
stream, buf = board()
print("begin on the default stream ->", acl.mdl.ri_capture_begin(0, GLOBAL))
acl.mdl.ri_capture_begin(stream, GLOBAL)
print("launch on the default stream during a capture ->", step[1, 0](buf, N))
print(acl.get_recent_err_msg())
_ = acl.mdl.ri_capture_end(stream)

# %% [markdown]
# **Host memory must be pinned.** An async copy from pageable memory (a numpy array's address)
# cannot be captured: onto the capturing stream it is refused at once with 107000
# (`ACL_ERROR_RT_PARAM_INVALID`); onto another stream the runtime turns it into a synchronous copy,
# which a GLOBAL capture forbids: 107041. Memory from `aclrtMallocHost` can be captured.
#
# **Capture modes** restrict the "unsafe" calls — blocking `aclrtMemcpy`/`aclrtMemset` —
# while a capture is active: GLOBAL forbids them to every thread (while any GLOBAL capture
# runs), THREAD_LOCAL only to the capturing thread, RELAXED to nobody. The sandbox answers a
# refused blocking copy with 107030 (`ACL_ERROR_RT_CAPTURE_MODE_NOT_SUPPORT`, the code the
# runtime's source maps there). As in the official sample, a thread can switch itself to
# RELAXED for one call with `aclmdlRICaptureThreadExchangeMode` and back; the blocking copy then
# runs at once and is **not** recorded.

# %% [markdown] lang="zh"
# **Host 内存必须是锁页的。** 从可分页内存（numpy 数组的地址）发起的异步拷贝无法被捕获：下发到正在捕获的流上时立即被拒绝，返回
# 107000（`ACL_ERROR_RT_PARAM_INVALID`）；下发到其他流上时运行时会把它变成同步拷贝，而 GLOBAL 捕获禁止同步拷贝：107041。
# 来自 `aclrtMallocHost` 的内存可以被捕获。
#
# **捕获模式**在捕获进行时限制“不安全”的调用——阻塞的 `aclrtMemcpy`/`aclrtMemset`：GLOBAL 禁止所有线程使用（只要有 GLOBAL
# 捕获在进行），THREAD_LOCAL 只禁止进行捕获的线程，RELAXED 谁都不禁止。沙箱对被拒绝的阻塞拷贝返回 107030
# （`ACL_ERROR_RT_CAPTURE_MODE_NOT_SUPPORT`，运行时源码在此映射的错误码）。与官方示例一样，线程可以用
# `aclmdlRICaptureThreadExchangeMode` 把自己切换为 RELAXED 做一次调用再切换回来；这时阻塞拷贝立即运行，且**不**被记录。

# %%
stream, buf = board()
pageable = np.ones(N, np.float32)
pinned, _ = acl.rt.malloc_host(4 * N)
acl.mdl.ri_capture_begin(stream, GLOBAL)
print("pageable async copy ->", acl.rt.memcpy_async(buf, 4 * N, acl.util.numpy_to_ptr(pageable), 4 * N, H2D, stream))
print("pinned async copy   ->", acl.rt.memcpy_async(buf, 4 * N, pinned, 4 * N, H2D, stream))
print("blocking copy       ->", acl.rt.memcpy(buf, 4 * N, pinned, 4 * N, H2D))
old, _ = acl.mdl.ri_capture_thread_exchange_mode(RELAXED)          # C: aclmdlRICaptureThreadExchangeMode(&mode);
print("blocking copy, RELAXED ->", acl.rt.memcpy(buf, 4 * N, pinned, 4 * N, H2D))
acl.mdl.ri_capture_thread_exchange_mode(old)                       # back to GLOBAL
ri, ret = acl.mdl.ri_capture_end(stream)
print("aclmdlRICaptureEnd ->", ret, "| tasks recorded:", [r.n_tasks for r in sandbox.trace().of(T.GraphCaptured)])

# %% [markdown]
# **Side streams must rejoin.** A second stream joins a capture by waiting on an event recorded
# on a captured stream; its tasks are then recorded too. Before the end, every side stream must
# lead back to the origin stream (record an event on it, wait for that on the origin), or the
# end fails with 107025 (`ACL_ERROR_RT_STREAM_UNJOINED`) and the capture is dropped. Such events
# come from `acl.rt.create_event_ex_with_flag(acl.ACL_EVENT_SYNC)`: a capturing stream refuses to
# record, wait on or reset an event of `create_event` or `create_event_with_flag` (207000, and
# the capture goes on).

# %% [markdown] lang="zh"
# **旁路流必须汇合回来。** 第二条流通过等待在被捕获的流上记录的事件加入捕获；之后它的任务也会被记录。在结束之前，每条旁路
# 流都必须回到起始流（在旁路流上记录一个事件，让起始流等待它），否则结束会以 107025（`ACL_ERROR_RT_STREAM_UNJOINED`）失败，
# 捕获被丢弃。这样的事件要用 `acl.rt.create_event_ex_with_flag(acl.ACL_EVENT_SYNC)` 创建：正在捕获的流拒绝记录、等待或重置
# `create_event` 或 `create_event_with_flag` 创建的事件（207000，捕获继续进行）。

# %%
def fork_join(rejoin):
    stream, buf = board()
    side, _ = acl.rt.create_stream()
    fork, _ = acl.rt.create_event_ex_with_flag(acl.ACL_EVENT_SYNC)
    join, _ = acl.rt.create_event_ex_with_flag(acl.ACL_EVENT_SYNC)
    acl.mdl.ri_capture_begin(stream, GLOBAL)
    acl.rt.record_event(fork, stream)
    acl.rt.stream_wait_event(side, fork)          # the side stream joins the capture
    step[1, side](buf, N)
    step[1, stream](buf + 4 * N // 2, N // 2)
    if rejoin:
        acl.rt.record_event(join, side)
        acl.rt.stream_wait_event(stream, join)    # ... and rejoins the origin
    ri, ret = acl.mdl.ri_capture_end(stream)
    print(f"rejoin={rejoin}: aclmdlRICaptureEnd -> {ret}")
    if ret:
        print(" ", acl.get_recent_err_msg())


fork_join(False)
fork_join(True)

# %% [markdown]
# **Not on the 310B:** every ACL Graph call there answers 207000.

# %% [markdown] lang="zh"
# **不支持 310B：** 在那里每个 ACL Graph 调用都返回 207000。

# %%
stream, buf = board("ascend310b")
print("310B aclmdlRICaptureBegin ->", acl.mdl.ri_capture_begin(stream, GLOBAL))

# %% [markdown]
# ## The other way: one bigger kernel
#
# The runtime overview (seed 004) also advises **batching**: merge many small tasks into one
# bigger one, to cut launch overhead. Where you write the kernels, one kernel that does all 32
# steps beats even the replayed graph: one launch, and one device start instead of 32. A graph
# keeps separate kernels (library operators you cannot merge, work on several streams) and
# replays them cheaply; fusing changes the kernels themselves.

# %% [markdown] lang="zh"
# ## 另一条路：一个更大的核函数
#
# 运行时概览（种子 004）还建议**批处理**：把多个小任务合并为一个大任务，以减少下发开销。在核函数由你编写的地方，一个完成
# 全部 32 步的核函数甚至胜过重放的图：一次下发，一次设备启动而不是 32 次。图保留独立的核函数（无法合并的库算子、多条流上的
# 任务）并以很低的代价重放它们；融合则改变核函数本身。

# %%
@sandbox.kernel(ns=lambda x, n, k: 1_000 * k)
def steps(x: "float32*", n: int, k: int):
    for _ in range(k):
        x[:n] = x[:n] * 0.5 + 1


stream, buf = board()
teach.mark("start")
steps[1, stream](buf, N, K)
acl.rt.synchronize_stream(stream)
teach.mark("end")
lo, hi = teach.window(start="start", end="end")
results[("fused", 1)] = (teach.check_host_calls(at_most=10**9, start="start", end="end").value, hi - lo, 0)
print(f"{'':>12}{'host calls':>12}{'start to end':>16}")
for key in (("eager", 1), ("graph", 1), ("fused", 1)):
    calls, span, _ = results[key]
    print(f"{key[0]:>12}{calls:>12}{span / 1e3:>13.1f} µs")
teach.check_equal(read(buf), expected(K), what="fused kernel's data")

# %% [markdown]
# ## Exercises
#
# Each exercise is a function for you to complete. `sandbox.teach.check("08.1", solution)` runs
# **your** function on a fresh simulated 910B of its own, with inputs it makes up each time, and
# judges the whole run from the trace: the answer, whether the device computed it, which
# kernels ran and where they came from, and the numbers the exercise states. Each criterion
# prints `✔` or `✘` with a hint. The whole run of `solution` is the graded window: there is no
# mark to set, and work done before or after it does not exist.
#
# The grader opens the board for you: `acl.init()` has run, device 0 is set, and `stream` is a
# stream it created. Do not call `sandbox.configure` or `board()` in a solution (the grader
# builds the machine), and you need not reset the device or finalise.
#
# The exercises use a kernel of their own, `tick` (`x = 3·x + j` on int32, wrapping), so the
# result depends on every launch and on their order. A **step** of the model is 32 ticks,
# `j = 0 … 31`: `model_step(stream, buf)` launches them. `tick` declares how many elements it
# touches (`sandbox.ptr("int32", "n")`), so two ticks on different halves of one buffer do not
# conflict.

# %% [markdown] lang="zh"
# ## 练习
#
# 每个练习都是一个由你补全的函数。`sandbox.teach.check("08.1", solution)` 在一台属于它自己的全新模拟 910B 上运行**你的**
# 函数，每次使用新生成的输入，并根据 trace 评判整次运行：答案，是否由设备算出，运行了哪些核函数、它们来自哪里，以及练习
# 给出的各项数字。每一项打印 `✔` 或 `✘` 并附提示。`solution` 的整次运行就是评判窗口：不需要设置标记，在它之前或之后做的
# 工作都不算。
#
# 评分器为你打开板卡：已运行 `acl.init()`，已设置设备 0，`stream` 是它创建的一条流。不要在解答中调用 `sandbox.configure`
# 或 `board()`（机器由评分器建立），也不需要复位设备或去初始化。
#
# 练习使用它们自己的核函数 `tick`（int32 上的 `x = 3·x + j`，溢出回绕），所以结果取决于每一次下发以及它们的顺序。模型的
# 一**步**是 32 次 tick，`j = 0 … 31`：`model_step(stream, buf)` 下发它们。`tick` 声明了它访问多少个元素
# （`sandbox.ptr("int32", "n")`），所以作用于同一缓冲区不同两半的两次 tick 不会冲突。

# %%
REPEATS = 20                # steps in 08.1 and 08.3
BATCHES = 6                 # batches in 08.2


@sandbox.kernel(ns=1_000)   # a small kernel, 1 µs of work like step()
def tick(x: sandbox.ptr("int32", "n"), n: int, j: int):
    x[:n] = x[:n] * 3 + j


def model_step(stream, buf, n=N):
    """One step of the model on the n int32 values at buf: tick with j = 0 .. K-1, in order."""
    for j in range(K):
        tick[1, stream](buf, n, j)


def model(x, steps=1):
    """What `steps` steps make of x, computed with numpy (to compare with; not an answer)."""
    y = np.array(x, dtype=np.int32)
    for _ in range(steps):
        for j in range(K):
            y = y * np.int32(3) + np.int32(j)
    return y

# %% [markdown]
# ### Exercise 08.1 · replay the step
#
# *Practises:* capturing a step of small kernels once and replaying it, so that the host makes
# one call per step and the device runs the kernels back to back.
#
# `eager_steps` below runs 20 steps of the model on `x`, launching all 640 ticks one by one; the
# grader accepts its answer and rejects the rest. Write `solution(x, stream)` that returns the
# same values (int32, `N` of them) with the step captured into a graph once and replayed. Graded:
#
# * the answer: `x` after 20 steps, computed by kernels on the device and copied back;
# * the kernels unchanged: exactly 640 launches of `tick` ran (32 per step, 20 steps), and no
#   other kernel (a fused kernel is another program);
# * every one of the 640 kernels ran from a replay (`aclmdlRIExecuteAsync`) of a captured graph;
# * at most **100 host calls** in the whole solution (the capture's launches count; stream and
#   event queries, if you poll instead of synchronising, do not);
# * at most **4 ms** from the solution's start to its end (the capture counts).

# %% [markdown] lang="zh"
# ### 练习 08.1 · 重放这一步
#
# *练习内容：* 把由小核函数组成的一步捕获一次并重放，使 Host 每步只做一次调用，设备则紧挨着运行这些核函数。
#
# 下面的 `eager_steps` 在 `x` 上运行模型的 20 步，逐个下发全部 640 次 tick；评分器接受它的答案，但拒绝其余各项。写出
# `solution(x, stream)`，返回同样的值（int32，`N` 个），把一步捕获为图一次并重放。评判内容：
#
# * 答案：20 步之后的 `x`，由核函数在设备上计算并拷回；
# * 核函数不变：恰好运行了 640 次 `tick`（每步 32 次，20 步），没有其他核函数（融合的核函数是另一个程序）；
# * 640 个核函数全部来自对捕获图的重放（`aclmdlRIExecuteAsync`）；
# * 整个解答至多 **100 次 Host 调用**（捕获中的下发计入；如果你用轮询代替同步，流和事件的查询不计入）；
# * 从解答开始到结束至多 **4 ms**（捕获计入）。

# %%
def eager_steps(x, stream):
    """20 steps of the model on x, every tick launched eagerly (the starting point)."""
    buf, _ = acl.rt.malloc(4 * N, acl.ACL_MEM_MALLOC_HUGE_FIRST)
    acl.rt.memcpy(buf, 4 * N, acl.util.numpy_to_ptr(x), 4 * N, H2D)
    for _ in range(REPEATS):
        model_step(stream, buf)
    acl.rt.synchronize_stream(stream)
    out = np.empty(N, np.int32)
    acl.rt.memcpy(acl.util.numpy_to_ptr(out), 4 * N, buf, 4 * N, D2H)
    acl.rt.free(buf)
    return out


print(sandbox.teach.check("08.1", eager_steps))

# %% nbgrader={"grade": false, "grade_id": "ex08_1", "locked": false, "schema_version": 3, "solution": true, "task": false}
def solution(x, stream):
    """Return x (int32, N) after REPEATS steps of model_step, replayed from a graph on the device."""
    # TODO: copy x into a device buffer; capture model_step(stream, buf) once between
    # acl.mdl.ri_capture_begin(stream, GLOBAL) and acl.mdl.ri_capture_end(stream); replay the
    # instance REPEATS times with acl.mdl.ri_execute_async(ri, stream); synchronise once; copy
    # the buffer back and return it.
    # Hint: no synchronize (and no blocking copy) between begin and end; ri_destroy at the end.
    ### BEGIN SOLUTION
    buf, _ = acl.rt.malloc(4 * N, acl.ACL_MEM_MALLOC_HUGE_FIRST)
    host, _ = acl.rt.malloc_host(4 * N)
    acl.util.ptr_to_numpy(host, (N,), np.int32)[:] = x
    acl.rt.memcpy_async(buf, 4 * N, host, 4 * N, H2D, stream)
    acl.mdl.ri_capture_begin(stream, GLOBAL)
    model_step(stream, buf)
    ri, _ = acl.mdl.ri_capture_end(stream)
    for _ in range(REPEATS):
        acl.mdl.ri_execute_async(ri, stream)
    acl.rt.memcpy_async(host, 4 * N, buf, 4 * N, D2H, stream)
    acl.rt.synchronize_stream(stream)
    out = acl.util.ptr_to_numpy(host, (N,), np.int32).copy()
    acl.mdl.ri_destroy(ri)
    acl.rt.free(buf)
    acl.rt.free_host(host)
    return out
    ### END SOLUTION

# %% nbgrader={"grade": true, "grade_id": "ex08_1_check", "locked": true, "points": 1, "schema_version": 3, "solution": false, "task": false}
### BEGIN HIDDEN TESTS
assert (grade := sandbox.teach.check("08.1", solution, isolated=True)).passed, str(grade)
### END HIDDEN TESTS
sandbox.teach.check("08.1", solution)

# %% [markdown]
# ### Exercise 08.2 · copies in the graph
#
# *Practises:* capturing copies from pinned host memory together with the kernels, and feeding a
# graph new data through the buffers it was captured with.
#
# A graph replays its tasks with the addresses they were captured with. To run it on new data,
# capture the copies too: the copy in from a **pinned** host buffer (`aclrtMallocHost`; an async
# copy from pageable memory cannot be captured), one step, and the copy out into another pinned
# buffer. Then, for each of the 6 batches `x[i]` (int32, `N` each): write the batch into the
# pinned input buffer, replay, wait, and read the pinned output buffer before the next replay
# overwrites it. Return the 6 results as an array of shape `(BATCHES, N)`. Graded:
#
# * the answer: each row is one step of the model on its batch, computed by kernels on the
#   device and brought back by a device-to-host copy;
# * the kernels unchanged: 192 launches of `tick` (32 per batch), all from replays;
# * the copies in the graph: 6 copies in and 6 copies out of 4 KiB, all replayed from the graph;
# * exactly **6 replays** of the graph, one per batch;
# * at most **80 host calls** in the whole solution.

# %% [markdown] lang="zh"
# ### 练习 08.2 · 图中的拷贝
#
# *练习内容：* 把来自锁页 Host 内存的拷贝与核函数一起捕获，并通过捕获时的缓冲区给图输入新数据。
#
# 图以捕获时的地址重放它的任务。要在新数据上运行它，把拷贝也捕获进去：从一个**锁页** Host 缓冲区拷入（`aclrtMallocHost`；
# 从可分页内存发起的异步拷贝无法被捕获），一步，再拷出到另一个锁页缓冲区。然后对 6 个批次 `x[i]`（int32，各 `N` 个）中的
# 每一个：把批次写入锁页输入缓冲区，重放，等待，并在下一次重放覆盖它之前读取锁页输出缓冲区。以形状为 `(BATCHES, N)` 的
# 数组返回 6 个结果。评判内容：
#
# * 答案：每一行是模型在其批次上运行一步的结果，由核函数在设备上计算，由设备到 Host 的拷贝带回；
# * 核函数不变：192 次 `tick`（每批 32 次），全部来自重放；
# * 图中的拷贝：6 次拷入和 6 次拷出，各 4 KiB，全部从图中重放；
# * 恰好 **6 次重放**，每批一次；
# * 整个解答至多 **80 次 Host 调用**。

# %% nbgrader={"grade": false, "grade_id": "ex08_2", "locked": false, "schema_version": 3, "solution": true, "task": false}
def solution(x, stream):
    """Return model(x[i]) for each of the BATCHES rows of x, each from one replay of one graph."""
    # TODO: pinned host buffers for one batch in and one out, and a device buffer; capture
    # [copy in, model_step, copy out] once; then per batch: fill the input buffer, replay,
    # synchronise, keep a copy of the output buffer.
    # Hint: acl.util.ptr_to_numpy(ptr, (N,), np.int32) is a view of pinned memory: write with
    # view[:] = ..., and .copy() what you read before the next replay changes it.
    ### BEGIN SOLUTION
    hin, _ = acl.rt.malloc_host(4 * N)
    hout, _ = acl.rt.malloc_host(4 * N)
    buf, _ = acl.rt.malloc(4 * N, acl.ACL_MEM_MALLOC_HUGE_FIRST)
    acl.mdl.ri_capture_begin(stream, GLOBAL)
    acl.rt.memcpy_async(buf, 4 * N, hin, 4 * N, H2D, stream)
    model_step(stream, buf)
    acl.rt.memcpy_async(hout, 4 * N, buf, 4 * N, D2H, stream)
    ri, _ = acl.mdl.ri_capture_end(stream)
    out = np.empty((BATCHES, N), np.int32)
    for i in range(BATCHES):
        acl.util.ptr_to_numpy(hin, (N,), np.int32)[:] = x[i]
        acl.mdl.ri_execute_async(ri, stream)
        acl.rt.synchronize_stream(stream)
        out[i] = acl.util.ptr_to_numpy(hout, (N,), np.int32)
    acl.mdl.ri_destroy(ri)
    acl.rt.free(buf)
    acl.rt.free_host(hin)
    acl.rt.free_host(hout)
    return out
    ### END SOLUTION

# %% nbgrader={"grade": true, "grade_id": "ex08_2_check", "locked": true, "points": 1, "schema_version": 3, "solution": false, "task": false}
### BEGIN HIDDEN TESTS
assert (grade := sandbox.teach.check("08.2", solution, isolated=True)).passed, str(grade)
### END HIDDEN TESTS
sandbox.teach.check("08.2", solution)

# %% [markdown]
# ### Exercise 08.3 · two streams in one graph
#
# *Practises:* cross-stream capture: a side stream joins the capture through an event and
# rejoins the origin stream before the end, so that one replay runs both streams side by side.
#
# Two vectors `a` and `b` (int32, `N` each) each go through 20 steps of the model. They do not
# depend on each other, but on one stream their 1280 ticks run one after another. Capture one
# step of both into **one graph on two streams**: inside the capture, record an event on
# `stream` and make a side stream (one you create) wait for it, launch `b`'s step on the side
# stream and `a`'s on `stream`, then record an event on the side stream and make `stream` wait
# for it before `ri_capture_end` (or the end fails with 107025). Replay it 20 times and return
# `np.stack([a_after, b_after])`, shape `(2, N)`. Graded:
#
# * the answer: `a` and `b` after 20 steps, computed by kernels on the device and copied back;
# * the kernels unchanged: 1280 launches of `tick`, all from replays;
# * one graph, captured on two streams, is what was replayed;
# * the two streams ran kernels at the same time for at least **75%** of the shorter one's
#   kernel time;
# * at most **150 host calls** and at most **4 ms** in the whole solution.

# %% [markdown] lang="zh"
# ### 练习 08.3 · 一个图中的两条流
#
# *练习内容：* 跨流捕获：旁路流通过事件加入捕获，并在结束之前汇合回起始流，使一次重放让两条流并行运行。
#
# 两个向量 `a` 和 `b`（int32，各 `N` 个）各自经过模型的 20 步。它们互不依赖，但在一条流上它们的 1280 次 tick 一个接一个地
# 运行。把两者的一步捕获进**两条流上的一个图**：在捕获内部，在 `stream` 上记录一个事件，让一条旁路流（你自己创建的）等待它，
# 在旁路流上下发 `b` 的一步、在 `stream` 上下发 `a` 的一步，然后在旁路流上记录一个事件，并在 `ri_capture_end` 之前让 `stream`
# 等待它（否则结束会以 107025 失败）。重放 20 次，返回 `np.stack([a_after, b_after])`，形状 `(2, N)`。评判内容：
#
# * 答案：20 步之后的 `a` 和 `b`，由核函数在设备上计算并拷回；
# * 核函数不变：1280 次 `tick`，全部来自重放；
# * 被重放的是一个在两条流上捕获的图；
# * 两条流同时运行核函数的时间至少是较短一条核函数时间的 **75%**；
# * 整个解答至多 **150 次 Host 调用**、至多 **4 ms**。

# %% nbgrader={"grade": false, "grade_id": "ex08_3", "locked": false, "schema_version": 3, "solution": true, "task": false}
def solution(a, b, stream):
    """Return np.stack([a, b]) after REPEATS steps each, from one graph that runs a and b side by side."""
    # TODO: a side stream and two events; device memory for a and b; inside one capture on
    # stream: fork (record on stream, side waits), a's step on stream, b's on side, join (record
    # on side, stream waits); end the capture; replay REPEATS times; copy back; synchronise.
    # Hint: the fork and the join are acl.rt.record_event(event, s) + acl.rt.stream_wait_event(other, event),
    # with events of acl.rt.create_event_ex_with_flag(acl.ACL_EVENT_SYNC) (a capture takes no others).
    ### BEGIN SOLUTION
    side, _ = acl.rt.create_stream()
    fork, _ = acl.rt.create_event_ex_with_flag(acl.ACL_EVENT_SYNC)
    join, _ = acl.rt.create_event_ex_with_flag(acl.ACL_EVENT_SYNC)
    host, _ = acl.rt.malloc_host(8 * N)
    dev, _ = acl.rt.malloc(8 * N, acl.ACL_MEM_MALLOC_HUGE_FIRST)
    acl.util.ptr_to_numpy(host, (2, N), np.int32)[:] = [a, b]
    acl.rt.memcpy_async(dev, 8 * N, host, 8 * N, H2D, stream)
    acl.mdl.ri_capture_begin(stream, GLOBAL)
    acl.rt.record_event(fork, stream)
    acl.rt.stream_wait_event(side, fork)          # the side stream joins the capture
    model_step(stream, dev)
    model_step(side, dev + 4 * N)
    acl.rt.record_event(join, side)
    acl.rt.stream_wait_event(stream, join)        # ... and rejoins the origin
    ri, _ = acl.mdl.ri_capture_end(stream)
    for _ in range(REPEATS):
        acl.mdl.ri_execute_async(ri, stream)
    acl.rt.memcpy_async(host, 8 * N, dev, 8 * N, D2H, stream)
    acl.rt.synchronize_stream(stream)
    out = acl.util.ptr_to_numpy(host, (2, N), np.int32).copy()
    acl.mdl.ri_destroy(ri)
    acl.rt.free(dev)
    acl.rt.free_host(host)
    for e in (fork, join):
        acl.rt.destroy_event(e)
    acl.rt.destroy_stream(side)
    return out
    ### END SOLUTION

# %% nbgrader={"grade": true, "grade_id": "ex08_3_check", "locked": true, "points": 1, "schema_version": 3, "solution": false, "task": false}
### BEGIN HIDDEN TESTS
assert (grade := sandbox.teach.check("08.3", solution, isolated=True)).passed, str(grade)
### END HIDDEN TESTS
sandbox.teach.check("08.3", solution)

# %% [markdown]
# ## Official samples for this topic
#
# Notebook [11_official_samples](11_official_samples.ipynb), section 6, walks through the capture
# calls of `2_advanced_features/model_ri/0_simple_model` with a `@sandbox.kernel`.
# [4_model_sync_external.py](../examples/2_advanced_features/model_ri/4_model_sync_external.py)
# orders a captured graph and work outside it through an event made with
# `aclrtCreateEventExWithFlag(ACL_EVENT_SYNC)`: the graph waits for an eager record, an eager stream
# waits for the graph's record, and one graph waits for another. The other model_ri samples compute
# with aclnn operators and use model build, update and condition calls, which the sandbox does not
# model: [examples/README.md](../examples/README.md).
# [0_simple_model.py](../examples/2_advanced_features/model_ri/0_simple_model.py) ports
# `0_simple_model` itself: its aclnnAdd and aclnnMul (operator-library calls, not the runtime) are
# two `@sandbox.kernel` functions, captured into the graph and replayed four times.

# %% [markdown] lang="zh"
# ## 本专题的官方示例
#
# notebook [11_official_samples](11_official_samples.ipynb) 第 6 节用一个 `@sandbox.kernel`
# 逐步讲解 `2_advanced_features/model_ri/0_simple_model` 的捕获调用。[4_model_sync_external.py](../../examples/2_advanced_features/model_ri/4_model_sync_external.py)
# 通过一个用 `aclrtCreateEventExWithFlag(ACL_EVENT_SYNC)` 创建的事件，为捕获的图与图外的任务排序：图等待图外的记录，
# 图外的流等待图中的记录，以及一个图等待另一个图。其他 model_ri 示例用 aclnn 算子计算，并使用模型构建、更新和条件
# 调用，沙箱不模拟这些：见 [examples/README.md](../../examples/README.md)。
# [0_simple_model.py](../../examples/2_advanced_features/model_ri/0_simple_model.py) 移植了 `0_simple_model` 本身：
# 它的 aclnnAdd 和 aclnnMul（算子库调用，不是运行时）换成两个 `@sandbox.kernel` 函数，被捕获进图并重放四次。

# %% [markdown]
# ## Summary
#
# A graph pays the launch cost of a step once, at capture, and every replay after that is one
# host call that puts all the step's tasks on the device together. Capture records, it does not
# run: no synchronize inside it, only pinned host memory in its copies, side streams joined by
# an event and rejoined before the end. A replay reuses the captured addresses, so new data goes
# into the captured buffers between replays. Next, notebooks 09 and 09b: what to do when calls and device
# tasks fail, and how the sandbox finds races that a schedule hid.

# %% [markdown] lang="zh"
# ## 小结
#
# 图在捕获时为一步付出一次下发代价，之后每次重放都是一次 Host 调用，把这一步的所有任务一起放到设备上。捕获是记录而不是
# 运行：其中不能同步，拷贝只能使用锁页 Host 内存，旁路流通过事件加入并在结束前汇合回来。重放复用捕获时的地址，所以新数据
# 要在两次重放之间写入捕获时的缓冲区。接下来是 notebook 09 和 09b：调用和设备任务失败时该怎么办，以及沙箱如何发现被调度掩盖的数据竞争。

