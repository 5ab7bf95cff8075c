"""The grader's texts in Simplified Chinese (``sandbox.set_language("zh")``), read by
``sandbox.i18n.translate``.

``TEXTS`` maps an English text, whole, to its Chinese; ``PATTERNS`` are ``(regex, template)``
pairs for texts with figures in them: the regex matches the whole English text, and each of
its groups, translated in turn, fills a ``{}`` of the template.  A text the catalogue does not
know is shown in English.  Runtime terms follow the official Chinese documentation (流 stream,
事件 event, 上下文 context, 内存池 memory pool, 设备 device, 同步 synchronize, 异步
asynchronous, 回调 callback, 核函数 kernel); C names of calls and codes stay as they are.
"""
from __future__ import annotations

# -- the frame of a verdict ----------------------------------------------------------------------
FRAME = {
    "hint": "提示",
    "The other criteria are judged once the solution runs to its end.": "其余各项要等解答运行到结束后才评判。",
}

# -- exercise titles -------------------------------------------------------------------------------
TITLES = {
    "make it correct": "让它正确",
    "the five steps, waiting once": "五个步骤，只等待一次",
    "let the host work meanwhile": "让 Host 同时工作",
    "pipeline it": "流水线化",
    "run independent work side by side": "并行运行相互独立的任务",
    "order with an event, not the host": "用事件而不是 Host 来排序",
    "time a kernel without blocking": "不阻塞地为核函数计时",
    "fit the budget": "放进内存预算",
    "copy while computing": "边计算边拷贝",
    "four steps in two buffers' worth of memory": "用两块缓冲区的内存完成四步",
    "one device after another": "一个设备接着一个设备",
    "broadcast": "广播",
    "exchange in the time of one copy": "在一次拷贝的时间内完成交换",
    "one thread, four devices": "一个线程，四个设备",
    "one thread per device": "每个设备一个线程",
    "two processes share device 0": "两个进程共享设备 0",
    "post-process each batch in a host function": "在 Host 函数中后处理每个批次",
    "post-process each batch in a callback": "在回调中后处理每个批次",
    "replay the step": "重放这一步",
    "copies in the graph": "图中的拷贝",
    "two streams in one graph": "一个图中的两条流",
    "make the racy pipeline correct": "修正有数据竞争的流水线",
    "survive a device fault": "从设备故障中恢复",
    "pinned, asynchronous, waiting once": "锁页内存、异步、只等待一次",
    "double buffering on one device": "单设备上的双缓冲",
    "the capstone: an 8x speed-up": "综合练习：8 倍加速",
}

# -- what a criterion measures ---------------------------------------------------------------------
WHAT = {
    "what came back": "返回了什么",
    "the solution ran": "解答运行",
    "the kernels": "核函数",
    "the kernel": "核函数",
    "the answer came from the device": "答案来自设备",
    "the result came from the device": "结果来自设备",
    "time to the result": "得到结果的时间",
    "the fault reported": "故障已上报",
    "asynchronous copies": "异步拷贝",
    "what each device holds": "每个设备上的数据",
    "two streams": "两条流",
    "time of the peer copies": "设备间拷贝的时间",
    "the host waited for the work": "Host 等待了任务完成",
    "the elapsed time": "耗时",
    "streams": "流",
    "speed-up over the baseline": "相对基线的加速比",
    "runtime errors": "运行时错误",
    "recovered by a reset": "通过复位恢复",
    "peak device memory": "设备内存峰值",
    "order across devices": "跨设备的顺序",
    "kernels of the two streams at once": "两条流的核函数同时运行",
    "events around the kernel": "核函数前后的事件",
    "event between the streams": "流之间的事件",
    "distinct buffers": "互不相同的缓冲区",
    "copied device to device": "设备到设备的拷贝",
    "threads joined": "线程已 join",
    "the threads ran": "线程运行",
    "the squares": "平方值",
    "the kernel set unchanged": "核函数集合不变",
    "the host's own work": "Host 自己的工作",
    "the host waited": "Host 等待了",
    "the host knew device 0 was done": "Host 知道设备 0 已完成",
    "the host did not wait for long_op": "Host 没有等待 long_op",
    "the grader's machine": "评分器的机器",
    "the answer": "答案",
    "synchronize only at the end": "只在最后同步",
    "synchronize calls": "同步调用",
    "subscriptions undone": "订阅已取消",
    "streams and events": "流和事件",
    "runtime errors besides report timeouts": "上报超时以外的运行时错误",
    "replays": "重放",
    "released before the reset": "复位前已释放",
    "read after the copy back": "拷回之后才读取",
    "post-processing in callbacks": "在回调中后处理",
    "pinned host memory": "锁页 Host 内存",
    "peer access": "设备间访问（peer access）",
    "ordered by events": "由事件排序",
    "order on the device": "设备上的顺序",
    "one thread per device": "每个设备一个线程",
    "one process per chunk": "每块数据一个进程",
    "one graph on two streams": "两条流上的一个图",
    "no wait between the launches": "两次下发之间没有等待",
    "no other failed call": "没有其他失败的调用",
    "leaks": "资源泄漏",
    "kernels running at once": "同时运行的核函数",
    "kernel launchers": "下发核函数的线程",
    "host work while waiting": "等待期间的 Host 工作",
    "host work beside device work": "与设备任务并行的 Host 工作",
    "host calls": "Host 调用",
    "host API calls": "Host API 调用",
    "hazards": "数据竞争（hazard）",
    "exercise": "练习",
    "error reported": "已上报错误",
    "end-to-end time": "端到端时间",
    "each chunk came from its device": "每块数据来自它的设备",
    "devices used": "使用的设备",
    "devices busy together": "设备同时忙碌",
    "device shared at once": "同时共享设备",
    "copy and compute overlap": "拷贝与计算重叠",
    "copies in the graph": "图中的拷贝",
    "copied from pinned memory": "从锁页内存拷贝",
    "buffers allocated": "已分配的缓冲区",
    "the vector sum": "向量和",
}

# -- details and hints ------------------------------------------------------------------------------
DETAILS = {
    "it raised NotImplementedError: there is no solution yet": "抛出了 NotImplementedError：还没有解答",
    "replace the lines '# YOUR CODE HERE' and 'raise NotImplementedError()' with your code":
        "把 '# YOUR CODE HERE' 和 'raise NotImplementedError()' 这两行换成你的代码",
    "none": "无",
    "is it waiting for something that never happens (a threading.Event, a queue, a join of a thread that waits for "
    "you)?": "它是否在等待一件永远不会发生的事（threading.Event、队列，或 join 一个正在等你的线程）？",
    "fix the line named; every runtime call returns a code you can check, and acl.get_recent_err_msg() says why a "
    "call failed": "修正所指出的那一行；每个运行时调用都返回可以检查的错误码，acl.get_recent_err_msg() 说明调用失败的原因",
    "the solution called sandbox.configure()": "解答调用了 sandbox.configure()",
    "leave the machine to the grader: it builds a fresh one for every check":
        "把机器交给评分器：每次评判它都会新建一台",
    "join every thread you start before the function returns": "函数返回前 join 你启动的每个线程",
    "read acl.get_recent_err_msg() after the failing call": "在失败的调用之后读取 acl.get_recent_err_msg()",
    "synchronise before reading a host buffer that an async copy fills":
        "读取由异步拷贝填充的 Host 缓冲区之前先同步",
    "every copy went on the stream": "每次拷贝都下发到了流上",
    "every host-device copy went on a stream": "每次 Host 与设备之间的拷贝都下发到了流上",
    "use acl.rt.memcpy_async(..., stream) for the copies in and out":
        "拷入和拷出都使用 acl.rt.memcpy_async(..., stream)",
    "copy a and b in, launch add on all N elements, copy c back, and synchronise before reading it":
        "拷入 a 和 b，对全部 N 个元素下发 add，拷回 c，读取之前先同步",
    "the host must learn that the copy back has finished before it reads host_c: synchronise the stream":
        "Host 读取 host_c 之前必须知道拷回已经完成：同步这条流",
    "queue the copies, the launch and the copy back, then wait once: blocking copies (aclrtMemcpy) and extra "
    "synchronizes each stop the host": "先把拷贝、下发和拷回都放入队列，然后只等待一次：阻塞拷贝（aclrtMemcpy）"
                                      "和多余的同步都会让 Host 停下来",
    "free buffers as soon as their last task is queued, or reuse them":
        "缓冲区的最后一个任务一入队就释放它，或者复用它",
    "overlap copies with compute, and synchronise once at the end": "让拷贝与计算重叠，最后只同步一次",
    "queue all the work first, then synchronise once: every synchronize stops the host until the device catches up":
        "先把所有任务放入队列，再同步一次：每次同步都会让 Host 停下，直到设备赶上",
    "each runtime call costs host time: avoid calls the program does not need":
        "每个运行时调用都花费 Host 时间：避免程序不需要的调用",
    "allocate each buffer with acl.rt.malloc and keep it until the check":
        "用 acl.rt.malloc 分配每个缓冲区，并保留到检查时",
    "queue work on every device before waiting for any of them": "在等待任何一个设备之前，先在每个设备上放入任务",
    "give each device its own host thread, and call set_device in that thread":
        "给每个设备一个自己的 Host 线程，并在该线程中调用 set_device",
    "read each report in sandbox.hazards(): it names the two tasks and the event or synchronize that would order "
    "them": "阅读 sandbox.hazards() 中的每条报告：它指出两个任务，以及能为它们排序的事件或同步",
    "aclFinalize was never called, so nothing was checked": "从未调用 aclFinalize，因此没有检查任何东西",
    "release everything you create, in reverse order: aclrtFree, aclrtFreeHost, aclrtDestroyEvent, "
    "aclrtDestroyStream, aclrtResetDevice, then aclFinalize":
        "按创建的逆序释放你创建的一切：aclrtFree、aclrtFreeHost、aclrtDestroyEvent、aclrtDestroyStream、"
        "aclrtResetDevice，最后 aclFinalize",
    "no other call failed": "没有其他调用失败",
    "this exercise is about a failing call": "本练习讲的就是一个失败的调用",
    "compute it with a kernel on the device, copy it back with a device-to-host copy, and synchronise before you "
    "read the host buffer": "用核函数在设备上计算，用设备到 Host 的拷贝拷回，读取 Host 缓冲区之前先同步",
    "copy it back from the device and synchronise before you read it": "把它从设备拷回，读取之前先同步",
    "no copy from the device wrote them": "没有任何来自设备的拷贝写入它们",
    "they came from the host, not from a kernel": "它们来自 Host，而不是核函数",
    "a memset wrote them, not a kernel": "它们由 memset 写入，而不是核函数",
    "a kernel computed them": "由核函数计算得出",
    "the answer is empty": "答案为空",
    "kernels": "核函数",
    "no device-to-host copy brought these bytes back": "没有任何设备到 Host 的拷贝带回这些字节",
    "the device-to-host copies brought back other bytes than the ones returned (read before they landed, or changed "
    "on the host afterwards?)": "设备到 Host 的拷贝带回的字节与返回的不同（在落地之前读取，或之后在 Host 上被改动？）",
    "the returned array": "返回的数组",
    "the answer": "答案",
}


# -- the exercises' hints and fixed details (sandbox/teach/exercise_sets) --------------------------
HINTS = {
    "launch the notebook's add kernel on every chunk: add[1, stream](da, db, dc, elements)":
        '对每一块数据下发 notebook 中的 add 核函数：add[1, stream](da, db, dc, elements)',
    'no copy or kernel ran on the device':
        '设备上没有运行任何拷贝或核函数',
    'the work has to run on the device: copies in, add, copy back':
        '任务必须在设备上运行：拷入、add、拷回',
    'the host never learnt that the device had finished: no synchronize or query ended after the last device task':
        'Host 从未得知设备已经完成：没有任何同步或查询在最后一个设备任务之后结束',
    'synchronise the stream before you read the result':
        '读取结果之前先同步这条流',
    'copy a and b in, add every element on the device, copy c back, and synchronise before reading it':
        '拷入 a 和 b，在设备上对每个元素做加法，拷回 c，读取之前先同步',
    'call prepare_next_batch() once inside your function':
        '在你的函数中调用一次 prepare_next_batch()',
    'queue the copies, the launch and the copy back first (asynchronous calls return at once), then call prepare_next_batch(), then wait':
        '先放入拷贝、下发和拷回（异步调用立即返回），再调用 prepare_next_batch()，然后等待',
    'wait once, after the host work: every synchronize stops the host':
        '在 Host 工作之后只等待一次：每次同步都会让 Host 停下',
    'the 11.7 ms of device work and the 8 ms of host work should run at the same time: queue everything before the host work, wait after it':
        '11.7 ms 的设备任务和 8 ms 的 Host 工作应当同时进行：在 Host 工作之前放入所有任务，在它之后等待',
    'split the vectors into chunks: while the AI Core adds chunk i, the DMA engine loads chunk i + 1 on the other stream':
        '把向量分块：AI Core 加第 i 块时，DMA 引擎在另一条流上加载第 i + 1 块',
    'the copies alone take 8.2 ms: the adds must hide beside them, and the host must wait only once, at the end':
        '仅拷贝就要 8.2 ms：加法必须藏在拷贝旁边，Host 只能在最后等待一次',
    'launch work[6, s](t) four times with the t you are given: the same kernels, only on other streams':
        '用给定的 t 下发四次 work[6, s](t)：同样的核函数，只是放在不同的流上',
    'a stream runs its tasks one after another: create four streams and launch one kernel on each':
        '一条流一个接一个地运行它的任务：创建四条流，每条流上下发一个核函数',
    'four kernels of 6 cores fit on the 24 cores at once: put each on its own stream and queue all four before the host waits':
        '四个各占 6 个核的核函数可以同时放进 24 个核：每个放在自己的流上，Host 等待之前把四个都放入队列',
    'launch all four, then wait once at the end (acl.rt.synchronize_device waits for every stream)':
        '四个全部下发，最后只等待一次（acl.rt.synchronize_device 等待每一条流）',
    'four kernels side by side take as long as one: t plus a little for creating the streams and launching':
        '四个并行的核函数与一个耗时相同：t，再加上创建流和下发的一点时间',
    'launch long_op[1, s1](dev_x) and short_op[1, s2](dev_x), once each':
        'long_op[1, s1](dev_x) 和 short_op[1, s2](dev_x) 各下发一次',
    'the exercise is about ordering two streams: launch short_op on a second stream':
        '本练习讲的是为两条流排序：把 short_op 下发到第二条流上',
    "make short_op's stream wait for an event recorded after long_op":
        '让 short_op 所在的流等待一个在 long_op 之后记录的事件',
    'leave the waiting to the device: no synchronize or sleep between the two launches, an event instead':
        '把等待交给设备：两次下发之间不要同步或 sleep，改用事件',
    'one synchronize at the end, before you copy x back and read it':
        '最后同步一次，然后把 x 拷回并读取',
    'launch work[1, s](ns) once, with the ns you are given':
        '用给定的 ns 下发一次 work[1, s](ns)',
    'do not block: poll acl.rt.query_event_status(end) and call other_work() between the queries':
        '不要阻塞：轮询 acl.rt.query_event_status(end)，在两次查询之间调用 other_work()',
    'long_op (+1) must run before short_op (x2)':
        'long_op（+1）必须在 short_op（×2）之前运行',
    'record start, launch work, record end, all on the same stream':
        '在同一条流上记录 start、下发 work、记录 end',
    'no successful aclrtEventElapsedTime call':
        '没有成功的 aclrtEventElapsedTime 调用',
    'record an event before and one after the kernel on its stream, wait until the end event has completed, then ask acl.rt.event_elapsed_time(start, end)':
        '在核函数所在的流上，在它之前和之后各记录一个事件，等结束事件完成后，再调用 acl.rt.event_elapsed_time(start, end)',
    "return the milliseconds acl.rt.event_elapsed_time(start, end) gives, not a host clock or the kernel's nominal time":
        '返回 acl.rt.event_elapsed_time(start, end) 给出的毫秒数，而不是 Host 时钟或核函数的名义耗时',
    'the time must come from the device: two events around the kernel, and acl.rt.event_elapsed_time(start, end)':
        '时间必须来自设备：核函数前后两个事件，以及 acl.rt.event_elapsed_time(start, end)',
    'loop: while the end event is not complete, call other_work()':
        '循环：结束事件未完成时，调用 other_work()',
    'synchronise (the device, or each stream you used) before returning, so the buffers are complete when the caller uses them':
        '返回之前同步（设备，或你用过的每条流），使调用者使用缓冲区时它们已经完整',
    "queue every step, then wait once: give buffers back in stream order (a memory pool's mem_pool_free_async, or reuse a buffer on one stream) instead of synchronising before each aclrtFree; blocking copies and copies from pageable memory wait too":
        '先放入每一步，再只等待一次：按流的顺序归还缓冲区（内存池的 mem_pool_free_async，或在一条流上复用一个缓冲区），而不是在每次 aclrtFree 之前同步；阻塞拷贝和从可分页内存发起的拷贝也会等待',
    'the bytes match, but no copy wrote them':
        '字节一致，但不是由任何拷贝写入的',
    'each buffer needs bytes of its own: carve at offsets at least as large as the sizes before them, or allocate each one':
        '每个缓冲区都需要自己的字节：切分时的偏移至少要等于它前面各块的大小之和，或者分别申请每一块',
    'synchronise before returning':
        '返回之前先同步',
    'three addresses':
        '三个地址',
    'every allocation is padded (ALIGN_UP(size, 32) + 32) and rounded to whole pages: huge pages round 3 MiB up to 4 MiB, so ask for normal pages, and allocate nothing else, not even for a moment':
        '每次分配都有填充（ALIGN_UP(size, 32) + 32）并取整到整数个页：大页会把 3 MiB 取整到 4 MiB，所以申请普通页，并且不要分配任何其他东西，哪怕只是片刻',
    'stage the data in memory from acl.rt.malloc_host: from pageable memory memcpy_async returns only when the copy is done, at a quarter of the speed':
        '把数据放在 acl.rt.malloc_host 申请的内存中：从可分页内存发起的 memcpy_async 要等拷贝完成才返回，速度只有四分之一',
    'launch busy exactly once, on device 0, on a buffer of its own':
        '在设备 0 上、在它自己的缓冲区上恰好下发一次 busy',
    'put the copy and the kernel on two streams of device 0 and queue both before waiting; from pinned memory the copy call returns at once':
        '把拷贝和核函数放在设备 0 的两条流上，等待之前把两者都放入队列；从锁页内存发起的拷贝调用会立即返回',
    'the 2 ms kernel and the 1.2 ms pinned copy should run side by side':
        '2 ms 的核函数和 1.2 ms 的锁页拷贝应当并行运行',
    'the chunks read back':
        '读回的数据块',
    'copy each chunk in and back out, and read the host buffer only after the synchronize':
        '把每一块拷入再拷出，只在同步之后读取 Host 缓冲区',
    "do not hold a device buffer per chunk: give each step's buffer back in stream order (mem_pool_free_async) or reuse one buffer on one stream":
        '不要为每一块保留一个设备缓冲区：按流的顺序归还每一步的缓冲区（mem_pool_free_async），或在一条流上复用一个缓冲区',
    'return the int that acl.rt.malloc gave you (plus an offset, if you carved it)':
        '返回 acl.rt.malloc 给你的那个整数（如果你做了切分，再加上偏移）',
    'allocate it with acl.rt.malloc on the device and keep it until the end':
        '在设备上用 acl.rt.malloc 申请它，并一直保留到最后',
    'keep the buffer alive: free it only after the check':
        '保持缓冲区存活：只在检查之后释放它',
    'allocate enough bytes for it':
        '为它申请足够的字节',
    'return (weights_ptr, table_ptr, flags_ptr)':
        '返回 (weights_ptr, table_ptr, flags_ptr)',
    'with the source device current, call acl.rt.device_enable_peer_access(destination, 0): access is one-directional, so each direction needs its own call':
        '在源设备为当前设备时调用 acl.rt.device_enable_peer_access(destination, 0)：访问是单向的，每个方向都需要单独调用',
    'no copy ran between two devices':
        '两个设备之间没有运行任何拷贝',
    'launch work once on a stream of device 0 and once on a stream of device 1, with that device current (acl.rt.set_device) when you launch':
        '在设备 0 的一条流上和设备 1 的一条流上各下发一次 work，下发时让该设备成为当前设备（acl.rt.set_device）',
    'make the host wait for device 0 (aclrtSynchronizeEvent on its event, or synchronise its stream) before launching on device 1':
        '在设备 1 上下发之前，让 Host 等待设备 0（对它的事件调用 aclrtSynchronizeEvent，或同步它的流）',
    "a stream of device 1 cannot wait for device 0's event (that call fails with 107003 ACL_ERROR_RT_STREAM_CONTEXT), but the host can: aclrtSynchronizeEvent(e0), which works across devices, then launch on device 1; waiting with host_work or sleep is not a dependency":
        '设备 1 的流不能等待设备 0 的事件（该调用以 107003 ACL_ERROR_RT_STREAM_CONTEXT 失败），但 Host 可以：aclrtSynchronizeEvent(e0) 可以跨设备使用，然后再在设备 1 上下发；用 host_work 或 sleep 等待不是依赖关系',
    'upload data once, to device 0; the other devices get it from device 0':
        '只上传一次数据，到设备 0；其他设备从设备 0 获取它',
    'one 64 MiB copy from device 0 to each of the three targets, no more':
        '从设备 0 到三个目标各一次 64 MiB 拷贝，不要更多',
    'upload a to device 0 and b to device 1, once each; the exchange itself is device to device':
        '把 a 上传到设备 0、b 上传到设备 1，各一次；交换本身是设备到设备的',
    'one 64 MiB copy each way, no more':
        '每个方向一次 64 MiB 拷贝，不要更多',
    "give thread d the whole of device d's work (set_device(d) in that thread, then its stream, buffers, copies, kernel and synchronize); the solution's thread only starts and joins them":
        '把设备 d 的全部工作交给线程 d（在该线程中 set_device(d)，然后是它的流、缓冲区、拷贝、核函数和同步）；解答自己的线程只负责启动和 join 它们',
    'spawn one process per chunk; each one does acl.init, set_device(0), its own stream, buffers and kernel, and acl.finalize; the solution only spawns and joins them':
        '每块数据启动一个进程；每个进程执行 acl.init、set_device(0)、它自己的流、缓冲区和核函数，以及 acl.finalize；解答只负责启动和 join 它们',
    'launch square on the device the chunk belongs to, copy the result back with a device-to-host copy and synchronise before you read it':
        '在数据块所属的设备上下发 square，用设备到 Host 的拷贝把结果拷回，读取之前先同步',
    "this exercise is pattern 1: the solution's own thread launches on every device, switching with acl.rt.set_device(d); start no threads":
        '本练习是模式 1：由解答自己的线程在每个设备上下发，用 acl.rt.set_device(d) 切换；不要启动线程',
    "queue every device's work before you wait for any of them: a synchronize before switching to the next device keeps the devices one after another":
        '在等待任何设备之前先放入每个设备的任务：在切换到下一个设备之前同步，会让各设备一个接一个地运行',
    "start one threading.Thread per device, and let each thread launch its device's kernel":
        '每个设备启动一个 threading.Thread，由每个线程下发它的设备的核函数',
    'start all four threads before you join any of them: a join right after each start runs the devices one after another':
        '在 join 任何线程之前先启动全部四个线程：每次启动后立即 join，会让各设备一个接一个地运行',
    "start each chunk's work with sandbox.spawn_process(fn, ...): threads of one process are not two processes":
        '用 sandbox.spawn_process(fn, ...) 启动每块数据的工作：一个进程的多个线程不是两个进程',
    "collect each chunk's result in a list (threads and processes can write into a list the solution made) and return it":
        '把每块数据的结果收集到一个列表中（线程和进程都可以写入解答创建的列表）并返回它',
    'copy each result out of its host buffer: acl.util.ptr_to_numpy(ptr, (N,), np.float32).copy()':
        '把每个结果从它的 Host 缓冲区中拷出来：acl.util.ptr_to_numpy(ptr, (N,), np.float32).copy()',
    'square each chunk with the square kernel, copy it back, and synchronise before reading it':
        '用 square 核函数对每块数据求平方，拷回，读取之前先同步',
    'read acl.get_recent_err_msg() after the failing call: a callback needs a thread subscribed to its stream (aclrtSubscribeReport) before aclrtLaunchCallback':
        '在失败的调用之后读取 acl.get_recent_err_msg()：回调需要在 aclrtLaunchCallback 之前有一个线程订阅了它的流（aclrtSubscribeReport）',
    'after the synchronize, stop the report thread, join it, then acl.rt.unsubscribe_report(thread.ident, stream)':
        '同步之后，停止上报线程并 join 它，然后 acl.rt.unsubscribe_report(thread.ident, stream)',
    'queue all eight batches and their callbacks, then synchronise once: the callbacks tell the host about each batch, so it need not wait for each one':
        '放入全部八个批次及其回调，然后只同步一次：回调会把每个批次的情况告诉 Host，所以不必逐个等待',
    'keep what summarise returns in a list, by batch number, and return the list':
        '把 summarise 的返回值按批次编号保存在列表中，并返回该列表',
    'the batch sums':
        '各批次的和',
    'return, in batch order, what summarise returned for each batch':
        '按批次顺序返回 summarise 为每个批次返回的值',
    'compute every row on the device, copy it back with a device-to-host copy, and synchronise before you read the host buffer':
        '在设备上计算每一行，用设备到 Host 的拷贝把它拷回，读取 Host 缓冲区之前先同步',
    'keep the kernels as they are: model_step launches tick 32 times; a graph replays those launches, it does not merge them (no fused kernel, no step left out)':
        '保持核函数不变：model_step 下发 32 次 tick；图重放这些下发，而不是把它们合并（没有融合的核函数，也不漏掉任何一步）',
    'capture the work once (ri_capture_begin, the launches, ri_capture_end) and run it with ri_execute_async; do not launch it eagerly as well':
        '捕获一次任务（ri_capture_begin、各次下发、ri_capture_end），用 ri_execute_async 运行它；不要再逐个下发一遍',
    'capture the copy in (from pinned host memory: aclrtMallocHost), the step and the copy out together; between replays, write the next batch into the same pinned buffer':
        '把拷入（来自锁页 Host 内存：aclrtMallocHost）、这一步和拷出一起捕获；两次重放之间，把下一个批次写入同一个锁页缓冲区',
    "inside the capture, record an event on the captured stream and make the side stream wait for it (the side stream joins), launch b's step there, then record an event on the side stream and make the origin wait for it (it rejoins) before ri_capture_end":
        '在捕获内部，在被捕获的流上记录一个事件，让旁路流等待它（旁路流加入），在旁路流上下发 b 的一步，然后在旁路流上记录一个事件，并在 ri_capture_end 之前让起始流等待它（汇合回来）',
    "the side stream's step must not wait for the origin's: fork once at the start of the step and join once at its end":
        '旁路流上的一步不能等待起始流上的一步：在这一步开始时分叉一次，在结束时汇合一次',
    'apply the step exactly as model_step does (tick with j = 0 .. 31, in order), the stated number of times, and synchronise before reading the host buffer':
        '严格按 model_step 的方式执行这一步（tick，j = 0 .. 31，按顺序），执行规定的次数，读取 Host 缓冲区之前先同步',
    "put a's step and b's step on two streams inside the capture":
        '在捕获内部把 a 的一步和 b 的一步放在两条流上',
    'the host cannot launch 640 small kernels as fast as the device runs them: capture one step once and replay it, so the kernels reach the device back to back':
        'Host 下发 640 个小核函数的速度赶不上设备运行它们的速度：把一步捕获一次并重放，使核函数紧挨着到达设备',
    "replay a graph in which a's and b's steps run on two streams side by side":
        '重放一个图，其中 a 和 b 的步骤在两条流上并行运行',
    'after each load, acl.rt.record_event(loaded, copy_s); before its kernel, acl.rt.stream_wait_event(compute_s, loaded): the device orders them, the host does not wait':
        '每次加载之后 acl.rt.record_event(loaded, copy_s)；在它的核函数之前 acl.rt.stream_wait_event(compute_s, loaded)：由设备为它们排序，Host 不等待',
    'after a failure in stop-on-failure mode the context refuses new work until the device is reset: free, destroy the stream, reset, set the device again, then allocate and redo':
        '在停止模式下失败之后，上下文在设备复位之前拒绝新任务：释放、销毁流、复位、重新设置设备，然后重新申请并重做',
    'after the reset, set the device again, create a stream, allocate, upload and redo the batches':
        '复位之后，重新设置设备，创建一条流，申请、上传并重做各批次',
    'free memory (aclrtFree, aclrtFreeHost) and destroy streams and events before the reset; after it, allocate anew and upload the inputs again: a pointer from before a reset is not to be used':
        '在复位之前释放内存（aclrtFree、aclrtFreeHost）并销毁流和事件；复位之后重新申请并重新上传输入：复位之前的指针不得再使用',
    "keep the program's shape: loads on copy_s, scale and the copies back on compute_s":
        '保持程序的结构：加载在 copy_s 上，scale 和拷回在 compute_s 上',
    'order the streams with events and wait once at the end (a stream query that saw completion is as good)':
        '用事件为两条流排序，最后只等待一次（一次看到完成的流查询同样可以）',
    'launch scale once for every batch, as batch() does':
        '像 batch() 那样为每个批次下发一次 scale',
    'synchronize the stream after queueing the batches and look at the code it returns':
        '放入各批次之后同步这条流，并查看它返回的错误码',
    'no aclrtResetDevice after the fault was reported':
        '故障报告之后没有调用 aclrtResetDevice',
    'a stopped context takes no new work: release what you hold, acl.rt.reset_device(0), acl.rt.set_device(0), and start again':
        '停止的上下文不接受新任务：释放你持有的东西，acl.rt.reset_device(0)，acl.rt.set_device(0)，然后重新开始',
    'use acl.rt.memcpy_async(dst, n, src, n, kind, stream)':
        '使用 acl.rt.memcpy_async(dst, n, src, n, kind, stream)',
    'allocate the host buffers with acl.rt.malloc_host and fill the inputs in with acl.util.ptr_to_numpy(ptr, shape, np.float32)[:] = x':
        '用 acl.rt.malloc_host 申请 Host 缓冲区，并用 acl.util.ptr_to_numpy(ptr, shape, np.float32)[:] = x 填入输入',
    'one stream runs its tasks one after another: give the copies of the next batch their own stream (or give each buffer set its own stream)':
        '一条流一个接一个地运行它的任务：给下一个批次的拷贝一条自己的流（或者给每组缓冲区一条自己的流）',
    'queue every batch first, then wait once at the end: a synchronize inside the batch loop stops the host until the device catches up; let events on the device (aclrtStreamWaitEvent), or a stream per buffer set, say when a set is free':
        '先放入每个批次，最后只等待一次：批次循环中的同步会让 Host 停下，直到设备赶上；让设备上的事件（aclrtStreamWaitEvent）或每组缓冲区一条流来说明一组缓冲区何时空闲',
    'no copy or kernel ran, so nothing was timed':
        '没有运行任何拷贝或核函数，所以没有什么可计时的',
    'do the work on the device':
        '在设备上完成工作',
    "copy each batch's 4 MiB input in once":
        '每个批次 4 MiB 的输入只拷入一次',
    "copy each batch's 1 MiB output back once":
        '每个批次 1 MiB 的输出只拷回一次',
    "each batch's output is pool(layer(normalize(x[b]))); synchronise before reading the host buffer the copies back fill":
        '每个批次的输出是 pool(layer(normalize(x[b])))；读取拷回所填充的 Host 缓冲区之前先同步',
    'on each device, load the next batch (its own stream, its own buffer set) while the AI Cores compute this one':
        '在每个设备上，AI Core 计算当前批次时加载下一个批次（用它自己的流、它自己的一组缓冲区）',
    'give every device its share of the batches, and queue them all before the first synchronize':
        '给每个设备分配它的那份批次，在第一次同步之前全部放入队列',
    'reuse a few buffer sets per device (events, or a stream per set, tell you when a set is free) instead of one per batch':
        '每个设备复用少数几组缓冲区（事件或每组一条流会告诉你一组何时空闲），而不是每个批次一组',
    'put copies and kernels of different chunks on different streams, so the copy engine works while the AI Core computes':
        '把不同数据块的拷贝和核函数放在不同的流上，使拷贝引擎在 AI Core 计算时工作',
    'make the host wait for the first device (aclrtSynchronizeEvent on its event) before launching on the second':
        '在第二个设备上下发之前，让 Host 等待第一个设备（对它的事件调用 aclrtSynchronizeEvent）',
    'a kernel with block_dim equal to the core count takes every core: launch with fewer blocks so kernels of two processes fit side by side':
        'block_dim 等于核数的核函数会占用全部核：用更少的 block 下发，使两个进程的核函数能并行放下',
    'queue one aclrtLaunchCallback per batch after its copy back, and keep a thread subscribed to the stream looping on aclrtProcessReport':
        '在每个批次拷回之后放入一个 aclrtLaunchCallback，并让一个订阅了该流的线程循环调用 aclrtProcessReport',
    'every launch is a host call: capture the work once into a graph and replay it, or fuse small kernels into one':
        '每次下发都是一次 Host 调用：把任务捕获一次为图并重放，或者把小核函数融合为一个',
    'check the code every synchronize returns: a device error is reported there, once':
        '检查每次同步返回的错误码：设备错误在那里报告，只报告一次',
    "an exception ends its own thread only, so that thread's work is missing: fix what the message names":
        '异常只结束它自己的线程，所以该线程的工作缺失了：修正消息所指出的问题',
    'return the array you copied back':
        '返回你拷回的数组',
    'view the host buffer with acl.util.ptr_to_numpy(ptr, shape, dtype) and copy it':
        '用 acl.util.ptr_to_numpy(ptr, shape, dtype) 查看 Host 缓冲区并拷贝它',
    'return what the exercise asks for':
        '返回练习要求的内容',
    'the returned address':
        '返回的地址',
    'copy all 64 MiB of data to the buffer you return, host to device':
        '把全部 64 MiB 数据从 Host 拷贝到你返回的缓冲区',
    "upload data to device 0, copy device 0's buffer to each target, and synchronise every stream you used before returning":
        '把数据上传到设备 0，把设备 0 的缓冲区拷贝到每个目标，返回之前同步你用过的每条流',
    'a broadcast goes from device 0 to each of devices 1, 2 and 3: memcpy_async(dst_on_d, n, src_on_0, n, ACL_MEMCPY_DEVICE_TO_DEVICE, stream)':
        '广播从设备 0 到设备 1、2、3 中的每一个：memcpy_async(dst_on_d, n, src_on_0, n, ACL_MEMCPY_DEVICE_TO_DEVICE, stream)',
    'each target has a link of its own from device 0: queue the three copies on three streams before waiting for any of them':
        '每个目标都有一条来自设备 0 的独立链路：在等待任何一个之前，把三个拷贝放到三条流上',
    'copy into buffers other than the ones being read: in place, one copy overwrites what the other still has to read':
        '拷贝到正在被读取的缓冲区之外的缓冲区：原地交换时，一个拷贝会覆盖另一个还要读取的数据',
    "device 0's b must come from device 1 and device 1's a from device 0, by device-to-device copies, not through the host":
        '设备 0 上的 b 必须来自设备 1，设备 1 上的 a 必须来自设备 0，通过设备到设备的拷贝，而不是经由 Host',
    '0 -> 1 and 1 -> 0 are separate links: queue both copies on two streams before waiting, and they take the time of one':
        '0 -> 1 和 1 -> 0 是各自独立的链路：等待之前把两个拷贝放到两条流上，它们只需一次拷贝的时间',
    'a report loop ends on an aclrtProcessReport timeout, which is no error here':
        '上报循环以一次 aclrtProcessReport 超时结束，这在这里不算错误',
    'every launch is a host call: capture the step once, then replay it with one call per step':
        '每次下发都是一次 Host 调用：把这一步捕获一次，然后每步用一次调用重放',
    'capture the copy in, the step and the copy out once; each batch is then one replay and one synchronize':
        '把拷入、这一步和拷出捕获一次；之后每个批次就是一次重放和一次同步',
    'every launch is a host call: capture one step of both vectors once and replay it':
        '每次下发都是一次 Host 调用：把两个向量的一步捕获一次并重放',
    'each kernel must run after its load; read the results after the one synchronize':
        '每个核函数都必须在它的加载之后运行；在那一次同步之后再读取结果',
    'redo every batch whose result did not arrive (in stop-on-failure mode, the trapped batch and every one after it), on fresh buffers, and synchronise before reading':
        '在新的缓冲区上重做结果没有到达的每个批次（在停止模式下，是陷入异常的批次及其之后的每个批次），读取之前先同步',
    "the grader's baseline computed other outputs than the model":
        '评分器的基线算出的输出与模型不同',
    'pinned host buffers, asynchronous copies on the stream, and one wait after the last batch is queued':
        '锁页 Host 缓冲区、流上的异步拷贝，以及在最后一个批次入队之后的一次等待',
    'load batch i + 1 into the other buffer set on its own stream while the kernels of batch i run':
        '在批次 i 的核函数运行时，在另一条流上把批次 i + 1 加载到另一组缓冲区',
    'double buffer on every device and spread the batches over all four; queue everything before the first wait':
        '在每个设备上做双缓冲，并把批次分布到全部四个设备；在第一次等待之前放入所有任务',
    'the compute stream never waited for an event recorded on the copy stream':
        '计算流从未等待在拷贝流上记录的事件',
    'no graph was replayed':
        '没有重放任何图',
}

# -- what each exercise practises (sandbox.teach.exercises()) ---------------------------------------
PRACTISES = {
    'reading a result only after the host has learnt the copy finished':
        '只在 Host 得知拷贝已完成之后才读取结果',
    'a whole runtime program: initialise, device and stream, memory and copies, launch, one synchronize, clean-up in reverse order':
        '一个完整的运行时程序：初始化、设备和流、内存和内存拷贝、下发、一次同步、按相反顺序清理',
    'asynchronous calls return at once, so the host can do its own work while the device runs':
        '异步调用立即返回，因此设备运行时 Host 可以做自己的工作',
    'double buffering: chunks on two streams, ordered by events, so copies overlap compute':
        '双缓冲：数据块分在两条流上，用事件排序，使内存拷贝与计算重叠',
    'streams run independently: four kernels on four streams share the AI Cores at once':
        '流相互独立地运行：四条流上的四个核函数同时共享 AI Core',
    'aclrtRecordEvent / aclrtStreamWaitEvent: one stream waits for another on the device':
        'aclrtRecordEvent / aclrtStreamWaitEvent：在设备上让一条流等待另一条流',
    'event timing, and querying an event instead of synchronising while the host works':
        '用事件计时，并在 Host 工作时查询事件而不是同步',
    'what an allocation really reserves: padding, page size and the allocation policy':
        '一次分配实际占用多少：对齐填充、页大小和分配策略',
    'pinned host memory: an asynchronous copy that really is asynchronous, beside a kernel':
        '锁页内存：真正异步的异步拷贝，与核函数并行',
    'stream-ordered memory: reusing device memory step after step without stopping the host':
        '按流排序的内存：一步接一步地重用设备内存，而不让 Host 停下',
    'stream and event affinity: which calls may cross devices, and ordering two devices from the host':
        '流和事件的设备归属：哪些调用可以跨设备，以及从 Host 为两个设备排序',
    'peer access and device-to-device copies: one source, three links used at once':
        '设备间访问和设备到设备的内存拷贝：一个源，同时使用三条链路',
    'one-directional peer access: both directions enabled, both links used at once':
        '单向的设备间访问：开启两个方向，同时使用两条链路',
    'driving several devices from one host thread: switch with set_device, queue on every device before waiting for any':
        '用一个 Host 线程驱动多个设备：用 set_device 切换，在等待任何设备之前先向每个设备下发任务',
    'starting one host thread per device, set_device in that thread, joining them all':
        '每个设备启动一个 Host 线程，在该线程中调用 set_device，最后 join 全部线程',
    "sandbox.spawn_process: processes that share one device's AI Cores at the same time":
        'sandbox.spawn_process：同时共享一个设备 AI Core 的多个进程',
    'aclrtLaunchHostFunc: host work queued on the stream behind the copy it needs, one synchronize':
        'aclrtLaunchHostFunc：把 Host 工作排在流上它所需的内存拷贝之后，只同步一次',
    'aclrtLaunchCallback with a report thread: subscribe it, launch a callback per batch after its copy back, serve them with aclrtProcessReport, stop, join and unsubscribe':
        'aclrtLaunchCallback 与上报线程：订阅它，每个批次在拷回之后下发一个回调，用 aclrtProcessReport 处理回调，然后停止、join 并取消订阅',
    'capturing a step of small kernels once and replaying it, so the host makes one call per step':
        '把由小核函数组成的一步捕获一次再重放，使 Host 每步只调用一次',
    'capturing copies from pinned host memory with the kernels, and feeding a graph new data through the buffers it was captured with':
        '把来自锁页内存的内存拷贝与核函数一起捕获，并通过捕获时使用的缓冲区为图提供新数据',
    'cross-stream capture: a side stream joins the capture through an event and rejoins the origin before the end, so one replay runs both streams side by side':
        '跨流捕获：旁路流通过事件加入捕获，并在结束前汇合回原始流，使一次重放让两条流并行运行',
    'checking the code of a synchronize, and recovering from a stopped context: release, reset, set the device again, allocate, upload and redo':
        '检查同步的返回码，并从停止的上下文中恢复：释放、复位、重新设置设备、分配、上传并重做',
    "reading a hazard report and fixing it: events order a stream's work after another's, one synchronize before the host reads":
        '读懂数据竞争（hazard）报告并修正它：用事件让一条流的工作排在另一条流之后，在 Host 读取前同步一次',
    'steps 1 and 2 of the tuning: pinned host memory, copies on the stream, one synchronize':
        '调优的第 1、2 步：锁页内存、流上的内存拷贝、一次同步',
    "step 3: two buffer sets and two streams, so one batch's copy runs under another's kernels":
        '第 3 步：两组缓冲区和两条流，使一个批次的内存拷贝在另一个批次的核函数运行时进行',
    'the whole tuning: pinned memory, asynchronous copies, double buffering on every device, four devices busy at once':
        '完整的调优：锁页内存、异步拷贝、每个设备上的双缓冲，四个设备同时忙碌',
}

TEXTS = {**FRAME, **TITLES, **WHAT, **DETAILS, **HINTS, **PRACTISES}

PATTERNS = [
    # the headline of a verdict
    (r"passed, all (\d+) criteria met", "通过：全部 {} 项均满足"),
    (r"not yet: (\d+) of (\d+) criteri(?:on|a) not met", "尚未通过：{1} 项中有 {0} 项未满足"),
    # the solution ran
    (r"it returned an array of shape (.+) (\w+)", "返回了形状为 {} 的 {} 数组"),
    (r"it returned (None|a \w+)", "返回了 {}"),
    (r"it did not return within (\d+) s of real time", "在 {} 秒的真实时间内没有返回"),
    (r"it raised (\w+): (.*)", "抛出了 {}：{}"),
    (r"still running when the solution returned: (.*)", "解答返回时仍在运行：{}"),
    (r"judged below: (.*)", "见下文评判：{}"),
    # where the answer came from (grading.Run.from_device, .answer)
    (r"(.+) is what the device-to-host copies brought back; (.+)", "{}是设备到 Host 的拷贝带回的；{}"),
    (r"(.+) did not come from the device: (.+)", "{}不是来自设备：{}"),
    (r"(.+): a numpy array of shape (.+) and dtype (\w+)", "{}：形状为 {}、dtype 为 {} 的 numpy 数组"),
    (r"a numpy array of shape (.+) and dtype (\w+)", "形状为 {}、dtype 为 {} 的 numpy 数组"),
    # details with figures in them
    (r"no graph was replayed: the (\d+) (.+) were launched one by one", "没有重放任何图：{} 个{}是逐个下发的"),
    (r"(.+) of the (.+) that could overlap \((\d+%)(.*)\)", "可重叠的 {1} 中重叠了 {0}（{2}{3}）"),
    (r", summed over the devices", "，各设备求和"),
    (r"devices (.+) all busy for (.+)", "设备 {} 同时忙碌了 {}"),
    (r"(\d+) synchronize call\(s\), each after its thread had queued all its copies and kernels",
     "{} 次同步调用，每次都在其线程放入全部拷贝和核函数之后"),
    # generic detail shapes
    (r"all (\d+) values match", "全部 {} 个值一致"),
    (r"(\d+) of (\d+) values differ, first at \[(\d+)\]: (.*), want (.*)", "{1} 个值中有 {0} 个不同，第一个在 [{2}]：{3}，应为 {4}"),
    (r"shape (.*), want (.*)", "形状 {}，应为 {}"),
    (r"(\d+), first: (\S+) returned (\S+) \((\d+)\)", "{} 个，第一个：{} 返回 {}（{}）"),
    (r"(.*), want at most (.*)", "{}，应至多 {}"),
    (r"(.*), want at least (.*)", "{}，应至少 {}"),
    (r"(.*), want exactly (.*)", "{}，应恰好 {}"),
    (r"bytes moved (H2D|D2H|D2D|peer)", "{} 方向传输的字节"),
    (r"(.+) calls", "{} 调用"),
]
