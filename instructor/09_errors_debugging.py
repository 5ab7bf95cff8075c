# %% [markdown]
# # 09 · Errors: codes, messages, device faults, recovery and leaks
#
# Things go wrong in three different places, and each has its own tool:
#
# | where it goes wrong | how you learn about it | C | Python |
# |---|---|---|---|
# | a call is misused (bad argument, wrong order) | the call's return code, at once | `aclError ret = aclrtMalloc(...)` | `ptr, ret = acl.rt.malloc(...)` |
# | … and why | the message of the thread's last failures | `aclGetRecentErrMsg()` | `acl.get_recent_err_msg()` |
# | … the thread's last error code | read and clear / read and keep | `aclrtGetLastError(ACL_RT_THREAD_LEVEL)` / `aclrtPeekAtLastError(...)` | `acl.rt.get_last_error()` / `acl.rt.peek_at_last_error()` |
# | a device task fails (a kernel traps, a DMA fails) | the **next synchronize** returns the code | `aclrtSynchronizeStream(stream)` | `acl.rt.synchronize_stream(stream)` |
# | what later tasks do after a failure | the stream's failure mode | `aclrtSetStreamFailureMode(stream, ACL_STOP_ON_FAILURE)` | `acl.rt.set_stream_failure_mode(stream, acl.ACL_STOP_ON_FAILURE)` |
# | the program is racy but happens to work | the sandbox's hazard reports | — | `sandbox.hazards()` |
# | something was never released | the leak report at `aclFinalize` | — | `sandbox.leak_report()` |
# | where did the time go | the trace, in Perfetto | `msprof` timeline | `sandbox.export_trace(path)` |
#
# The last three are the sandbox's own debugging aids: the real runtime does not check for
# races, so a racy program may run correctly for months and then fail on a busier machine.
# This notebook covers the first rows, up to the leak report; notebook 09b covers hazard
# reports and the trace in Perfetto.
#
# **After this notebook** you can read a failing call's code and message, tell a misused call
# from a device fault, choose a stream's failure mode, recover from a stopped context by
# releasing, resetting and starting again, and read the leak report. **It assumes** notebooks
# 01 to 05. (About 30 minutes.)

# %% [markdown] lang="zh"
# # 09 · 错误：错误码、错误信息、设备故障、恢复与泄漏
#
# 出错的地方有三类，各有各的工具：
#
# | 哪里出错 | 你如何得知 | C | Python |
# |---|---|---|---|
# | 调用被误用（参数错误、顺序错误） | 调用的返回码，立即 | `aclError ret = aclrtMalloc(...)` | `ptr, ret = acl.rt.malloc(...)` |
# | ……以及原因 | 线程最近几次失败的错误信息 | `aclGetRecentErrMsg()` | `acl.get_recent_err_msg()` |
# | ……线程的最后一个错误码 | 读取并清除 / 读取并保留 | `aclrtGetLastError(ACL_RT_THREAD_LEVEL)` / `aclrtPeekAtLastError(...)` | `acl.rt.get_last_error()` / `acl.rt.peek_at_last_error()` |
# | 设备任务失败（核函数陷入异常、DMA 失败） | **下一次同步**返回该错误码 | `aclrtSynchronizeStream(stream)` | `acl.rt.synchronize_stream(stream)` |
# | 失败之后后续任务怎么办 | 流的失败模式 | `aclrtSetStreamFailureMode(stream, ACL_STOP_ON_FAILURE)` | `acl.rt.set_stream_failure_mode(stream, acl.ACL_STOP_ON_FAILURE)` |
# | 程序有数据竞争但碰巧能运行 | 沙箱的数据竞争报告 | — | `sandbox.hazards()` |
# | 某些东西从未释放 | `aclFinalize` 时的泄漏报告 | — | `sandbox.leak_report()` |
# | 时间花在了哪里 | trace，在 Perfetto 中查看 | `msprof` 时间线 | `sandbox.export_trace(path)` |
#
# 最后三项是沙箱自己的调试辅助：真实的运行时不检查数据竞争，所以一个有竞争的程序可能正确运行好几个月，然后在一台更忙的
# 机器上失败。本 notebook 讲到泄漏报告为止的各行；notebook 09b 讲数据竞争报告和在 Perfetto 中查看 trace。
#
# **学完本 notebook**，你能读懂失败调用的错误码和错误信息，区分误用的调用与设备故障，选择流的失败模式，通过释放、复位并
# 重新开始从停止的上下文中恢复，并读懂泄漏报告。**前提**：notebook 01 到 05。（约 30 分钟。）

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
# ## 1 · Return codes
#
# Every call returns `ACL_SUCCESS` (0) or an error code; calls that produce a value return a
# tuple with the code last. Codes come in families: `1xxxxx` the caller's mistake (bad
# parameter, not initialised), `2xxxxx` resources (out of memory, unsupported feature),
# `5xxxxx` the device or the runtime itself (a kernel fault, a DMA error). The official samples
# wrap every call in a check macro that logs the failing call and stops; here we print the codes.

# %% [markdown] lang="zh"
# ## 1 · 返回码
#
# 每个调用都返回 `ACL_SUCCESS`（0）或一个错误码；产生结果的调用返回一个元组，错误码在最后。错误码分为几类：`1xxxxx` 是调用者
# 的错误（参数错误、未初始化），`2xxxxx` 是资源问题（内存不足、不支持的特性），`5xxxxx` 是设备或运行时本身的问题（核函数故障、
# DMA 错误）。官方示例用一个检查宏包装每个调用，记录失败的调用并停止；这里我们打印错误码。

# %%
sandbox.configure("ascend910b", device_count=2)
print("set_device before init:", (r := acl.rt.set_device(0)), name(r))
print("init:", acl.init())
print("set_device(0):", acl.rt.set_device(0))
print("set_device(7) on a 2-device machine:", (r := acl.rt.set_device(7)), name(r))
ptr, ret = acl.rt.malloc(0, HUGE)
print("malloc(0):", (ptr, ret), name(ret))
print("synchronize a stream that does not exist:", (r := acl.rt.synchronize_stream(12345)), name(r))

# %% [markdown]
# ## 2 · The messages: newest first, then cleared
#
# A code says *what* class of thing failed; `aclGetRecentErrMsg` says *why*. It returns the
# messages of the calling thread's failures since it was last called, **newest first**, and
# clears them: a second call returns nothing.

# %% [markdown] lang="zh"
# ## 2 · 错误信息：最新的在前，然后清除
#
# 错误码说明*哪一类*东西失败了；`aclGetRecentErrMsg` 说明*为什么*。它返回调用线程自上次调用以来各次失败的错误信息，**最新的
# 在前**，并清除它们：第二次调用什么也不返回。

# %%
print(acl.get_recent_err_msg())
print("--- and again:", repr(acl.get_recent_err_msg()))

# %% [markdown]
# ## 3 · The last error: get clears, peek keeps
#
# `aclrtGetLastError` returns the thread's most recent error code and resets it to 0;
# `aclrtPeekAtLastError` returns it and leaves it in place. A library can peek without taking
# the error away from the code that will handle it.

# %% [markdown] lang="zh"
# ## 3 · 最后一个错误：get 清除，peek 保留
#
# `aclrtGetLastError` 返回线程最近的错误码并把它重置为 0；`aclrtPeekAtLastError` 返回它并保留原样。库可以 peek，而不把错误从
# 将要处理它的代码那里拿走。

# %%
acl.rt.destroy_stream(0)     # the default stream cannot be destroyed
print("peek:", acl.rt.peek_at_last_error(0), "| peek:", acl.rt.peek_at_last_error(0),
      "| get:", acl.rt.get_last_error(0), "| get:", acl.rt.get_last_error(0))
_ = acl.get_recent_err_msg()

# %% [markdown]
# ## 4 · Exceptions instead of codes
#
# Checking every code is how C and pyACL work, and forgetting one check is how errors go
# unnoticed. `sandbox.raise_on_error(True)` makes every failing call raise `sandbox.AclError`,
# which carries the code, its C name and the message (a sandbox convenience: pyACL returns
# codes only).

# %% [markdown] lang="zh"
# ## 4 · 用异常代替错误码
#
# 检查每个错误码是 C 和 pyACL 的工作方式，而漏掉一次检查正是错误被忽视的原因。`sandbox.raise_on_error(True)` 让每个失败的调用
# 抛出 `sandbox.AclError`，其中包含错误码、它的 C 名称和错误信息（这是沙箱提供的便利：pyACL 只返回错误码）。

# %%
sandbox.raise_on_error(True)
try:
    acl.rt.malloc(0, HUGE)
except sandbox.AclError as exc:
    print("caught:", exc.code, exc.name)
    print("message:", exc.message)
sandbox.raise_on_error(False)
_ = acl.get_recent_err_msg()

# %% [markdown]
# ## 5 · Asynchronous device errors surface at the next synchronize
#
# A launch only *queues* a kernel, so it returns `ACL_SUCCESS` even if the kernel is going to
# fault. The fault happens later, on the device, and the runtime reports it at the next
# `aclrtSynchronizeStream` (or `aclrtSynchronizeDevice`) of that stream. Here a kernel reads
# past the end of its input: a bug in the kernel, `507015 ACL_ERROR_RT_AICORE_EXCEPTION`.

# %% [markdown] lang="zh"
# ## 5 · 异步的设备错误在下一次同步时显现
#
# 下发只是把核函数*放入队列*，所以即使核函数将会出错，它也返回 `ACL_SUCCESS`。故障稍后发生在设备上，运行时在该流的下一次
# `aclrtSynchronizeStream`（或 `aclrtSynchronizeDevice`）时报告它。这里一个核函数读过了它输入的末尾：这是核函数中的一个 bug，
# `507015 ACL_ERROR_RT_AICORE_EXCEPTION`。

# %%
@sandbox.kernel(bytes=lambda x, idx, y, n: 12 * n, writes=("y",))
def gather(x: "float32*", idx: "int32*", y: "float32*", n: int):
    y[:n] = x[idx[:n]]             # an index past the end of x is a device fault


sandbox.configure("ascend910b", device_count=2)
acl.init()
acl.rt.set_device(0)
s, _ = acl.rt.create_stream()
x, _ = acl.rt.malloc(NB, HUGE)
y, _ = acl.rt.malloc(NB, HUGE)
idx, _ = acl.rt.malloc(NB, HUGE)
host, _ = acl.rt.malloc_host(NB)
acl.util.ptr_to_numpy(host, (N,), np.int32)[:] = np.arange(N) * 1000     # far past the end
acl.rt.memcpy(idx, NB, host, NB, H2D)

print("launch:", gather[8, s](x, idx, y, N), "(queued, nothing has run yet)")
ret = acl.rt.synchronize_stream(s)
print("synchronize:", ret, name(ret))
print(acl.get_recent_err_msg())
print("synchronize again:", acl.rt.synchronize_stream(s), "(an error is reported once)")

# %% [markdown]
# To practise handling errors that a correct program can still meet — hardware faults —
# `sandbox.inject_fault(kind, ...)` makes coming device tasks fail with the runtime's codes:
#
# | kind | what fails | code |
# |---|---|---|
# | `"kernel_trap"` | the next kernel traps on the AI Core | 507016 `ACL_ERROR_RT_AICORE_TRAP_EXCEPTION` |
# | `"dma_error"` | the next copy or memset on the device's DMA engines | 507013 `ACL_ERROR_RT_SYS_DMA` |
# | `"link_down"` | every peer copy between two devices, until `sandbox.clear_faults()` | 507056 `ACL_ERROR_RT_LINK_ERROR` |
#
# The failed task takes its usual time but its data effect does not happen. A blocking copy
# (`aclrtMemcpy`) waits for its own task, so it returns the DMA error itself.

# %% [markdown] lang="zh"
# 为了练习处理正确的程序仍可能遇到的错误——硬件故障——`sandbox.inject_fault(kind, ...)` 让接下来的设备任务以运行时的错误码失败：
#
# | kind | 什么失败 | 错误码 |
# |---|---|---|
# | `"kernel_trap"` | 下一个核函数在 AI Core 上陷入异常 | 507016 `ACL_ERROR_RT_AICORE_TRAP_EXCEPTION` |
# | `"dma_error"` | 设备 DMA 引擎上的下一次拷贝或 memset | 507013 `ACL_ERROR_RT_SYS_DMA` |
# | `"link_down"` | 两个设备之间的每次设备间拷贝，直到 `sandbox.clear_faults()` | 507056 `ACL_ERROR_RT_LINK_ERROR` |
#
# 失败的任务照常花费时间，但它的数据效果不会发生。阻塞拷贝（`aclrtMemcpy`）等待它自己的任务，所以它本身就返回 DMA 错误。

# %%
results = []


def attempt(what, submit, sync=True):
    ret = submit()
    if sync:
        ret = acl.rt.synchronize_stream(s)
    results.append((what, ret))


sandbox.inject_fault("kernel_trap", device=0)
attempt("kernel after a kernel_trap", lambda: scale[8, s](x, y, N))
sandbox.inject_fault("dma_error", device=0)
attempt("async copy after a dma_error", lambda: acl.rt.memcpy_async(x, NB, host, NB, H2D, s))
sandbox.inject_fault("dma_error", device=0)
attempt("blocking copy after a dma_error", lambda: acl.rt.memcpy(x, NB, host, NB, H2D), sync=False)

acl.rt.set_device(1)
far, _ = acl.rt.malloc(NB, HUGE)
acl.rt.set_device(0)
acl.rt.device_enable_peer_access(1, 0)
sandbox.inject_fault("link_down", device=0, peer=1)
attempt("peer copy 0 -> 1, link down", lambda: acl.rt.memcpy_async(far, NB, x, NB, D2D, s))
attempt("kernel on device 0, link still down", lambda: scale[8, s](x, y, N))
sandbox.clear_faults()
attempt("peer copy 0 -> 1, link up again", lambda: acl.rt.memcpy_async(far, NB, x, NB, D2D, s))

for what, ret in results:
    print(f"{what:<38} -> {ret:>6} {name(ret)}")
print()
print(acl.get_recent_err_msg())

# %% [markdown]
# The last message above is the first failure (newest first). Each names the task, its
# stream and device: enough to find it in the Gantt chart or the trace.

# %% [markdown] lang="zh"
# 上面最后一条消息是第一次失败（最新的在前）。每条都指明了任务、它的流和设备：足以在甘特图或 trace 中找到它。

# %%
for p in (x, y, idx, far):
    acl.rt.free(p)
acl.rt.free_host(host)
acl.rt.destroy_stream(s)
acl.rt.reset_device(0)
acl.rt.reset_device(1)
print("finalize:", acl.finalize())

# %% [markdown]
# ## 6 · Failure modes: what happens to the tasks after a failure
#
# `aclrtSetStreamFailureMode(stream, mode)` chooses, once per stream:
#
# * `ACL_CONTINUE_ON_FAILURE` (the default): the failed task is skipped, **later tasks run**;
#   the synchronize reports an error (if several fail before it, the latest);
# * `ACL_STOP_ON_FAILURE`: the first failure stops the stream — and every stream of its
#   context (the docs say so for A2/A3). Later tasks are discarded, new submissions are
#   refused with the same code, until the device is reset.
#
# The same program runs in both modes: three batches, each an H2D copy, a kernel and a D2H
# copy, on two streams; the kernel of batch 1 traps.

# %% [markdown] lang="zh"
# ## 6 · 失败模式：失败之后的任务会怎样
#
# `aclrtSetStreamFailureMode(stream, mode)` 为每条流选择一次：
#
# * `ACL_CONTINUE_ON_FAILURE`（默认）：跳过失败的任务，**后续任务照常运行**；同步报告一个错误（如果在它之前有多个失败，报告最近的那个）；
# * `ACL_STOP_ON_FAILURE`：第一次失败就停止该流——以及它所在上下文的每条流（文档对 A2/A3 是这样说的）。后续任务被丢弃，新的
#   提交以同样的错误码被拒绝，直到设备复位。
#
# 同一个程序以两种模式运行：三个批次，每个是一次 H2D 拷贝、一个核函数和一次 D2H 拷贝，分布在两条流上；批次 1 的核函数陷入异常。

# %%
def three_batches(mode):
    sandbox.configure("ascend910b", device_count=1)
    acl.init()
    acl.rt.set_device(0)
    streams = [acl.rt.create_stream()[0] for _ in range(2)]
    acl.rt.set_stream_failure_mode(streams[0], mode)
    hin, _ = acl.rt.malloc_host(3 * NB)
    hout, _ = acl.rt.malloc_host(3 * NB)
    acl.util.ptr_to_numpy(hin, (3, N), np.float32)[:] = 1.0
    bufs = [(acl.rt.malloc(NB, HUGE)[0], acl.rt.malloc(NB, HUGE)[0]) for _ in range(3)]
    sandbox.inject_fault("kernel_trap", device=0, after=1)     # the second kernel traps
    for b, (dx, dy) in enumerate(bufs):
        st = streams[b % 2]
        acl.rt.memcpy_async(dx, NB, hin + b * NB, NB, H2D, st)
        scale[8, st](dx, dy, N)
        acl.rt.memcpy_async(hout + b * NB, NB, dy, NB, D2H, st)
    rets = [acl.rt.synchronize_stream(st) for st in streams]
    out = acl.util.ptr_to_numpy(hout, (3, N), np.float32)
    print("synchronize each stream:", [f"{r} {name(r)}" for r in rets])
    print("batch results (first element, 2.0 if it ran):", [float(out[b, 0]) for b in range(3)])
    return streams, bufs, (hin, hout)


print("== ACL_CONTINUE_ON_FAILURE")
_ = three_batches(acl.ACL_CONTINUE_ON_FAILURE)
print(sandbox.queues())
print()
print("== ACL_STOP_ON_FAILURE")
streams, bufs, hosts = three_batches(acl.ACL_STOP_ON_FAILURE)
print(sandbox.queues())

# %% [markdown]
# With continue-on-failure only batch 1 is lost: batches 0 and 2 arrived. With
# stop-on-failure nothing arrived: the tasks still queued on the *other* stream when batch 1's
# kernel trapped — batch 0's copy back and all of batch 2 — were discarded (they "finished"
# with the error code without running; the queue panel counts them as failed). And the
# context now refuses new work:

# %% [markdown] lang="zh"
# 在继续模式下只丢失了批次 1：批次 0 和 2 都到达了。在停止模式下什么都没到达：批次 1 的核函数陷入异常时仍在*另一条*流上排队
# 的任务——批次 0 的拷回和整个批次 2——都被丢弃了（它们没有运行就以错误码“完成”；队列面板把它们计为失败）。而且上下文现在
# 拒绝新的任务：

# %%
ret = acl.rt.memcpy_async(bufs[0][0], NB, hosts[0], NB, H2D, streams[1])
print("a new copy:", ret, name(ret))
print(acl.get_recent_err_msg())

# %% [markdown]
# ### Recovering: reset the device
#
# The way out is to reset the device (`aclrtResetDevice`) and set it again. The documentation
# says what a reset releases: the device's default context, its default stream and every
# stream created in that context. It also gives the order to release things in before a reset:
# memory first (`aclrtFree`, `aclrtFreeHost`), then events and streams, and only then
# `aclrtResetDevice`. A pointer from before a full reset must not be used after it: on
# hardware that is undefined and the runtime has no error code for it, so the sandbox reports
# its first use as a `HazardWarning` (`use_after_reset`) and keeps going. So recovery frees
# what it holds, resets, sets the device again, and then allocates new buffers and uploads the
# inputs again before redoing the work that failed. The inputs are still on the host: we keep
# a copy in numpy before freeing the pinned buffer.

# %% [markdown] lang="zh"
# ### 恢复：复位设备
#
# 出路是复位设备（`aclrtResetDevice`）并重新设置它。文档说明了复位释放什么：设备的默认上下文、默认流，以及在该上下文中创建的
# 每条流。它还给出了复位前释放资源的顺序：先释放内存（`aclrtFree`、`aclrtFreeHost`），再释放事件和流，然后才 `aclrtResetDevice`。
# 完全复位之前的指针在复位之后不得再使用：在硬件上那是未定义行为，运行时也没有对应的错误码，所以沙箱在第一次使用时报告一个
# `HazardWarning`（`use_after_reset`），然后继续运行。所以恢复时先释放它持有的
# 东西，复位，重新设置设备，然后申请新的缓冲区、重新上传输入，再重做失败的工作。输入仍在 Host 上：我们在释放锁页缓冲区之前
# 在 numpy 中保留了一份副本。

# %%
hin, hout = hosts
inputs = acl.util.ptr_to_numpy(hin, (3, N), np.float32).copy()      # what the batches need again
for dx, dy in bufs:
    acl.rt.free(dx)
    acl.rt.free(dy)
acl.rt.free_host(hin)
acl.rt.free_host(hout)
for st in streams:
    acl.rt.destroy_stream(st)
print("reset_device:", acl.rt.reset_device(0))
print("set_device:", acl.rt.set_device(0))
st, _ = acl.rt.create_stream()
hin, _ = acl.rt.malloc_host(3 * NB)                                  # everything allocated anew
hout, _ = acl.rt.malloc_host(3 * NB)
hosts = (hin, hout)
acl.util.ptr_to_numpy(hin, (3, N), np.float32)[:] = inputs
bufs = [(acl.rt.malloc(NB, HUGE)[0], acl.rt.malloc(NB, HUGE)[0]) for _ in range(3)]
for b in range(3):                  # redo the batches that failed or were discarded
    dx, dy = bufs[b]
    acl.rt.memcpy_async(dx, NB, hin + b * NB, NB, H2D, st)
    scale[8, st](dx, dy, N)
    acl.rt.memcpy_async(hout + b * NB, NB, dy, NB, D2H, st)
print("synchronize:", acl.rt.synchronize_stream(st))
out = acl.util.ptr_to_numpy(hout, (3, N), np.float32)
print("batch results now:", [float(out[b, 0]) for b in range(3)])

# %% [markdown]
# ## 7 · The leak report at finalize
#
# `aclFinalize` releases what the process still holds — but a long-running service never
# finalizes, so what it forgets to free piles up. The sandbox lists what is left:
# `sandbox.leak_report()` at any time, and a `LeakWarning` (plus a record in the trace) at
# `aclFinalize` if the list is not empty. We have freed nothing since the recovery:

# %% [markdown] lang="zh"
# ## 7 · aclFinalize 时的泄漏报告
#
# `aclFinalize` 会释放进程仍持有的东西——但长时间运行的服务从不去初始化，所以它忘记释放的东西会不断累积。沙箱列出剩下的东西：
# 任何时候都可以调用 `sandbox.leak_report()`，如果列表不为空，`aclFinalize` 时还会给出一个 `LeakWarning`（以及 trace 中的一条
# 记录）。恢复之后我们什么都没有释放：

# %%
report = sandbox.leak_report()
print(report)
print("items:", len(report))

# %% [markdown]
# The report groups the leftovers and names the call that releases each kind. We release
# half of it and let `aclFinalize` report the rest; the warning is caught here and printed,
# the way it would appear under the cell:

# %% [markdown] lang="zh"
# 报告把剩余的东西分组，并指出释放每一类所需的调用。我们释放其中一半，让 `aclFinalize` 报告其余的；警告在这里被捕获并打印出来，
# 就像它会出现在单元下方那样：

# %%
for dx, dy in bufs:
    acl.rt.free(dx)
    acl.rt.free(dy)
with warnings.catch_warnings(record=True) as caught:
    warnings.simplefilter("always")
    print("finalize:", acl.finalize())
for w in caught:
    print(f"{w.category.__name__}: {w.message}")
print(teach.check_no_leaks())

# %% [markdown]
# ## Exercise
#
# The exercise is a function for you to complete. `sandbox.teach.check("09.1", solution)` runs
# **your** function on a fresh simulated 910B of its own, with inputs it makes up each time,
# and judges the whole run from the trace: the answer and where it came from, the errors, and
# what the exercise states. The grader opens the board for you: `acl.init()` has run and
# device 0 is set. Do not call `sandbox.configure` in a solution.
#
# ### Exercise 09.1 · survive a device fault
#
# *Practises:* checking the code a synchronize returns, and recovering from a stopped context:
# release, reset, set the device again, allocate, upload and redo.
#
# The grader hands you `stream`, already in `ACL_STOP_ON_FAILURE` mode, and arms a kernel trap
# (`sandbox.inject_fault("kernel_trap", ...)`) on **one** of the four batches; which one
# depends on the inputs. Write `solution(x, stream)` for the four batches `x[b]` (float32, `N`
# each) that
#
# * runs each batch as `batch()` does (copy in, one `scale`, copy out), synchronises and
#   **checks the code**;
# * on an error: prints `acl.get_recent_err_msg()`; frees every buffer (device and pinned host)
#   and destroys the stream **before** `acl.rt.reset_device(0)`; sets the device again, creates
#   a stream, allocates new buffers, uploads the inputs again and redoes every batch whose
#   result did not arrive (or simply all of them);
# * returns the four results, shape `(4, N)`, then releases everything and calls
#   `acl.finalize()`.
#
# Graded (this exercise allows failed calls, and judges them itself):
#
# * the trap's code, 507016 `ACL_ERROR_RT_AICORE_TRAP_EXCEPTION`, was returned to the program by
#   a synchronize, and **no other call failed** (work that the stopped context refused while
#   you were still queueing, before that synchronize, is part of the fault);
# * an `aclrtResetDevice` after it, the device set again and the batches redone;
# * every buffer, stream and event from before was released **before** the reset;
# * the four results right (`2 * x`), computed by kernels and copied back from the device;
# * the leak report at `aclFinalize` empty.

# %% [markdown] lang="zh"
# ## 练习
#
# 练习是一个由你补全的函数。`sandbox.teach.check("09.1", solution)` 在一台属于它自己的全新模拟 910B 上运行**你的**函数，每次
# 使用新生成的输入，并根据 trace 评判整次运行：答案及其来源、错误，以及练习给出的各项要求。评分器为你打开板卡：已运行
# `acl.init()`，已设置设备 0。不要在解答中调用 `sandbox.configure`。
#
# ### 练习 09.1 · 从设备故障中恢复
#
# *练习内容：* 检查同步返回的错误码，并从停止的上下文中恢复：释放、复位、重新设置设备、申请、上传并重做。
#
# 评分器交给你 `stream`，它已处于 `ACL_STOP_ON_FAILURE` 模式，并在四个批次中的**一个**上设置了核函数陷阱
# （`sandbox.inject_fault("kernel_trap", ...)`）；是哪一个取决于输入。为四个批次 `x[b]`（float32，各 `N` 个）写出
# `solution(x, stream)`，它：
#
# * 像 `batch()` 那样运行每个批次（拷入、一次 `scale`、拷出），同步并**检查错误码**；
# * 出错时：打印 `acl.get_recent_err_msg()`；在 `acl.rt.reset_device(0)` **之前**释放每个缓冲区（设备和锁页 Host）并销毁流；
#   重新设置设备，创建一条流，申请新的缓冲区，重新上传输入，重做结果没有到达的每个批次（或者干脆全部重做）；
# * 返回四个结果，形状 `(4, N)`，然后释放一切并调用 `acl.finalize()`。
#
# 评判内容（本练习允许失败的调用，并自己评判它们）：
#
# * 陷阱的错误码 507016 `ACL_ERROR_RT_AICORE_TRAP_EXCEPTION` 由一次同步返回给了程序，并且**没有其他调用失败**（在那次同步之前、
#   你还在放入任务时被停止的上下文拒绝的工作，属于这次故障的一部分）；
# * 之后有一次 `aclrtResetDevice`，设备被重新设置，批次被重做；
# * 之前的每个缓冲区、流和事件都在复位**之前**释放；
# * 四个结果正确（`2 * x`），由核函数计算并从设备拷回；
# * `aclFinalize` 时的泄漏报告为空。

# %%
BATCHES = 4


def batch(b, hin, hout, dx, dy, st):
    """Batch b: copy x[b] in from hin, scale it into dy, copy it out to hout."""
    acl.rt.memcpy_async(dx, NB, hin + b * NB, NB, H2D, st)
    scale[8, st](dx, dy, N)
    acl.rt.memcpy_async(hout + b * NB, NB, dy, NB, D2H, st)


def ignores_errors(x, stream):
    """Runs the batches and never looks at the code of its synchronize."""
    hin, _ = acl.rt.malloc_host(BATCHES * NB)
    hout, _ = acl.rt.malloc_host(BATCHES * NB)
    acl.util.ptr_to_numpy(hin, (BATCHES, N), np.float32)[:] = x
    dx, _ = acl.rt.malloc(NB, HUGE)
    dy, _ = acl.rt.malloc(NB, HUGE)
    for b in range(BATCHES):
        batch(b, hin, hout, dx, dy, stream)
    acl.rt.synchronize_stream(stream)
    return acl.util.ptr_to_numpy(hout, (BATCHES, N), np.float32).copy()


print(sandbox.teach.check("09.1", ignores_errors))

# %% [markdown]
# The fault was reported, but nobody listened: the trapped batch and every batch after it
# (discarded by stop-on-failure) never arrived, there was no reset, and nothing was released.

# %% [markdown] lang="zh"
# 故障被报告了，但没人理会：陷入异常的批次以及它之后的每个批次（被停止模式丢弃）都没有到达，没有复位，也没有释放任何东西。

# %% nbgrader={"grade": false, "grade_id": "ex09_1", "locked": false, "schema_version": 3, "solution": true, "task": false}
def solution(x, stream):
    """Return 2 * x (float32, shape (BATCHES, N)), recovering from the device fault on the way."""
    # TODO: allocate, upload, run the batches on stream, synchronise and check the code. On an
    # error: free everything, destroy the stream, reset device 0, set it again, create a stream,
    # allocate and upload again, redo the batches, synchronise. Keep the results, release
    # everything, acl.finalize(), return.
    # Hint: a helper that allocates and uploads, used before and after the reset, keeps it short.
    ### BEGIN SOLUTION
    def start(st):
        hin, _ = acl.rt.malloc_host(BATCHES * NB)
        hout, _ = acl.rt.malloc_host(BATCHES * NB)
        acl.util.ptr_to_numpy(hin, (BATCHES, N), np.float32)[:] = x
        dx, _ = acl.rt.malloc(NB, HUGE)
        dy, _ = acl.rt.malloc(NB, HUGE)
        for b in range(BATCHES):
            batch(b, hin, hout, dx, dy, st)
        return hin, hout, dx, dy, acl.rt.synchronize_stream(st)

    def release(hin, hout, dx, dy, st):
        acl.rt.free(dx)
        acl.rt.free(dy)
        acl.rt.free_host(hin)
        acl.rt.free_host(hout)
        acl.rt.destroy_stream(st)

    st = stream
    hin, hout, dx, dy, ret = start(st)
    if ret != acl.ACL_SUCCESS:
        print("synchronize:", ret, name(ret))
        print(acl.get_recent_err_msg())
        release(hin, hout, dx, dy, st)
        acl.rt.reset_device(0)
        acl.rt.set_device(0)
        st, _ = acl.rt.create_stream()
        hin, hout, dx, dy, ret = start(st)         # which batches arrived matters not: redo all
        print("after recovery:", ret, name(ret))
    out = acl.util.ptr_to_numpy(hout, (BATCHES, N), np.float32).copy()
    release(hin, hout, dx, dy, st)
    acl.rt.reset_device(0)
    acl.finalize()
    return out
    ### END SOLUTION

# %% nbgrader={"grade": true, "grade_id": "ex09_1_check", "locked": true, "points": 1, "schema_version": 3, "solution": false, "task": false}
### BEGIN HIDDEN TESTS
assert (grade := sandbox.teach.check("09.1", solution, isolated=True)).passed, str(grade)
### END HIDDEN TESTS
sandbox.teach.check("09.1", solution)

# %% [markdown]
# ## Official samples for this topic
#
# [1_error_handling.py](../examples/0_quickstart/1_error_handling.py) (codes, last error, recent
# message),
# [2_callback_exception.py](../examples/2_advanced_features/callback/2_callback_exception.py) (a
# device fault seen by the exception callback),
# [0_simple_stream.py](../examples/1_basic_features/stream/0_simple_stream.py) (a stop-on-failure
# stream) and
# [1_stream_with_failure_mode.py](../examples/1_basic_features/stream/1_stream_with_failure_mode.py)
# (a trapping kernel between two additions, under continue-on-failure and then stop-on-failure,
# which on A2/A3 stops the whole context; then aclrtStreamStop and aclrtStreamAbort);
# [0_overflow_detection.py](../examples/4_reliability/overflow_detection/0_overflow_detection.py)
# (the saturation mode, a stream's overflow switch, and the overflow status read and reset by tasks
# on the stream). Notebook [11_official_samples](11_official_samples.ipynb), sections 2 and 4.

# %% [markdown] lang="zh"
# ## 本专题的官方示例
#
# [1_error_handling.py](../../examples/0_quickstart/1_error_handling.py)（错误码、最近错误、最近的错误信息）、[2_callback_exception.py](../../examples/2_advanced_features/callback/2_callback_exception.py)（由异常回调看到的设备故障）、
# [0_simple_stream.py](../../examples/1_basic_features/stream/0_simple_stream.py)（遇错停止的流）和
# [1_stream_with_failure_mode.py](../../examples/1_basic_features/stream/1_stream_with_failure_mode.py)（两次加法之间有一个触发
# trap 的核函数，先在遇错继续模式下运行，再在遇错停止模式下运行，后者在 A2/A3 上让整个上下文停止；然后是 aclrtStreamStop 和
# aclrtStreamAbort）；
# [0_overflow_detection.py](../../examples/4_reliability/overflow_detection/0_overflow_detection.py)（饱和模式、流的溢出检测开关，
# 以及由流上的任务读取和复位的溢出状态）。notebook
# [11_official_samples](11_official_samples.ipynb) 第 2、4 节。

# %% [markdown]
# ## Summary
#
# A misused call says so at once, in its return code and in `aclGetRecentErrMsg`; a device
# fault says so at the next synchronize, once. Under stop-on-failure a fault stops the context
# until the device is reset, and recovery releases everything first, then resets, sets the
# device again and allocates and uploads anew. The leak report finds what was never released.
# Next, notebook 09b: hazard reports, which find races a lucky schedule hid, and the exported
# trace, which shows where the time went.

# %% [markdown] lang="zh"
# ## 小结
#
# 误用的调用立即通过返回码和 `aclGetRecentErrMsg` 说明问题；设备故障在下一次同步时报告，只报告一次。在停止模式下，故障会让
# 上下文停止，直到设备复位；恢复时先释放一切，再复位、重新设置设备，然后重新申请和上传。泄漏报告找出从未释放的东西。
# 下一个是 notebook 09b：数据竞争报告，它能找出被幸运的调度掩盖的竞争；以及导出的 trace，它显示时间花在了哪里。

