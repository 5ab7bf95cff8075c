# %% [markdown]
# # 08 · ACL Graph: capture stream work once, replay it with one call
#
# **Time:** about 45 minutes. **Optional deep dive:** [08x_graph_patterns](08x_graph_patterns.ipynb)
# (new data through a graph, two streams in one graph, task update, one bigger kernel).
#
# Every kernel launch costs the host a few microseconds: on the 910B profile 8.6 µs. When a step
# of a program is many **small** kernels (a few µs each on the device), the host cannot queue
# them as fast as the device runs them: the device waits between kernels.
#
# ACL Graph is the runtime's answer. Between `aclmdlRICaptureBegin` and `aclmdlRICaptureEnd`,
# the tasks issued to a stream are not run but kept in a **model run instance** (`aclmdlRI`);
# `aclmdlRIExecuteAsync` then runs all of them with **one** host call, as often as needed
# (the Runtime programming guide, *Single-stream capture*,
# `docs/zh/dev_guide/04-01_single_stream_capture.md` in the CANN runtime repository). A replay
# runs the captured tasks in the order each stream issued them; the guide describes no
# reordering. What it saves is host time, as this notebook measures.
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
# pyACL publishes no binding of these calls (on a board, graphs are captured from C or C++, or
# by a framework such as torch_npu's `NPUGraph`): the `acl.mdl.ri_*` names are the sandbox's,
# by pyACL's rule. ACL Graph runs on the A2/A3 boards (and 310P), **not on the 310B**, so this
# notebook uses the 910B profile.
#
# **After this notebook** you can capture a step of work into a graph, replay it, name the calls
# a capture refuses and what they return, and say when a graph pays. **It assumes** notebooks
# 01 to 04.

# %% [markdown] lang="zh"
# # 08 · ACL Graph：捕获一次 Stream 上的任务，一次调用重放
#
# **时间**：约 45 分钟。**选学深入**：[08x_graph_patterns](08x_graph_patterns.ipynb)（通过图处理新数据、一个图里的两条
# Stream、任务更新、一个更大的核函数）。
#
# 每次下发核函数，Host（主机）都要花几微秒：在 910B 配置上是 8.6 µs。如果程序的一步由许多**小**核函数组成（每个在
# Device（设备）上只跑几微秒），Host 下发的速度就跟不上 Device 执行的速度，Device 只好在核函数之间空等。
#
# 运行时为此提供了 ACL Graph。在 `aclmdlRICaptureBegin` 与 `aclmdlRICaptureEnd` 之间，下发到 Stream（流）上的任务不会
# 立即执行，而是暂存在一个**模型运行实例**（`aclmdlRI`）中；之后调用 `aclmdlRIExecuteAsync`，**一次** Host 调用就能执行
# 其中的全部任务，想执行多少次都可以（《Runtime编程指南》“单流捕获”，CANN runtime 仓库
# `docs/zh/dev_guide/04-01_single_stream_capture.md`）。重放时，被捕获的任务按各条 Stream 当初下发的顺序执行，指南
# 没有提到任何重排。省下来的是 Host 时间，本 notebook 会把它测出来。
#
# | 步骤 | C（AscendCL） | Python（本沙箱） |
# |---|---|---|
# | 开始捕获一条 Stream | `aclmdlRICaptureBegin(stream, ACL_MODEL_RI_CAPTURE_MODE_GLOBAL)` | `acl.mdl.ri_capture_begin(stream, acl.ACL_MODEL_RI_CAPTURE_MODE_GLOBAL)` |
# | 照常下发任务（只记录，不执行） | `aclrtMemcpyAsync`、核函数下发、`aclrtRecordEvent` …… | 同样的调用 |
# | 是否正在捕获？ | `aclmdlRICaptureGetInfo(stream, &status, &ri)` | `status, ri, ret = acl.mdl.ri_capture_get_info(stream)` |
# | 结束捕获 | `aclmdlRICaptureEnd(stream, &ri)` | `ri, ret = acl.mdl.ri_capture_end(stream)` |
# | 重放全部记录的任务 | `aclmdlRIExecuteAsync(ri, stream)` | `acl.mdl.ri_execute_async(ri, stream)` |
# | 释放 | `aclmdlRIDestroy(ri)` | `acl.mdl.ri_destroy(ri)` |
#
# pyACL 没有公开这些接口的绑定（在板卡上，图由 C/C++ 程序或框架来捕获，例如 torch_npu 的 `NPUGraph`）：`acl.mdl.ri_*`
# 这些名字是沙箱按 pyACL 的命名规则起的。ACL Graph 支持 A2/A3 板卡（以及 310P），**不支持 310B**，所以本 notebook 使用
# 910B 配置。
#
# **学完本 notebook**，你能把一步任务捕获成图并重放，说出捕获期间哪些调用会被拒绝、返回什么，并判断什么时候用图划算。
# **前提**：notebook 01 到 04。

# %% lang="zh"
import sandbox

sandbox.set_language("zh")          # 中文版：评分反馈使用中文

# %%
import numpy as np

import sandbox
from sandbox import acl, teach
from sandbox.core import trace as T     # record types of sandbox.trace(), to count what happened

GLOBAL = acl.ACL_MODEL_RI_CAPTURE_MODE_GLOBAL
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
# ## Capture: recorded, not run
#
# **Predict, then run.** The cell below begins a capture on `stream`, launches `step` 32 times
# onto it and ends the capture. What do the 32 launches return? How many kernels does the device
# run, and what is in the buffer afterwards?

# %% [markdown] lang="zh"
# ## 捕获：只记录，不执行
#
# **先预测，再运行。** 下面的单元在 `stream` 上开始捕获，向它下发 32 次 `step`，再结束捕获。这 32 次下发返回什么？
# Device 执行了几个核函数？之后缓冲区里是什么？

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
# Every launch returned 0, yet the device ran nothing and the buffer still holds zeros: the
# trace has a `TaskCaptured` record for each launch and no kernel on the device. A 0 during a
# capture means "recorded", not "done". The guide says the same: the tasks "不会立即执行，而是被暂存在模型的运行实例中".

# %% [markdown] lang="zh"
# 每次下发都返回 0，可 Device 什么也没执行，缓冲区里仍然是零：trace 为每次下发记了一条 `TaskCaptured`，Device 上没有
# 任何核函数。捕获期间返回 0 的意思是“已记录”，不是“已完成”。指南的原话是：这些任务“不会立即执行，而是被暂存在模型的
# 运行实例中”。

# %% [markdown]
# ## Replay: one call, every task
#
# `aclmdlRIExecuteAsync` puts all 32 recorded kernels on the stream for a single host call.
# It is asynchronous like any `Async` call: synchronise before reading.

# %% [markdown] lang="zh"
# ## 重放：一次调用，全部任务
#
# `aclmdlRIExecuteAsync` 用一次 Host 调用把记录下的 32 个核函数全部放到 Stream 上。它和所有 `Async` 调用一样是异步的：
# 读取结果之前先同步。

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
#
# **Predict, then run.** Eager makes 33 host calls between the marks (32 launches and a
# synchronize); the replay makes 2. Will the replayed run be about 16 times shorter?

# %% [markdown] lang="zh"
# ## 逐个下发与重放
#
# 同样的 32 个核函数，一次逐个下发（eager 模式），一次从事先捕获的图重放。在标记 `start` 与 `end` 之间，我们统计 Host
# 调用次数、耗时，以及 Device 上相邻两个核函数之间的最大间隙。
#
# **先预测，再运行。** 两个标记之间，逐个下发要 33 次 Host 调用（32 次下发加一次同步），重放只要 2 次。重放的耗时会
# 缩短到约 1/16 吗？

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
# About 2 times shorter, not 16: the replay removes the host's launches, not the device's work.
# Eager: the host row is solid with launches; each kernel (4 µs on the device: 1 µs of work and
# the 3 µs start) finishes before the host has queued the next one (8.6 µs), so the stream runs
# at the host's pace, with gaps.

# %% [markdown] lang="zh"
# 只缩短到约一半，而不是 1/16：重放省掉的是 Host 的下发，而不是 Device 的工作。逐个下发时，Host 那一行排满了下发；每个
# 核函数（在 Device 上 4 µs：1 µs 工作加 3 µs 启动）在 Host 下发下一个（8.6 µs）之前就已结束，所以 Stream 跟着 Host
# 的节奏走，中间全是空隙。

# %%
eager_gantt

# %% [markdown]
# Replayed: the first ~290 µs are the **capture** — the host records the 32 launches, paying
# each launch's cost, while the device does nothing. After the mark, one `aclmdlRIExecuteAsync`
# (too short to see at the left end of the red synchronize), and the 32 kernels run back to
# back: the device's 128 µs of kernels is now the whole step. The capture only pays off when the
# instance is replayed many times.

# %% [markdown] lang="zh"
# 重放时，最初约 290 µs 是**捕获**：Host 记录 32 次下发，每次下发的代价照付，Device 则什么也不做。标记之后是一次
# `aclmdlRIExecuteAsync`（在红色同步条的左端，短得看不见），然后 32 个核函数一个紧接一个地执行：这一步的耗时就只剩
# Device 上 128 µs 的核函数。只有把实例重放很多次，捕获的代价才赚得回来。

# %%
sandbox.gantt()

# %% [markdown]
# ## Replaying many times
#
# Capture pays the launch cost once; every replay after that is one call. A training or
# inference loop that runs the same step thousands of times is where that pays.

# %% [markdown] lang="zh"
# ## 多次重放
#
# 下发的代价只在捕获时付一次；之后每次重放都只是一次调用。把同一步运行成千上万次的训练或推理循环，正是图最划算的地方。

# %%
for n in (10, 100):
    run("eager", n)
    run("graph", n)
(ec, et, _), (gc, gt, _) = results[("eager", 100)], results[("graph", 100)]
print(f"100 steps: {ec / gc:.0f}x fewer host calls, {et / gt:.2f}x shorter")

# %% [markdown]
# ## The rules, and what breaking them returns
#
# The guide lists the limits of a capture (*Single-stream capture*, the numbered list) and the
# FAQ *ACL Graph捕获过程中任务提交限制* (`docs/zh/FAQ/ACLGraph捕获过程中任务提交限制.md`) shows the
# usual mistakes. The first: while a stream is capturing, synchronising or querying a stream, an
# event, the device or the context is illegal, in every capture mode.
#
# **Predict, then run.** A capture is under way and the program synchronises the capturing
# stream (a habit from eager code), then the whole device. What does each call return, and is
# the capture still usable after each?

# %% [markdown] lang="zh"
# ## 规则，以及违反规则时返回什么
#
# 指南列出了捕获的各项限制（“单流捕获”中的编号列表），FAQ《ACL Graph捕获过程中任务提交限制》
# （`docs/zh/FAQ/ACLGraph捕获过程中任务提交限制.md`）列出了常见错误。第一条：Stream 正在捕获时，对 Stream、Event（事件）、
# Device 或 Context（上下文）做同步或查询都是非法的，任何捕获模式下都一样。
#
# **先预测，再运行。** 捕获进行到一半，程序按 eager 代码的习惯同步了正在捕获的 Stream，随后又同步了整个 Device。两次
# 调用各返回什么？每次之后捕获还能用吗？

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
# * A synchronize or query of the capturing stream returns **107027**
#   (`ACL_ERROR_RT_STREAM_CAPTURED`), and of an event recorded in the capture **107028**
#   (`ACL_ERROR_RT_EVENT_CAPTURED`). The runtime checks this before anything else and leaves the
#   capture as it is, so the capture goes on (`src/runtime/api/impl/api_error.cc:1446-1449` for
#   a stream synchronize, `:1484` for a stream query, `:1779-1781` for an event synchronize; the
#   codes are mapped in `src/runtime/core/src/common/errcode_manage.cc:147` and `:202`). The FAQ
#   says such a call makes the capture fail and shows a log line with 107041; the sandbox follows
#   the source.
# * A device synchronize is refused with **107041** (`ACL_ERROR_RT_CAPTURE_MODE_BLOCK_ASYNC`) and
#   *invalidates* the capture, so ending it fails with **507903**
#   (`ACL_ERROR_RT_STREAM_CAPTURE_INVALIDATED`) and nothing is kept. This is the sandbox's choice:
#   the runtime's device synchronize has no such check (its wait would include the capturing
#   stream, which never completes).
#
# Either way: synchronise before `aclmdlRICaptureBegin` or after `aclmdlRICaptureEnd`, never in
# between.

# %% [markdown] lang="zh"
# * 同步或查询正在捕获的 Stream，返回 **107027**（`ACL_ERROR_RT_STREAM_CAPTURED`）；同步捕获中记录的 Event，返回
#   **107028**（`ACL_ERROR_RT_EVENT_CAPTURED`）。运行时最先做这项检查，并且不动捕获状态，所以捕获继续进行
#   （同步 Stream 见 `src/runtime/api/impl/api_error.cc:1446-1449`，查询 Stream 见 `:1484`，同步 Event 见
#   `:1779-1781`；错误码的映射见 `src/runtime/core/src/common/errcode_manage.cc:147` 与 `:202`）。FAQ 说这类调用会
#   导致捕获失败，并给出一行带 107041 的日志；沙箱以源码为准。
# * 同步 Device 以 **107041**（`ACL_ERROR_RT_CAPTURE_MODE_BLOCK_ASYNC`）被拒绝，并使捕获*失效*，于是结束捕获时返回
#   **507903**（`ACL_ERROR_RT_STREAM_CAPTURE_INVALIDATED`），什么也没留下。这是沙箱的选择：运行时的 Device 同步并没有
#   这项检查（它要等的 Stream 里包括正在捕获、永远不会完成的那一条）。
#
# 总之：要同步，就在 `aclmdlRICaptureBegin` 之前或 `aclmdlRICaptureEnd` 之后，绝不在两者之间。

# %% [markdown]
# **The default stream** cannot be captured, and the guide calls any use of it during a capture
# illegal (limit 6): capture a stream you created. Passing the default stream to
# `aclmdlRICaptureBegin` means passing a null stream (0), which the acl layer refuses before the
# runtime sees it: **100000** (`ACL_ERROR_INVALID_PARAM`, `src/acl/aclrt_impl/model_ri.cpp:53`;
# the runtime itself would answer 207000, `src/runtime/feature/aclgraph/v100/api_impl_aclgraph.cc:35-37`).
# A task on the default stream while a capture is active answers **107031**
# (`ACL_ERROR_RT_STREAM_CAPTURE_IMPLICIT`): the runtime gives that code when the default stream
# would join a capture through an event (`src/runtime/api/impl/api_impl.cc:1631`, `:2178`,
# `:2224`); for a kernel launch or a memset it is the sandbox's choice. **Not on the 310B:** there
# every ACL Graph call answers 207000 (`ACL_ERROR_RT_FEATURE_NOT_SUPPORT`).

# %% [markdown] lang="zh"
# **默认 Stream** 不能被捕获，指南还规定捕获过程中对默认 Stream 的操作都是非法的（第 6 条限制）：请捕获你自己创建的
# Stream。把默认 Stream 传给 `aclmdlRICaptureBegin`，就是传一个空 Stream（0），acl 层在运行时看到它之前就拒绝了：
# **100000**（`ACL_ERROR_INVALID_PARAM`，`src/acl/aclrt_impl/model_ri.cpp:53`；运行时本身会返回 207000，
# `src/runtime/feature/aclgraph/v100/api_impl_aclgraph.cc:35-37`）。捕获进行中往默认 Stream 下发任务返回 **107031**
# （`ACL_ERROR_RT_STREAM_CAPTURE_IMPLICIT`）：运行时在默认 Stream 要通过 Event 加入捕获时给出这个错误码
# （`src/runtime/api/impl/api_impl.cc:1631`、`:2178`、`:2224`）；下发核函数或 memset 时返回它是沙箱的选择。
# **310B 不支持：** 在 310B 上，每个 ACL Graph 调用都返回 207000（`ACL_ERROR_RT_FEATURE_NOT_SUPPORT`）。

# %%
stream, buf = board()
print("begin on the default stream ->", acl.mdl.ri_capture_begin(0, GLOBAL))
acl.mdl.ri_capture_begin(stream, GLOBAL)
print("launch on the default stream during a capture ->", step[1, 0](buf, N))
print(acl.get_recent_err_msg())
_ = acl.mdl.ri_capture_end(stream)
stream, buf = board("ascend310b")
print("310B aclmdlRICaptureBegin ->", acl.mdl.ri_capture_begin(stream, GLOBAL))

# %% [markdown]
# **Host memory must be pinned.** An async copy from pageable memory (a numpy array's address)
# cannot be captured: onto the capturing stream it is refused at once with 107000
# (`ACL_ERROR_RT_PARAM_INVALID`; `api_error.cc:2256-2258`); onto another stream the runtime
# turns it into a synchronous copy, which a GLOBAL capture forbids: 107041 (`api_error.cc:2265`).
# Memory from `aclrtMallocHost` can be captured.
#
# **Capture modes** restrict the "unsafe" calls — blocking `aclrtMemcpy`/`aclrtMemset` —
# while a capture is active: GLOBAL forbids them to every thread, THREAD_LOCAL only to the
# capturing thread, RELAXED to nobody. The runtime refuses a blocking copy with 107030
# (`ACL_ERROR_RT_CAPTURE_MODE_NOT_SUPPORT`: `api_impl.cc:2757`, mapped in
# `errcode_manage.cc:151`; the FAQ's log line shows 107041). As in the guide's sample, a thread
# can switch itself to RELAXED with `aclmdlRICaptureThreadExchangeMode` and back; the blocking
# copy then runs at once and is **not** recorded.

# %% [markdown] lang="zh"
# **Host 内存必须是锁页内存。** 从可分页内存（numpy 数组的地址）发起的异步拷贝不能被捕获：下发到正在捕获的 Stream 上，
# 立即以 107000（`ACL_ERROR_RT_PARAM_INVALID`；`api_error.cc:2256-2258`）被拒绝；下发到别的 Stream 上，运行时会把它
# 转成同步拷贝，而 GLOBAL 捕获禁止同步拷贝：107041（`api_error.cc:2265`）。用 `aclrtMallocHost` 申请的内存可以被捕获。
#
# **捕获模式**决定捕获期间哪些线程不能调用“非安全”函数，即阻塞的 `aclrtMemcpy`/`aclrtMemset`：GLOBAL 禁止所有线程，
# THREAD_LOCAL 只禁止发起捕获的线程，RELAXED 谁都不禁止。运行时以 107030（`ACL_ERROR_RT_CAPTURE_MODE_NOT_SUPPORT`：
# `api_impl.cc:2757`，映射见 `errcode_manage.cc:151`；FAQ 的日志里是 107041）拒绝阻塞拷贝。和指南的示例一样，线程可以用
# `aclmdlRICaptureThreadExchangeMode` 把自己切到 RELAXED、调用完再切回来；这时阻塞拷贝立即执行，**不会**被记录。

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
# ## Exercise
#
# `sandbox.teach.check("08.1", solution)` runs **your** function on a fresh simulated 910B of its
# own, with inputs it makes up each time, and judges the whole run from the trace; each criterion
# prints `✔` or `✘` with a hint. The grader opens the board for you (`acl.init()` has run,
# device 0 is set, `stream` is a stream it created): do not call `sandbox.configure` or
# `board()` in a solution.
#
# The exercise uses a kernel of its own, `tick` (`x = 3·x + j` on int32, wrapping), so the result
# depends on every launch and on their order. A **step** of the model is 32 ticks,
# `j = 0 … 31`: `model_step(stream, buf)` launches them.

# %% [markdown] lang="zh"
# ## 练习
#
# `sandbox.teach.check("08.1", solution)` 在一台属于它自己的全新模拟 910B 上运行**你的**函数，每次都生成新的输入，并根据
# trace 评判整次运行；每一项打印 `✔` 或 `✘`，并附提示。评分器会替你打开板卡（已运行 `acl.init()`，已设置 Device 0，
# `stream` 是它创建的 Stream）：解答中不要调用 `sandbox.configure` 或 `board()`。
#
# 练习使用自己的核函数 `tick`（int32 上的 `x = 3·x + j`，溢出回绕），所以结果取决于每一次下发及其顺序。模型的一**步**是
# 32 次 tick，`j = 0 … 31`，由 `model_step(stream, buf)` 下发。

# %%
REPEATS = 20                # steps in exercise 08.1


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
# * the kernels unchanged: exactly 640 launches of `tick` (32 per step, 20 steps), no other kernel;
# * every one of the 640 kernels ran from a replay (`aclmdlRIExecuteAsync`) of a captured graph;
# * at most **100 host calls** in the whole solution (the capture's launches count; stream and
#   event queries, if you poll instead of synchronising, do not);
# * at most **4 ms** from the solution's start to its end (the capture counts).

# %% [markdown] lang="zh"
# ### 练习 08.1 · 重放这一步
#
# *练习内容：* 把由小核函数组成的一步捕获一次再重放，让 Host 每步只调用一次，Device 则一个紧接一个地执行核函数。
#
# 下面的 `eager_steps` 在 `x` 上运行模型的 20 步，640 次 tick 全部逐个下发；评分器认可它的答案，其余各项都不给过。
# 写出 `solution(x, stream)`，返回同样的值（int32，共 `N` 个），但要把一步捕获成图一次，再重放。评判内容：
#
# * 答案：20 步之后的 `x`，由 Device 上的核函数算出并拷回；
# * 核函数不变：恰好下发 640 次 `tick`（每步 32 次，共 20 步），没有别的核函数；
# * 640 个核函数全部来自对捕获图的重放（`aclmdlRIExecuteAsync`）；
# * 整个解答至多 **100 次 Host 调用**（捕获时的下发也算；如果用轮询代替同步，Stream 和 Event 的查询不算）；
# * 从解答开始到结束至多 **4 ms**（捕获也算在内）。

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
# ## Concept check
#
# Answer from what the cells above showed; each wrong choice is a mistake programmers really make.

# %% [markdown] lang="zh"
# ## 概念检查
#
# 根据上面各单元的结果作答；每个错误选项都是程序员真会犯的错。

# %%
teach.questions("08.concepts")

# %% nbgrader={"grade": false, "grade_id": "concepts", "locked": false, "schema_version": 3, "solution": true, "task": false}
def concepts():
    """Your answers: {question number: letter}."""
    ### BEGIN SOLUTION
    return {1: "b", 2: "c", 3: "a", 4: "b"}
    ### END SOLUTION

# %% nbgrader={"grade": true, "grade_id": "concepts_check", "locked": true, "points": 4, "schema_version": 3, "solution": false, "task": false}
teach.check("08.concepts", concepts)
### BEGIN HIDDEN TESTS
teach.check("08.concepts", concepts, isolated=True).score * 4
### END HIDDEN TESTS

# %% [markdown]
# ## Summary
#
# A graph pays the launch cost of a step once, at capture; every replay after that is one host
# call that puts all the step's tasks on the device together. It shortens a step only as far as
# the host was the bottleneck: the device's work stays. Capture records, it does not run: no
# synchronize inside it (107027 on the capturing stream), only pinned host memory in its copies,
# no default stream.
#
# The optional deep dive [08x_graph_patterns](08x_graph_patterns.ipynb) feeds a graph new data
# through its captured buffers (exercise 08.2), captures two streams into one graph (exercise
# 08.3), outlines task update, and compares a graph with one bigger kernel. Notebook
# [11_official_samples](11_official_samples.ipynb), section 6, walks through the official
# sample `2_advanced_features/model_ri/0_simple_model`. Next, notebooks 09 and 09b: what to do when
# calls and device tasks fail.

# %% [markdown] lang="zh"
# ## 小结
#
# 图在捕获时为一步付一次下发代价；之后每次重放都是一次 Host 调用，把这一步的全部任务一起交给 Device。它能缩短的只是
# Host 成为瓶颈的那部分，Device 的工作一点不少。捕获只记录、不执行：捕获期间不能同步（同步正在捕获的 Stream 返回
# 107027），拷贝只能用锁页内存，不能用默认 Stream。
#
# 选学深入 [08x_graph_patterns](08x_graph_patterns.ipynb) 通过捕获时的缓冲区给图喂新数据（练习 08.2），把两条 Stream
# 捕获进一个图（练习 08.3），简介任务更新，并把图和一个更大的核函数做比较。notebook
# [11_official_samples](11_official_samples.ipynb) 第 6 节逐步讲解官方示例 `2_advanced_features/model_ri/0_simple_model`。
# 接下来是 notebook 09 和 09b：调用和 Device 任务失败时怎么办。

# %% [markdown] lang="zh" translates="code"
# en: # record types of sandbox.trace(), to count what happened
# zh: # sandbox.trace() 的记录类型，用来统计发生了什么
# en: # float32 elements the kernels touch
# zh: # 核函数访问的 float32 元素个数
# en: # small kernels in one step
# zh: # 一步中的小核函数个数
# en: # a small kernel: 1 µs of work (+ the device's per-kernel start)
# zh: # 一个小核函数：1 µs 的工作（另加 Device 上每个核函数的启动时间）
# en: """A fresh board: acl initialised, device 0 set, a created stream, a zeroed device buffer."""
# zh: """一块新板卡：acl 已初始化，已设置 Device 0，创建了一条 Stream 和一块清零的 Device 缓冲区。"""
# en: """The device buffer's first values, copied back (blocking)."""
# zh: """拷回（阻塞）Device 缓冲区中的值。"""
# en: """What `steps` applications of step() make of zeros."""
# zh: """对全零数据执行 `steps` 次 step() 的结果。"""
# en: : a kernel launch costs the host
# zh: ：一次核函数下发花费 Host
# en:  µs, "
# zh:  µs，"
# en: f"each kernel starts in {p.kernel_start_ns / 1e3} µs on the device")
# zh: f"每个核函数在 Device 上的启动时间为 {p.kernel_start_ns / 1e3} µs")
# en: launches returned {rets}; capture status: {STATUS[status]}")
# zh: 次下发的返回值 {rets}；捕获状态：{STATUS[status]}")
# en: print(f"tasks recorded: {captured}, kernels sent to the device: {submitted}")
# zh: print(f"记录的任务：{captured}，送到 Device 的核函数：{submitted}")
# en: print("data after capture:", read(buf)[:3])
# zh: print("捕获之后的数据：", read(buf)[:3])
# en: print("host calls for the replay and its synchronize:",
# zh: print("重放及其同步用掉的 Host 调用次数：",
# en: what=f"data after one replay ({K} steps)")
# zh: what=f"重放一次之后的数据（{K} 步）")
# en: host calls, {(hi - lo) / 1e3:8.1f} µs start to end, "
# zh: 次 Host 调用，从开始到结束 {(hi - lo) / 1e3:8.1f} µs，"
# en: f"largest gap between kernels {kernel_gaps() / 1e3:.1f} µs, data correct: {ok}")
# zh: f"核函数之间的最大间隙 {kernel_gaps() / 1e3:.1f} µs，数据正确：{ok}")
# en: print(f"100 steps: {ec / gc:.0f}x fewer host calls, {et / gt:.2f}x shorter")
# zh: print(f"100 步：Host 调用少到 1/{ec / gc:.0f}，耗时缩短到 1/{et / gt:.2f}")
# en: print("aclrtSynchronizeStream during capture ->"
# zh: print("捕获期间 aclrtSynchronizeStream ->"
# en: print("aclrtSynchronizeDevice during capture ->"
# zh: print("捕获期间 aclrtSynchronizeDevice ->"
# en: print("status now:",
# zh: print("现在的状态：",
# en: print("begin on the default stream ->"
# zh: print("在默认 Stream 上开始捕获 ->"
# en: print("launch on the default stream during a capture ->"
# zh: print("捕获期间向默认 Stream 下发 ->"
# en: print("pageable async copy ->"
# zh: print("可分页内存的异步拷贝 ->"
# en: print("pinned async copy   ->"
# zh: print("锁页内存的异步拷贝   ->"
# en: print("blocking copy       ->"
# zh: print("阻塞拷贝             ->"
# en: print("blocking copy, RELAXED ->"
# zh: print("阻塞拷贝（RELAXED）  ->"
# en: # back to GLOBAL
# zh: # 切回 GLOBAL
# en: "| tasks recorded:"
# zh: "| 记录的任务数："
# en: # steps in exercise 08.1
# zh: # 练习 08.1 的步数
# en: # a small kernel, 1 µs of work like step()
# zh: # 一个小核函数，和 step() 一样是 1 µs 的工作
# en: """One step of the model on the n int32 values at buf: tick with j = 0 .. K-1, in order."""
# zh: """模型在 buf 处 n 个 int32 值上的一步：按顺序执行 j = 0 .. K-1 的 tick。"""
# en: """What `steps` steps make of x, computed with numpy (to compare with; not an answer)."""
# zh: """用 numpy 算出 x 经过 `steps` 步的结果（用来对照，不能当作答案）。"""
# en: """20 steps of the model on x, every tick launched eagerly (the starting point)."""
# zh: """在 x 上运行模型的 20 步，每次 tick 都逐个下发（起点）。"""
# en: """Return x (int32, N) after REPEATS steps of model_step, replayed from a graph on the device."""
# zh: """返回 x（int32，N 个）经过 REPEATS 步 model_step 后的值，这些步由 Device 上对图的重放完成。"""
# en: # TODO: copy x into a device buffer; capture model_step(stream, buf) once between
# zh: # TODO：把 x 拷入一块 Device 缓冲区；在
# en: # acl.mdl.ri_capture_begin(stream, GLOBAL) and acl.mdl.ri_capture_end(stream); replay the
# zh: # acl.mdl.ri_capture_begin(stream, GLOBAL) 与 acl.mdl.ri_capture_end(stream) 之间捕获一次 model_step(stream, buf)；
# en: # instance REPEATS times with acl.mdl.ri_execute_async(ri, stream); synchronise once; copy
# zh: # 用 acl.mdl.ri_execute_async(ri, stream) 把实例重放 REPEATS 次；只同步一次；
# en: # the buffer back and return it.
# zh: # 把缓冲区拷回并返回。
# en: # Hint: no synchronize (and no blocking copy) between begin and end; ri_destroy at the end.
# zh: # 提示：begin 与 end 之间不能同步（也不能做阻塞拷贝）；最后调用 ri_destroy。
# en: """Your answers: {question number: letter}."""
# zh: """你的答案：{题号: 字母}。"""
