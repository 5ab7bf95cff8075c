# %% [markdown]
# # 09b · Debugging: hazard reports and the trace in Perfetto
#
# The real runtime does not check for races: a program that forgets an event or reads a buffer
# before synchronising may print the right answer for months and fail on a busier machine. The
# sandbox checks every program against the runtime's ordering rules and reports what a lucky
# schedule hid. And every run is in the trace log, which exports to the layout of the Ascend
# profiler's timeline for Perfetto.
#
# | what | Python |
# |---|---|
# | the hazards found so far | `sandbox.hazards()` (and a `HazardWarning` under the cell) |
# | the trace as Chrome Trace Event JSON (msprof layout) | `sandbox.export_trace(path)` |
#
# **After this notebook** you can read a hazard report, fix each of the four common races with
# the ordering the runtime guarantees, and find a run's calls and tasks in Perfetto. **It
# assumes** notebooks 01 to 05 and 09 (return codes, device faults). (About 25 minutes.)

# %% [markdown] lang="zh"
# # 09b · 调试：数据竞争报告与 Perfetto 中的 trace
#
# 真实的运行时不检查数据竞争：一个忘了事件或在同步之前读取缓冲区的程序，可能好几个月都打印正确的答案，然后在一台更忙的机器上
# 失败。沙箱按运行时的排序规则检查每个程序，报告被幸运的调度掩盖的问题。每次运行还都记录在 trace 中，可以导出为昇腾性能分析
# 工具时间线的格式，在 Perfetto 中查看。
#
# | 什么 | Python |
# |---|---|
# | 目前发现的数据竞争 | `sandbox.hazards()`（以及单元下方的 `HazardWarning`） |
# | Chrome Trace Event JSON 格式的 trace（msprof 布局） | `sandbox.export_trace(path)` |
#
# **学完本 notebook**，你能读懂数据竞争报告，用运行时保证的排序修正四种常见的竞争，并在 Perfetto 中找到一次运行的调用和任务。
# **前提**：notebook 01 到 05 和 09（返回码、设备故障）。（约 25 分钟。）

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
# ## 1 · Hazard reports: races the schedule hid
#
# The simulation is deterministic, so a racy program may print the right answer every time.
# The sandbox therefore checks the program against the runtime's **ordering rules**, not
# against the schedule it happened to run: a task may rely only on what a stream's order, an
# event wait or a synchronize guarantees. Each violation is a `HazardWarning` (printed under
# the cell, once per place) and a record in `sandbox.hazards()`. Four common ones follow; each
# shows the report, then the fix, which makes it go away.
#
# A helper runs a program with the warnings caught and prints the hazard reports in full.

# %% [markdown] lang="zh"
# ## 1 · 数据竞争报告：被调度掩盖的竞争
#
# 模拟是确定性的，所以一个有竞争的程序可能每次都打印正确的答案。因此沙箱按运行时的**排序规则**检查程序，而不是按它碰巧运行的
# 调度：一个任务只能依赖流的顺序、事件等待或同步所保证的东西。每次违反都是一个 `HazardWarning`（在单元下方打印，每处一次）和
# `sandbox.hazards()` 中的一条记录。下面是四种常见情况；每种先展示报告，再展示让它消失的修正。
#
# 一个辅助函数在捕获警告的情况下运行程序，并完整打印数据竞争报告。

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

# %% [markdown] lang="zh"
# ### 1.1 · 在得知拷贝完成之前读取 Host 缓冲区

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
# The copy on Stream 1 fills `dx`; the kernel on Stream 2 reads it. Nothing orders them.

# %% [markdown] lang="zh"
# ### 1.2 · 两条流访问同一个缓冲区而没有事件
#
# 流 1 上的拷贝填充 `dx`；流 2 上的核函数读取它。没有任何东西为它们排序。

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
# `aclrtFree` does not wait for the stream. Here it even breaks the program: by the time the
# kernel runs, its output buffer is gone, and the synchronize reports a kernel fault.

# %% [markdown] lang="zh"
# ### 1.3 · 释放排队任务仍在使用的内存
#
# `aclrtFree` 不等待流。这里它甚至破坏了程序：等到核函数运行时，它的输出缓冲区已经不在了，同步报告一个核函数故障。

# %%
def free_early():
    s1, s2, hin, hout, dx, dy = board()
    acl.rt.memcpy_async(dx, NB, hin, NB, H2D, s1)
    scale[8, s1](dx, dy, N)
    acl.rt.free(dy)                                                 # the kernel has not run yet
    ret = acl.rt.synchronize_stream(s1)
    print("synchronize:", ret, name(ret))


run(free_early)

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

# %% [markdown] lang="zh"
# ### 1.4 · 没有设备间访问权限的设备间拷贝

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
# 上面的一切都在 trace 中，`sandbox.export_trace(path)` 把它写成昇腾性能分析工具（msprof）时间线布局的 Chrome Trace Event JSON。
# 查看方法：
#
# 1. 打开 <https://ui.perfetto.dev>（或 Chrome/Edge 中的 `chrome://tracing`）；
# 2. 把文件拖到页面上（Perfetto：*Open trace file*）；
# 3. `W`/`S` 缩放，`A`/`D` 平移；点击一个切片查看它的参数，沿着它的流箭头从 Host 行上的 API 调用走到设备上的任务。
#
# 我们导出 1.2 的修正版本（事件让每次加载排在它的核函数之前），在两个各有自己缓冲区的批次上运行，好让图中有东西可看。两个核函数
# 都等待它们的加载，所以甘特图中各步骤一个接一个：是排序，不是重叠。

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
# 文件的结构是 `{"traceEvents": [...], "displayTimeUnit": "ns", "otherData": {...}}`。每个事件有一个阶段 `ph`：`M` 元数据为进程和
# 线程（行）命名，`X` 是一个切片（Host 行上的 API 调用，流行和引擎行上的任务），`s`/`f` 开始和结束一个流箭头，`C` 是计数器（使用
# 中的内存）。时间 `ts`/`dur` 是以微秒计的虚拟时间。

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
# The exercise is a function for you to complete. `sandbox.teach.check("09b.1", solution)` runs
# **your** function on a fresh simulated 910B of its own, with inputs it makes up each time,
# and judges the whole run from the trace: the answer and where it came from, the hazard
# reports (any hazard is a `✘`), the errors, and what the exercise states. The grader opens
# the board for you: `acl.init()` has run and device 0 is set. Do not call
# `sandbox.configure` or `board()` in a solution.
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
# 核函数切片位于设备进程的 `Stream 2` 行上；它的流箭头从 Host 线程上的 `aclrtLaunchKernel` 调用开始（`s`），在核函数上结束（`f`，
# 绑定到外围切片，`"bp": "e"`）。Perfetto 把它画成从调用指向任务的箭头。
#
# ## 练习
#
# 练习是一个由你补全的函数。`sandbox.teach.check("09b.1", solution)` 在一台属于它自己的全新模拟 910B 上运行**你的**函数，每次使用
# 新生成的输入，并根据 trace 评判整次运行：答案及其来源、数据竞争报告（任何数据竞争都是 `✘`）、错误，以及练习给出的各项要求。
# 评分器为你打开板卡：已运行 `acl.init()`，已设置设备 0。不要在解答中调用 `sandbox.configure` 或 `board()`。
#
# ### 练习 09b.1 · 修正有数据竞争的流水线
#
# *练习内容：* 读懂数据竞争报告，并用运行时保证的排序修正它：两条流之间的事件，以及 Host 读取之前的一次同步。
#
# 下面的 `racy(x)` 在拷贝流上加载两个批次（`x[0]`、`x[1]`，float32，各 `N` 个），在计算流上对它们做缩放，但没有任何东西为两条流
# 排序，而且它在等待之前就读取了结果。评分器的结论指出了数据竞争和错误的值，每个 `✘` 行还列出它涉及的任务；`verdict.show()`
# 把评分器自己运行 `racy` 的过程画成时间线，并框出这些任务（上面你自己的机器没有被使用，所以那里的 `sandbox.hazards()`
# 里没有这次运行的内容）。写出 `solution(x)`，以同样结构的程序返回 `2 * x`
# （形状 `(2, N)`）。评判内容：
#
# * 没有数据竞争，答案正确，由核函数计算并从设备拷回；
# * 加载在一条流上，两个 `scale` 核函数在另一条流上；
# * 计算流至少等待一个在拷贝流上记录的事件（由设备为任务排序，而不是 Host 等待）；
# * 至多**一次**同步（一次看到完成的流查询可以代替它）。

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
# ## Official samples for this topic
#
# [5_d2d_sync_memory_copy.py](../examples/1_basic_features/memory/5_d2d_sync_memory_copy.py) adds
# the synchronize its official sample lacks before a blocking copy; `tests/samples/test_examples.py` runs
# the sample line by line and gets the HazardWarning this notebook explains.
# [2_multi_stream.py](../examples/1_basic_features/stream/2_multi_stream.py) keeps a free of its
# sample that the sandbox reports: the counter is freed while a kernel whose synchronize timed out
# still runs, and the port expects that one report. memory/1, 2 and 6 free their buffers right after
# `aclrtDestroyStreamForce` and need nothing added: the forced destroy returns after the stream's
# running task, as the runtime's does. Notebook [11_official_samples](11_official_samples.ipynb)
# walks through the samples.

# %% [markdown] lang="zh"
# ## 本专题的官方示例
#
# [5_d2d_sync_memory_copy.py](../../examples/1_basic_features/memory/5_d2d_sync_memory_copy.py)
# 在阻塞拷贝之前补上了官方示例缺少的同步；`tests/samples/test_examples.py` 逐行运行该示例，得到本
# notebook 讲解的
# HazardWarning。[2_multi_stream.py](../../examples/1_basic_features/stream/2_multi_stream.py)
# 保留了示例中一次会被沙箱报告的释放：一个核函数的同步已经超时而它仍在运行，计数器就被释放了，移植版本预期这一次报告。
# memory/1、2、6 在 `aclrtDestroyStreamForce` 之后立即释放缓冲区，无需补上任何东西：强制销毁与运行时一样，在流上正在运行的
# 任务结束之后才返回。notebook
# [11_official_samples](11_official_samples.ipynb) 逐步讲解这些示例。

# %% [markdown]
# ## Summary
#
# A task may rely only on what a stream's order, an event wait or a synchronize guarantees;
# the hazard reports name every place a program relied on more, with the two tasks and the fix.
# The exported trace shows the same run as a timeline in Perfetto, each call linked to the task
# it queued. Next, notebook 10 puts everything together in a capstone.

# %% [markdown] lang="zh"
# ## 小结
#
# 一个任务只能依赖流的顺序、事件等待或同步所保证的东西；数据竞争报告指出程序依赖了更多东西的每一处，给出两个任务和修正方法。
# 导出的 trace 在 Perfetto 中把同一次运行显示为时间线，每个调用都链接到它放入队列的任务。下一个是 notebook 10：在综合练习中把
# 一切结合起来。

