# %% [markdown]
# # 08x · ACL Graph in practice: new data, two streams, task update, one bigger kernel
#
# **Optional deep dive after notebook 08 · about 35 minutes.**
#
# Notebook 08 captured a step into a graph, replayed it and listed what a capture refuses. This
# deep dive uses a graph the way a real program does: it feeds it new data between replays,
# captures two streams into one graph (the Runtime programming guide, *Cross-stream capture*,
# `docs/zh/dev_guide/04-02_cross_stream_capture.md` in the CANN runtime repository), outlines how
# a captured task is updated (*Task update*, `docs/zh/dev_guide/04-03_task_update.md`), and
# compares a graph with the other way to save launches: one bigger kernel.
#
# **After this deep dive** you can capture copies with the kernels and feed a graph new data,
# capture an origin stream and a side stream into one graph, and say when a fused kernel is the
# better answer. **It assumes** notebook 08 (and events, notebook 03).

# %% [markdown] lang="zh"
# # 08x · ACL Graph 实战：新数据、两条 Stream、任务更新、一个更大的核函数
#
# **选学深入：notebook 08 之后 · 约 35 分钟。**
#
# notebook 08 把一步捕获成图、重放它，并列出了捕获期间会被拒绝的调用。本 notebook 按真实程序的方式使用图：在两次重放之间
# 给它喂新数据；把两条 Stream（流）捕获进一个图（《Runtime编程指南》“跨流捕获”，CANN runtime 仓库
# `docs/zh/dev_guide/04-02_cross_stream_capture.md`）；简介如何更新已捕获的任务（“任务更新”，
# `docs/zh/dev_guide/04-03_task_update.md`）；最后把图和另一种减少下发的办法——一个更大的核函数——做个比较。
#
# **学完本 notebook**，你能把拷贝和核函数一起捕获、给图喂新数据，把主流和子流捕获进一个图，并判断什么时候融合核函数是
# 更好的答案。**前提**：notebook 08（以及 Event（事件），notebook 03）。

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

GLOBAL = acl.ACL_MODEL_RI_CAPTURE_MODE_GLOBAL
H2D, D2H = acl.ACL_MEMCPY_HOST_TO_DEVICE, acl.ACL_MEMCPY_DEVICE_TO_HOST
N = 1024                    # int32 elements of one vector (4 KiB)
K = 32                      # tick launches in one step
REPEATS = 20                # steps in exercise 08.3
BATCHES = 6                 # batches in exercise 08.2


@sandbox.kernel(ns=1_000)   # a small kernel: 1 µs of work (+ the device's per-kernel start)
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


def board():
    """A fresh 910B: acl initialised, device 0 set, a created stream, a zeroed device buffer."""
    sandbox.configure("ascend910b")
    acl.init()
    acl.rt.set_device(0)
    stream, _ = acl.rt.create_stream()
    buf, _ = acl.rt.malloc(4 * N, acl.ACL_MEM_MALLOC_HUGE_FIRST)
    acl.rt.memset(buf, 4 * N, 0, 4 * N)
    return stream, buf

# %% [markdown]
# ## What a graph holds
#
# The guide's samples (and the official sample `2_advanced_features/model_ri/0_simple_model`)
# capture a copy in from pinned host memory, the operators, and a copy out, then print the
# instance with `aclmdlRIDebugJsonPrint` "for debugging": its streams and each task's type.

# %% [markdown] lang="zh"
# ## 图里有什么
#
# 指南中的示例（以及官方示例 `2_advanced_features/model_ri/0_simple_model`）捕获一次从锁页 Host（主机）内存的拷入、
# 几个算子和一次拷出，然后用 `aclmdlRIDebugJsonPrint`（“维测场景下使用”）打印实例：它的 Stream 以及每个任务的类型。

# %%
stream, buf = board()
pinned, _ = acl.rt.malloc_host(4 * N)
acl.mdl.ri_capture_begin(stream, GLOBAL)
acl.rt.memcpy_async(buf, 4 * N, pinned, 4 * N, H2D, stream)
model_step(stream, buf)
acl.rt.memcpy_async(pinned, 4 * N, buf, 4 * N, D2H, stream)
ri, _ = acl.mdl.ri_capture_end(stream)
path = os.path.join(tempfile.mkdtemp(), "model_ri.json")
print("aclmdlRIDebugJsonPrint ->", acl.mdl.ri_debug_json_print(ri, path, 0))     # C: aclmdlRIDebugJsonPrint(modelRI, path, 0);
with open(path, encoding="utf-8") as f:
    doc = json.load(f)
kinds = sorted({t["task_type"] for t in doc["tasks"]})
print(f"streams {doc['streams']}, {len(doc['tasks'])} tasks of types {kinds}")
print("first and last:", doc["tasks"][0], doc["tasks"][-1])

# %% [markdown]
# ## New data through the captured buffers
#
# A graph replays its tasks with the **addresses** they were captured with. To run it on new
# data, capture the copies too and write each new input into the captured pinned buffer between
# replays; read the captured output buffer after each replay has finished, before the next one
# overwrites it. The guide's sample does exactly that: it replays eight times and prints the
# pinned output after each synchronize. It also warns that whatever a captured task uses must
# stay valid until the instance is destroyed (*Single-stream capture*, limit 7).

# %% [markdown] lang="zh"
# ## 通过捕获时的缓冲区输入新数据
#
# 图按捕获时的**地址**重放任务。要让它处理新数据，就把拷贝也捕获进去，在两次重放之间把新输入写进捕获时用的锁页缓冲区；
# 每次重放结束后、下一次重放覆盖之前，读出捕获时用的输出缓冲区。指南的示例正是这样做的：重放八次，每次同步后打印锁页
# 输出缓冲区。指南还提醒：被捕获的任务用到的资源，在实例销毁之前都必须保持有效（“单流捕获”第 7 条限制）。

# %% [markdown]
# ### Exercise 08.2 · copies in the graph
#
# *Practises:* capturing copies from pinned host memory together with the kernels, and feeding a
# graph new data through the buffers it was captured with.
#
# `sandbox.teach.check("08.2", solution)` runs your function on a fresh simulated 910B of its own
# (acl initialised, device 0 set, `stream` created for you) and judges the whole run from the
# trace. Capture, once: the copy in from a **pinned** host buffer (`aclrtMallocHost`), one step
# (`model_step`), and the copy out into another pinned buffer. Then, for each of the 6 batches
# `x[i]` (int32, `N` each): write the batch into the pinned input buffer, replay, wait, and keep
# a copy of the pinned output. Return the 6 results as an array of shape `(BATCHES, N)`. Graded:
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
# *练习内容：* 把从锁页 Host 内存发起的拷贝和核函数一起捕获，并通过捕获时的缓冲区给图输入新数据。
#
# `sandbox.teach.check("08.2", solution)` 在一台属于它自己的全新模拟 910B 上运行你的函数（已初始化 acl，已设置
# Device（设备）0，`stream` 已为你创建），并根据 trace 评判整次运行。只捕获一次：从一块**锁页** Host 缓冲区
# （`aclrtMallocHost`）拷入、一步（`model_step`）、再拷出到另一块锁页缓冲区。然后对 6 个批次 `x[i]`（int32，各 `N` 个）
# 逐个处理：把批次写入锁页输入缓冲区，重放，等待，再把锁页输出复制一份留下。以形状为 `(BATCHES, N)` 的数组返回 6 个
# 结果。评判内容：
#
# * 答案：每一行是模型在该批次上运行一步的结果，由 Device 上的核函数算出，经 Device 到 Host 的拷贝带回；
# * 核函数不变：192 次 `tick`（每批 32 次），全部来自重放；
# * 图中的拷贝：6 次拷入和 6 次拷出，各 4 KiB，全部由图重放；
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
# ## Two streams in one graph
#
# `aclmdlRICaptureBegin` and `aclmdlRICaptureEnd` name one stream, the **origin stream** (主流).
# Another stream, a **side stream** (子流), joins the capture by waiting on an event recorded on a
# captured stream; its tasks are then recorded too. Before the end, every side stream must lead
# back to the origin, directly or through another side stream (record an event on it, wait for
# that on the origin), or the end fails (*Cross-stream capture*): 107025
# (`ACL_ERROR_RT_STREAM_UNJOINED`, `src/runtime/feature/aclgraph/context_aclgraph.cc:401`), and the
# capture is dropped. The guide's sample makes these events with
# `aclrtCreateEventExWithFlag(ACL_EVENT_SYNC)`; the sandbox refuses, on a capturing stream, to
# record, wait on or reset an event of `create_event` or `create_event_with_flag` with 207000 and
# lets the capture go on (the sandbox's choice: the guide requires the flag but gives no code).
#
# **Predict, then run.** `fork_join(False)` forks a side stream off the origin and ends the
# capture without the join; `fork_join(True)` joins first. What does each `aclmdlRICaptureEnd`
# return?

# %% [markdown] lang="zh"
# ## 一个图里的两条 Stream
#
# `aclmdlRICaptureBegin` 和 `aclmdlRICaptureEnd` 指定的是同一条 Stream，即**主流**（origin stream）。另一条 Stream，即
# **子流**（sub stream），通过等待在已捕获的 Stream 上记录的 Event 加入捕获，此后它的任务也会被记录。结束捕获之前，每条
# 子流都必须直接或经由其他子流回到主流（在子流上记录 Event，在主流上等待它），否则结束捕获时报错（“跨流捕获”）：107025
# （`ACL_ERROR_RT_STREAM_UNJOINED`，`src/runtime/feature/aclgraph/context_aclgraph.cc:401`），捕获被丢弃。指南的示例
# 用 `aclrtCreateEventExWithFlag(ACL_EVENT_SYNC)` 创建这些 Event；对用 `create_event` 或 `create_event_with_flag`
# 创建的 Event，沙箱拒绝在正在捕获的 Stream 上记录、等待或重置它们，返回 207000，捕获继续进行（这是沙箱的选择：指南要求
# 使用该标志，但没有给出错误码）。
#
# **先预测，再运行。** `fork_join(False)` 从主流分出一条子流，不汇合就结束捕获；`fork_join(True)` 先汇合再结束。两次
# `aclmdlRICaptureEnd` 各返回什么？

# %%
def fork_join(rejoin):
    stream, buf = board()
    side, _ = acl.rt.create_stream()
    fork, _ = acl.rt.create_event_ex_with_flag(acl.ACL_EVENT_SYNC)
    join, _ = acl.rt.create_event_ex_with_flag(acl.ACL_EVENT_SYNC)
    acl.mdl.ri_capture_begin(stream, GLOBAL)
    acl.rt.record_event(fork, stream)
    acl.rt.stream_wait_event(side, fork)          # the side stream joins the capture
    tick[1, side](buf, N // 2, 1)
    tick[1, stream](buf + 4 * N // 2, N // 2, 1)
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
# Without the join the whole capture is lost, not just the side stream's part: the end checks
# the graph as a whole. A replay of the joined graph runs the two streams side by side, as they
# were captured: the parallelism in a graph is the parallelism you captured.

# %% [markdown] lang="zh"
# 不汇合，丢掉的是整个捕获，而不只是子流那一部分：结束捕获时检查的是整个图。汇合后的图重放时，两条 Stream 照捕获时的
# 样子并行执行：图里的并行，就是你捕获进去的并行。

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
# for it before `ri_capture_end`. Replay it 20 times and return `np.stack([a_after, b_after])`,
# shape `(2, N)`. Graded:
#
# * the answer: `a` and `b` after 20 steps, computed by kernels on the device and copied back;
# * the kernels unchanged: 1280 launches of `tick`, all from replays;
# * one graph, captured on two streams, is what was replayed;
# * the two streams ran kernels at the same time for at least **75%** of the shorter one's
#   kernel time;
# * at most **150 host calls** and at most **4 ms** in the whole solution.

# %% [markdown] lang="zh"
# ### 练习 08.3 · 一个图里的两条 Stream
#
# *练习内容：* 跨流捕获：子流通过 Event 加入捕获，并在结束之前回到主流，使一次重放就让两条 Stream 并行执行。
#
# 两个向量 `a` 和 `b`（int32，各 `N` 个）各自经过模型的 20 步。它们互不依赖，但在一条 Stream 上，它们的 1280 次 tick
# 只能一个接一个地执行。把两者的一步捕获进**一个图、两条 Stream**：在捕获内部，在 `stream` 上记录一个 Event，让一条子流
# （你自己创建）等待它；在子流上下发 `b` 的一步，在 `stream` 上下发 `a` 的一步；然后在子流上记录一个 Event，并在
# `ri_capture_end` 之前让 `stream` 等待它。重放 20 次，返回形状为 `(2, N)` 的 `np.stack([a_after, b_after])`。评判内容：
#
# * 答案：20 步之后的 `a` 和 `b`，由 Device 上的核函数算出并拷回；
# * 核函数不变：1280 次 `tick`，全部来自重放；
# * 被重放的是一个在两条 Stream 上捕获的图；
# * 两条 Stream 同时执行核函数的时间，至少是较短那条 Stream 核函数时间的 **75%**；
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
# ## Updating a captured task
#
# New *data* goes through the captured buffers; a new *task* (another operator, other arguments)
# does not. *Task update* gives two ways. One: split the capture at the task that changes and
# keep the parts in separate instances, run one after another (simple, but every part is an
# instance, and their number is limited by the hardware). Two: mark the task between
# `aclmdlRICaptureTaskGrpBegin` and `aclmdlRICaptureTaskGrpEnd`, which returns a task-group
# handle, and later re-issue it between `aclmdlRICaptureTaskUpdateBegin` and
# `aclmdlRICaptureTaskUpdateEnd` on an update stream, with the same number and types of tasks;
# an event of `ACL_EVENT_EXTERNAL` makes the origin stream wait for the update. The sandbox does
# not model task groups: these calls return 207000 (`ACL_ERROR_RT_FEATURE_NOT_SUPPORT`), so there
# is no cell here; the guide has the full sample.

# %% [markdown] lang="zh"
# ## 更新已捕获的任务
#
# 新*数据*可以经由捕获时的缓冲区送进去；新*任务*（换一个算子、换一组参数）却不行。“任务更新”给出两种方式。方式一：以要
# 更新的任务为分界，把捕获拆开，分别暂存到不同的模型实例中，依次执行（简单，但每一段都是一个实例，实例数量受硬件资源
# 限制）。方式二：用 `aclmdlRICaptureTaskGrpBegin`、`aclmdlRICaptureTaskGrpEnd` 把待更新的任务标记为一个任务组，得到
# 任务组的 handle；之后在一条更新用的 Stream 上，在 `aclmdlRICaptureTaskUpdateBegin` 与 `aclmdlRICaptureTaskUpdateEnd`
# 之间重新下发任务，任务数量和类型都要与原来一致；主流通过一个 `ACL_EVENT_EXTERNAL` 类型的 Event 等待更新完成。沙箱不
# 模拟任务组：这些调用返回 207000（`ACL_ERROR_RT_FEATURE_NOT_SUPPORT`），所以这里没有代码单元；完整示例见指南。

# %% [markdown]
# ## The other way: one bigger kernel
#
# Where you write the kernels, you can cut launches without a graph: one kernel that does all 32
# steps is one launch and one device start instead of 32. Below, the same 32 steps of `tick` on
# zeros three ways, timed from the first launch to the end of the synchronize (the capture is
# before the mark).

# %% [markdown] lang="zh"
# ## 另一条路：一个更大的核函数
#
# 如果核函数是你自己写的，不用图也能减少下发：一个完成全部 32 步的核函数只下发一次、在 Device 上只启动一次，而不是
# 32 次。下面用三种方式在全零数据上执行同样的 32 步 `tick`，从第一次下发计时到同步结束（捕获在标记之前）。

# %%
@sandbox.kernel(ns=lambda x, n, k: 1_000 * k)
def ticks(x: sandbox.ptr("int32", "n"), n: int, k: int):
    for j in range(k):
        x[:n] = x[:n] * 3 + j


def timed(way):
    stream, buf = board()
    if way == "graph":
        acl.mdl.ri_capture_begin(stream, GLOBAL)
        model_step(stream, buf)
        ri, _ = acl.mdl.ri_capture_end(stream)
    teach.mark("start")
    if way == "eager":
        model_step(stream, buf)
    elif way == "graph":
        acl.mdl.ri_execute_async(ri, stream)
    else:
        ticks[1, stream](buf, N, K)
    acl.rt.synchronize_stream(stream)
    teach.mark("end")
    calls = teach.check_host_calls(at_most=10**9, start="start", end="end").value
    lo, hi = teach.window(start="start", end="end")
    out = np.empty(N, np.int32)
    acl.rt.memcpy(acl.util.numpy_to_ptr(out), 4 * N, buf, 4 * N, D2H)
    right = np.array_equal(out, model(np.zeros(N, np.int32)))
    print(f"{way:>6}: {calls:3d} host calls, {(hi - lo) / 1e3:7.1f} µs, data correct: {right}")


for way in ("eager", "graph", "fused"):
    timed(way)

# %% [markdown]
# The fused kernel wins: one launch, and one device start instead of 32. But fusing changes the
# kernels themselves, and often you cannot: library operators (the official samples capture
# `aclnnAdd` and `aclnnMul`), work spread over several streams, steps written by someone else. A
# graph keeps the kernels as they are and makes their launches cheap.

# %% [markdown] lang="zh"
# 融合的核函数最快：只下发一次，在 Device 上也只启动一次，而不是 32 次。但融合要改核函数本身，而很多时候你改不了：库
# 算子（官方示例捕获的是 `aclnnAdd` 和 `aclnnMul`）、分布在多条 Stream 上的任务、别人写的步骤。图让核函数保持原样，只是
# 把它们的下发变便宜了。

# %% [markdown]
# ## Summary
#
# A replay reuses the captured addresses, so new data goes into the captured pinned buffers
# between replays, and results come out of the captured output buffer after each replay. A side
# stream joins a capture through an event recorded on a captured stream and must lead back to
# the origin before the end (107025 otherwise); the replay then runs both streams side by side.
# A changed task needs a new capture or a task group. Where you own the kernels, one bigger kernel
# saves more than a graph. The official sample
# [4_model_sync_external.py](../examples/2_advanced_features/model_ri/4_model_sync_external.py)
# orders a graph and work outside it through `ACL_EVENT_SYNC` events.

# %% [markdown] lang="zh"
# ## 小结
#
# 重放沿用捕获时的地址，所以新数据要在两次重放之间写进捕获时的锁页缓冲区，结果则在每次重放之后从捕获时的输出缓冲区取出。
# 子流通过等待在已捕获 Stream 上记录的 Event 加入捕获，结束之前必须回到主流（否则返回 107025）；这样重放时两条 Stream
# 就会并行执行。任务本身变了，就要重新捕获或使用任务组。如果核函数归你管，一个更大的核函数比图省得更多。官方示例
# [4_model_sync_external.py](../../examples/2_advanced_features/model_ri/4_model_sync_external.py) 用
# `ACL_EVENT_SYNC` 类型的 Event 为图与图外的任务排序。

# %% [markdown] lang="zh" translates="code"
# en: # int32 elements of one vector (4 KiB)
# zh: # 一个向量的 int32 元素个数（4 KiB）
# en: # tick launches in one step
# zh: # 一步中 tick 的下发次数
# en: # steps in exercise 08.3
# zh: # 练习 08.3 的步数
# en: # batches in exercise 08.2
# zh: # 练习 08.2 的批次数
# en: # a small kernel: 1 µs of work (+ the device's per-kernel start)
# zh: # 一个小核函数：1 µs 的工作（另加 Device 上每个核函数的启动时间）
# en: """One step of the model on the n int32 values at buf: tick with j = 0 .. K-1, in order."""
# zh: """模型在 buf 处 n 个 int32 值上的一步：按顺序执行 j = 0 .. K-1 的 tick。"""
# en: """What `steps` steps make of x, computed with numpy (to compare with; not an answer)."""
# zh: """用 numpy 算出 x 经过 `steps` 步的结果（用来对照，不能当作答案）。"""
# en: """A fresh 910B: acl initialised, device 0 set, a created stream, a zeroed device buffer."""
# zh: """一台新的 910B：acl 已初始化，已设置 Device 0，创建了一条 Stream 和一块清零的 Device 缓冲区。"""
# en: print(f"streams {doc['streams']}, {len(doc['tasks'])} tasks of types {kinds}")
# zh: print(f"Stream：{doc['streams']}，{len(doc['tasks'])} 个任务，类型 {kinds}")
# en: print("first and last:",
# zh: print("第一个和最后一个：",
# en: """Return model(x[i]) for each of the BATCHES rows of x, each from one replay of one graph."""
# zh: """对 x 的 BATCHES 行逐行返回 model(x[i])，每行来自同一个图的一次重放。"""
# en: # TODO: pinned host buffers for one batch in and one out, and a device buffer; capture
# zh: # TODO：申请一批输入和一批输出用的锁页 Host 缓冲区，以及一块 Device 缓冲区；把
# en: # [copy in, model_step, copy out] once; then per batch: fill the input buffer, replay,
# zh: # [拷入, model_step, 拷出] 捕获一次；然后对每个批次：填好输入缓冲区，重放，
# en: # synchronise, keep a copy of the output buffer.
# zh: # 同步，把输出缓冲区复制一份留下。
# en: # Hint: acl.util.ptr_to_numpy(ptr, (N,), np.int32) is a view of pinned memory: write with
# zh: # 提示：acl.util.ptr_to_numpy(ptr, (N,), np.int32) 是锁页内存的视图：用
# en: # view[:] = ..., and .copy() what you read before the next replay changes it.
# zh: # view[:] = ... 写入；读到的内容要在下一次重放改写它之前 .copy()。
# en: # the side stream joins the capture
# zh: # 子流加入捕获
# en: # ... and rejoins the origin
# zh: # ……再回到主流
# en: """Return np.stack([a, b]) after REPEATS steps each, from one graph that runs a and b side by side."""
# zh: """返回 a、b 各经过 REPEATS 步之后的 np.stack([a, b])，由一个让 a 和 b 并行执行的图算出。"""
# en: # TODO: a side stream and two events; device memory for a and b; inside one capture on
# zh: # TODO：一条子流和两个 Event；a 和 b 的 Device 内存；在 stream 上的一次捕获之内：
# en: # stream: fork (record on stream, side waits), a's step on stream, b's on side, join (record
# zh: # 分叉（在 stream 上记录，子流等待），a 的一步在 stream 上，b 的一步在子流上，汇合（在子流上记录，
# en: # on side, stream waits); end the capture; replay REPEATS times; copy back; synchronise.
# zh: # stream 等待）；结束捕获；重放 REPEATS 次；拷回；同步。
# en: # Hint: the fork and the join are acl.rt.record_event(event, s) + acl.rt.stream_wait_event(other, event),
# zh: # 提示：分叉与汇合都是 acl.rt.record_event(event, s) 加 acl.rt.stream_wait_event(other, event)，
# en: # with events of acl.rt.create_event_ex_with_flag(acl.ACL_EVENT_SYNC) (a capture takes no others).
# zh: # Event 要用 acl.rt.create_event_ex_with_flag(acl.ACL_EVENT_SYNC) 创建（捕获不接受别的 Event）。
# en: print(f"{way:>6}: {calls:3d} host calls, {(hi - lo) / 1e3:7.1f} µs, data correct: {right}")
# zh: print(f"{way:>6}：{calls:3d} 次 Host 调用，{(hi - lo) / 1e3:7.1f} µs，数据正确：{right}")
