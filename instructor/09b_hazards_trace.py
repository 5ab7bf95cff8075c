# %% [markdown]
# # 09b · Debugging: hazard reports and the trace in Perfetto
#
# **Time:** about 45 minutes · **Required** · **Assumes** notebooks 01 to 05 and 09.
#
# The real runtime does not check how a program orders its work: a program that forgets an
# event, or reads a buffer before synchronising, may print the right answer for months and fail
# on a busier machine. The sandbox checks every program against the runtime's ordering rules
# and reports what a lucky schedule hid. And every run is in the trace log, which exports to the
# layout of the Ascend profiler's timeline for Perfetto.
#
# | what | Python |
# |---|---|
# | the hazards found so far | `sandbox.hazards()` (and a `HazardWarning` under the cell) |
# | the trace as Chrome Trace Event JSON (msprof layout) | `sandbox.export_trace(path)` |
#
# **After this notebook** you can read a hazard report, tell its kinds apart (a read before
# synchronising, a data race between streams, a use after free, a copy without peer access),
# fix each with the ordering the runtime guarantees, and find a run's calls and tasks in Perfetto.

# %% [markdown] lang="zh"
# # 09b · 调试：隐患报告与 Perfetto 中的 trace
#
# **时间**：约 45 分钟 · **必修** · **前提**：notebook 01 到 05 和 09。
#
# 真实的运行时不检查程序怎样给任务排序：一个忘了 Event（事件）、或者没同步就读缓冲区的程序，可能几个月都打印出正确答案，
# 换到一台更忙的机器上才出错。沙箱按运行时的顺序规则检查每个程序，把碰巧的调度掩盖掉的问题报告出来。每次运行也都记录在 trace
# 中，可以导出成昇腾性能分析工具（msprof）时间线的格式，在 Perfetto 中查看。
#
# | 什么 | Python |
# |---|---|
# | 目前发现的隐患 | `sandbox.hazards()`（以及单元格下方的 `HazardWarning`） |
# | Chrome Trace Event JSON 格式的 trace（msprof 布局） | `sandbox.export_trace(path)` |
#
# **学完本 notebook**，你能读懂隐患报告，分清它的几种类型（同步前读取、Stream（流）之间的数据竞争、释放后使用、未开启 Device（设备）
# 间数据交互的拷贝），用运行时保证的顺序逐一修正，并在 Perfetto 中找到一次运行的调用和任务。

# %% lang="zh"
import sandbox

sandbox.set_language("zh")          # 中文版：评分反馈使用中文

# %%
import json
import os
import tempfile
import warnings

import numpy as np

import sandbox
from sandbox import acl, teach

H2D, D2H = acl.ACL_MEMCPY_HOST_TO_DEVICE, acl.ACL_MEMCPY_DEVICE_TO_HOST
D2D = acl.ACL_MEMCPY_DEVICE_TO_DEVICE
HUGE = acl.ACL_MEM_MALLOC_HUGE_FIRST
N = 256 * 1024                      # float32 elements per buffer
NB = 4 * N                          # 1 MiB


def name(code):
    """The C name of a return code (AclError knows every code of the runtime's headers)."""
    return sandbox.AclError(code, "").name


@sandbox.kernel(bytes=lambda x, y, n: 8 * n, flops=lambda x, y, n: 2 * n, writes=("y",))
def scale(x: "float32*", y: "float32*", n: int):
    y[:n] = 2 * x[:n]


print("ACL_SUCCESS =", acl.ACL_SUCCESS, "| ACL_ERROR_INVALID_PARAM =", acl.ACL_ERROR_INVALID_PARAM,
      "| ACL_ERROR_RT_AICORE_EXCEPTION =", acl.ACL_ERROR_RT_AICORE_EXCEPTION)

# %% [markdown]
# ## 1 · Hazard reports: what the schedule hid
#
# The simulation is deterministic, so a wrongly ordered program may print the right answer
# every time.
# The sandbox therefore checks the program against the runtime's **ordering rules**, not
# against the schedule it happened to run: a task may rely only on what a stream's order, an
# event wait or a synchronize guarantees. Each violation is a `HazardWarning` (printed under
# the cell, once per place) and a record in `sandbox.hazards()`. Four common ones follow, and
# only one of them is a data race (two unordered accesses, one a write); each shows the report,
# then the fix, which makes it go away.
#
# A helper runs a program with the warnings caught and prints the hazard reports in full.

# %% [markdown] lang="zh"
# ## 1 · 隐患报告：被调度掩盖的问题
#
# 模拟是确定性的，所以一个顺序有问题的程序也可能每次都打印出正确答案。因此沙箱按运行时的**顺序规则**检查程序，而不是按它碰巧
# 跑出来的调度：一个任务只能依赖 Stream 内的顺序、Event 等待或同步所保证的东西。每处违反都是一个 `HazardWarning`（在单元格下方
# 打印，每处一次），并在 `sandbox.hazards()` 中记一条。下面是四种常见情况，其中只有一种是数据竞争（两次没有先后顺序的访问，
# 其中一次是写）；每种先看报告，再看让它消失的修正。
#
# 一个辅助函数在捕获警告的情况下运行程序，并完整打印隐患报告。

# %%
def board():
    sandbox.configure("ascend910b", device_count=2)
    acl.init()
    acl.rt.set_device(0)
    s1, _ = acl.rt.create_stream()
    s2, _ = acl.rt.create_stream()
    hin, _ = acl.rt.malloc_host(NB)
    hout, _ = acl.rt.malloc_host(NB)
    acl.util.ptr_to_numpy(hin, (N,), np.float32)[:] = 1.0
    dx, _ = acl.rt.malloc(NB, HUGE)
    dy, _ = acl.rt.malloc(NB, HUGE)
    return s1, s2, hin, hout, dx, dy


def run(program):
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        value = program()
    found = sandbox.hazards()
    print(f"{len(caught)} warning(s), {len(found)} hazard(s)")
    for h in found:
        print(f"[{h.kind}] {h.message}")
    return value

# %% [markdown]
# ### 1.1 · Reading a host buffer before the copy into it is known complete
#
# The result should be 2.0 (the kernel doubles ones).
#
# **Predict, then run.** `read_early` reads the host buffer right after queueing the copy back,
# then synchronizes. What value does it print, and does the sandbox say anything?

# %% [markdown] lang="zh"
# ### 1.1 · 在确认拷贝完成之前读取 Host 缓冲区
#
# 结果应当是 2.0（核函数把 1 翻倍）。
#
# **先预测，再运行。** `read_early` 在把拷回任务放进队列后立即读取 Host（主机）缓冲区，然后才同步。它打印什么值？沙箱会不会报告什么？

# %%
def read_early():
    s1, s2, hin, hout, dx, dy = board()
    acl.rt.memcpy_async(dx, NB, hin, NB, H2D, s1)
    scale[8, s1](dx, dy, N)
    acl.rt.memcpy_async(hout, NB, dy, NB, D2H, s1)
    value = acl.util.ptr_to_numpy(hout, (N,), np.float32)[0]       # too early
    acl.rt.synchronize_stream(s1)
    return value


print("value read:", run(read_early))

# %% [markdown]
# A read before synchronising (`host_read`): the copy back had not run, so the host read the
# buffer's old contents. On a board it might as well have read 2.0, which is why such a bug
# survives testing. The fix synchronizes first:

# %% [markdown] lang="zh"
# 同步前读取（`host_read`）：拷回还没执行，Host 读到的是缓冲区原来的内容。在板卡上它也完全可能碰巧读到 2.0，
# 这正是这类 bug 能躲过测试的原因。修正方法是先同步：

# %%
def read_after_sync():
    s1, s2, hin, hout, dx, dy = board()
    acl.rt.memcpy_async(dx, NB, hin, NB, H2D, s1)
    scale[8, s1](dx, dy, N)
    acl.rt.memcpy_async(hout, NB, dy, NB, D2H, s1)
    acl.rt.synchronize_stream(s1)                                  # the fix
    return acl.util.ptr_to_numpy(hout, (N,), np.float32)[0]


print("value read:", run(read_after_sync))

# %% [markdown]
# ### 1.2 · Two streams on one buffer without an event
#
# The copy on Stream 1 fills `dx`; the kernel on Stream 2 reads it. Nothing orders them: this
# is a data race (`stream_race`).

# %% [markdown] lang="zh"
# ### 1.2 · 两条 Stream 访问同一个缓冲区而没有 Event
#
# Stream 1 上的拷贝写入 `dx`；Stream 2 上的核函数读取它。没有任何东西规定两者的先后：这是数据竞争（`stream_race`）。

# %%
def race():
    s1, s2, hin, hout, dx, dy = board()
    acl.rt.memcpy_async(dx, NB, hin, NB, H2D, s1)
    scale[8, s2](dx, dy, N)                                         # may run before the copy
    acl.rt.memcpy_async(hout, NB, dy, NB, D2H, s2)
    acl.rt.synchronize_device()


run(race)

# %%
def ordered():
    s1, s2, hin, hout, dx, dy = board()
    loaded, _ = acl.rt.create_event()
    acl.rt.memcpy_async(dx, NB, hin, NB, H2D, s1)
    acl.rt.record_event(loaded, s1)                                 # C: aclrtRecordEvent(loaded, s1);
    acl.rt.stream_wait_event(s2, loaded)                            # C: aclrtStreamWaitEvent(s2, loaded);
    scale[8, s2](dx, dy, N)
    acl.rt.memcpy_async(hout, NB, dy, NB, D2H, s2)
    acl.rt.synchronize_device()


run(ordered)

# %% [markdown]
# ### 1.3 · Freeing memory that queued work still uses
#
# `aclrtFree` does not wait for the stream: freeing a buffer that queued work still uses is a
# use after free (`free_in_use`), not a race between streams.
#
# **Predict, then run.** `free_early` frees the kernel's output right after the launch. What
# does the synchronize return?

# %% [markdown] lang="zh"
# ### 1.3 · 释放排队任务仍在使用的内存
#
# `aclrtFree` 不等待 Stream：释放排队任务仍在使用的缓冲区属于释放后使用（`free_in_use`），而不是 Stream 之间的竞争。
#
# **先预测，再运行。** `free_early` 在下发之后立即释放了核函数的输出。同步返回什么？

# %%
def free_early():
    s1, s2, hin, hout, dx, dy = board()
    acl.rt.memcpy_async(dx, NB, hin, NB, H2D, s1)
    scale[8, s1](dx, dy, N)
    acl.rt.free(dy)                                                 # the kernel has not run yet
    ret = acl.rt.synchronize_stream(s1)
    print("synchronize:", ret, name(ret))


run(free_early)

# %% [markdown]
# 507015: by the time the kernel ran, its output buffer was gone, and the device reported a
# kernel fault at the synchronize. The fix frees after the synchronize:

# %% [markdown] lang="zh"
# 507015：等到核函数运行时，它的输出缓冲区已经不在了，Device 在同步时报告了核函数故障。修正方法是同步之后再释放：

# %%
def free_after_sync():
    s1, s2, hin, hout, dx, dy = board()
    acl.rt.memcpy_async(dx, NB, hin, NB, H2D, s1)
    scale[8, s1](dx, dy, N)
    ret = acl.rt.synchronize_stream(s1)                             # the fix
    acl.rt.free(dy)
    print("synchronize:", ret, name(ret))


run(free_after_sync)

# %% [markdown]
# ### 1.4 · A copy between devices without peer access
#
# Not an ordering problem at all (`peer_access`): the copy is refused. Enabling access from
# device 0 to device 1 is enough for a copy in that direction.

# %% [markdown] lang="zh"
# ### 1.4 · 未开启 Device 间数据交互的拷贝
#
# 这根本不是顺序问题（`peer_access`）：拷贝被拒绝了。开启 Device 0 到 Device 1 的访问，这个方向的拷贝就够了。

# %%
def peer_copy(enable):
    s1, s2, hin, hout, dx, dy = board()
    acl.rt.set_device(1)
    far, _ = acl.rt.malloc(NB, HUGE)
    acl.rt.set_device(0)
    if enable:
        acl.rt.device_enable_peer_access(1, 0)                      # C: aclrtDeviceEnablePeerAccess(1, 0);
    ret = acl.rt.memcpy(far, NB, dx, NB, D2D)
    print("copy device 0 -> 1:", ret, name(ret))


run(lambda: peer_copy(enable=False))

# %%
run(lambda: peer_copy(enable=True))

# %% [markdown]
# ## 2 · The trace in Perfetto
#
# Everything above is in the trace log, and `sandbox.export_trace(path)` writes it as Chrome
# Trace Event JSON in the layout of the Ascend profiler's (msprof) timeline. To look at it:
#
# 1. open <https://ui.perfetto.dev> (or `chrome://tracing` in Chrome/Edge);
# 2. drag the file onto the page (Perfetto: *Open trace file*);
# 3. `W`/`S` zoom, `A`/`D` pan; click a slice for its arguments, and follow its flow arrow from
#    the API call on the host row to the task on the device.
#
# We export the fix of 1.2 (an event orders each load before its kernel), run on two batches
# with their own buffers, so there is something to see. Both kernels wait for their loads,
# so the Gantt shows the steps one after another: ordering, not overlap.

# %% [markdown] lang="zh"
# ## 2 · Perfetto 中的 trace
#
# 上面的一切都记录在 trace 中，`sandbox.export_trace(path)` 把它写成 msprof 时间线布局的 Chrome Trace Event JSON。查看方法：
#
# 1. 打开 <https://ui.perfetto.dev>（或 Chrome/Edge 中的 `chrome://tracing`）；
# 2. 把文件拖到页面上（Perfetto：*Open trace file*）；
# 3. `W`/`S` 缩放，`A`/`D` 平移；点击切片可查看参数，顺着它的流箭头（flow）从 Host 行上的 API 调用找到 Device 上的任务。
#
# 我们导出 1.2 修正后的版本（Event 让每次加载排在对应的核函数之前），在两个各有缓冲区的批次上运行，让图里有内容可看。
# 两个核函数都要等各自的加载，所以甘特图中各步骤依次排开：这是顺序，不是重叠。

# %%
def two_batches():
    sandbox.configure("ascend910b", device_count=1)
    acl.init()
    acl.rt.set_device(0)
    s1, _ = acl.rt.create_stream()
    s2, _ = acl.rt.create_stream()
    hin, _ = acl.rt.malloc_host(2 * NB)
    hout, _ = acl.rt.malloc_host(2 * NB)
    slots = [(acl.rt.malloc(NB, HUGE)[0], acl.rt.malloc(NB, HUGE)[0]) for _ in range(2)]
    for b, (dx, dy) in enumerate(slots):
        loaded, _ = acl.rt.create_event()
        acl.rt.memcpy_async(dx, NB, hin + b * NB, NB, H2D, s1)
        acl.rt.record_event(loaded, s1)
        acl.rt.stream_wait_event(s2, loaded)
        scale[8, s2](dx, dy, N)
        acl.rt.memcpy_async(hout + b * NB, NB, dy, NB, D2H, s2)
    acl.rt.synchronize_stream(s2)


two_batches()
path = sandbox.export_trace(os.path.join(tempfile.mkdtemp(), "09_two_batches.json"))
print("wrote", os.path.basename(path), f"({os.path.getsize(path)} bytes)")
sandbox.gantt()

# %% [markdown]
# The file is `{"traceEvents": [...], "displayTimeUnit": "ns", "otherData": {...}}`. Each event
# has a phase `ph`: `M` metadata names the processes and threads (rows), `X` is a slice (an API
# call on a host row, a task on a stream row and on an engine row), `s`/`f` start and finish a
# flow arrow, `C` is a counter (memory in use). Times `ts`/`dur` are microseconds of virtual
# time.

# %% [markdown] lang="zh"
# 文件的结构是 `{"traceEvents": [...], "displayTimeUnit": "ns", "otherData": {...}}`。每条记录有一个阶段 `ph`：`M` 是元数据，
# 为进程和线程（即各行）命名；`X` 是切片（Host 行上的 API 调用，Stream 行和引擎行上的任务）；`s`/`f` 是流箭头的起点和终点；
# `C` 是计数器（已用内存）。时间 `ts`/`dur` 以微秒计，是虚拟时间。

# %%
with open(path) as f:
    doc = json.load(f)
events = doc["traceEvents"]
print("otherData:", doc["otherData"])
phases = {}
for e in events:
    phases[e["ph"]] = phases.get(e["ph"], 0) + 1
print("events by phase:", dict(sorted(phases.items())))

names = {}
for e in events:
    if e["ph"] == "M" and e["name"] == "process_name":
        names[e["pid"]] = e["args"]["name"]
print("\nprocesses and their rows:")
for e in events:
    if e["ph"] == "M" and e["name"] == "thread_name":
        print(f"  pid {e['pid']:>3} {names[e['pid']]!r:<24} tid {e['tid']:>5} {e['args']['name']!r}")

kernel = next(e for e in events if e["ph"] == "X" and e.get("cat") == "kernel" and "Task Type" in e["args"])
print("\na kernel slice:", json.dumps(kernel))
flow = kernel["args"]["connection_id"]
launch = next(e for e in events if e["ph"] == "X" and e["args"].get("seq") == flow)
print("the call that launched it:", json.dumps(launch))
for e in events:
    if e["ph"] in "sf" and e["id"] == kernel["args"]["Task Id"]:
        print(f"flow {e['ph']}:", json.dumps(e))

# %% [markdown]
# The kernel slice sits on the `Stream 2` row of the device process; its flow starts (`s`) on
# the host thread at the `aclrtLaunchKernel` call and finishes (`f`, binding to the enclosing
# slice, `"bp": "e"`) on the kernel. Perfetto draws that as an arrow from the call to the task.
#
# ## Exercise
#
# `sandbox.teach.check("09b.1", solution)` runs **your** function on a fresh simulated 910B with
# new inputs each time and judges the whole run from the trace (any hazard is a `✘`). The grader
# opens the board: `acl.init()` has run and device 0 is set (do not call `sandbox.configure` or
# `board()`).
#
# ### Exercise 09b.1 · make the racy pipeline correct
#
# *Practises:* reading a hazard report and fixing it with the ordering the runtime guarantees:
# an event between two streams, and one synchronize before the host reads.
#
# `racy(x)` below loads two batches (`x[0]`, `x[1]`, float32, `N` each) on a copy stream and
# scales them on a compute stream, but nothing orders the two streams, and it reads the results
# before waiting. The grader's verdict names the hazards and the wrong values, and each `✘` line
# the tasks it is about; `verdict.show()` draws the grader's own run of `racy` as a timeline
# with those tasks outlined (your machine above was not used, so `sandbox.hazards()` there has
# nothing of it). Write
# `solution(x)` that returns `2 * x` (shape `(2, N)`) with the same shape of program. Graded:
#
# * no hazard, and the answer right, computed by kernels and copied back from the device;
# * the loads on one stream and the two `scale` kernels on another;
# * the compute stream waits for at least one event recorded on the copy stream (the device
#   orders the work, not a host wait);
# * at most **one** synchronize (a stream query that saw completion may replace it).

# %% [markdown] lang="zh"
# 核函数切片位于 Device 进程的 `Stream 2` 行上；它的流箭头从 Host 线程上的 `aclrtLaunchKernel` 调用开始（`s`），到核函数上结束
# （`f`，绑定到外围切片，`"bp": "e"`）。Perfetto 把它画成从调用指向任务的箭头。
#
# ## 练习
#
# `sandbox.teach.check("09b.1", solution)` 在一台全新的模拟 910B 上运行**你的**函数，每次输入都不同，并根据 trace 评判整次运行
# （任何隐患都是 `✘`）。评分器会替你打开板卡：已经调用 `acl.init()`，已经设置 Device 0（不要调用 `sandbox.configure` 或 `board()`）。
#
# ### 练习 09b.1 · 修正有隐患的流水线
#
# *练习内容：* 读懂隐患报告，并用运行时保证的顺序修正它：两条 Stream 之间的 Event，以及 Host 读取之前的一次同步。
#
# 下面的 `racy(x)` 在拷贝 Stream 上加载两个批次（`x[0]`、`x[1]`，float32，各 `N` 个元素），在计算 Stream 上做缩放，但两条 Stream
# 之间没有任何顺序约束（数据竞争），而且它在等待之前就读取了结果（同步前读取）。评分结论指出了隐患和错误的值，每个 `✘` 行还列出
# 相关的任务；`verdict.show()` 把评分器自己运行 `racy` 的过程画成时间线，并框出这些任务（上面你自己的机器没有参与，所以那里的
# `sandbox.hazards()` 里没有这次运行）。写出 `solution(x)`，用同样结构的程序返回 `2 * x`（形状 `(2, N)`）。评判内容：
#
# * 没有隐患，答案正确，由核函数计算并从 Device 拷回；
# * 加载在一条 Stream 上，两个 `scale` 核函数在另一条 Stream 上；
# * 计算 Stream 至少等待一个在拷贝 Stream 上记录的 Event（由 Device 安排顺序，而不是 Host 等待）；
# * 至多**一次**同步（一次确认已完成的 Stream 查询也可以代替它）。

# %%
def racy(x):
    copy_s, _ = acl.rt.create_stream()
    compute_s, _ = acl.rt.create_stream()
    hin, _ = acl.rt.malloc_host(2 * NB)
    hout, _ = acl.rt.malloc_host(2 * NB)
    acl.util.ptr_to_numpy(hin, (2, N), np.float32)[:] = x
    for b in range(2):
        dx, _ = acl.rt.malloc(NB, HUGE)
        dy, _ = acl.rt.malloc(NB, HUGE)
        acl.rt.memcpy_async(dx, NB, hin + b * NB, NB, H2D, copy_s)
        scale[8, compute_s](dx, dy, N)
        acl.rt.memcpy_async(hout + b * NB, NB, dy, NB, D2H, compute_s)
    out = acl.util.ptr_to_numpy(hout, (2, N), np.float32).copy()
    acl.rt.synchronize_device()
    return out


verdict = sandbox.teach.check("09b.1", racy)
print(verdict)
verdict.show()  # the grader's run of racy: the tasks of its ✘ lines outlined

# %% nbgrader={"grade": false, "grade_id": "ex09b_1", "locked": false, "schema_version": 3, "solution": true, "task": false}
def solution(x):
    """Return 2 * x (float32, shape (2, N)): loads on copy_s, scale on compute_s, ordered by events."""
    # TODO: start from racy(x). After each load, record an event on copy_s and make compute_s
    # wait for it before the batch's kernel; synchronise once, then read hout.
    # Hint: acl.rt.create_event(), acl.rt.record_event(ev, copy_s), acl.rt.stream_wait_event(compute_s, ev).
    ### BEGIN SOLUTION
    copy_s, _ = acl.rt.create_stream()
    compute_s, _ = acl.rt.create_stream()
    hin, _ = acl.rt.malloc_host(2 * NB)
    hout, _ = acl.rt.malloc_host(2 * NB)
    acl.util.ptr_to_numpy(hin, (2, N), np.float32)[:] = x
    for b in range(2):
        dx, _ = acl.rt.malloc(NB, HUGE)
        dy, _ = acl.rt.malloc(NB, HUGE)
        loaded, _ = acl.rt.create_event()
        acl.rt.memcpy_async(dx, NB, hin + b * NB, NB, H2D, copy_s)
        acl.rt.record_event(loaded, copy_s)
        acl.rt.stream_wait_event(compute_s, loaded)
        scale[8, compute_s](dx, dy, N)
        acl.rt.memcpy_async(hout + b * NB, NB, dy, NB, D2H, compute_s)
    acl.rt.synchronize_stream(compute_s)
    return acl.util.ptr_to_numpy(hout, (2, N), np.float32).copy()
    ### END SOLUTION

# %% nbgrader={"grade": true, "grade_id": "ex09b_1_check", "locked": true, "points": 1, "schema_version": 3, "solution": false, "task": false}
### BEGIN HIDDEN TESTS
assert (grade := sandbox.teach.check("09b.1", solution, isolated=True)).passed, str(grade)
### END HIDDEN TESTS
sandbox.teach.check("09b.1", solution)

# %% [markdown]
# ## Concept check
#
# Four questions; each wrong choice is a mistake programs really make.

# %% [markdown] lang="zh"
# ## 概念检查
#
# 四道题；每个错误选项都是程序里真实会犯的错。

# %%
teach.questions("09b.concepts")

# %% nbgrader={"grade": false, "grade_id": "concepts", "locked": false, "schema_version": 3, "solution": true, "task": false}
def concepts():
    """Your answers: {question number: letter}."""
    ### BEGIN SOLUTION
    return {1: "b", 2: "c", 3: "a", 4: "c"}
    ### END SOLUTION

# %% nbgrader={"grade": true, "grade_id": "concepts_check", "locked": true, "points": 4, "schema_version": 3, "solution": false, "task": false}
teach.check("09b.concepts", concepts)
### BEGIN HIDDEN TESTS
teach.check("09b.concepts", concepts, isolated=True).score * 4
### END HIDDEN TESTS

# %% [markdown]
# ## Official samples for this topic
#
# [5_d2d_sync_memory_copy.py](../examples/1_basic_features/memory/5_d2d_sync_memory_copy.py): a
# blocking `aclrtMemcpy` is not ordered with a stream's kernels, so it may read a buffer before
# the kernel writing it has run (a data race, as in 1.2); a synchronize before the copy orders
# them.
# [2_multi_stream.py](../examples/1_basic_features/stream/2_multi_stream.py): a buffer freed while
# a kernel whose synchronize timed out still runs (the hazard of 1.3). Notebook
# [11_official_samples](11_official_samples.ipynb) walks through the samples.

# %% [markdown] lang="zh"
# ## 本专题的官方示例
#
# [5_d2d_sync_memory_copy.py](../../examples/1_basic_features/memory/5_d2d_sync_memory_copy.py)：阻塞的 `aclrtMemcpy` 与 Stream 上的
# 核函数之间没有顺序，可能在写缓冲区的核函数运行之前就读取它（数据竞争，与 1.2 相同）；拷贝之前的一次同步为它们排好顺序。
# [2_multi_stream.py](../../examples/1_basic_features/stream/2_multi_stream.py)：一个核函数的同步已经超时、它仍在运行，缓冲区就被
# 释放了（1.3 的隐患）。notebook [11_official_samples](11_official_samples.ipynb) 逐个讲解这些示例。

# %% [markdown]
# ## Summary
#
# A task may rely only on what a stream's order, an event wait or a synchronize guarantees;
# the hazard reports name every place a program relied on more, with the two tasks and the fix.
# Not every hazard is a data race: a read before synchronising and a use after free are as
# dangerous.
# The exported trace shows the same run as a timeline in Perfetto, each call linked to the task
# it queued. Next, notebook 10 puts everything together in a capstone.

# %% [markdown] lang="zh"
# ## 小结
#
# 一个任务只能依赖 Stream 内的顺序、Event 等待或同步所保证的东西；隐患报告指出程序依赖了更多东西的每一处，写明涉及的两个任务和
# 修正方法。隐患不都是数据竞争：同步前读取、释放后使用同样危险。导出的 trace 在 Perfetto 中把同一次运行画成时间线，每个调用都连到
# 它放入队列的任务。下一个是 notebook 10：综合练习，把前面的内容串起来。

# %% [markdown] lang="zh" translates="code"
# en: # float32 elements per buffer
# zh: # 每个缓冲区的 float32 元素个数
# en: """The C name of a return code (AclError knows every code of the runtime's headers)."""
# zh: """返回码在 C 中的名字（AclError 认识运行时头文件中的每个错误码）。"""
# en: f"{len(caught)} warning(s), {len(found)} hazard(s)"
# zh: f"{len(caught)} 个警告，{len(found)} 个隐患"
# en: "value read:"
# zh: "读到的值："
# en: # too early
# zh: # 太早了
# en: # the fix
# zh: # 修正
# en: # may run before the copy
# zh: # 可能在拷贝之前运行
# en: # the kernel has not run yet
# zh: # 核函数还没运行
# en: "synchronize:"
# zh: "同步："
# en: "copy device 0 -> 1:"
# zh: "Device 0 -> 1 的拷贝："
# en: print("wrote", os.path.basename(path), f"({os.path.getsize(path)} bytes)")
# zh: print("已写出", os.path.basename(path), f"（{os.path.getsize(path)} 字节）")
# en: "events by phase:"
# zh: "各阶段的记录数："
# en: "\nprocesses and their rows:"
# zh: "\n进程及其各行："
# en: "\na kernel slice:"
# zh: "\n一个核函数切片："
# en: "the call that launched it:"
# zh: "下发它的调用："
# en: # the grader's run of racy: the tasks of its ✘ lines outlined
# zh: # 评分器运行 racy 的过程：框出 ✘ 行涉及的任务
# en: """Return 2 * x (float32, shape (2, N)): loads on copy_s, scale on compute_s, ordered by events."""
# zh: """返回 2 * x（float32，形状 (2, N)）：加载在 copy_s 上，缩放在 compute_s 上，用 Event 排序。"""
# en: # TODO: start from racy(x). After each load, record an event on copy_s and make compute_s
# zh: # TODO：从 racy(x) 出发。每次加载之后在 copy_s 上记录一个 Event，并让 compute_s
# en: # wait for it before the batch's kernel; synchronise once, then read hout.
# zh: # 在该批次的核函数之前等待它；同步一次，然后再读 hout。
# en: # Hint: acl.rt.create_event(), acl.rt.record_event(ev, copy_s), acl.rt.stream_wait_event(compute_s, ev).
# zh: # 提示：acl.rt.create_event()、acl.rt.record_event(ev, copy_s)、acl.rt.stream_wait_event(compute_s, ev)。
